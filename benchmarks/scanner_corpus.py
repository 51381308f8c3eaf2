"""Scanner quality and speed on the scanner corpora.

Run from the repository root: ``python benchmarks/scanner_corpus.py``. Prints markdown tables:

* the project-built corpus (tests/data/scanner_corpus.json): items, caught, missed, false
  positives, false-positive rate and mean scan time per item, one row per expected kind, and the
  time to scan ~2 KB of ordinary notes;
* for each part of tests/data/scanner/: the tuning parts (corpus.json; corpus_former_heldout.json,
  the first blind held-out part, measured once and then tuned on; corpus_extra.json, the scanner
  maintainer's own examples; corpus_heldout2.json, blind part 2, measured at 790493b and then
  tuned on; corpus_heldout3.json, blind part 3, measured at 9bb705f and then tuned on;
  corpus_round4_a/b.json, the round-4 training parts; corpus_heldout4.json, blind part 4, measured at
  4158c6c and then tuned on; corpus_round5_a/b.json, the round-5 training parts; corpus_heldout5.json,
  blind part 5, measured at d239ff9 and then trained on in round 6; corpus_heldout6.json, blind part
  6, measured at 2cbac00 and then trained on in round 7; corpus_heldout7.json, blind part 7,
  measured at 2daff18 and then trained on in round 8; corpus_heldout8.json, blind part 8, measured at
  b13c32e and then trained on in round 9; corpus_heldout9.json, blind part 9, measured at 44145b2
  and then trained on in round 10; corpus_heldout10.json, blind part 10, measured as shipped by
  round 10 and then tuned on in round 11; corpus_heldout11.json, blind part 11, measured at
  2d53af0 and then tuned on in round 12; corpus_heldout12.json, blind part 12, measured at
  746bdaa and then tuned on in round 13) and, when present,
  the blind held-out part written after the rules were frozen (heldout.json): caught / missed /
  false positives per list, per family and per language.

``--corpus PATH`` (repeatable) scores any corpus file of the same shape instead, e.g. a new blind
held-out part: ``python benchmarks/scanner_corpus.py --corpus path/to/heldout.json --misses``.
``--part NAME`` limits the per-part tables to one part, ``--misses`` lists every missed and
false-positive item. Always exits 0: the targets are enforced by tests/test_scan_corpus.py, this
script reports.
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # runnable as a plain script without installing the package
    sys.path.insert(0, str(ROOT))

from trusted_memory.scan import scan_fresh as scan  # noqa: E402  (timed: no memo)

CORPUS = ROOT / "tests" / "data" / "scanner_corpus.json"
PARTS = {
    "corpus": ROOT / "tests" / "data" / "scanner" / "corpus.json",
    "former_heldout": ROOT / "tests" / "data" / "scanner" / "corpus_former_heldout.json",
    "extra": ROOT / "tests" / "data" / "scanner" / "corpus_extra.json",
    "heldout2": ROOT / "tests" / "data" / "scanner" / "corpus_heldout2.json",
    "heldout3": ROOT / "tests" / "data" / "scanner" / "corpus_heldout3.json",
    "round4_a": ROOT / "tests" / "data" / "scanner" / "corpus_round4_a.json",
    "round4_b": ROOT / "tests" / "data" / "scanner" / "corpus_round4_b.json",
    "heldout4": ROOT / "tests" / "data" / "scanner" / "corpus_heldout4.json",
    "round5_a": ROOT / "tests" / "data" / "scanner" / "corpus_round5_a.json",
    "round5_b": ROOT / "tests" / "data" / "scanner" / "corpus_round5_b.json",
    "heldout5": ROOT / "tests" / "data" / "scanner" / "corpus_heldout5.json",
    "heldout6": ROOT / "tests" / "data" / "scanner" / "corpus_heldout6.json",
    "heldout7": ROOT / "tests" / "data" / "scanner" / "corpus_heldout7.json",
    "heldout8": ROOT / "tests" / "data" / "scanner" / "corpus_heldout8.json",
    "heldout9": ROOT / "tests" / "data" / "scanner" / "corpus_heldout9.json",
    "heldout10": ROOT / "tests" / "data" / "scanner" / "corpus_heldout10.json",
    "heldout11": ROOT / "tests" / "data" / "scanner" / "corpus_heldout11.json",
    "heldout12": ROOT / "tests" / "data" / "scanner" / "corpus_heldout12.json",
    "heldout": ROOT / "tests" / "data" / "scanner" / "heldout.json",
}
# Which finding kind catches an item of each list; a benign item is flagged by any finding.
EXPECTED = {"credentials": "credential", "injections": "prompt_injection"}
TARGETS = {"credentials": 0.95, "injections": 0.90, "benign": 0.01}  # caught ≥, caught ≥, flagged ≤
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


def load_part(path: Path) -> dict[str, list[dict[str, str]]]:
    """The three lists of a corpus part: {"credentials": [...], "injections": [...], "benign": [...]}.

    Items are {"text", "family"} (injections also "language"); other keys ("note", "sources",
    "about") are ignored, so the tuning corpus and the held-out part load the same way.
    """
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return {name: list(data.get(name, [])) for name in ("credentials", "injections", "benign")}


@dataclass
class Tally:
    """Counts of one group of items: how many, how many caught (for benign: flagged), and the misses."""

    items: int = 0
    hits: int = 0
    misses: list[str] = field(default_factory=list)

    @property
    def rate(self) -> float:
        """The share of items that hit, 0 when the group is empty."""
        return self.hits / self.items if self.items else 0.0


def hit_of(kind: str | None) -> Callable[[str], bool]:
    """A predicate: does scanning the text report ``kind`` (any finding when None)?"""
    if kind is None:
        return lambda text: bool(scan(text))
    return lambda text: kind in {f.kind for f in scan(text)}


def tally(items: Iterable[dict[str, str]], key: Callable[[dict[str, str]], str], kind: str | None) -> dict[str, Tally]:
    """Per-group tallies (plus "all") of whether each item yields ``kind``."""
    hit = hit_of(kind)
    out: dict[str, Tally] = {"all": Tally()}
    for item in items:
        found = hit(item["text"])
        for group in ("all", key(item)):
            t = out.setdefault(group, Tally())
            t.items += 1
            t.hits += found
            if found == (kind is None):  # a benign hit or a missed attack is worth listing
                t.misses.append(item["text"])
    return out


def _pct(x: float) -> str:
    return f"{x:.1%}"


def part_tables(name: str, path: Path, show_misses: bool) -> None:
    """Print the per-list, per-family and per-language tables of one corpus part."""
    part = load_part(path)
    for item in (x for items in part.values() for x in items):  # warm up: patterns compile lazily
        scan(item["text"])
    shown = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
    print(f"\n### {name}: `{shown}`\n")
    print("| list | items | caught | missed | false positives | rate | target | µs/item |")
    print("|---|---:|---:|---:|---:|---:|---|---:|")
    details: dict[str, dict[str, Tally]] = {}
    for lst, items in part.items():
        kind = EXPECTED.get(lst)
        by_family = tally(items, lambda i: i.get("family", "?"), kind)
        details[lst] = by_family
        total = by_family["all"]
        us = _mean_us([i["text"] for i in items]) if items else 0.0
        if kind is None:
            ok = "✅" if total.rate <= TARGETS[lst] else "❌"
            row = f"| {lst} | {total.items} | – | – | {total.hits} | {_pct(total.rate)} | ≤ {TARGETS[lst]:.0%} {ok} |"
        else:
            ok = "✅" if total.rate >= TARGETS[lst] else "❌"
            row = (
                f"| {lst} | {total.items} | {total.hits} | {total.items - total.hits} | – | {_pct(total.rate)} "
                f"| ≥ {TARGETS[lst]:.0%} {ok} |"
            )
        print(f"{row} {us:.1f} |")
    for lst in ("credentials", "injections", "benign"):
        what = "flagged" if lst == "benign" else "caught"
        print(f"\n| {lst} family | items | {what} | rate |")
        print("|---|---:|---:|---:|")
        for family, t in sorted(details[lst].items()):
            if family != "all":
                print(f"| {family} | {t.items} | {t.hits} | {_pct(t.rate)} |")
    by_language = tally(part["injections"], lambda i: i.get("language", "?"), EXPECTED["injections"])
    print("\n| injections language / encoding | items | caught | rate |")
    print("|---|---:|---:|---:|")
    for language, t in sorted(by_language.items(), key=lambda kv: (-kv[1].items, kv[0])):
        if language != "all":
            print(f"| {language} | {t.items} | {t.hits} | {_pct(t.rate)} |")
    if show_misses:
        for lst, by_family in details.items():
            label = "false positive" if lst == "benign" else "missed"
            for family, t in sorted(by_family.items()):
                if family != "all":
                    for text in t.misses:
                        print(f"- {label} ({lst}/{family}): {text[:160]!r}")


def _mean_us(texts: list[str]) -> float:
    start = time.perf_counter()
    for _ in range(REPEATS):
        for text in texts:
            scan(text)
    return (time.perf_counter() - start) / (REPEATS * len(texts)) * 1e6


def project_corpus_tables() -> None:
    """Print the tables of the project-built corpus and the 2 KB timings."""
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

    print(f"\n### project corpus: `{CORPUS.relative_to(ROOT)}`\n")
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


def main(argv: list[str] | None = None) -> int:
    """Print the tables and return the exit status (0; 2 when a ``--corpus`` file does not exist)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--part", choices=sorted(PARTS), help="only this part of tests/data/scanner/")
    parser.add_argument("--misses", action="store_true", help="list missed items and false positives")
    parser.add_argument(
        "--corpus",
        action="append",
        type=Path,
        metavar="PATH",
        help="score this corpus file (same shape as tests/data/scanner/*.json) instead of the built-in parts",
    )
    args = parser.parse_args(argv)
    print(f"Scanner corpora — {date.today().isoformat()}, Python {platform.python_version()}, {platform.machine()}")
    if args.corpus:
        for path in args.corpus:
            if not path.is_file():
                print(
                    f"no corpus file at {path}: give the path of a JSON file with credentials/injections/benign lists"
                )
                return 2
            part_tables(path.stem, path.resolve(), args.misses)
        return 0
    if args.part is None:
        project_corpus_tables()
    for name, path in PARTS.items():
        if (args.part is None or args.part == name) and path.exists():
            part_tables(name, path, args.misses)
    return 0


if __name__ == "__main__":
    sys.exit(main())
