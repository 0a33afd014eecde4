"""HELP (a topic for every command) and QUIT."""

from __future__ import annotations

import time

from commands.registry import Command, CommandError, Context
from server.text import bold, columns, counted, wrap

TOPICS = {
    "world": "Moving about", "talk": "Talking", "people": "People",
    "games": "Games", "settings": "Settings", "general": "General", "admin": "Admin",
}


def _help_text(cmd: Command, width: int, prefix: str = "") -> str:
    lines = [bold(f"Usage: {cmd.usage}")]
    if cmd.aliases:
        lines.append("Also: " + ", ".join(a.upper() for a in cmd.aliases))
    lines.extend(wrap(cmd.help, width))
    if cmd.subcommands:
        lines.append("")
        lines.append(f"{cmd.name.upper()} commands (HELP {cmd.name.upper()} <command> for more):")
        for sub in cmd.subcommands:
            lines.append(f"  {sub.usage}")
    return "\n".join(lines)


async def help_(ctx: Context, rest: str) -> None:
    registry = ctx.parlor.registry
    admin = ctx.session.is_admin
    width = ctx.session.width
    parts = rest.lower().split()
    if not parts:
        out = ["Commands (HELP <command> for details):"]
        by_topic: dict[str, list[str]] = {}
        for cmd in registry.visible(admin):
            by_topic.setdefault(cmd.topic, []).append(cmd.name.upper())
        for topic in list(TOPICS) + sorted(set(by_topic) - set(TOPICS)):
            if topic in by_topic:
                out.append(bold(TOPICS.get(topic, topic.title()) + ":"))
                out.extend("  " + row for row in columns(by_topic[topic], width - 2))
        ctx.send("\n".join(out))
        return
    cmd = registry.find(parts[0])
    if cmd is None or (cmd.admin and not admin):
        raise CommandError(f"There is no help on {parts[0]!r}. Type HELP for a list.")
    if len(parts) > 1 and cmd.subcommands:
        sub = cmd.sub(parts[1])
        if sub is None or (sub.admin and not admin):
            raise CommandError(f"{cmd.name.upper()} has no command {parts[1]!r}. "
                               f"Type HELP {cmd.name.upper()}.")
        cmd = sub
    ctx.send(_help_text(cmd, width))


QUIT_AGAIN = 60.0  # seconds a warned player has to confirm with QUIT again


async def quit_(ctx: Context, rest: str) -> None:
    """Leave; with a game in progress, only once warned (QUIT again, or QUIT YES)."""
    session = ctx.session
    playing = ctx.parlor.host.games_of(ctx.account.id) if ctx.account else []
    confirmed = rest.strip().lower() == "yes" or \
        time.monotonic() - session.quit_warned_at < QUIT_AGAIN
    if playing and not confirmed:
        session.quit_warned_at = time.monotonic()
        games = ", ".join(f"{g.kind.title} (game #{g.id})" for g in playing)
        grace = ctx.parlor.config.games.reconnect_grace
        ctx.send(f"You are playing {games}. If you leave, it waits for you (a person you "
                 f"play may CLAIM it after {counted(grace, 'second')}). Type QUIT again to leave.")
        return
    session.close("Goodbye. Come back soon to Esterport!")


COMMANDS = [
    Command("help", help_, "HELP [<command> [<subcommand>]]",
            "List the commands, or explain one.", aliases=("?",)),
    Command("quit", quit_, "QUIT [YES]", "Leave Esterport. Games in progress wait for you "
            "to come back (your opponent may CLAIM them after a grace period); with one in "
            "progress, QUIT warns first, and QUIT again (or QUIT YES) leaves.",
            aliases=("logout",)),
]
