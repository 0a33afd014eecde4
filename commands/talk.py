"""Talking: SAY, EMOTE, TELL, REPLY and the public CHAT channel.

Whatever a player says reaches other players only through ``clean()`` (the session's
input cleaning), so it cannot carry escape sequences.
"""

from __future__ import annotations

from commands import args
from commands.registry import Command, CommandError, Context, UsageError
from server.bus import Event
from server.text import clean, collapse, paint

MAX_MESSAGE = 1000


def _text(rest: str) -> str:
    text = collapse(clean(rest, max_len=MAX_MESSAGE))
    if not text:
        raise UsageError()
    return text


async def say(ctx: Context, rest: str) -> None:
    text = _text(rest)
    me = ctx.session
    ctx.send(f'You say, "{text}"')
    ctx.publish(f"room:{me.room}", Event("say", {
        "text": f'{me.name} says, "{text}"', "from": me.account.id, "exclude": me.account.id}))


async def emote(ctx: Context, rest: str) -> None:
    text = _text(rest)
    me = ctx.session
    joined = "" if text.startswith(("'", ",", ":")) else " "  # "Bob's hat", not "Bob 's hat"
    line = f"{me.name}{joined}{text}"
    ctx.send(line)
    ctx.publish(f"room:{me.room}", Event("emote", {
        "text": line, "from": me.account.id, "exclude": me.account.id}))


async def _tell(ctx: Context, name: str, text: str) -> None:
    me = ctx.session
    target = await args.online(ctx, name)  # here, or on another node
    if target.account_id == me.account.id:
        raise CommandError("Talking to yourself?")
    if await ctx.accounts.is_ignoring(target.account_id, me.account.id):
        raise CommandError(f"{target.name} is ignoring you.")
    ctx.publish(f"account:{target.account_id}", Event("tell", {
        "text": paint(f"{me.name} tells you: {text}", "magenta"),
        "from": me.account.id, "from_name": me.name}))
    ctx.send(f"You tell {target.name}: {text}")


async def tell(ctx: Context, rest: str) -> None:
    name, _, text = rest.partition(" ")
    if not name or not text.strip():
        raise UsageError()
    await _tell(ctx, name, _text(text))


async def reply(ctx: Context, rest: str) -> None:
    if not ctx.session.reply_to:
        raise CommandError("Nobody has told you anything yet.")
    await _tell(ctx, ctx.session.reply_to, _text(rest))


async def chat(ctx: Context, rest: str) -> None:
    text = _text(rest)
    me = ctx.session
    ctx.publish("chat", Event("chat", {
        "text": paint(f"[chat] {me.name}: {text}", "yellow"), "from": me.account.id}))


COMMANDS = [
    Command("say", say, "SAY <text>", "Say something to everyone in the room. "
            "A leading ' or \" does the same.", topic="talk"),
    Command("emote", emote, "EMOTE <action>", "Act something out: EMOTE grins shows "
            "'Alice grins' to the room. A leading : does the same.", aliases=("me",),
            topic="talk"),
    Command("tell", tell, "TELL <person> <text>", "Say something privately to a connected "
            "player, wherever they are.", aliases=("t",), topic="talk"),
    Command("reply", reply, "REPLY <text>", "Answer the last person who told you something.",
            aliases=("r",), topic="talk"),
    Command("chat", chat, "CHAT <text>", "Talk on the public channel everyone hears.",
            aliases=("ch",), topic="talk"),
]
