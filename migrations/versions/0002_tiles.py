"""Triptycha tiles: collections, designs, discs, tile instances, their log, the starter set.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-23
"""

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "tile_collections",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("name", sa.String(40), nullable=False),
        sa.Column("name_key", sa.String(40), nullable=False, unique=True),
        sa.Column("description", sa.String(400), nullable=False),
        sa.Column("price", sa.Integer, nullable=True),
        sa.Column("disc_min", sa.Integer, nullable=False),
        sa.Column("disc_max", sa.Integer, nullable=False),
        sa.Column("created_at", sa.Float, nullable=False),
    )
    op.create_table(
        "tile_designs",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("collection_id", sa.Integer, sa.ForeignKey("tile_collections.id"),
                  nullable=False),
        sa.Column("name", sa.String(60), nullable=False),
        sa.Column("name_key", sa.String(60), nullable=False),
        sa.Column("rarity", sa.String(10), nullable=False),
        sa.Column("corner_t", sa.Integer, nullable=False),
        sa.Column("corner_bl", sa.Integer, nullable=False),
        sa.Column("corner_br", sa.Integer, nullable=False),
        sa.Column("centre", sa.Integer, nullable=False),
        sa.Column("created_at", sa.Float, nullable=False),
        sa.UniqueConstraint("collection_id", "name_key"),
    )
    op.create_index("ix_tile_designs_collection_id", "tile_designs", ["collection_id"])
    op.create_table(
        "discs",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("collection_id", sa.Integer, sa.ForeignKey("tile_collections.id"),
                  nullable=False),
        sa.Column("owner_id", sa.Integer, sa.ForeignKey("accounts.id"), nullable=False),
        sa.Column("size", sa.Integer, nullable=False),
        sa.Column("broken", sa.Boolean, nullable=False),
        sa.Column("created_at", sa.Float, nullable=False),
    )
    op.create_index("ix_discs_owner_id", "discs", ["owner_id"])
    op.create_table(
        "tiles",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("design_id", sa.Integer, sa.ForeignKey("tile_designs.id"), nullable=False),
        sa.Column("owner_id", sa.Integer, sa.ForeignKey("accounts.id"), nullable=False),
        sa.Column("place", sa.String(10), nullable=False),
        sa.Column("disc_id", sa.Integer, sa.ForeignKey("discs.id"), nullable=True),
        sa.Column("game_id", sa.Integer, sa.ForeignKey("games.id"), nullable=True),
        sa.Column("created_at", sa.Float, nullable=False),
        sa.CheckConstraint("place IN ('deck', 'inventory', 'disc', 'game')", name="tile_place"),
        sa.CheckConstraint("(place = 'disc' AND disc_id IS NOT NULL) OR "
                           "(place <> 'disc' AND disc_id IS NULL)", name="tile_disc"),
        sa.CheckConstraint("(place = 'game' AND game_id IS NOT NULL) OR "
                           "(place <> 'game' AND game_id IS NULL)", name="tile_game"),
    )
    for column in ("design_id", "owner_id", "disc_id", "game_id"):
        op.create_index(f"ix_tiles_{column}", "tiles", [column])
    op.create_table(
        "tile_moves",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("tile_id", sa.Integer, sa.ForeignKey("tiles.id"), nullable=False),
        sa.Column("from_owner", sa.Integer, nullable=True),
        sa.Column("from_place", sa.String(10), nullable=True),
        sa.Column("to_owner", sa.Integer, nullable=False),
        sa.Column("to_place", sa.String(10), nullable=False),
        sa.Column("reason", sa.String(40), nullable=False),
        sa.Column("ref", sa.String(80), nullable=True),
        sa.Column("created_at", sa.Float, nullable=False),
    )
    op.create_index("ix_tile_moves_tile_id", "tile_moves", ["tile_id"])
    op.create_table(
        "tile_starter",
        sa.Column("design_id", sa.Integer, sa.ForeignKey("tile_designs.id"), primary_key=True),
        sa.Column("count", sa.Integer, nullable=False),
    )


def downgrade() -> None:
    for table in ("tile_starter", "tile_moves", "tiles", "discs", "tile_designs",
                  "tile_collections"):
        op.drop_table(table)
