"""Admin commands (the ``@`` verbs). A player who is not an admin gets "Huh?", as for
any unknown word: the registry hides these from them entirely."""

from __future__ import annotations

from commands import args
from commands.registry import Command, CommandError, Context, UsageError
from server.services import ledger
from server.text import clean


async def kick(ctx: Context, rest: str) -> None:
    name, _, reason = rest.partition(" ")
    if not name:
        raise UsageError()
    target = await args.online(ctx, name)
    reason = clean(reason).strip()
    ctx.log_admin(f"kick {target.name} {reason}")
    target.close(f"You have been disconnected by an admin{': ' + reason if reason else ''}.")
    ctx.send(f"{target.name} has been kicked.")


async def ban(ctx: Context, rest: str) -> None:
    name, _, reason = rest.partition(" ")
    if not name:
        raise UsageError()
    acc = await args.account(ctx, name)
    if acc.id == ctx.account.id:
        raise CommandError("You cannot ban yourself.")
    reason = reason.strip()
    await ctx.accounts.set_banned(acc.name, True)
    # kept with the account's settings (told at every login attempt: server/login.py)
    await ctx.accounts.set_setting(acc.id, "ban_reason", reason or None)
    ctx.log_admin(f"ban {acc.name} {reason}")
    target = ctx.online(acc.id)
    if target is not None:
        target.close("You have been banned from Esterport"
                     + (f": {reason}." if reason else "."))
    ctx.send(f"{acc.name} is banned.")


async def unban(ctx: Context, rest: str) -> None:
    acc = await args.account(ctx, args.words(rest, 1, 1)[0])
    await ctx.accounts.set_banned(acc.name, False)
    await ctx.accounts.set_setting(acc.id, "ban_reason", None)
    ctx.log_admin(f"unban {acc.name}")
    ctx.send(f"{acc.name} may log in again.")


async def shutdown(ctx: Context, rest: str) -> None:
    word, _, more = rest.strip().partition(" ")
    if word.lower() == "node":  # one node of a cluster: its players reconnect elsewhere
        node, _, reason = more.strip().partition(" ")
        if not node:
            raise UsageError()
        reason = clean(reason).strip()
        ctx.log_admin(f"shutdown node {node} {reason}")
        ctx.send(f"Shutting down node {node}.")
        ctx.request_shutdown(f"{ctx.account.name} is restarting this part of Esterport"
                             + (f" ({reason})" if reason else "")
                             + ". Connect again: you will be put through to another part, "
                             "and your games are waiting.", node=node)
        return
    reason = clean(rest).strip()
    ctx.log_admin(f"shutdown {reason}")
    ctx.send("Shutting down.")
    ctx.request_shutdown(f"{ctx.account.name} is shutting Esterport down"
                         + (f": {reason}" if reason else "") + ".")


async def cubits(ctx: Context, rest: str) -> None:
    parts = args.words(rest, 2, 2)
    acc = await args.account(ctx, parts[0])
    amount = args.whole_number(parts[1], what="amount", least=-10**9, most=10**9)
    if amount == 0:
        raise CommandError("Granting 0 cubits changes nothing.")
    async with ctx.db.session() as tx:
        try:
            balance = await ledger.move(tx, acc.id, amount, "admin grant", f"by {ctx.account.name}")
        except ledger.InsufficientCubits as err:
            raise CommandError(f"{acc.name} has only {err.balance} cubits.") from None
        await tx.commit()
    ctx.log_admin(f"cubits {acc.name} {amount}")
    ctx.send(f"{acc.name} now has {balance} cubits.")
    ctx.tell(acc.id, f"An admin {'grants you' if amount > 0 else 'takes'} "
                     f"{abs(amount)} cubits. You have {balance}.")


async def audit(ctx: Context, rest: str) -> None:
    args.words(rest, 0, 0)
    async with ctx.db.session() as tx:
        wrong = await ledger.audit(tx)
    if not wrong:
        ctx.send("Every balance equals its ledger.")
    for name, cached, total in wrong:
        ctx.send(f"{name}: balance {cached}, ledger {total}")


COMMANDS = [
    Command("@kick", kick, "@KICK <person> [<reason>]", "Disconnect a player (they may log "
            "in again at once).", admin=True, topic="admin", example="@KICK Bob flooding"),
    Command("@ban", ban, "@BAN <person> [<reason>]", "Ban an account (and disconnect it); "
            "the reason is told at each of its login attempts.", admin=True, topic="admin",
            example="@BAN Bob cheating"),
    Command("@unban", unban, "@UNBAN <person>", "Lift a ban.", admin=True, topic="admin",
            example="@UNBAN Bob"),
    Command("@shutdown", shutdown, "@SHUTDOWN [NODE <node>] [<reason>]", "Tell everyone, "
            "save everything and stop the server (exit status 0); in a cluster every node, "
            "or with NODE only that one (its players connect again to another).",
            admin=True, topic="admin", example="@SHUTDOWN back in five minutes"),
    Command("@cubits", cubits, "@CUBITS <person> <amount>", "Grant cubits (negative takes "
            "them); a ledger entry records it.", admin=True, topic="admin",
            example="@CUBITS Bob 500"),
    Command("@audit", audit, "@AUDIT", "Check every cubit balance against the ledger.",
            admin=True, topic="admin", example="@AUDIT"),
]
