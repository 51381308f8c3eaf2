"""The built wheel, installed offline into a fresh venv, is a working product on its own.

The wheel is built from an sdist (so the sdist is proven complete too), without network or an
isolated build environment. It is installed with `pip install --no-index` into a new venv whose only
other packages are the wheel's declared dependencies (their transitive closure, taken from this test
environment and linked in; nothing else, and never this checkout). pip must then find every
`Requires-Dist` satisfied offline, `pip check` must pass, and the installed `trusted-memory`
command must complete an MCP handshake and serve tool calls over stdio, with the word-meaning table
(package data) loaded from the installed wheel.

uvx and pipx run the same wheel offline too, given a folder of the dependencies' wheels: neither
can borrow an installed environment, so that folder (TRUSTED_MEMORY_WHEELHOUSE) has to be filled by
a download beforehand (`.ci/run` does it with `pip download`); the runs themselves use no index.
Without uvx or pipx on PATH, or without the folder, those tests skip and say so.
"""

from __future__ import annotations

import email
import json
import os
import shutil
import subprocess
import sys
import tomllib
import zipfile
from collections.abc import Iterator
from importlib import metadata
from pathlib import Path, PurePosixPath

import pytest
from mcp import Client, StdioServerParameters, stdio_client
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parents[2]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
TIMEOUT_S = 300


def _run(cmd: list[str], **kwargs: object) -> subprocess.CompletedProcess[str]:
    result = subprocess.run(cmd, capture_output=True, text=True, timeout=TIMEOUT_S, check=False, **kwargs)  # type: ignore[call-overload]
    assert result.returncode == 0, f"{cmd} failed ({result.returncode}):\n{result.stdout}\n{result.stderr}"
    return result  # type: ignore[no-any-return]


def _closure(requirements: list[str]) -> list[metadata.Distribution]:
    """The installed distributions that `requirements` need, transitively, with the extras they name."""
    dists: dict[str, metadata.Distribution] = {}
    seen: set[tuple[str, str]] = set()
    todo: list[tuple[Requirement, str]] = [(Requirement(r), "") for r in requirements]
    while todo:
        req, wanted_by = todo.pop()
        if req.marker is not None and not req.marker.evaluate({"extra": wanted_by}):
            continue
        name = canonicalize_name(req.name)
        try:
            dists[name] = dists.get(name) or metadata.distribution(req.name)
        except metadata.PackageNotFoundError:
            pytest.fail(f"dependency {req} of the wheel is not installed in the test environment")
        for extra in ("", *req.extras):
            if (name, extra) not in seen:
                seen.add((name, extra))
                todo.extend((Requirement(r), extra) for r in dists[name].requires or [])
    return list(dists.values())


def _link_dependencies(dists: list[metadata.Distribution], into: Path) -> None:
    """Link each distribution's top-level files (packages, modules, dist-info) into one folder."""
    into.mkdir()
    for dist in dists:
        base = Path(str(dist.locate_file("")))
        tops = {PurePosixPath(str(f)).parts[0] for f in dist.files or [] if not str(f).startswith("..")}
        for top in tops:
            source, target = base / top, into / top
            if source.exists() and not target.exists() and not top.endswith(".pth"):
                target.symlink_to(source)


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A fresh venv holding the wheel built from this checkout; yields its bin folder."""
    work = tmp_path_factory.mktemp("packaging")
    dist_dir = work / "dist"
    # sdist first, then the wheel from the unpacked sdist (python -m build's default).
    _run([sys.executable, "-m", "build", "--no-isolation", "--outdir", str(dist_dir), str(ROOT)])
    (wheel,) = dist_dir.glob("trusted_memory-*.whl")

    venv = work / "venv"
    _run([sys.executable, "-m", "venv", "--without-pip", str(venv)])
    python = venv / "bin" / "python"
    site = Path(_run([str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"]).stdout.strip())
    deps = work / "deps"
    _link_dependencies(_closure(PYPROJECT["dependencies"]), deps)
    (site / "dependencies.pth").write_text(f"{deps}\n")

    env = {"PATH": os.environ["PATH"], "HOME": str(work), "PIP_NO_INDEX": "1", "PIP_CONFIG_FILE": os.devnull}
    pip = [sys.executable, "-m", "pip", "--python", str(python), "--disable-pip-version-check"]
    # No --no-deps: pip must find each declared dependency satisfied, with no index to fall back on.
    result = _run([*pip, "install", "--no-index", str(wheel)], env=env)
    assert "Successfully installed trusted-memory-" in result.stdout, result.stdout
    _run([*pip, "check"], env=env)
    yield venv / "bin"


def test_the_wheel_carries_its_metadata_and_package_data(installed: Path) -> None:
    (wheel,) = (installed.parents[1] / "dist").glob("trusted_memory-*.whl")
    with zipfile.ZipFile(wheel) as zf:
        names = set(zf.namelist())
        info = next(n for n in names if n.endswith(".dist-info/METADATA"))
        meta = email.message_from_bytes(zf.read(info))
        entry_points = zf.read(info.replace("METADATA", "entry_points.txt")).decode()
    assert {"trusted_memory/embed/data/lexicon.npz", "trusted_memory/py.typed"} <= names
    assert any(n.endswith(".dist-info/licenses/LICENSE") for n in names)
    assert meta["License-Expression"] == "MIT"
    assert meta["Requires-Python"] == ">=3.11"
    assert meta["Author"]
    assert meta.get_all("Keywords")
    urls = dict(u.split(", ", 1) for u in meta.get_all("Project-URL") or [])
    assert urls["Repository"].startswith("https://")
    assert "Programming Language :: Python :: 3.11" in (meta.get_all("Classifier") or [])
    # The MCP registry checks PyPI ownership by this line in the package's description.
    server = json.loads((ROOT / "server.json").read_text())
    assert f"mcp-name: {server['name']}" in meta.get_payload()  # type: ignore[operator]
    for script in ("trusted-memory", "trusted-memory-admin", "trusted-memory-hook"):
        assert f"{script} = " in entry_points


def test_server_json_matches_the_package() -> None:
    """The fields the MCP registry's server.json schema requires or constrains, and agreement with pyproject."""
    server = json.loads((ROOT / "server.json").read_text())
    assert server["$schema"].startswith("https://static.modelcontextprotocol.io/schemas/")
    name_ns, _, name_server = server["name"].partition("/")
    assert name_ns and name_server and "/" not in name_server
    assert 1 <= len(server["description"]) <= 100
    assert server["version"] == PYPROJECT["version"]
    assert server["repository"] == {"url": PYPROJECT["urls"]["Repository"], "source": "github"}
    assert server["websiteUrl"].startswith("https://")
    (package,) = server["packages"]
    assert package["registryType"] == "pypi"
    assert package["identifier"] == PYPROJECT["name"]
    assert package["version"] == PYPROJECT["version"]
    assert package["transport"] == {"type": "stdio"}
    for variable in package["environmentVariables"]:
        assert variable["format"] in ("string", "number", "boolean", "filepath"), variable


def test_installed_code_is_the_wheel_not_the_checkout(installed: Path, tmp_path: Path) -> None:
    code = "import trusted_memory, rich; print(trusted_memory.__file__)"
    where = _run([str(installed / "python"), "-c", code], cwd=tmp_path, env={"PATH": os.environ["PATH"]}).stdout
    assert Path(where.strip()).is_relative_to(installed.parent), where
    assert not Path(where.strip()).is_relative_to(ROOT)
    version = _run([str(installed / "trusted-memory"), "--version"], cwd=tmp_path).stdout
    assert version.strip() == f"trusted-memory {PYPROJECT['version']}"


def test_installed_admin_command_runs(installed: Path, tmp_path: Path) -> None:
    home = tmp_path / "home"
    env = {"PATH": os.environ["PATH"], "HOME": str(tmp_path), "COLUMNS": "80"}
    out = _run([str(installed / "trusted-memory-admin"), "--home", str(home), "stats"], cwd=tmp_path, env=env).stdout
    assert "atoms" in out and str(home) in out.replace("\n", ""), out


@pytest.mark.anyio
async def test_installed_command_serves_mcp_over_stdio(installed: Path, tmp_path: Path) -> None:
    params = StdioServerParameters(
        command=str(installed / "trusted-memory"),
        args=[],
        env={"PATH": os.environ["PATH"], "HOME": str(tmp_path), "MCP_MEMORY_HOME": str(tmp_path / "home")},
        cwd=str(tmp_path),
    )
    with (tmp_path / "stderr.txt").open("w") as errlog:
        async with Client(stdio_client(params, errlog=errlog)) as client:
            assert client.server_info.name  # type: ignore[union-attr]
            assert [t.name for t in (await client.list_tools()).tools] == ["memory"]
            added = await client.call_tool(
                "memory", {"action": "add_atom", "content": "I adopted a dog last spring", "source": "user_said"}
            )
            assert not added.is_error, added.content
            # No word in common: only the word-meaning table (package data) relates "pup" to "dog".
            found = await client.call_tool("memory", {"action": "search_atoms", "query": "pup"})
            assert not found.is_error, found.content
            hits = (found.structured_content or {}).get("hits", [])
            assert any("dog" in h["text"] for h in hits), found.structured_content


def _runner_command(runner: str, wheel: Path, wheelhouse: Path, work: Path) -> tuple[list[str], dict[str, str]]:
    """The offline command line that starts `trusted-memory` from `wheel` through uvx or pipx."""
    env = {"PATH": os.environ["PATH"], "HOME": str(work), "MCP_MEMORY_HOME": str(work / "home")}
    if runner == "uvx":
        env |= {"UV_CACHE_DIR": str(work / "uv-cache"), "UV_NO_CONFIG": "1", "UV_OFFLINE": "1"}
        return ["uvx", "--no-index", "--find-links", str(wheelhouse), "--from", str(wheel), "trusted-memory"], env
    env |= {
        "PIPX_HOME": str(work / "pipx"),
        "PIPX_BIN_DIR": str(work / "pipx" / "bin"),
        "PIP_CONFIG_FILE": os.devnull,
        "PIP_NO_INDEX": "1",
        "PIP_FIND_LINKS": str(wheelhouse),
        # pipx installs with uv when uv is on PATH: the same folder, no index, for that path too.
        "UV_CACHE_DIR": str(work / "uv-cache"),
        "UV_NO_CONFIG": "1",
        "UV_OFFLINE": "1",
        "UV_NO_INDEX": "1",
        "UV_FIND_LINKS": str(wheelhouse),
    }
    return ["pipx", "run", "--spec", str(wheel), "trusted-memory"], env


@pytest.mark.anyio
@pytest.mark.parametrize("runner", ["uvx", "pipx"])
async def test_uvx_and_pipx_run_the_wheel_offline(request: pytest.FixtureRequest, tmp_path: Path, runner: str) -> None:
    wheelhouse = os.environ.get("TRUSTED_MEMORY_WHEELHOUSE")
    if shutil.which(runner) is None or not wheelhouse:
        pytest.skip(
            f"needs {runner} on PATH and TRUSTED_MEMORY_WHEELHOUSE (the dependencies' wheels); .ci/run sets both"
        )
    installed: Path = request.getfixturevalue("installed")  # built only when the test can run
    (wheel,) = (installed.parents[1] / "dist").glob("trusted_memory-*.whl")
    cmd, env = _runner_command(runner, wheel, Path(wheelhouse), tmp_path)
    version = _run([*cmd, "--version"], cwd=tmp_path, env=env).stdout
    assert version.strip().endswith(f"trusted-memory {PYPROJECT['version']}"), version
    params = StdioServerParameters(command=cmd[0], args=cmd[1:], env=env, cwd=str(tmp_path))
    with (tmp_path / "stderr.txt").open("w") as errlog:
        async with Client(stdio_client(params, errlog=errlog)) as client:
            added = await client.call_tool("memory", {"action": "add", "target": "user", "content": "Uses uv daily"})
            assert not added.is_error, added.content


def test_installed_command_says_nothing_and_stops_at_end_of_input(installed: Path, tmp_path: Path) -> None:
    """What the README promises a person who runs it by hand: silence on stdout, and Ctrl-D (EOF) ends it."""
    env = {"PATH": os.environ["PATH"], "HOME": str(tmp_path), "MCP_MEMORY_HOME": str(tmp_path / "home")}
    done = subprocess.run(
        [str(installed / "trusted-memory")], input="", capture_output=True, text=True, env=env, timeout=120, check=False
    )
    assert (done.returncode, done.stdout) == (0, ""), done.stderr


def test_readme_states_the_python_the_package_requires() -> None:
    readme = (ROOT / "README.md").read_text()
    minimum = PYPROJECT["requires-python"].removeprefix(">=")
    assert f"Python {minimum} or newer" in readme
    assert "half a second" not in readme  # start-up is stated as a ratio measured in benchmarks/RESULTS.md
