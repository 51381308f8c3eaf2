"""Per-query fusion rules swept over every set in one process, and each rule's leave-one-set-out pick.

    python benchmarks/fusion_sweep.py --family weight --out /tmp/weight.jsonl [--semantic-share S]
        [--link-evidence E] [--sets conv,...,ho7,line,lineho] [--embedder local --model DIR]
    python benchmarks/fusion_sweep.py --pick /tmp/weight.jsonl /tmp/rrf.jsonl ...

Loads the sets once as fusion_eval.py does (every user turn stored verbatim; the one-line sets
backdated), asks every question at keyword-only once, then at the hybrid under each setting of the
family, and writes one JSON line per setting: {"name", "r10": {set: hybrid R@10}, "keyword": {set:
keyword-only R@10}}. Families (each setting switched in this process only, nothing saved):

- weight: a query's keyword weight (after the product's own rule, within KEYWORD_WEIGHT_BOUNDS) moved
  by how sure its vector list is: its top cosine read on the space's scale ("top"), the relative gap
  from its top cosine to its 2nd or 10th ("gap"), the share of the two lists' top 5 / 10 they agree
  on ("agree"), whether keyword's best is in the vector top n or the reverse; the configured keyword
  weight × KEYWORD_WEIGHT_GAIN; the cosine floor and full scale the fusion reads cosines with.
- keyword: the keyword list's own gap (top score to its 2nd or 10th), alone and with the vector gap.
- rrf: reciprocal-rank fusion added to the score (gain / (k + rank) in each list, or the vector list only).
- link: the discount of linked neighbours (ranking.EXPANSION_DISCOUNT).
- main: the product's fusion only (with --semantic-share or --link-evidence).

--semantic-share and --link-evidence (recall.SEMANTIC_LINK_EVIDENCE, the write-time link threshold)
act before the stores are built, so they re-embed or re-link; keyword-only is then measured on that
build. --pick reads such files and, for each conversation set, chooses the setting with the best
mean (and, separately, the best minimum) hybrid − keyword R@10 over the other seven among those
keeping both one-line hybrid R@10 within 2 points of the first file's "main", and prints that
setting's hybrid − keyword on the set left out.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import itertools
import json
import sys
from collections.abc import Callable, Iterator
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any

import fusion_eval

from trusted_memory import ranking
from trusted_memory.services import recall as recall_module
from trusted_memory.services import recall_types
from trusted_memory.services.recall import RecallService

CONVERSATIONS = ("conv", "ho", "ho2", "ho3", "ho4", "ho5", "ho6", "ho7")
Rule = Callable[[Any, float], float]  # (plan, the product's keyword weight) -> this setting's
Setting = tuple[str, Rule | None, dict[str, float]]

PRODUCT_KEYWORD_WEIGHT = recall_types.Plan.keyword_weight
PRODUCT_SCORE = RecallService._score
ACTIVE: dict[str, Any] = {"rule": None, "rrf": None}
SPACE = [0.1, 0.6]  # the cosine floor and full scale the fusion currently reads with


def ruled_keyword_weight(self: Any, hybrid_weight: float) -> float:
    weight = PRODUCT_KEYWORD_WEIGHT(self, hybrid_weight)
    rule = ACTIVE["rule"]
    if rule is None or not 0.0 < weight < 1.0 or self.query.mode != "hybrid":
        return weight
    low, high = ranking.KEYWORD_WEIGHT_BOUNDS
    return max(low, min(high, float(rule(self, weight))))


def ranked_score(self: RecallService, plan: Any, candidates: Any, fields: Any, ts: float) -> Any:
    scored = PRODUCT_SCORE(self, plan, candidates, fields, ts)
    rrf = ACTIVE["rrf"]
    if rrf is None or not 0.0 < plan.keyword_weight(self.weights.keyword_weight) < 1.0:
        return scored
    k, gain, vector_only = rrf
    lists = [sorted((n for n in candidates if candidates[n].cosine > 0), key=lambda n: -candidates[n].cosine)]
    if not vector_only:
        lists.append(sorted((n for n in candidates if candidates[n].keyword > 0), key=lambda n: -candidates[n].keyword))
    places = [{n: i + 1 for i, n in enumerate(order)} for order in lists]
    return [
        item._replace(score=item.score + gain * sum(1.0 / (k + p[item.num]) for p in places if item.num in p))
        for item in scored
    ]


def install() -> None:
    """Route the product's keyword weight and scores through the active setting (this process only)."""
    recall_types.Plan.keyword_weight = ruled_keyword_weight  # type: ignore[method-assign]
    RecallService._score = ranked_score  # type: ignore[method-assign]


def cosines(plan: Any) -> list[tuple[float, int]]:
    return sorted(((c.cosine, n) for n, c in plan.candidates.items() if c.cosine > 0), reverse=True)


def keywords(plan: Any) -> list[tuple[float, int]]:
    return sorted(((c.keyword, n) for n, c in plan.candidates.items() if c.keyword > 0), reverse=True)


def gap(values: list[tuple[float, int]], nth: int) -> float | None:
    if len(values) < 2 or values[0][0] <= 0:
        return None
    return (values[0][0] - values[min(nth, len(values)) - 1][0]) / values[0][0]


def top_rule(gain: float, pivot: float) -> Rule:
    def rule(plan: Any, weight: float) -> float:
        listed = cosines(plan)
        if not listed:
            return weight
        sure = ranking.vector_part(listed[0][0], SPACE[0], SPACE[1])
        return weight - gain * (sure - pivot)

    return rule


def gap_rule(gain: float, pivot: float, nth: int, of_keyword: bool) -> Rule:
    def rule(plan: Any, weight: float) -> float:
        margin = gap(keywords(plan) if of_keyword else cosines(plan), nth)
        if margin is None:
            return weight
        return weight + (gain if of_keyword else -gain) * (margin - pivot)

    return rule


def both_gaps_rule(vector_gain: float, keyword_gain: float) -> Rule:
    def rule(plan: Any, weight: float) -> float:
        vector, keyword = gap(cosines(plan), 10), gap(keywords(plan), 10)
        if vector is None or keyword is None:
            return weight
        return weight - vector_gain * (vector - 0.2) + keyword_gain * (keyword - 0.4)

    return rule


def agree_rule(gain: float, pivot: float, n: int) -> Rule:
    def rule(plan: Any, weight: float) -> float:
        kw, vec = keywords(plan), cosines(plan)
        if not kw or not vec:
            return weight
        shared = {x for _, x in kw[:n]} & {x for _, x in vec[:n]}
        return weight + gain * (len(shared) / n - pivot)

    return rule


def leader_in_rule(gain: float, n: int, keyword_leader: bool) -> Rule:
    """keyword_leader: keyword's best in the vector top n -> more keyword, else less. Otherwise the
    vector list's best in the keyword top n -> less keyword."""

    def rule(plan: Any, weight: float) -> float:
        kw, vec = keywords(plan), cosines(plan)
        if not kw or not vec:
            return weight
        if keyword_leader:
            return weight + (gain if kw[0][1] in {x for _, x in vec[:n]} else -gain)
        return weight - (gain if vec[0][1] in {x for _, x in kw[:n]} else 0.0)

    return rule


def family(name: str) -> Iterator[Setting]:
    yield "main", None, {}
    if name == "weight":
        for gain, pivot in itertools.product((0.1, 0.2, 0.3, 0.5), (0.4, 0.6, 0.8)):
            yield f"top g{gain} p{pivot}", top_rule(gain, pivot), {}
        for gain, pivot, nth in itertools.product((0.2, 0.4, 0.8), (0.1, 0.2, 0.3), (2, 10)):
            yield f"gap{nth} g{gain} p{pivot}", gap_rule(gain, pivot, nth, False), {}
        for gain, pivot, n in itertools.product((0.1, 0.2, 0.4), (0.2, 0.4), (5, 10)):
            yield f"agree{n} g{gain} p{pivot}", agree_rule(gain, pivot, n), {}
        for gain, n in itertools.product((0.05, 0.1, 0.2), (3, 10)):
            yield f"kwtop-in-vec{n} g{gain}", leader_in_rule(gain, n, True), {}
            yield f"vectop-in-kw{n} g{gain}", leader_in_rule(gain, n, False), {}
        for weight, gain in itertools.product((0.3, 0.35, 0.45, 0.5), (0.2, 0.4, 0.6)):
            yield f"kw {weight} gain {gain}", None, {"keyword_weight": weight, "gain": gain}
        for floor, full in itertools.product((0.05, 0.1, 0.15, 0.2), (0.5, 0.55, 0.6, 0.65, 0.7)):
            if (floor, full) != (0.1, 0.6):
                yield f"cos {floor}-{full}", None, {"cosine_floor": floor, "cosine_full": full}
    elif name == "keyword":
        for gain, pivot, nth in itertools.product((0.1, 0.2, 0.4), (0.2, 0.4, 0.6), (2, 10)):
            yield f"kwgap{nth} g{gain} p{pivot}", gap_rule(gain, pivot, nth, True), {}
        for vector_gain, keyword_gain in itertools.product((0.2, 0.4), (0.1, 0.2, 0.4)):
            yield f"both gv{vector_gain} gk{keyword_gain}", both_gaps_rule(vector_gain, keyword_gain), {}
    elif name == "rrf":
        for k, gain, vector_only in itertools.product((1, 5, 10, 30), (0.25, 0.5, 1.0, 2.0), (False, True)):
            yield (
                f"rrf {'vec' if vector_only else 'both'} k{k} g{gain}",
                None,
                {"rrf_k": k, "rrf_gain": gain, "rrf_vec": vector_only},
            )
    elif name == "link":
        for discount in (0.0, 0.2, 0.3, 0.4, 0.6, 0.7):
            yield f"expand {discount}", None, {"expand": discount}


async def sweep(args: argparse.Namespace) -> None:
    install()
    if args.semantic_share is not None:
        from trusted_memory.embed import hashing

        hashing.SEMANTIC_SHARE = args.semantic_share
    if args.link_evidence is not None:
        recall_module.SEMANTIC_LINK_EVIDENCE = args.link_evidence  # type: ignore[misc]
    async with AsyncExitStack() as stack:
        stores = await fusion_eval.load_all(stack, args.sets.split(","), args)
        recalls = [(one.runtime.recall, one.runtime.recall.weights) for loaded in stores.values() for one in loaded]
        space = recalls[0][1]
        keyword = {
            n: fusion_eval.metrics(v["keyword"])[1]
            for n, v in (await fusion_eval.evaluate(stores, ["keyword"])).items()
        }
        with Path(args.out).open("w") as out:
            for name, rule, knobs in family(args.family):
                ACTIVE["rule"] = rule
                ACTIVE["rrf"] = (knobs["rrf_k"], knobs["rrf_gain"], knobs["rrf_vec"]) if "rrf_k" in knobs else None
                SPACE[:] = [knobs.get("cosine_floor", space.cosine_floor), knobs.get("cosine_full", space.cosine_full)]
                for recall, weights in recalls:
                    recall.weights = dataclasses.replace(
                        weights,
                        keyword_weight=knobs.get("keyword_weight", weights.keyword_weight),
                        cosine_floor=SPACE[0],
                        cosine_full=SPACE[1],
                    )
                ranking.KEYWORD_WEIGHT_GAIN = knobs.get("gain", 0.4)  # type: ignore[misc]
                recall_module.EXPANSION_DISCOUNT = knobs.get("expand", 0.5)  # type: ignore[misc]
                try:
                    result = await fusion_eval.evaluate(stores, ["hybrid"])
                finally:
                    ranking.KEYWORD_WEIGHT_GAIN = 0.4  # type: ignore[misc]
                    recall_module.EXPANSION_DISCOUNT = 0.5  # type: ignore[misc]
                    for recall, weights in recalls:
                        recall.weights = weights
                hybrid = {n: fusion_eval.metrics(v["hybrid"])[1] for n, v in result.items()}
                out.write(json.dumps({"name": name, "r10": hybrid, "keyword": keyword}) + "\n")
                out.flush()
                print(name, " ".join(f"{n} {x:.3f}" for n, x in hybrid.items()), flush=True)


def gain(setting: dict[str, Any], name: str) -> float:
    """Hybrid − keyword R@10 of a setting on one set, in points."""
    return 100 * (setting["r10"][name] - setting["keyword"][name])


def leave_one_out(settings: list[dict[str, Any]], by_mean: bool) -> list[tuple[str, str, float, float]]:
    """For each conversation set: the setting chosen on the other seven (the first, main, wins ties),
    its hybrid − keyword on the set left out, and main's there. Settings that take either one-line
    set more than 2 points below main's hybrid R@10 are never chosen."""
    main = settings[0]
    guarded = [s for s in settings if all(s["r10"][n] >= main["r10"][n] - 0.02 - 1e-9 for n in ("line", "lineho"))]
    out = []
    for held in CONVERSATIONS:
        rest = [n for n in CONVERSATIONS if n != held]

        def score(s: dict[str, Any], rest: list[str] = rest) -> float:
            gains = [gain(s, n) for n in rest]
            return sum(gains) / len(gains) if by_mean else min(gains)

        best = max(guarded, key=score)
        out.append((held, str(best["name"]), gain(best, held), gain(main, held)))
    return out


def pick(files: list[str]) -> None:
    settings: list[dict[str, Any]] = []
    for index, file in enumerate(files):
        for line in Path(file).read_text().splitlines():
            row = json.loads(line)
            if row["name"] == "main" and index:
                row["name"] = f"main of {Path(file).stem}"
            settings.append(row)
    print(f"{len(settings)} settings")
    for by_mean in (True, False):
        print(f"picked by the {'mean' if by_mean else 'minimum'} hybrid - keyword R@10 of the other seven sets:")
        rows = leave_one_out(settings, by_mean)
        for held, name, held_gain, main_gain in rows:
            print(f"  {held:5s} {name:24s} held out {held_gain:+.1f} (main {main_gain:+.1f})")
        mean = sum(r[2] for r in rows) / len(rows)
        print(f"  mean held out {mean:+.2f} (main {sum(r[3] for r in rows) / len(rows):+.2f})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sets", default=",".join((*CONVERSATIONS, "line", "lineho")))
    parser.add_argument("--family", choices=("main", "weight", "keyword", "rrf", "link"), default="weight")
    parser.add_argument("--out", help="the sweep's JSON lines (required unless --pick)")
    parser.add_argument("--embedder", default="hash")
    parser.add_argument("--model")
    parser.add_argument("--semantic-share", type=float)
    parser.add_argument("--link-evidence", type=float)
    parser.add_argument("--pick", nargs="+", help="sweep files to choose from, leave-one-set-out")
    args = parser.parse_args()
    if args.pick:
        pick(args.pick)
    elif not args.out:
        parser.error("--out is required for a sweep")
    else:
        asyncio.run(sweep(args))


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).parent))
    main()
