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


SUBPACKAGES = {"store", "embed", "llm", "heuristics", "services", "server", "cli", "webui"}


def layer(name: str) -> str:
    """The layer a module belongs to: a subpackage, `entry` for __main__, else `root` (the leaves)."""
    parts = name.split(".")
    if len(parts) >= 2 and parts[1] in SUBPACKAGES:
        return parts[1]
    return "entry" if name == "trusted_memory.__main__" else "root"


def test_the_graph_is_read() -> None:
    assert (
        "trusted_memory.server.app" in MODULES and "trusted_memory.services.agent" in GRAPH["trusted_memory.server.app"]
    )
    assert "trusted_memory.services.admin" in closure("trusted_memory.cli.admin")  # the walk does find the gate


ADMIN = "trusted_memory.services.admin"
PRIVILEGED = "trusted_memory.store.privileged"


def in_tree(name: str, root: str) -> bool:
    return name == root or name.startswith(root + ".")


def test_the_agent_side_cannot_reach_the_admin_subtree() -> None:
    # The whole admin subtree (the trust-raising service, doctor, the export that reads quarantine)
    # and the trust-raising SQL are out of reach of the MCP server and of every agent-side service.
    assert any(in_tree(n, ADMIN) and n != ADMIN for n in MODULES)  # the subtree is there to forbid
    agent_side = [n for n in MODULES if layer(n) in ("server", "services") and not in_tree(n, ADMIN)]
    assert "trusted_memory.server.app" in agent_side and "trusted_memory.services.agent" in agent_side
    for name in agent_side:
        reached = {n for n in closure(name) if in_tree(n, ADMIN) or in_tree(n, PRIVILEGED)}
        assert not reached, f"{name} reaches {reached}"


def test_only_the_admin_cli_uses_the_admin_subtree() -> None:
    users = {n for n, deps in GRAPH.items() if any(in_tree(d, ADMIN) for d in deps) and not in_tree(n, ADMIN)}
    assert users and all(layer(n) in ("cli", "webui") for n in users), users
    privileged_users = {n for n, deps in GRAPH.items() if any(in_tree(d, PRIVILEGED) for d in deps)}
    assert privileged_users and all(in_tree(n, ADMIN) for n in privileged_users), privileged_users


def test_the_mcp_server_cannot_reach_the_web_desk() -> None:
    # The desk is the human gate: the MCP server process can neither start nor serve it, and
    # only the admin CLI's `ui` command imports it.
    desk = "trusted_memory.webui"
    assert any(in_tree(n, desk) for n in MODULES)
    for name in MODULES:
        if layer(name) in ("server", "services", "store", "root", "embed", "llm", "heuristics"):
            reached = {n for n in closure(name) if in_tree(n, desk)}
            assert not reached, f"{name} reaches {reached}"
    users = {n for n, deps in GRAPH.items() if any(in_tree(d, desk) for d in deps) and not in_tree(n, desk)}
    assert users == {"trusted_memory.cli.ui_command"}, users
    assert not any(in_tree(n, desk) for n in closure("trusted_memory.cli.serve"))


def test_private_modules_are_used_only_inside_their_package() -> None:
    # scan/ and heuristics/ keep their modules private: the package __init__ is the API.
    private = [n for n in MODULES if n.rpartition(".")[2].startswith("_") and not n.endswith("__main__")]
    assert "trusted_memory.scan._credentials" in private and "trusted_memory.heuristics._extract" in private
    for name, deps in GRAPH.items():
        for dep in deps & set(private):
            assert in_tree(name, dep.rpartition(".")[0]), f"{name} imports the private module {dep}"


def test_no_underscore_name_is_imported_across_modules() -> None:
    roots = [PACKAGE, PACKAGE.parent / "tests", PACKAGE.parent / "benchmarks", PACKAGE.parent / "stress"]
    offenders = []
    for root in roots:
        for path in root.rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
                if isinstance(node, ast.ImportFrom) and node.module != "__future__":
                    names = [a.name for a in node.names if a.name.startswith("_") and not a.name.startswith("__")]
                    if names and (node.level or (node.module or "").startswith("trusted_memory")):
                        offenders.append(f"{path.name}: {node.module} {names}")
    assert not offenders, offenders


def test_there_is_no_import_cycle() -> None:
    # A module's edge to its own package (`from . import X`) is the package API, not a cycle.
    def deps(name: str) -> set[str]:
        return {d for d in GRAPH[name] if d != name and not in_tree(name, d)}

    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    cycles: list[list[str]] = []

    def visit(v: str) -> None:  # Tarjan's strongly connected components
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in deps(v):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                cycles.append(component)

    for name in sorted(GRAPH):
        if name not in index:
            visit(name)
    assert not cycles, cycles


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
    "heuristics": {"root", "heuristics"},
    "services": {"root", "store", "embed", "llm", "heuristics", "services"},
    "server": {"root", "services", "embed", "llm", "server"},
    "cli": {"root", "services", "server", "cli", "webui"},
    "webui": {"root", "services", "webui"},
    "entry": {"cli"},
}


def test_imports_point_down() -> None:
    for name, deps in GRAPH.items():
        for dep in deps - {"trusted_memory"}:
            assert layer(dep) in ALLOWED[layer(name)], f"{name} ({layer(name)}) imports {dep} ({layer(dep)})"
