"""The alembic scripts (``env.py`` and ``versions/``). A package only so that a built
install ships them beside ``server``: alembic reads these files by their path
(``server/db.py``'s ``MIGRATIONS``), and nothing imports this package."""
