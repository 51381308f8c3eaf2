"""Settings: precedence, validation, and what a project file may not set."""

from __future__ import annotations

from pathlib import Path

import pytest

from trusted_memory.config import expand_home, load_settings
from trusted_memory.errors import ConfigError


def test_defaults(tmp_path: Path) -> None:
    s = load_settings(environ={}, cwd=tmp_path)
    assert s.home == Path("~/.mcp-memory").expanduser()
    assert s.facts.user_cap == 4000 and s.facts.env_cap == 8000
    assert s.server.host == "127.0.0.1" and s.server.transport == "stdio"
    assert s.trust.agent_writes == "trusted"
    assert s.db_path == s.home / "memory.db"


def test_precedence_file_then_env_then_flags(tmp_path: Path) -> None:
    home = tmp_path / "h"
    home.mkdir()
    (home / "config.toml").write_text("[facts]\nuser_cap = 100\nenv_cap = 200\n[server]\nport = 1000\n")
    env = {"MCP_MEMORY_HOME": str(home), "MCP_MEMORY_FACTS__ENV_CAP": "300", "MCP_MEMORY_SERVER__PORT": "2000"}
    s = load_settings(environ=env, overrides={"server.port": 3000}, cwd=tmp_path)
    assert s.facts.user_cap == 100  # file
    assert s.facts.env_cap == 300  # env beats file
    assert s.server.port == 3000  # flag beats env


def test_settings_are_frozen(tmp_path: Path) -> None:
    s = load_settings(environ={}, cwd=tmp_path)
    with pytest.raises(AttributeError):
        s.facts.user_cap = 1  # type: ignore[misc]


@pytest.mark.parametrize(
    ("env", "named"),
    [
        ({"MCP_MEMORY_FACTS__USER_CAP": "lots"}, "facts.user_cap"),
        ({"MCP_MEMORY_FACTS__USER_CAP": "-5"}, "facts.user_cap"),
        ({"MCP_MEMORY_SERVER__PORT": "70000"}, "server.port"),
        ({"MCP_MEMORY_TRUST__AGENT_WRITES": "sometimes"}, "trust.agent_writes"),
        ({"MCP_MEMORY_SERVER__TRANSPORT": "carrier-pigeon"}, "server.transport"),
        ({"MCP_MEMORY_NO_SUCH_KEY": "1"}, "no_such_key"),
        ({"MCP_MEMORY_EMBEDDING__COSINE_FULL": "0"}, "embedding.cosine_full"),
        ({"MCP_MEMORY_EMBEDDING__COSINE_FLOOR": "0.7"}, "embedding.cosine_floor"),  # above full (0.6)
    ],
)
def test_bad_env_values_name_the_key(tmp_path: Path, env: dict[str, str], named: str) -> None:
    with pytest.raises(ConfigError) as err:
        load_settings(environ=env, cwd=tmp_path)
    assert named in err.value.message


def test_unknown_file_key_fails_naming_it(tmp_path: Path) -> None:
    home = tmp_path / "h"
    home.mkdir()
    (home / "config.toml").write_text("[facts]\nuser_capp = 100\n")
    with pytest.raises(ConfigError) as err:
        load_settings(environ={"MCP_MEMORY_HOME": str(home)}, cwd=tmp_path)
    assert "facts.user_capp" in err.value.message and "config.toml" in err.value.message


def test_invalid_toml_is_reported(tmp_path: Path) -> None:
    home = tmp_path / "h"
    home.mkdir()
    (home / "config.toml").write_text("[facts\n")
    with pytest.raises(ConfigError, match="not valid TOML"):
        load_settings(environ={"MCP_MEMORY_HOME": str(home)}, cwd=tmp_path)


def test_project_file_may_tune_but_not_move_or_loosen(tmp_path: Path) -> None:
    project = tmp_path / "repo"
    project.mkdir()
    (project / ".mcp-memory.toml").write_text("[recall]\ntop_k = 7\n[features]\nnudges = true\n")
    s = load_settings(environ={"MCP_MEMORY_HOME": str(tmp_path / "h")}, cwd=project)
    assert s.recall.top_k == 7 and s.features.nudges is True
    for forbidden in ('home = "/tmp/elsewhere"', '[trust]\nagent_writes = "trusted"', '[server]\ntoken = "x"'):
        (project / ".mcp-memory.toml").write_text(forbidden + "\n")
        with pytest.raises(ConfigError, match="project file"):
            load_settings(environ={"MCP_MEMORY_HOME": str(tmp_path / "h")}, cwd=project)


def test_home_from_env_and_flag(tmp_path: Path) -> None:
    s = load_settings(environ={"MCP_MEMORY_HOME": str(tmp_path / "a")}, cwd=tmp_path)
    assert s.home == tmp_path / "a"
    s = load_settings(
        environ={"MCP_MEMORY_HOME": str(tmp_path / "a")}, overrides={"home": str(tmp_path / "b")}, cwd=tmp_path
    )
    assert s.home == tmp_path / "b"


def test_bool_and_flag_coercion(tmp_path: Path) -> None:
    s = load_settings(environ={"MCP_MEMORY_LOG_LEVEL": "debug"}, cwd=tmp_path)
    assert s.log_level == "DEBUG"
    with pytest.raises(ConfigError, match="unknown config key 'nope'"):
        load_settings(environ={}, overrides={"nope": 1}, cwd=tmp_path)


def test_an_http_embedder_reads_cosines_on_its_configured_scale(tmp_path: Path) -> None:
    from trusted_memory.embed.openai_http import OpenAIEmbedder

    settings = load_settings(
        environ={
            "MCP_MEMORY_EMBEDDING__PROVIDER": "http",
            "MCP_MEMORY_EMBEDDING__BASE_URL": "http://127.0.0.1:9/v1",
            "MCP_MEMORY_EMBEDDING__MODEL": "nomic-embed-text",
            "MCP_MEMORY_EMBEDDING__COSINE_FLOOR": "0.35",
            "MCP_MEMORY_EMBEDDING__COSINE_FULL": "0.8",
        },
        cwd=tmp_path,
    )
    space = OpenAIEmbedder(settings.embedding).space
    assert (space.cosine_floor, space.cosine_full) == (0.35, 0.8)
    assert space.fingerprint() == "http:nomic-embed-text:512"  # the scale is not part of the identity


@pytest.mark.parametrize(
    ("toml", "key"),
    [
        # What a hostile repository's project file did to the shared global store (issue 14).
        ("max_size_mb = 1", "max_size_mb"),
        ("[sessions]\nmax_episodes = 1", "sessions.max_episodes"),
        ('[server]\ntransport = "http"', "server.transport"),
        # Everything else that sizes, evicts, expires, exposes or slows the store for every project.
        ("quarantine_ttl_days = 1", "quarantine_ttl_days"),
        ("pending_max_age_days = 1", "pending_max_age_days"),
        ("agent_writes_per_minute = 1000000", "agent_writes_per_minute"),
        ('log_level = "DEBUG"', "log_level"),
        ("[facts]\nuser_cap = 10", "facts.user_cap"),
        ("[facts]\nconsolidate_at_pct = 10", "facts.consolidate_at_pct"),
        ("[recall]\nhalf_life_days = 0.01", "recall.half_life_days"),
        ("[sessions]\nidle_end_days = 1", "sessions.idle_end_days"),
        ("[sessions]\nepisode_ttl_days = 1", "sessions.episode_ttl_days"),
        ("[sessions]\nbuffer_lines = 1", "sessions.buffer_lines"),
        ('[server]\nhost = "0.0.0.0"', "server.host"),
        ("[server]\nport = 80", "server.port"),
        ('[embedding]\nprovider = "http"', "embedding.provider"),
        ('[llm]\nprovider = "sampling"', "llm.provider"),
    ],
)
def test_project_file_cannot_destroy_or_expose_the_shared_store(tmp_path: Path, toml: str, key: str) -> None:
    project = tmp_path / "repo"
    project.mkdir()
    (project / ".mcp-memory.toml").write_text(toml + "\n")
    with pytest.raises(ConfigError) as err:
        load_settings(environ={"MCP_MEMORY_HOME": str(tmp_path / "h")}, cwd=project)
    assert f"config key '{key}' may not be set by the project file" in err.value.message
    # The same key is the user's to set, in the store's own config.toml.
    home = tmp_path / "h"
    home.mkdir()
    (home / "config.toml").write_text(toml + "\n")
    load_settings(environ={"MCP_MEMORY_HOME": str(home)}, cwd=tmp_path)


def test_the_project_allow_list_names_only_presentation_and_features() -> None:
    from trusted_memory.config import KEY_TYPES, PROJECT_ALLOWED

    assert set(PROJECT_ALLOWED) <= set(KEY_TYPES)
    assert {k.split(".")[0] for k in PROJECT_ALLOWED} == {"recall", "sessions", "features"}
    assert [k for k in PROJECT_ALLOWED if k.startswith("sessions.")] == ["sessions.context_budget_chars"]
    # The README promises `features.*`: a new feature key must be allowed, or the README changed.
    assert {k for k in KEY_TYPES if k.startswith("features.")} <= set(PROJECT_ALLOWED)


# --- home: environment variables, as hosts pass them literally ---------------------------------


def test_home_expands_posix_variables(tmp_path: Path) -> None:
    env = {"HOME": str(tmp_path), "STORE": "mem"}
    assert expand_home("${HOME}/.mcp-memory", env, windows=False) == tmp_path / ".mcp-memory"
    assert expand_home("$HOME/$STORE", env, windows=False) == tmp_path / "mem"
    assert load_settings(environ={"MCP_MEMORY_HOME": "${HOME}/x", "HOME": str(tmp_path)}, cwd=tmp_path).home == (
        tmp_path / "x"
    )


def test_home_expands_windows_variables_only_on_windows(tmp_path: Path) -> None:
    env = {"USERPROFILE": str(tmp_path)}
    assert expand_home("%USERPROFILE%/.mcp-memory", env, windows=True) == tmp_path / ".mcp-memory"
    assert expand_home("%userprofile%/m", env, windows=True) == tmp_path / "m"  # case-insensitive there
    with pytest.raises(ConfigError, match=r"Windows syntax.*\$\{USERPROFILE\}"):
        expand_home("%USERPROFILE%/.mcp-memory", env, windows=False)


@pytest.mark.parametrize("raw", ["${NOPE_NOT_SET}/m", "$NOPE_NOT_SET/m", "${}/m"])
def test_an_unset_variable_in_home_is_an_error_not_a_folder(tmp_path: Path, raw: str) -> None:
    with pytest.raises(ConfigError, match="no environment variable"):
        load_settings(environ={"MCP_MEMORY_HOME": raw}, cwd=tmp_path)
    assert list(tmp_path.iterdir()) == []
