"""Import rules, read from the source: layers point down and the human gate is structural."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "trusted_memory"


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports_of(path: Path) -> set[str]:
    """Absolute names of every module a file imports (relative imports resolved)."""
    tree = ast.parse(path.read_text(), filename=str(path))
    package = module_name(path) if path.name == "__init__.py" else module_name(path).rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                prefix = ".".join(base + ([node.module] if node.module else []))
            else:
                prefix = node.module or ""
            found.add(prefix)
            found.update(f"{prefix}.{alias.name}" for alias in node.names)
    return found


MODULES = {module_name(p): p for p in PACKAGE.rglob("*.py")}
GRAPH = {name: {i for i in imports_of(path) if i in MODULES} for name, path in MODULES.items()}


def closure(start: str) -> set[str]:
    seen, todo = set(), [start]
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        todo.extend(GRAPH.get(name, ()))
        parent = name.rpartition(".")[0]
        if parent in MODULES and parent != name:
            todo.append(parent)  # importing a.b runs a/__init__.py
    return seen


SUBPACKAGES = {"store", "embed", "llm", "services", "server", "cli"}


def layer(name: str) -> str:
    """The layer a module belongs to: a subpackage, `entry` for __main__, else `root` (the leaves)."""
    parts = name.split(".")
    if len(parts) >= 2 and parts[1] in SUBPACKAGES:
        return parts[1]
    return "entry" if name == "trusted_memory.__main__" else "root"


def test_the_graph_is_read() -> None:
    assert "trusted_memory.server.app" in MODULES and "trusted_memory.services.agent" in GRAPH["trusted_memory.server.app"]
    assert "trusted_memory.services.admin" in closure("trusted_memory.cli.admin")  # the walk does find the gate


def test_server_cannot_reach_the_admin_side() -> None:
    # transfer_* modules (export reads quarantined atoms too) are as admin-only as transfer itself.
    forbidden = {"trusted_memory.services.admin", "trusted_memory.services.doctor", "trusted_memory.store.privileged",
                 *(n for n in MODULES if n.startswith("trusted_memory.services.transfer"))}
    assert "trusted_memory.services.transfer" in forbidden
    for name in MODULES:
        if layer(name) == "server":
            reached = closure(name) & forbidden
            assert not reached, f"{name} reaches {reached}"


def test_only_the_admin_cli_builds_the_admin_service() -> None:
    users = {n for n, deps in GRAPH.items() if "trusted_memory.services.admin" in deps or
             any(d.startswith("trusted_memory.services.admin.") for d in deps)}
    assert users <= {"trusted_memory.cli.admin"} | {n for n in MODULES if n.startswith("trusted_memory.cli.")}
    privileged_users = {n for n, deps in GRAPH.items() if "trusted_memory.store.privileged" in deps or
                        any(d.startswith("trusted_memory.store.privileged.") for d in deps)}
    assert privileged_users <= {"trusted_memory.services.admin", "trusted_memory.services.transfer", "trusted_memory.services.doctor"}


def test_agent_service_has_no_trust_raising_method() -> None:
    from trusted_memory.services.agent import AgentService

    names = {n.lower() for n in dir(AgentService)}
    for word in ("promote", "confirm", "unpin", "source_class", "approve"):
        assert not any(word in n for n in names), word


def test_mcp_sdk_is_imported_only_by_the_server_package() -> None:
    for name, path in MODULES.items():
        sdk = {i for i in imports_of(path) if i == "mcp" or i.startswith("mcp.")}
        if sdk:
            assert layer(name) == "server", f"{name} imports {sdk}"


def test_sql_drivers_only_in_the_store() -> None:
    for name, path in MODULES.items():
        drivers = {i for i in imports_of(path) if i.split(".")[0] in ("sqlite3", "aiosqlite")}
        if drivers:
            assert layer(name) == "store", f"{name} imports {drivers}"


ALLOWED = {
    # layer: layers it may import from this package
    "root": {"root"},
    "store": {"root", "store"},
    "embed": {"root", "embed"},
    "llm": {"root", "llm"},
    "services": {"root", "store", "embed", "llm", "services"},
    "server": {"root", "services", "store", "embed", "llm", "server"},
    "cli": {"root", "services", "store", "server", "cli"},
    "entry": {"cli"},
}


def test_imports_point_down() -> None:
    for name, deps in GRAPH.items():
        for dep in deps - {"trusted_memory"}:
            assert layer(dep) in ALLOWED[layer(name)], f"{name} ({layer(name)}) imports {dep} ({layer(dep)})"
