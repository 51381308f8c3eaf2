"""Settings: one frozen object built once at the edge (server start, CLI start).

Precedence, lowest first: defaults < `$MCP_MEMORY_HOME/config.toml` < a project file
(`.mcp-memory.toml` in the working directory) < `MCP_MEMORY_*` environment < command-line flags.
Environment names are `MCP_MEMORY_` + the key path upper-cased, groups joined by `__`
(`MCP_MEMORY_MAX_SIZE_MB`, `MCP_MEMORY_SERVER__PORT`). Nothing here runs at import time.
"""

from __future__ import annotations

import dataclasses
import os
import re
import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .dsn import redacted
from .errors import ConfigError

ENV_PREFIX = "MCP_MEMORY_"
HOME_ENV = "MCP_MEMORY_HOME"
PROJECT_FILE = ".mcp-memory.toml"
# A project file travels with a repository someone else may control, and the store it configures is
# shared by every project. So it may set only how recall and the context block present memory, and
# which anticipation features run: nothing that sizes, evicts, expires, moves or exposes the store,
# changes what embeds or summarises the data, or loosens trust. Every other key is refused.
PROJECT_ALLOWED: tuple[str, ...] = (
    "recall.top_k",
    "recall.overfetch",
    "recall.min_score",
    "recall.budget_chars",
    "recall.relevance_weight",
    "recall.keyword_weight",
    "sessions.context_budget_chars",
    "features.user_state",
    "features.user_state_turn_interval",
    "features.predictive_intents",
    "features.anaphora",
    "features.style_mirroring",
    "features.return_after_break",
    "features.break_hours",
    "features.nudges",
    "features.nudges_per_day",
    "features.nudge_cooldown_hours",
)


@dataclass(frozen=True, slots=True)
class FactsSettings:
    """Caps of the always-on facts tier."""

    user_cap: int = 4000
    env_cap: int = 8000
    consolidate_at_pct: int = 80


@dataclass(frozen=True, slots=True)
class RecallSettings:
    """Ranking and budget of recall."""

    top_k: int = 10
    overfetch: int = 4
    min_score: float = 0.12
    budget_chars: int = 2000
    half_life_days: float = 30.0
    relevance_weight: float = 0.8
    keyword_weight: float = 0.4


@dataclass(frozen=True, slots=True)
class EmbeddingSettings:
    """Which embedder turns text into vectors."""

    provider: str = "hash"
    model: str = ""
    base_url: str = ""
    api_key: str = field(default="", repr=False)
    dims: int = 512
    timeout_s: float = 10.0
    batch_size: int = 64
    # How an http/local model's cosines read (the built-in embedder states its own): around the
    # floor texts are unrelated, from `full` on a match is as strong as it gets.
    cosine_floor: float = 0.0
    cosine_full: float = 0.6


@dataclass(frozen=True, slots=True)
class LLMSettings:
    """The optional memory LLM; `none` uses the built-in heuristics."""

    provider: str = "none"
    base_url: str = ""
    model: str = ""
    api_key: str = field(default="", repr=False)
    timeout_s: float = 20.0
    max_tokens: int = 512
    temperature: float = 0.2
    # A turn's background jobs wait this long before they are sent; a newer turn meanwhile replaces
    # them, so a burst of turns costs the model one call (see llm/gate.py).
    settle_s: float = 0.5
    # Streamed answers let the model server stop generating once a call is given up (a timeout, a
    # preemption); `false` for a server or proxy that mishandles streaming.
    stream: bool = True


@dataclass(frozen=True, slots=True)
class SessionSettings:
    """Per-session memory, episodes and the context block."""

    buffer_lines: int = 20
    max_notes: int = 20
    max_note_chars: int = 48_000
    max_episodes: int = 500
    episode_ttl_days: int = 0
    idle_end_days: int = 14
    context_budget_chars: int = 4000


@dataclass(frozen=True, slots=True)
class FeatureSettings:
    """The anticipation surfaces of `context`; each one can be turned off on its own."""

    user_state: bool = True
    user_state_turn_interval: int = 5
    predictive_intents: int = 3
    anaphora: bool = True
    style_mirroring: bool = True
    return_after_break: bool = True
    break_hours: float = 8.0
    nudges: bool = False
    nudges_per_day: int = 3
    nudge_cooldown_hours: float = 24.0


@dataclass(frozen=True, slots=True)
class TrustSettings:
    """How far the agent path is trusted."""

    agent_writes: str = "trusted"


@dataclass(frozen=True, slots=True)
class ServerSettings:
    """Transport and network settings of the MCP server."""

    transport: str = "stdio"
    host: str = "127.0.0.1"
    port: int = 8765
    token: str = field(default="", repr=False)
    max_body_kb: int = 1024
    # How often a server with a subscribed client looks for changes made by other processes.
    watch_interval_s: float = 1.0


@dataclass(frozen=True, slots=True)
class StoreSettings:
    """Which database holds the store."""

    # sqlite: the file memory.db in the home folder. postgres: the database `dsn` names (a libpq
    # connection string or postgresql:// URL); its password is never logged or shown.
    backend: str = "sqlite"
    dsn: str = field(default="", repr=False)
    # PostgreSQL only: the limits of each server's writer session, which holds the write lock every
    # server takes. A server whose machine vanishes (power, network) leaves its transaction open: the
    # database ends the session once it sat idle in a transaction `idle_in_transaction_s`, or once
    # TCP keepalives (first probe after `keepalives_idle_s`, then every `keepalives_interval_s`,
    # `keepalives_count` unanswered) find the peer gone; its uncommitted write is rolled back and
    # the others' writes go on. A writer that waits `lock_timeout_s` for the lock gets StoreBusy.
    idle_in_transaction_s: float = 60.0
    lock_timeout_s: float = 60.0
    keepalives_idle_s: int = 15
    keepalives_interval_s: int = 5
    keepalives_count: int = 3


@dataclass(frozen=True, slots=True)
class ContextSettings:
    """Who puts the memory block in front of the model."""

    # True when host hooks inject the block (Claude Code's UserPromptSubmit and SessionStart hooks):
    # the server's instructions then stop telling the model to call `context` every turn as well.
    injected_by_host: bool = False


@dataclass(frozen=True, slots=True)
class Settings:
    """Every setting of one process, frozen."""

    home: Path = Path("~/.mcp-memory")
    log_level: str = "WARNING"
    max_size_mb: float = 100.0
    agent_writes_per_minute: int = 1200
    quarantine_ttl_days: int = 7
    pending_max_age_days: int = 14
    facts: FactsSettings = FactsSettings()
    recall: RecallSettings = RecallSettings()
    embedding: EmbeddingSettings = EmbeddingSettings()
    llm: LLMSettings = LLMSettings()
    sessions: SessionSettings = SessionSettings()
    trust: TrustSettings = TrustSettings()
    features: FeatureSettings = FeatureSettings()
    server: ServerSettings = ServerSettings()
    context: ContextSettings = ContextSettings()
    store: StoreSettings = StoreSettings()

    @property
    def db_path(self) -> Path:
        """The SQLite file of the store."""
        return self.home / "memory.db"

    @property
    def store_location(self) -> str:
        """Where the store is, for people: the SQLite file, or the database without its password."""
        return redacted(self.store.dsn) if self.store.backend == "postgres" else str(self.db_path)


def _positive(value: Any) -> str | None:
    return None if value > 0 else "must be greater than 0"


def _choice(*allowed: str) -> Callable[[Any], str | None]:
    def check(value: Any) -> str | None:
        return None if value in allowed else f"must be one of {', '.join(allowed)}"

    return check


def _unit(value: Any) -> str | None:
    return None if 0.0 <= value <= 1.0 else "must be between 0 and 1"


def _port(value: Any) -> str | None:
    return None if 0 <= value <= 65535 else "must be a port number 0-65535"


_CHECKS: dict[str, Callable[[Any], str | None]] = {
    "log_level": _choice("DEBUG", "INFO", "WARNING", "ERROR"),
    "quarantine_ttl_days": _positive,
    "max_size_mb": lambda v: None if v >= 1 else "must be at least 1 (megabytes)",
    "agent_writes_per_minute": _positive,
    "pending_max_age_days": _positive,
    "facts.user_cap": _positive,
    "facts.env_cap": _positive,
    "facts.consolidate_at_pct": lambda v: None if 10 <= v <= 100 else "must be between 10 and 100",
    "recall.top_k": _positive,
    "recall.overfetch": _positive,
    "recall.min_score": _unit,
    "recall.budget_chars": _positive,
    "recall.half_life_days": _positive,
    "recall.relevance_weight": _unit,
    "recall.keyword_weight": _unit,
    "embedding.provider": _choice("hash", "http", "local"),
    "embedding.dims": _positive,
    "embedding.timeout_s": _positive,
    "embedding.batch_size": _positive,
    "embedding.cosine_floor": lambda v: None if 0.0 <= v < 1.0 else "must be at least 0 and below 1",
    "embedding.cosine_full": lambda v: None if 0.0 < v <= 1.0 else "must be above 0 and at most 1",
    "llm.provider": _choice("none", "http", "sampling"),
    "llm.timeout_s": _positive,
    "llm.max_tokens": _positive,
    "llm.temperature": lambda v: None if 0.0 <= v <= 2.0 else "must be between 0 and 2",
    "llm.settle_s": lambda v: None if 0.0 <= v <= 10.0 else "must be between 0 (send at once) and 10",
    "sessions.buffer_lines": _positive,
    "sessions.max_notes": _positive,
    "sessions.max_note_chars": _positive,
    "sessions.max_episodes": _positive,
    "sessions.episode_ttl_days": lambda v: None if v >= 0 else "must be 0 (no expiry) or more",
    "sessions.context_budget_chars": _positive,
    "sessions.idle_end_days": lambda v: None if v >= 0 else "must be 0 (never) or more",
    "features.user_state_turn_interval": _positive,
    "features.predictive_intents": lambda v: None if 0 <= v <= 5 else "must be between 0 (off) and 5",
    "features.break_hours": _positive,
    "features.nudges_per_day": _positive,
    "features.nudge_cooldown_hours": lambda v: None if v >= 0 else "must be 0 or more",
    "trust.agent_writes": _choice("trusted", "quarantine"),
    "server.transport": _choice("stdio", "sse", "http"),
    "store.backend": _choice("sqlite", "postgres"),
    "store.idle_in_transaction_s": _positive,
    "store.lock_timeout_s": _positive,
    "store.keepalives_idle_s": _positive,
    "store.keepalives_interval_s": _positive,
    "store.keepalives_count": _positive,
    "server.port": _port,
    "server.max_body_kb": _positive,
    "server.watch_interval_s": lambda v: None if 0.05 <= v <= 60 else "must be between 0.05 and 60 (seconds)",
}


def _leaf_types(cls: type, prefix: str = "") -> dict[str, type]:
    """Map every dotted key path of a settings dataclass to its leaf type."""
    hints = {f.name: f for f in dataclasses.fields(cls)}
    out: dict[str, type] = {}
    for name, f in hints.items():
        default = f.default
        if dataclasses.is_dataclass(default):
            out.update(_leaf_types(type(default), f"{prefix}{name}."))
        else:
            out[f"{prefix}{name}"] = type(default)
    return out


KEY_TYPES: dict[str, type] = _leaf_types(Settings)


def _coerce(key: str, value: Any, source: str) -> Any:
    """Convert a raw value (TOML value or string) to the key's type, or fail naming the key."""
    kind = KEY_TYPES[key]
    try:
        if kind is bool:
            if isinstance(value, bool):
                result: Any = value
            elif isinstance(value, str) and value.strip().lower() in ("1", "true", "yes", "on"):
                result = True
            elif isinstance(value, str) and value.strip().lower() in ("0", "false", "no", "off"):
                result = False
            else:
                raise ValueError("expected true or false")
        elif kind is int:
            if isinstance(value, (bool, float)):
                raise ValueError("expected a whole number")
            result = int(value)
        elif kind is float:
            if isinstance(value, bool):
                raise ValueError("expected a number")
            result = float(value)
        elif issubclass(kind, Path):
            if not isinstance(value, (str, Path)) or not str(value).strip():
                raise ValueError("expected a path")
            result = Path(value)
        else:
            if not isinstance(value, str):
                raise ValueError("expected a string")
            result = value
    except (TypeError, ValueError) as exc:
        raise ConfigError(f"config key '{key}' from {source}: {exc} (got {value!r})") from exc
    if key == "log_level":
        result = str(result).upper()
    check = _CHECKS.get(key)
    problem = check(result) if check else None
    if problem:
        raise ConfigError(f"config key '{key}' from {source}: {problem} (got {value!r})")
    return result


def _flatten(data: Mapping[str, Any], source: str, prefix: str = "") -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name, value in data.items():
        path = f"{prefix}{name}"
        if isinstance(value, Mapping):
            out.update(_flatten(value, source, f"{path}."))
        elif path not in KEY_TYPES:
            raise ConfigError(f"unknown config key '{path}' in {source}; known keys: {', '.join(sorted(KEY_TYPES))}")
        else:
            out[path] = value
    return out


def _read_toml(path: Path) -> dict[str, Any]:
    try:
        with path.open("rb") as fh:
            return _flatten(tomllib.load(fh), str(path))
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path} is not valid TOML: {exc}") from exc
    except OSError as exc:
        raise ConfigError(f"cannot read {path}: {exc}") from exc


def _from_environ(environ: Mapping[str, str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name, value in environ.items():
        if not name.startswith(ENV_PREFIX) or name == HOME_ENV:
            continue
        path = name[len(ENV_PREFIX) :].lower().replace("__", ".")
        if path not in KEY_TYPES:
            raise ConfigError(
                f"unknown environment setting {name} (config key '{path}'); known keys: {', '.join(sorted(KEY_TYPES))}"
            )
        out[path] = value
    return out


def _build(values: Mapping[str, Any]) -> Settings:
    groups: dict[str, dict[str, Any]] = {}
    top: dict[str, Any] = {}
    for path, value in values.items():
        if "." in path:
            group, leaf = path.split(".", 1)
            groups.setdefault(group, {})[leaf] = value
        else:
            top[path] = value
    base = Settings()
    for group, leaves in groups.items():
        top[group] = dataclasses.replace(getattr(base, group), **leaves)
    settings = dataclasses.replace(base, **top)
    if settings.store.backend == "postgres" and not settings.store.dsn.strip():
        raise ConfigError(
            "store.backend = 'postgres' needs store.dsn, the database to use: set MCP_MEMORY_STORE__DSN "
            "(e.g. postgresql://memory@db.example:5432/memory) or [store] dsn in the home config.toml"
        )
    embedding = settings.embedding
    if embedding.cosine_floor >= embedding.cosine_full:
        raise ConfigError(
            f"embedding.cosine_floor ({embedding.cosine_floor}) must be below embedding.cosine_full "
            f"({embedding.cosine_full}); e.g. 0.3 and 0.8 for a model whose unrelated texts score ~0.3"
        )
    return settings


_POSIX_VAR = re.compile(r"\$(?:\{([^}]*)\}|([A-Za-z_][A-Za-z0-9_]*))")
_WINDOWS_VAR = re.compile(r"%([A-Za-z_][A-Za-z0-9_()]*)%")


def expand_home(raw: str, environ: Mapping[str, str], *, windows: bool | None = None) -> Path:
    """The store folder from `raw`: `~`, `$VAR` and `${VAR}` expanded, and `%VAR%` on Windows.

    Hosts pass configured values literally, so a `${HOME}/x` in a host config reaches us unexpanded.
    A variable that is not set is an error, never a literal folder named after it.
    """
    on_windows = os.name == "nt" if windows is None else windows

    def value(name: str, written: str) -> str:
        found = environ.get(name)
        if found is None and on_windows:  # Windows variable names are case-insensitive
            found = next((v for k, v in environ.items() if k.upper() == name.upper()), None)
        if not name or found is None:
            raise ConfigError(
                f"home {raw!r} uses {written}, but no environment variable {name!r} is set; "
                "set it, or give the folder as an absolute path"
            )
        return found

    text = _POSIX_VAR.sub(lambda m: value(m.group(1) if m.group(1) is not None else m.group(2), m.group(0)), raw)
    windows_vars = _WINDOWS_VAR.search(text)
    if windows_vars and on_windows:
        text = _WINDOWS_VAR.sub(lambda m: value(m.group(1), m.group(0)), text)
    elif windows_vars:
        raise ConfigError(
            f"home {raw!r} uses {windows_vars.group(0)}, Windows syntax for a variable; on this system write "
            f"${{{windows_vars.group(1)}}} or $HOME-style paths instead"
        )
    return Path(text).expanduser()


def load_settings(
    *,
    environ: Mapping[str, str] | None = None,
    overrides: Mapping[str, Any] | None = None,
    cwd: Path | None = None,
) -> Settings:
    """Build the settings from defaults, files, environment and flags; fail naming a bad key."""
    env = os.environ if environ is None else environ
    flags = {k: v for k, v in (overrides or {}).items() if v is not None}
    for key in flags:
        if key not in KEY_TYPES:
            raise ConfigError(f"unknown config key '{key}' given as a flag")

    home_raw = flags.get("home") or env.get(HOME_ENV) or str(Settings().home)
    home = expand_home(str(home_raw), env)
    layers: list[tuple[str, dict[str, Any]]] = []
    home_file = home / "config.toml"
    if home_file.is_file():
        layers.append((str(home_file), _read_toml(home_file)))
    project_file = (cwd or Path.cwd()) / PROJECT_FILE
    if project_file.is_file() and project_file.resolve() != home_file.resolve():
        project = _read_toml(project_file)
        for key in project:
            if key not in PROJECT_ALLOWED:
                raise ConfigError(
                    f"config key '{key}' may not be set by the project file {project_file}: a project file "
                    "may set only recall and context presentation and features "
                    f"({', '.join(PROJECT_ALLOWED)}); set '{key}' in {home_file} or the environment instead"
                )
        layers.append((str(project_file), project))
    layers.append(("the environment", _from_environ(env)))
    layers.append(("the command line", dict(flags)))

    merged: dict[str, Any] = {}
    for source, values in layers:
        for key, raw in values.items():
            if key == "home" and source != "the command line":
                if source != "the environment":
                    raise ConfigError(f"config key 'home' cannot be set in {source}; use {HOME_ENV} or --home")
                continue
            merged[key] = _coerce(key, raw, source)
    merged["home"] = home
    return _build(merged)
