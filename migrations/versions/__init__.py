"""The alembic revisions, one a file; alembic skips this one (a package only so that a
built install ships them)."""
