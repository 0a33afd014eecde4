"""Services: the only code that reads and writes the database. Each commits, then publishes."""
