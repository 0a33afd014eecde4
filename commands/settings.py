"""Per-player settings, kept on the account: SET COLOR, WIDTH, HEIGHT, SCREENREADER, BOARD."""

from __future__ import annotations

from commands import args, notify, seeks
from commands.registry import Command, Context, UsageError

SIZES = {"width": (40, 250, "columns"), "height": (10, 200, "rows")}
BOARDS = {
    "full": "Board FULL: the whole board when you must move, when you ask, and at the "
            "start and end.",
    "compact": "Board COMPACT: only what changed, in a few lines (the whole board at the "
               "start and when you ask: <GAME> DISPLAY).",
    "off": "Board OFF: one line per move, and the board only when you ask (<GAME> "
           "DISPLAY).",
}


def _show(me) -> str:  # noqa: ANN001
    width = f"{me.width} (from your client)" if not me._width else str(me.width)
    height = f"{me.height} (from your client)" if not me._height else str(me.height)
    return (f"COLOR {'ON' if me.color else 'OFF'}, WIDTH {width}, HEIGHT {height}, "
            f"SCREENREADER {'ON' if me.screenreader else 'OFF'}, BOARD {me.board.upper()}.")


MORE = {**seeks.SETTINGS, **notify.SETTINGS}  # settings of many words (SET FORMULA …)

async def set_(ctx: Context, rest: str) -> None:
    word, _, value = rest.partition(" ")
    if word.lower() in MORE:
        return await MORE[word.lower()](ctx, value.strip())
    parts = args.words(rest, 0, 2)
    me = ctx.session
    if not parts:
        ctx.send(_show(me))
        return
    if len(parts) != 2:
        raise UsageError()
    key, value = parts[0].lower(), parts[1].lower()
    save = ctx.accounts.set_setting
    if key in ("color", "colour", "screenreader"):
        if value not in ("on", "off"):
            raise UsageError(f"{key.upper()} is ON or OFF.")
        on = value == "on"
        if key == "screenreader":
            me.screenreader = on
            await save(me.account.id, "screenreader", on)
            ctx.send("Screen reader mode is now ON: boards are read out as short lines, "
                     "with no drawings." if on else "Screen reader mode is now OFF.")
            return
        me.color = on
        await save(me.account.id, "color", on)
        ctx.send(f"Color is now {value.upper()}.")
    elif key == "board":
        if value not in BOARDS:
            raise UsageError("BOARD is FULL, COMPACT or OFF.")
        me.board = value
        await save(me.account.id, "board", value)
        ctx.send(BOARDS[value])
    elif key in SIZES:
        least, most, unit = SIZES[key]
        if value == "auto":
            setattr(me, key, None)
            await save(me.account.id, key, None)
            ctx.send(f"{key.capitalize()} follows your client ({getattr(me, key)} {unit}).")
            return
        size = args.whole_number(value, what=key, least=least, most=most)
        setattr(me, key, size)
        await save(me.account.id, key, size)
        ctx.send(f"{key.capitalize()} is now {size} {unit}.")
    else:
        raise UsageError(f"There is no setting {parts[0]!r}.")


# every word SET takes (HELP SET lists them, HELP <word> explains it)
WORDS = ("color", "width", "height", "screenreader", "board", *MORE)

COMMANDS = [
    Command("set", set_, "SET [COLOR ON|OFF | WIDTH <40..250>|AUTO | HEIGHT <10..200>|AUTO "
            "| SCREENREADER ON|OFF | BOARD FULL|COMPACT|OFF | NOTE <1-10> [<text>] "
            "| FORMULA [<expression>|OFF]]",
            "Show or change your settings: ANSI color; the width text is laid out to and "
            "the height of your screen (your client's window by default); screen reader "
            "mode (boards read out as short lines, no drawings); how much of a game's "
            "board you are sent: FULL (the whole board when you must move), COMPACT (what "
            "changed, in a few lines), OFF (one line per move; <GAME> DISPLAY shows the "
            "board); NOTE: up to ten lines FINGER shows under your name (no text removes "
            "one); FORMULA: who may challenge you or see your seeks (HELP FORMULA).",
            topic="settings"),
]
