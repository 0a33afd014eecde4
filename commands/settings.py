"""Per-player settings, kept on the account: SET COLOR, SET WIDTH."""

from __future__ import annotations

from commands import args
from commands.registry import Command, Context, UsageError


async def set_(ctx: Context, rest: str) -> None:
    parts = args.words(rest, 0, 2)
    me = ctx.session
    if not parts:
        width = f"{me.width} (from your client)" if not me._width else str(me.width)
        ctx.send(f"COLOR {'ON' if me.color else 'OFF'}, WIDTH {width}.")
        return
    if len(parts) != 2:
        raise UsageError()
    key, value = parts[0].lower(), parts[1].lower()
    if key in ("color", "colour"):
        if value not in ("on", "off"):
            raise UsageError("COLOR is ON or OFF.")
        me.color = value == "on"
        await ctx.parlor.accounts.set_setting(me.account.id, "color", me.color)
        ctx.send(f"Color is now {value.upper()}.")
    elif key == "width":
        if value == "auto":
            me.width = None
            await ctx.parlor.accounts.set_setting(me.account.id, "width", None)
            ctx.send(f"Width follows your client ({me.width} columns).")
            return
        width = args.whole_number(value, what="width", least=40, most=250)
        me.width = width
        await ctx.parlor.accounts.set_setting(me.account.id, "width", width)
        ctx.send(f"Width is now {width} columns.")
    else:
        raise UsageError(f"There is no setting {parts[0]!r}.")


COMMANDS = [
    Command("set", set_, "SET [COLOR ON|OFF | WIDTH <40..250>|AUTO]",
            "Show or change your settings: ANSI color, and the width text is laid out to "
            "(your client's window width by default).", topic="settings"),
]
