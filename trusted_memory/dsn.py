"""PostgreSQL connection strings as people may see them: never with a password."""

from __future__ import annotations

import re
from urllib.parse import unquote, urlsplit

_KEYWORD = re.compile(r"(\w+)\s*=\s*('(?:[^'\\]|\\.)*'|\S*)")


def redacted(dsn: str) -> str:
    """postgresql://USER@HOST:PORT/DB of a URL or a libpq keyword string, its password left out."""
    text = dsn.strip()
    if text.startswith(("postgresql://", "postgres://")):
        try:
            url = urlsplit(text)
            user, host, port = url.username, url.hostname, url.port
        except ValueError:
            return "postgresql://(an unreadable store.dsn)"
        dbname = unquote(url.path.lstrip("/"))
    else:
        parts = {k: v.strip("'") for k, v in _KEYWORD.findall(text)}
        user, host, dbname = parts.get("user"), parts.get("host"), parts.get("dbname", "")
        port = int(parts["port"]) if parts.get("port", "").isdigit() else None
    return f"postgresql://{f'{user}@' if user else ''}{host or 'localhost'}{f':{port}' if port else ''}/{dbname or ''}"
