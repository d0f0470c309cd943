"""Loading generated modules into a read-only registry (server; standard library only)."""
