"""The holder: the process that keeps players' connections while the parlor restarts.

``esterport serve --hold`` (or ``[server] hold = true``) starts two processes. The
*holder* binds the listening sockets and starts the *parlor* as its child; the parlor
accepts connections on those sockets and runs everything else (telnet negotiation, logins,
commands, games, the web door) exactly as a lone ``esterport serve`` does. For every
telnet connection it accepts, the parlor hands the holder a duplicate of the socket's
descriptor (``SCM_RIGHTS`` over a Unix socket pair, :mod:`server.holder.channel`) and tells
it what a new parlor needs to carry the session on (:mod:`server.holder.messages`: the
account logged in, the window, the terminal, GMCP). No byte of play passes through the
holder: it only keeps a reference to each socket, so the kernel keeps the connection open
whatever becomes of the parlor.

When the parlor ends (a reload, SIGHUP or ``esterport reload``; or a crash, kill -9
included) the holder starts a new one and hands it every socket with its state; the new
parlor carries each session on without a login. What a player types meanwhile waits in
the kernel's buffer of their socket and runs once the new parlor reads it, in order,
exactly once; the holder tells each player who types in the gap that the parlor is
restarting (:mod:`server.holder.process`). Only the end of the holder itself ends the
connections. The design and its reasons: docs/design.md, "Restarts".
"""
