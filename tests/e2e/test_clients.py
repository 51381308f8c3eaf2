"""The shipped client configs, the registry's server.json, and the Python client example."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from ._support import BIN, console_script

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parents[2]
CLIENTS = ROOT / "clients"
HOST_CONFIGS = {
    "claude-desktop/claude_desktop_config.json": "mcpServers",
    "claude-code/.mcp.json": "mcpServers",
    "cursor/mcp.json": "mcpServers",
    "vscode/mcp.json": "servers",
}
SERVER_MAPS = ("mcpServers", "servers")


def _json_files() -> list[Path]:
    return sorted(p for p in CLIENTS.rglob("*.json") if p.is_file())


def test_every_host_config_exists() -> None:
    for rel in HOST_CONFIGS:
        assert (CLIENTS / rel).is_file(), f"clients/{rel} is missing"


@pytest.mark.parametrize("path", _json_files(), ids=lambda p: str(p.relative_to(CLIENTS)))
def test_client_json_parses_and_runs_trusted_memory(path: Path) -> None:
    data = json.loads(path.read_text(encoding="utf-8"))
    rel = str(path.relative_to(CLIENTS))
    maps = [key for key in SERVER_MAPS if key in data]
    if rel in HOST_CONFIGS:
        assert maps == [HOST_CONFIGS[rel]], f"{rel}: servers belong under {HOST_CONFIGS[rel]!r}, found {maps}"
    # Other JSON under clients/ (e.g. a hooks file) only has to parse; any server map it has must be ours.
    for key in maps:
        assert data[key], f"{rel}: empty {key}"
        for name, entry in data[key].items():
            if entry.get("type") == "http":  # an HTTP example: our endpoint, the token never written out
                assert entry["url"] == "http://127.0.0.1:8765/mcp", rel
                assert re.fullmatch(r"Bearer \$\{[A-Za-z_:.-]+\}", entry["headers"]["Authorization"]), rel
                continue
            assert entry["command"] == "trusted-memory", f"{rel}: server {name!r} runs {entry.get('command')!r}"
            assert entry.get("args", []) == [], rel
            assert entry["env"] == {"MCP_MEMORY_HOME": "~/.mcp-memory"}, rel
            if key == "servers":  # VS Code needs the transport type on every entry
                assert entry["type"] == "stdio", rel


def test_readme_json_snippets_parse() -> None:
    blocks = re.findall(r"```json\n(.*?)```", (CLIENTS / "README.md").read_text(encoding="utf-8"), re.DOTALL)
    assert blocks
    for block in blocks:
        json.loads(block)


# The registry constraints from the server.json schema (2025-12-11) and the official-registry rules.
NAME_RE = re.compile(r"^[a-zA-Z0-9.-]+/[a-zA-Z0-9._-]+$")
ENV_FORMATS = {"string", "number", "boolean", "filepath"}
TRANSPORTS = {"stdio", "streamable-http", "sse"}


def registry_problems(doc: dict[str, Any]) -> list[str]:
    """Every violation of the registry's server.json constraints; empty when publishable."""
    problems: list[str] = []
    name = doc.get("name")
    if not isinstance(name, str) or not (3 <= len(name) <= 200) or not NAME_RE.match(name):
        problems.append(f"name {name!r} must be reverse-DNS with exactly one '/' (3-200 chars)")
    description = doc.get("description")
    if not isinstance(description, str) or not (1 <= len(description) <= 100):
        problems.append(f"description must be 1-100 chars (got {len(description or '')})")
    if "title" in doc and not (isinstance(doc["title"], str) and 1 <= len(doc["title"]) <= 100):
        problems.append("title must be 1-100 chars")
    if not _is_pinned(doc.get("version")):
        problems.append(f"version {doc.get('version')!r} must be one specific version")
    for i, pkg in enumerate(doc.get("packages", [])):
        where = f"packages[{i}]"
        for field in ("registryType", "identifier", "transport"):
            if not pkg.get(field):
                problems.append(f"{where}.{field} is required")
        if pkg.get("transport", {}).get("type") not in TRANSPORTS:
            problems.append(f"{where}.transport.type must be one of {sorted(TRANSPORTS)}")
        if pkg.get("registryType") in ("npm", "pypi", "nuget") and not _is_pinned(pkg.get("version")):
            problems.append(f"{where}.version {pkg.get('version')!r} must be one specific version")
        if pkg.get("registryType") == "pypi" and pkg.get("registryBaseUrl", "https://pypi.org") != "https://pypi.org":
            problems.append(f"{where}.registryBaseUrl must be https://pypi.org for pypi")
        for var in pkg.get("environmentVariables", []):
            if not var.get("name") or not var.get("description"):
                problems.append(f"{where}: every environment variable needs name and description")
            if var.get("format", "string") not in ENV_FORMATS:
                problems.append(f"{where}: {var.get('name')} has unknown format {var.get('format')!r}")
            if "choices" in var and var.get("default") is not None and var["default"] not in var["choices"]:
                problems.append(f"{where}: {var['name']} default is not one of its choices")
    return problems


def _is_pinned(version: object) -> bool:
    return (
        isinstance(version, str)
        and bool(version)
        and version != "latest"
        and not re.search(r"[\^~<>=*| ]|\.x\b", version)
    )


def test_server_json_meets_registry_constraints() -> None:
    doc = json.loads((ROOT / "server.json").read_text(encoding="utf-8"))
    assert doc["$schema"] == "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json"
    assert registry_problems(doc) == []
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    version = re.search(r'^version = "([^"]+)"', pyproject, re.MULTILINE)
    assert version is not None
    [pkg] = doc["packages"]
    assert doc["version"] == pkg["version"] == version.group(1)
    assert (pkg["registryType"], pkg["identifier"], pkg["transport"]) == ("pypi", "trusted-memory", {"type": "stdio"})
    env = {v["name"]: v for v in pkg["environmentVariables"]}
    assert all(v["isRequired"] is False for v in env.values())
    assert env["MCP_MEMORY_EMBEDDING__API_KEY"]["isSecret"] is True
    # Each variable must be a setting the server knows (MCP_MEMORY_ + key path, groups joined by __).
    from trusted_memory.config import KEY_TYPES

    for name in env:
        key = name.removeprefix("MCP_MEMORY_").lower().replace("__", ".")
        assert key in KEY_TYPES, f"{name} is not a setting of trusted-memory"


@pytest.mark.parametrize(
    ("change", "complaint"),
    [
        ({"name": "trusted-memory"}, "name"),
        ({"name": "io.github/a/b"}, "name"),
        ({"description": "x" * 101}, "description"),
        ({"version": "latest"}, "version"),
        ({"version": "^0.1.0"}, "version"),
    ],
)
def test_registry_check_rejects_bad_documents(change: dict[str, str], complaint: str) -> None:
    doc = json.loads((ROOT / "server.json").read_text(encoding="utf-8"))
    doc.update(change)
    assert any(p.startswith(complaint) for p in registry_problems(doc))
    del doc["packages"][0]["version"]
    assert any("packages[0].version" in p for p in registry_problems(doc))


def test_python_client_runs_end_to_end(tmp_path: Path) -> None:
    console_script("trusted-memory")
    home = tmp_path / "home"
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}", "HOME": str(tmp_path)}
    env.pop("MCP_MEMORY_HOME", None)
    proc = subprocess.run(
        [sys.executable, str(CLIENTS / "python" / "memory_client.py"), "--home", str(home)],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=tmp_path,
        env=env,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "tool: memory" in out
    assert "add fact: added" in out and "add atom: added" in out, out
    assert re.search(r"^  - \[fact\] Prefers tabs over spaces when writing Python", out, re.MULTILINE), out
    assert re.search(r"^  - \[atom\] Decided to use SQLite", out, re.MULTILINE), out
    assert (home / "memory.db").is_file()
