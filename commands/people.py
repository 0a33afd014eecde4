"""Who is about: WHO, FINGER, IGNORE, UNIGNORE."""

from __future__ import annotations

import time

from commands import args, notify
from commands.registry import Command, CommandError, Context
from server.services.ratings import pool_title, rating_text
from server.text import ago, bold, counted


MAX_WHO = 50  # rows WHO prints; WHO <prefix> narrows a long list


WHO_FRESH = 1.0  # seconds a WHO listing is reused (its Idle column counts in seconds)


async def who(ctx: Context, rest: str) -> None:
    parts = args.words(rest, 0, 1)
    prefix = parts[0].lower() if parts else ""
    # In a crowd many players type WHO each second; the listing is the same for all of
    # them until someone arrives or leaves, so it is built once a second at most.
    key = f"{prefix}\0reader" if ctx.session.screenreader else prefix  # a list, not a table
    cached = ctx.who_cache.get(key)
    now = time.monotonic()
    if cached is None or now - cached[0] > WHO_FRESH:
        cached = (now, _who_listing(ctx, prefix, parts[0] if parts else ""))
        if len(ctx.who_cache) > 1000:  # many different prefixes: start afresh
            ctx.who_cache.clear()
        ctx.who_cache[key] = cached
    ctx.send(cached[1])


def _who_listing(ctx: Context, prefix: str, typed: str) -> str:
    everyone = ctx.online_count()
    sessions, matching = ctx.named_from(prefix, MAX_WHO)
    rows = []
    for s in sessions:
        games = ", ".join(f"#{g.id} {g.kind.prefix}" for g in ctx.host.games_of(s.account_id))
        flags = "admin" if s.is_admin else ""
        rows.append([s.name, ctx.world.rooms[s.room].name, f"{int(s.idle())}s",
                     games or "-", flags])
    lines = ctx.table(["Name", "Where", "Idle", "Playing", ""], rows)
    if matching > len(sessions):
        lines.append(f"... and {matching - len(sessions)} more (WHO <name prefix> narrows the "
                     "list).")
    if prefix:
        lines.append(f"{matching} of {everyone} connected players match {typed!r}.")
    else:
        lines.append(f"{everyone} player{'s' if everyone != 1 else ''} connected.")
    return "\n".join(lines)


async def finger(ctx: Context, rest: str) -> None:
    name = args.words(rest, 0, 1)
    # one's own account read afresh too (the session's copy does not follow the ledger)
    acc = await args.account(ctx, name[0] if name else ctx.account.name)
    online = ctx.online(acc.id)
    lines = [bold(acc.name) + (" (admin)" if acc.is_admin else "")
             + (" (computer)" if acc.is_computer else "")]
    if online:
        lines.append(f"Online now, idle {counted(int(online.idle()), 'second')}, in "
                     f"{ctx.world.rooms[online.room].name}.")
    elif acc.last_seen_at:
        lines.append(f"Last seen {ago(time.time() - acc.last_seen_at)}.")
    else:
        lines.append("Never seen.")
    lines.append(f"Member since {time.strftime('%Y-%m-%d', time.gmtime(acc.created_at))}. "
                 f"Cubits: {acc.cubits}.")
    ratings = await ctx.ratings.for_account(acc.id)
    if ratings:
        rows = []
        titles = {key: kind.title for key, kind in ctx.host.kinds.items()}
        for r in ratings:
            rows.append([pool_title(titles, r.kind), rating_text(r.rating, r.rd),
                         f"{r.ranked_wins}-{r.ranked_losses}-{r.ranked_draws}",
                         f"{r.unranked_wins}-{r.unranked_losses}-{r.unranked_draws}"])
        lines.extend(ctx.table(["Game", "Rating", "Ranked W-L-D", "Unranked W-L-D"], rows))
    else:
        lines.append("No games played yet.")
    for game in ctx.host.games_of(acc.id):
        lines.append(f"Playing {game.title}.")
    lines.extend(await notify.finger_more(ctx, acc))  # notes, last games of each game
    ctx.send("\n".join(lines))


async def ignore(ctx: Context, rest: str) -> None:
    parts = args.words(rest, 0, 1)
    me = ctx.session
    if not parts:
        if not me.ignoring:
            ctx.send("You are ignoring nobody.")
            return
        names = await ctx.accounts.names(sorted(me.ignoring))
        ctx.send("You are ignoring: " + ", ".join(sorted(names.values())) + ".")
        return
    other = await args.account(ctx, parts[0])
    if other.id == me.account.id:
        raise CommandError("You cannot ignore yourself.")
    if other.id in me.ignoring:
        raise CommandError(f"You are already ignoring {other.name}. (UNIGNORE {other.name} "
                           "to stop.)")
    await ctx.accounts.set_ignore(me.account.id, other.id, True)
    me.ignoring = me.ignoring | {other.id}
    ctx.send(f"You now ignore {other.name}: no tells, says, chat or challenges from them.")


async def unignore(ctx: Context, rest: str) -> None:
    parts = args.words(rest, 1, 1)
    other = await args.account(ctx, parts[0])
    me = ctx.session
    if other.id not in me.ignoring:
        raise CommandError(f"You are not ignoring {other.name}.")
    await ctx.accounts.set_ignore(me.account.id, other.id, False)
    me.ignoring = me.ignoring - {other.id}
    ctx.send(f"You no longer ignore {other.name}.")


COMMANDS = [
    Command("who", who, "WHO [<name prefix>]", "List the players connected now, where they "
            "are and what they play (the first 50; a prefix narrows the list).",
            topic="people"),
    Command("finger", finger, "FINGER [<person>]", "Show a player, connected or not: last "
            "seen, cubits, ratings and records in every game.", aliases=("f",),
            topic="people"),
    Command("ignore", ignore, "IGNORE [<person>]", "Block a player's tells, says, chat and "
            "challenges; IGNORE alone lists whom you ignore.", topic="people"),
    Command("unignore", unignore, "UNIGNORE <person>", "Stop ignoring a player.",
            topic="people"),
]

