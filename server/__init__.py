"""Esterport's running service: telnet I/O, sessions, login, config, database, services."""
