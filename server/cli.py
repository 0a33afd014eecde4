"""``esterport``: the one entry point for operators.

    esterport serve   [--config FILE] [--host H] [--port P] [--web-port P] [--database URL]
                      [--log-level L] [--redis URL --node NAME] [--trusted-proxy ADDR ...]
                      [--hold]
    esterport reload  [--config FILE] [--rolling]   (held parlors: new code and configuration)
    esterport migrate [--config FILE] [--database URL]
    esterport seed    [FILE ...]          (default: the shipped data files)
    esterport admin   grant|revoke|ban|unban NAME | cubits NAME AMOUNT | list | audit

The console script is ``commands/app.py`` (``python -m commands.app``): it calls
:func:`main` with the application factory (config -> Parlor), because the parlor's
commands live in ``commands/``, which ``server/`` does not import.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib
import logging
import os
import re
import signal
import sys
import tomllib
from pathlib import Path
from typing import TYPE_CHECKING, Callable

import attrs

from server.config import Config
from server.logs import LogRepeats

if TYPE_CHECKING:
    from server.app import Parlor
    from server.holder.tls_relay import TLSRelay

# config -> a parlor not yet started (``commands.app.assemble``)
App = Callable[[Config], "Parlor"]

log = logging.getLogger("esterport")


def _parser() -> argparse.ArgumentParser:
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--config", metavar="FILE",
                        help="configuration file (default: ./config.toml if it exists)")
    common.add_argument("--database", metavar="URL", help="database URL (overrides config)")
    common.add_argument("--log-level", metavar="LEVEL",
                        help="DEBUG, INFO, WARNING or ERROR (overrides config)")

    parser = argparse.ArgumentParser(prog="esterport", description="The Esterport games parlor.")
    sub = parser.add_subparsers(dest="command", required=True)
    serve = sub.add_parser("serve", parents=[common], help="run the telnet server")
    serve.add_argument("--host", help="address to listen on (overrides config)")
    serve.add_argument("--port", type=int, help="port to listen on (overrides config)")
    serve.add_argument("--web-port", type=int, metavar="P",
                       help="port of the web door (overrides [web] port; 0: any free port)")
    serve.add_argument("--redis", metavar="URL",
                       help="join a cluster through this Redis (overrides [cluster] redis)")
    serve.add_argument("--node", metavar="NAME",
                       help="this node's name in the cluster (overrides [cluster] node)")
    serve.add_argument("--trusted-proxy", metavar="ADDR", action="append",
                       help="a balancer (address or network) whose PROXY headers and "
                            "X-Forwarded-For are believed; repeat for more (overrides "
                            "[server] trusted_proxies)")
    serve.add_argument("--hold", action=argparse.BooleanOptionalAction, default=None,
                       help="keep every connection while the parlor restarts: a holder "
                            "process runs the parlor (the default; --no-hold: the parlor "
                            "alone, and a restart closes every connection; overrides "
                            "[server] hold)")
    reload_ = sub.add_parser("reload", parents=[common],
                             help="reload a held parlor's code and configuration (its "
                                  "holder's [server] pid_file gets SIGHUP); nobody is "
                                  "disconnected")
    reload_.add_argument("--rolling", action="store_true",
                         help="every node of the cluster ([cluster] redis), one after "
                              "another")
    sub.add_parser("migrate", parents=[common], help="upgrade the database schema")
    seed = sub.add_parser("seed", parents=[common], help="load data files (TOML) into the database")
    seed.add_argument("files", nargs="*", metavar="FILE",
                      help="data files (default: the shipped defaults)")
    admin = sub.add_parser("admin", parents=[common], help="administrative tasks")
    admin.add_argument("action", choices=["grant", "revoke", "ban", "unban", "cubits", "list",
                                          "audit"])
    admin.add_argument("args", nargs="*", metavar="ARG")
    return parser


def _config(ns: argparse.Namespace) -> Config:
    path = ns.config
    if path is None and os.path.exists("config.toml"):
        path = "config.toml"
    config = Config.load(path)
    config = config.with_overrides(
        host=getattr(ns, "host", None), port=getattr(ns, "port", None), database=ns.database,
        web_port=getattr(ns, "web_port", None), redis=getattr(ns, "redis", None),
        node=getattr(ns, "node", None))
    proxies = getattr(ns, "trusted_proxy", None)
    if proxies:
        config = attrs.evolve(config, server=attrs.evolve(config.server,
                                                          trusted_proxies=tuple(proxies)))
    config.check()
    return config


_UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]")


class LogSafety(logging.Filter):
    """Every record, whoever logs it (the parlor or a library such as telnetlib3, which
    logs what clients send: a terminal type, a bad negotiation), is written as one line
    with no control character: a CR LF could forge a line in the server's own format, an
    escape could drive the operator's terminal. Such characters are shown as ``\\xNN``
    escapes. Tracebacks (``exc_info``) are the server's own text and stay as they are."""

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except Exception:  # a broken format string must not lose the record
            message = f"{record.msg!r} {record.args!r}"
        if _UNSAFE.search(message):
            message = _UNSAFE.sub(lambda m: f"\\x{ord(m.group()):02x}" if ord(m.group()) < 256
                                  else f"\\u{ord(m.group()):04x}", message)
        record.msg, record.args = message, ()
        return True


class LogThrottle(logging.Filter):
    """At most ``burst`` records a ``window`` (seconds) of each kind (logger and message
    template) from loggers under ``prefix``; connects and disconnects always pass.

    telnetlib3 logs a malformed negotiation (a truncated NAWS, a GMCP message nested too
    deep to decode) as a warning traceback, and telnet commands are not commands to the
    parlor's rate limit: a hostile client could fill the log at socket speed. Throttling
    each kind on its own means one client's flood of one complaint never hides another
    connection's records. The excess is dropped and counted; the next record of that kind
    let through says how many were."""

    ALWAYS = ("Connection from", "Connection closed", "Connection lost")

    def __init__(self, prefix: str, burst: int = 50, window: float = 10.0,
                 kinds: int = 256) -> None:
        super().__init__()
        self.prefix, self.burst, self.window, self.kinds = prefix, burst, window, kinds
        self._counts: dict[tuple[str, str], list] = {}  # kind -> [started, passed, dropped]

    def filter(self, record: logging.LogRecord) -> bool:
        if not record.name.startswith(self.prefix):
            return True
        template = str(record.msg)
        if template.startswith(self.ALWAYS):
            return True
        key = (record.name, template[:80])
        entry = self._counts.get(key)
        if entry is None:
            if len(self._counts) >= self.kinds:  # bounded: forget the oldest kinds
                for old in list(self._counts)[: self.kinds // 4]:
                    del self._counts[old]
            entry = self._counts[key] = [record.created, 0, 0]
        if record.created - entry[0] >= self.window:
            entry[0], entry[1] = record.created, 0
            if entry[2]:
                record.msg = f"({entry[2]} earlier {self.prefix} records dropped) {record.msg}"
                entry[2] = 0
        entry[1] += 1
        if entry[1] > self.burst:
            entry[2] += 1
            return False
        return True


def install_log_filters(handler: logging.Handler, repeats: int = 20,
                        window: float = 10.0) -> None:
    """The filters every log handler of the server gets: telnetlib3's throttle, then
    repeated records summed up (``server/logs.py``), then safety."""
    handler.addFilter(LogThrottle("telnetlib3"))
    handler.addFilter(LogRepeats(handler, repeats, window))
    handler.addFilter(LogSafety())


def _logging(level: str, repeats: int = 20, window: float = 10.0) -> None:
    logging.basicConfig(
        stream=sys.stderr, level=getattr(logging, level.upper(), logging.INFO),
        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    logging.getLogger("alembic").setLevel(max(logging.WARNING, logging.root.level))
    for handler in logging.root.handlers:
        install_log_filters(handler, repeats, window)


def main(argv: list[str] | None = None, app: App | None = None) -> int:
    """Run one command line. ``serve`` and ``seed`` need ``app``, the application factory
    (``commands/app.py`` passes it); ``migrate`` and ``admin`` do not."""
    ns = _parser().parse_args(argv)
    if app is None and ns.command in ("serve", "seed"):
        print(f"esterport: run {ns.command} with `esterport` or `python -m commands.app`",
              file=sys.stderr)
        return 2
    try:
        config = _config(ns)
    except (OSError, ValueError, tomllib.TOMLDecodeError) as err:
        print(f"esterport: {err}", file=sys.stderr)
        return 2
    _logging(ns.log_level or config.server.log_level, config.server.log_repeats,
             config.server.log_window)
    try:
        if ns.command == "serve":
            from server.holder.process import ENVIRON

            held = config.server.hold if ns.hold is None else ns.hold
            if held and ENVIRON not in os.environ:
                return asyncio.run(hold(config, ns, argv))
            return asyncio.run(serve(config, app))
        if ns.command == "reload":
            if ns.rolling:
                if not config.cluster.enabled:
                    print("esterport: --rolling reloads a cluster's nodes: give [cluster] "
                          "redis", file=sys.stderr)
                    return 2
                from server.cluster import reload_nodes

                return asyncio.run(reload_nodes(
                    config.cluster.redis, say=lambda line: print(line, file=sys.stderr)))
            return reload(config)
        if ns.command == "migrate":
            return asyncio.run(migrate(config))
        if ns.command == "seed":
            return asyncio.run(seed(config, app, ns.files))
        return asyncio.run(admin(config, ns.action, ns.args))
    except KeyboardInterrupt:
        return 130


def _assemble(config: Config, app: App) -> "Parlor | None":
    """``app(config)``, or None once told why not: a game reads its own settings
    (``[games.<key>]``) as it is made."""
    try:
        return app(config)
    except ValueError as err:
        print(f"esterport: {err}", file=sys.stderr)
        return None


async def hold(config: Config, ns: argparse.Namespace, argv: list[str] | None) -> int:
    """``serve --hold``: the holder binds the listeners and runs the parlor as its child
    (``server/holder``); it returns when it is stopped, or when the parlor stops for good."""
    from server.holder.process import Holder, listener

    cfg = config.server
    listeners = {}
    relays = []
    try:
        listeners["telnet"] = listener(cfg.host, cfg.port, cfg.backlog)
        if config.web.enabled:
            listeners["web"] = listener(config.web.host, config.web.port, cfg.backlog)
        # the holder ends TLS, so TLS players and HTTPS pages stay through restarts too
        if cfg.tls_port:
            relays.append(_tls_relay("telnet", cfg, cfg.host, cfg.tls_port, "tls", listeners))
        if config.web.enabled and config.web.tls_port:
            relays.append(_tls_relay("HTTPS", cfg, config.web.host, config.web.tls_port,
                                     "https", listeners))
    except (OSError, ValueError) as err:  # ValueError: a certificate or key that will not do
        for sock in listeners.values():
            sock.close()
        for relay in relays:
            relay.discard()
        why = f"cannot listen: {err.strerror or err}" if isinstance(err, OSError) else err
        print(f"esterport: {why}", file=sys.stderr)
        return 1
    args = list(sys.argv[1:] if argv is None else argv)
    holder = Holder([sys.executable, "-m", "commands.app", *args], listeners,
                    check=lambda: _config(ns), pid_file=config.pid_path, spare=cfg.hold_spare,
                    relays=relays)
    return await holder.run()


def _tls_relay(what: str, cfg, host: str, port: int, name: str,  # noqa: ANN001
               listeners: dict) -> "TLSRelay":
    """A TLS port in a held parlor (``[server] tls_port``, ``[web] tls_port``): the
    holder's listener on ``host``:``port``, and the relay listener (``listeners[name]``)
    the parlor serves its plain side on."""
    from server.holder.process import listener
    from server.holder.tls_relay import TLSRelay, relay_listener
    from server.tls import HANDSHAKE_TIMEOUT, server_context

    context = server_context(cfg.tls_certificate, cfg.tls_key)  # TLSError, one line
    public = listener(host, port, cfg.backlog)
    try:
        listeners[name], path = relay_listener(cfg.backlog)
    except OSError:
        public.close()
        raise
    return TLSRelay(what, public, context, path, HANDSHAKE_TIMEOUT)


def reload(config: Config) -> int:
    """``esterport reload``: SIGHUP to the holder named in ``[server] pid_file``."""
    path = config.pid_path
    try:
        with open(path) as pid_file:
            pid = int(pid_file.read().split()[0])
        os.kill(pid, signal.SIGHUP)
    except (OSError, ValueError, IndexError) as err:
        print(f"esterport: no held parlor to reload ({path}: "
              f"{getattr(err, 'strerror', None) or err})", file=sys.stderr)
        return 1
    print(f"esterport: reloading the parlor held by process {pid}", file=sys.stderr)
    return 0


async def serve(config: Config, app: App) -> int:
    parlor = _assemble(config, app)
    if parlor is None:
        return 2
    from server.holder.link import HolderError, HolderLink

    try:
        parlor.holder = HolderLink.from_environ()
    except HolderError as err:
        print(f"esterport: {err}", file=sys.stderr)
        return 2
    if parlor.holder is not None and config.web.enabled:
        # a held parlor loads while the one before it serves: the web door's code too, so
        # that carrying on the /play sockets it is handed loads nothing in the gap
        importlib.import_module("server.web.play")
    try:
        await parlor.start()
    except OSError as err:
        print(f"esterport: cannot listen on {config.server.host}:{config.server.port}: "
              f"{err.strerror or err}", file=sys.stderr)
        await parlor.db.close()
        return 1
    await parlor.settled()  # a restart's players are back before anything else is done
    await parlor.load_default_data()
    for kind in parlor.host.kinds.values():  # e.g. which Pyramid solver runs
        for level, line in kind.notes():
            log.log(level, "%s", line)
    if config.web.enabled:
        from server.web import WebDoor, WebDoorError  # the web door (pages, /play)

        door = WebDoor(parlor)
        try:
            await door.start()
        except WebDoorError as err:  # telnet still serves: the parlor is up, its web door not
            print(f"esterport: the web door {err}; serving telnet only (choose a free port "
                  f"with --web-port or [web] port)", file=sys.stderr, flush=True)
        else:
            print(f"The web door is open: point a browser at {door.url}", file=sys.stderr,
                  flush=True)
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        try:
            loop.add_signal_handler(sig, lambda: asyncio.ensure_future(parlor.stop()))
        except NotImplementedError:  # no signal handlers in this event loop (Windows):
            pass                     # Ctrl-C still ends the process, @SHUTDOWN stops cleanly
    print(f"Esterport is listening on {config.server.host}:{parlor.port}. "
          f"Connect with: telnet {config.server.host} {parlor.port}", file=sys.stderr, flush=True)
    await parlor.stopped.wait()
    log.info("stopped")
    return 0


async def migrate(config: Config) -> int:
    from server.db import Database

    db = Database(config.database.url)
    await db.migrate()
    await db.close()
    print("database is at the newest schema")
    return 0


async def seed(config: Config, app: App, files: list[str]) -> int:
    parlor = _assemble(config, app)
    if parlor is None:
        return 2
    await parlor.db.migrate()
    try:
        paths = [Path(f) for f in files] or None
        for line in await parlor.seed(paths):
            print(line)
    except (OSError, ValueError, tomllib.TOMLDecodeError) as err:
        print(f"esterport seed: {err}", file=sys.stderr)
        return 1
    finally:
        await parlor.db.close()
    return 0


async def admin(config: Config, action: str, args: list[str]) -> int:
    from server.db import Database
    from server.services import ledger
    from server.services.accounts import AccountError, Accounts

    db = Database(config.database.url)
    await db.migrate()
    accounts = Accounts(db, config.accounts.starting_cubits)
    try:
        wanted = {"grant": 1, "revoke": 1, "ban": 1, "unban": 1, "cubits": 2, "list": 0, "audit": 0}
        if len(args) != wanted[action]:
            print(f"esterport admin {action}: expected {wanted[action]} argument(s)", file=sys.stderr)
            return 2
        if action in ("grant", "revoke"):
            acc = await accounts.set_admin(args[0], action == "grant")
            print(f"{acc.name} is {'now' if action == 'grant' else 'no longer'} an admin")
        elif action in ("ban", "unban"):
            acc = await accounts.set_banned(args[0], action == "ban")
            print(f"{acc.name} is {'banned' if action == 'ban' else 'no longer banned'}")
        elif action == "cubits":
            acc = await accounts.get(args[0])
            if acc is None:
                raise AccountError(f"No account named {args[0]}.")
            async with db.session() as tx:
                balance = await ledger.move(tx, acc.id, int(args[1]), "admin grant", "command line")
                await tx.commit()
            print(f"{acc.name} has {balance} cubits")
        elif action == "list":
            import sqlalchemy as sa

            from server.models import Account
            async with db.session() as tx:
                for name in await tx.scalars(sa.select(Account.name).where(Account.is_admin)):
                    print(name)
        elif action == "audit":
            async with db.session() as tx:
                wrong = await ledger.audit(tx)
            for name, cached, total in wrong:
                print(f"{name}: balance {cached} but ledger {total}")
            print("ledger OK" if not wrong else f"{len(wrong)} account(s) disagree")
            return 1 if wrong else 0
        return 0
    except (AccountError, ledger.InsufficientCubits, ValueError) as err:
        print(f"esterport admin: {err}", file=sys.stderr)
        return 1
    finally:
        await db.close()


if __name__ == "__main__":
    sys.exit(main())
