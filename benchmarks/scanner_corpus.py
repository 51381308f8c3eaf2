"""Scanner quality and speed on the project-built corpus (tests/data/scanner_corpus.json).

Run from the repository root: ``python benchmarks/scanner_corpus.py``. Prints a markdown table of
items, caught, missed, false positives, false-positive rate and mean scan time per item, then one
row per expected kind, and the time to scan ~2 KB of ordinary notes. Always exits 0: correctness is
enforced by tests/test_scan.py, this script reports.
"""

from __future__ import annotations

import json
import platform
import sys
import time
from collections import Counter
from datetime import date
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # runnable as a plain script without installing the package
    sys.path.insert(0, str(ROOT))

from trusted_memory.scan import scan  # noqa: E402

CORPUS = ROOT / "tests" / "data" / "scanner_corpus.json"
REPEATS = 20  # scans per item when timing, so the mean is not dominated by timer resolution
# ~2 KB of the notes people ask an assistant to remember: the common case on the write path.
TYPICAL_NOTES = (
    "I prefer dark mode in every editor and a 100-column limit. The team standup is at 10:15 every weekday, "
    "and sprint planning happens every second Wednesday.\nOur stack: FastAPI on Python 3.11, Postgres 16 with "
    "pgvector, Redis for caching, React 18 with Vite on the frontend. Deployments go through ArgoCD from the main "
    "branch; staging refreshes every Sunday night.\nSarah is the product manager for search; Tom owns the billing "
    "service and reviews its PRs. My daughter's name is Lena and she turns 7 in October, so keep the 12th free.\n"
    "Use UTC for timestamps, structlog for logging, and httpx rather than requests in new code. Prefer dataclasses "
    "over dicts for internal records and pathlib over os.path.\nThe API rate limit is 100 requests per minute per "
    "key; tokens expire after 15 minutes. The cache TTL for search results is 5 minutes.\nI'm flying to Lisbon on "
    "3 June and back on the 10th; book window seats and vegetarian meals. The dentist appointment is on the 14th "
    "at 9:30.\nWhen writing SQL, use uppercase keywords and always parameterise queries. Run ruff and mypy before "
    "pushing, and keep PRs under 400 lines where possible.\nThe design system lives in packages/ui, the feature "
    "flags in LaunchDarkly, dashboards in Grafana, alerts in PagerDuty. The legacy PHP app will be retired in Q3.\n"
    "Ignore the flaky integration test in tests/test_sync.py for now; it's tracked in JIRA-1234. The on-call "
    "handbook is in Notion under Engineering.\nMy gym sessions are Monday, Wednesday and Friday mornings, so no "
    "meetings before 10am on those days. I'm learning Spanish; correct my grammar when I write in Spanish.\n"
) * 2


def _mean_us(texts: list[str]) -> float:
    start = time.perf_counter()
    for _ in range(REPEATS):
        for text in texts:
            scan(text)
    return (time.perf_counter() - start) / (REPEATS * len(texts)) * 1e6


def main() -> int:
    """Print the tables and return the exit status (always 0)."""
    corpus: dict[str, Any] = json.loads(CORPUS.read_text(encoding="utf-8"))
    catch: list[dict[str, str]] = corpus["must_catch"]
    clean: list[dict[str, str]] = corpus["must_pass"]
    for item in catch + clean:  # warm up: patterns compile lazily on first use
        scan(item["text"])

    caught = Counter(item["kind"] for item in catch if item["kind"] in {f.kind for f in scan(item["text"])})
    totals = Counter(item["kind"] for item in catch)
    false_positives = [item["text"] for item in clean if scan(item["text"])]
    catch_us = _mean_us([item["text"] for item in catch])
    clean_us = _mean_us([item["text"] for item in clean])
    typical = TYPICAL_NOTES[:2048]
    dense = "\n".join(item["text"] for item in clean if item["text"].isascii())[:2048]
    typical_us, dense_us = _mean_us([typical]), _mean_us([dense])

    print(f"Scanner corpus — {date.today().isoformat()}, Python {platform.python_version()}, {platform.machine()}\n")
    print("| set | items | caught | missed | false positives | FP rate | mean scan µs/item |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    n_caught = sum(caught.values())
    print(f"| must_catch | {len(catch)} | {n_caught} | {len(catch) - n_caught} | – | – | {catch_us:.1f} |")
    fp_rate = len(false_positives) / len(clean)
    print(f"| must_pass | {len(clean)} | – | – | {len(false_positives)} | {fp_rate:.2%} | {clean_us:.1f} |")
    print("\n| kind | items | caught | catch rate |")
    print("|---|---:|---:|---:|")
    for kind, total in sorted(totals.items()):
        print(f"| {kind} | {total} | {caught[kind]} | {caught[kind] / total:.1%} |")
    print("\n| 2 KB text | chars | µs per scan |")
    print("|---|---:|---:|")
    print(f"| typical notes (preferences, stack, people, schedule) | {len(typical)} | {typical_us:.1f} |")
    print(f"| must_pass joined (trigger words everywhere: worst case) | {len(dense)} | {dense_us:.1f} |")
    for text in false_positives:
        print(f"- false positive: {text!r}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
