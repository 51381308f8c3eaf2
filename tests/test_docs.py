"""The README stays true: every action, config key and admin command is documented, and CI runs its test command."""

from __future__ import annotations

import argparse
import re
from pathlib import Path

from trusted_memory.cli.admin import build_parser
from trusted_memory.config import KEY_TYPES
from trusted_memory.server.actions import ACTIONS

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()


def test_every_action_is_documented() -> None:
    for name in ACTIONS:
        assert f"`{name}`" in README, name


def test_every_config_key_is_documented() -> None:
    for key in KEY_TYPES:
        assert f"| `{key}` |" in README, key


def test_every_admin_command_is_documented() -> None:
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    for name in sub.choices:
        assert re.search(rf"`{name}\b", README), name


def test_ci_runs_the_readme_test_command() -> None:
    blocks = re.findall(r"```sh\n(.*?)\n```", README, flags=re.S)
    test_command = next(b for b in blocks if "pytest" in b)
    install_command = next(b for b in blocks if b.endswith("trusted-memory"))
    assert test_command in (ROOT / ".ci" / "run").read_text()
    assert install_command.startswith("python3 -m venv .venv")
