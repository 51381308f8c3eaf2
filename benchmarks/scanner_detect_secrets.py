"""Yelp's detect-secrets as a credential engine, against the scanner's own credential rules.

Run from the repository root after ``pip install detect-secrets``:
``python benchmarks/scanner_detect_secrets.py``. For tests/data/scanner/corpus.json (and the
project corpus tests/data/scanner_corpus.json) it prints, per engine, how many credentials are
caught, how many benign texts get a credential finding, and the mean time per item:

* detect-secrets 1.x with its default plugins (regex detectors, keyword detector, Base64 and hex
  entropy) and default filters, each text written to a .txt file and read by ``scan_file`` (the
  path its CLI takes; ``scan_line`` is its ad-hoc audit mode, which reports every word);
* detect-secrets with the two entropy plugins off;
* trusted_memory.scan (a credential finding; the time is the whole ``scan()``, injections too);
* the union of the scanner and detect-secrets without entropy, as if it were a second engine.

The scanner's decision (keep its rules, borrow nothing at run time) is in the issue 14 report.
Exits 2 when detect-secrets is not installed; otherwise 0.
"""

from __future__ import annotations

import json
import platform
import sys
import tempfile
import time
from contextlib import AbstractContextManager
from importlib import metadata
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from trusted_memory.scan import scan_fresh as scan  # noqa: E402  (timed: no memo)

try:
    from detect_secrets.core.scan import scan_file
    from detect_secrets.settings import default_settings, get_settings, transient_settings
except ImportError:  # pragma: no cover - an optional tool for this report only
    scan_file = None

ENTROPY = {"Base64HighEntropyString", "HexHighEntropyString"}
REPEATS = 2


def _settings(entropy: bool) -> AbstractContextManager[Any]:
    if entropy:
        return default_settings()
    with default_settings():
        names = sorted(set(get_settings().plugins) - ENTROPY)
    return transient_settings({"plugins_used": [{"name": name} for name in names]})


def detect_secrets_results(texts: list[str], entropy: bool, workdir: Path) -> tuple[list[bool], float]:
    """Per text, whether detect-secrets finds a secret (scan_file on a .txt file, as its CLI does),
    and the mean µs per text (the file write is included; it is ~1 % of the time)."""
    path = workdir / "memory.txt"
    with _settings(entropy):
        start = time.perf_counter()
        for _ in range(REPEATS):
            out = []
            for text in texts:
                path.write_text(text, encoding="utf-8")
                out.append(any(True for _ in scan_file(str(path))))
        return out, (time.perf_counter() - start) / (REPEATS * len(texts)) * 1e6


def scanner_results(texts: list[str]) -> tuple[list[bool], float]:
    """Per text, whether trusted_memory.scan reports a credential, and the mean µs of scan()."""
    for text in texts[:10]:  # warm up: patterns compile lazily
        scan(text)
    start = time.perf_counter()
    for _ in range(REPEATS):
        out = [any(f.kind == "credential" for f in scan(text)) for text in texts]
    return out, (time.perf_counter() - start) / (REPEATS * len(texts)) * 1e6


def main() -> int:
    """Print the comparison tables."""
    if scan_file is None:
        print("detect-secrets is not installed: pip install detect-secrets", file=sys.stderr)
        return 2
    version = metadata.version("detect-secrets")
    tuning: dict[str, Any] = json.loads((ROOT / "tests/data/scanner/corpus.json").read_text(encoding="utf-8"))
    project: dict[str, Any] = json.loads((ROOT / "tests/data/scanner_corpus.json").read_text(encoding="utf-8"))
    families = [i["family"] for i in tuning["credentials"]]
    sets = {
        "tests/data/scanner/corpus.json": (
            [i["text"] for i in tuning["credentials"]],
            [i["text"] for i in tuning["benign"]],
        ),
        "tests/data/scanner_corpus.json": (
            [i["text"] for i in project["must_catch"] if i["kind"] == "credential"],
            [i["text"] for i in project["must_pass"]],
        ),
    }
    print(f"Credential engines — Python {platform.python_version()}, {platform.machine()}")
    with tempfile.TemporaryDirectory() as tmp:
        for name, (positives, negatives) in sets.items():
            texts = positives + negatives
            results = {
                f"detect-secrets {version}, default plugins": detect_secrets_results(texts, True, Path(tmp)),
                f"detect-secrets {version}, entropy plugins off": detect_secrets_results(texts, False, Path(tmp)),
                "trusted_memory.scan (hand-written rules)": scanner_results(texts),
            }
            ours, ds = (
                results["trusted_memory.scan (hand-written rules)"],
                results[f"detect-secrets {version}, entropy plugins off"],
            )
            results["scanner OR detect-secrets (entropy off)"] = (
                [a or b for a, b in zip(ours[0], ds[0])],
                ours[1] + ds[1],
            )
            print(f"\n### {name}: {len(positives)} credentials, {len(negatives)} benign\n")
            print("| engine | caught | caught % | benign flagged | FP % | µs/item |")
            print("|---|---:|---:|---:|---:|---:|")
            for label, (flags, us) in results.items():
                caught, false = sum(flags[: len(positives)]), sum(flags[len(positives) :])
                print(
                    f"| {label} | {caught}/{len(positives)} | {caught / len(positives):.1%} "
                    f"| {false}/{len(negatives)} | {false / len(negatives):.1%} | {us:.0f} |"
                )
            for label in [k for k in results if k.startswith("detect-secrets")]:
                flags = results[label][0]
                false_positives = [t[:60] for t, hit in zip(negatives, flags[len(positives) :]) if hit]
                print(f"\n{label}: benign flagged {false_positives}")
            if name.endswith("scanner/corpus.json"):
                print("\n| family | items | detect-secrets default | detect-secrets no entropy | scanner |")
                print("|---|---:|---:|---:|---:|")
                columns = [results[k][0] for k in list(results)[:3]]
                for family in sorted(set(families)):
                    rows = [k for k, f in enumerate(families) if f == family]
                    counts = " | ".join(str(sum(col[k] for k in rows)) for col in columns)
                    print(f"| {family} | {len(rows)} | {counts} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
