"""The PostgreSQL backend: the same repositories over psycopg 3 (see docs/architecture.md)."""
