"""One project naming rule for hooks and agents.

A host hook knows the working directory (`/home/me/billing-svc/api`); an agent passes whatever it
calls the project (`billing-svc`, `Billing-Svc`, or the path). Both must land on the same stored
name, or a filter by project finds only half of the memories. The rule:

1. A value that looks like a path (it has a `/` or `\\`, or starts with `~`) stands for its folder:
   the top of the git work tree it is in (the nearest folder upwards holding `.git`, a folder or,
   in a worktree or submodule, a file; the home folder and `/` do not count, so a dotfiles
   repository in `~` is nobody's project), else the folder itself. Its last component is the name.
2. The name is normalised: surrounding space dropped, lower-cased, each run of whitespace one `-`.

So `/home/me/billing-svc`, `/home/me/billing-svc/api` (inside that repository), `billing-svc` and
`Billing-Svc` are one project, `billing-svc`. Migration 013 applies step 2 and the last path
component to names stored before this rule (without the git lookup: the folders may be gone).
"""

from __future__ import annotations

import re
from pathlib import Path

MAX_PARENTS = 64  # how far up a git work tree is looked for


def project_name(value: str | None) -> str | None:
    """The project's stored name for a name or a path, or None for nothing."""
    text = (value or "").strip()
    if not text:
        return None
    if _is_path(text):
        text = _last_component(str(_work_tree(text)))
    return normalise(text) or None


def normalise(name: str) -> str:
    """A name as stored: trimmed, lower-cased, whitespace runs as one `-`."""
    return re.sub(r"\s+", "-", name.strip().lower())


def _is_path(text: str) -> bool:
    return "/" in text or "\\" in text or text.startswith("~")


def _last_component(text: str) -> str:
    parts = [p for p in re.split(r"[\\/]+", text) if p]
    return parts[-1] if parts else ""


def _work_tree(text: str) -> str:
    """The top of the git work tree `text` is in, when it is an existing folder here; else `text`."""
    try:
        folder = Path(text).expanduser()
        if not folder.is_absolute() or not folder.is_dir():
            return str(folder)
        home = Path.home()
        for candidate in [folder, *folder.parents][:MAX_PARENTS]:
            # A home folder under git (dotfiles) is not every project's work tree.
            if candidate == home or candidate.parent == candidate:
                break
            if (candidate / ".git").exists():
                return str(candidate)
    except (OSError, RuntimeError, ValueError):  # unreadable, a loop, a bad path: the path as given
        pass
    return text
