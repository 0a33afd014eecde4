"""Who has sat in each game, as rows: ``game_players`` (account, game).

A player's games were found by reading the newest games' seats (JSON) and keeping those
with the player in them, so a player whose last game was older than the few hundred
newest had no last games in FINGER or on their page, no PYR SOLUTION and no rematch.
The table is filled here from every stored game's seats.

Revision ID: 0014_game_players
Revises: 0013_away_news_without_kind
Create Date: 2026-11-30
"""

import sqlalchemy as sa
from alembic import op

revision = "0014_game_players"
down_revision = "0013_away_news_without_kind"
branch_labels = None
depends_on = None

BATCH = 1000   # games read at a time


def upgrade() -> None:
    players = op.create_table(
        "game_players",
        sa.Column("account_id", sa.Integer, sa.ForeignKey("accounts.id"), primary_key=True),
        sa.Column("game_id", sa.Integer, sa.ForeignKey("games.id"), primary_key=True),
    )
    games = sa.table("games", sa.column("id", sa.Integer), sa.column("seats", sa.JSON))
    accounts = sa.table("accounts", sa.column("id", sa.Integer))
    bind = op.get_bind()
    known = set(bind.scalars(sa.select(accounts.c.id)))
    after = 0
    while True:
        rows = bind.execute(sa.select(games.c.id, games.c.seats).where(games.c.id > after)
                            .order_by(games.c.id).limit(BATCH)).all()
        if not rows:
            break
        pairs = {(seat["id"], game_id) for game_id, seats in rows for seat in seats or ()
                 if isinstance(seat, dict) and seat.get("id") in known}
        if pairs:
            op.bulk_insert(players, [{"account_id": a, "game_id": g} for a, g in sorted(pairs)])
        after = rows[-1][0]


def downgrade() -> None:
    op.drop_table("game_players")
