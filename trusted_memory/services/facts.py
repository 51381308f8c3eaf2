"""The facts tier: the small always-on snapshot, with caps that make every error decision-ready."""

from __future__ import annotations

import dataclasses
import functools
import re
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Literal

from ..config import FactsSettings
from ..errors import CapacityExceeded, ContentRejected, InvalidInput, NotFound
from ..grounding import check_grounded
from ..llm.base import LLMStats, MemoryLLM, NullLLM, run_job
from ..llm.jobs import (
    PROMPT_EXAMPLES,
    ConsolidationOut,
    MergeJudgmentOut,
    consolidation_prompt,
    merge_prompt,
    validate_consolidation,
)
from ..model import TARGETS, Actor, FactEntry, Target
from ..scan import describe, normalize_for_dedup, scan
from ..store.base import Store, Tx, now
from ..text import content_terms, negated
from ..text import preview as text_preview

MAX_FIELD_BYTES = 2048
MAX_KEY_CHARS = 64
MAX_KEYWORDS = 16
MAX_KEYWORD_CHARS = 48
WARN_AT_PCT = 90
PREVIEW_CHARS = 60
_KEY_RE = re.compile(r"^[\w .:/-]+$")

WriteStatus = Literal["added", "updated", "unchanged", "replaced", "removed", "merged"]
Similarity = Callable[[str, Sequence[str]], Awaitable[list[float] | None]]
MERGE_ABOVE = 0.7  # cosine above which a new fact restates an existing entry
SEPARATE_BELOW = 0.3  # below: clearly a different fact; between: added (an LLM may judge later)


@dataclass(frozen=True, slots=True)
class TargetUsage:
    """How full one target is."""

    target: Target
    used: int
    cap: int
    entries: int

    @property
    def pct(self) -> int:
        """Percentage of the cap in use, rounded down."""
        return self.used * 100 // self.cap if self.cap else 0

    @property
    def warning(self) -> str | None:
        """A one-line warning once the target is nearly full."""
        if self.pct < WARN_AT_PCT:
            return None
        return (
            f"WARNING: {self.target} facts are at {self.pct}% of {self.cap:,} chars; remove or "
            "merge entries (action=remove / action=replace) before adding more."
        )


@dataclass(frozen=True, slots=True)
class ConsolidateResult:
    """What a consolidation merged."""

    target: Target
    merged: int
    removed: int
    message: str


@dataclass(frozen=True, slots=True)
class FactsView:
    """The entries of one target, rendered for a prompt."""

    target: Target
    entries: tuple[FactEntry, ...]
    usage: TargetUsage
    rendered: str


@dataclass(frozen=True, slots=True)
class FactWrite:
    """What a facts write did."""

    status: WriteStatus
    target: Target
    entry: FactEntry
    index: int
    usage: TargetUsage
    message: str


def preview(text: str, limit: int = PREVIEW_CHARS) -> str:
    """A one-line preview of `text`, cut with an ellipsis."""
    return text_preview(text, limit)


def check_target(target: str) -> Target:
    """Validate a target name."""
    if target not in TARGETS:
        raise InvalidInput(f"target must be 'user' or 'env', not {target!r}")
    return target


def check_field(name: str, value: str, *, required: bool = True) -> str:
    """Strip a mutating text field and enforce the per-field byte cap."""
    text = value.strip()
    if required and not text:
        raise InvalidInput(f"{name} is empty; give the text to store")
    size = len(text.encode("utf-8"))
    if size > MAX_FIELD_BYTES:
        raise InvalidInput(
            f"{name} is {size:,} bytes; the limit is {MAX_FIELD_BYTES:,} bytes per field. "
            "Shorten it or split it into separate entries."
        )
    return text


def check_clean(name: str, text: str) -> None:
    """Refuse text the content scanner flags, naming what it found."""
    findings = scan(text)
    if findings:
        raise ContentRejected(
            f"{name} was refused by the content scanner: {describe(findings)}. "
            "Memory never stores credentials, hidden characters or instructions aimed at an AI; "
            "rephrase without them."
        )


def check_key(key: str | None) -> str | None:
    """Validate an entry key (a short profile-field name)."""
    if key is None:
        return None
    key = key.strip()
    if not key:
        return None
    if len(key) > MAX_KEY_CHARS or not _KEY_RE.match(key):
        raise InvalidInput(
            f"key {preview(key, 40)!r} is not valid: use at most {MAX_KEY_CHARS} letters, digits, "
            "spaces or _ . : / - (for example 'editor' or 'timezone')"
        )
    check_clean("key", key)
    return key


def check_keywords(keywords: Sequence[str] | None) -> tuple[str, ...]:
    """Validate and normalise contextual keywords (lower-cased, unique, in order)."""
    if not keywords:
        return ()
    if len(keywords) > MAX_KEYWORDS:
        raise InvalidInput(f"at most {MAX_KEYWORDS} keywords per entry; got {len(keywords)}")
    out: list[str] = []
    for raw in keywords:
        word = " ".join(str(raw).split()).lower()
        if not word or len(word) > MAX_KEYWORD_CHARS:
            raise InvalidInput(f"each keyword must be 1-{MAX_KEYWORD_CHARS} characters; got {raw!r}")
        check_clean("keyword", word)
        if word not in out:
            out.append(word)
    return tuple(out)


def render(target: Target, entries: Sequence[FactEntry], usage: TargetUsage) -> str:
    """The prompt form of a target: a header with usage, one line per entry, a warning if full."""
    lines = [f"{target.upper()} FACTS ({usage.used:,}/{usage.cap:,} chars, {usage.pct}%)"]
    for index, entry in enumerate(entries, start=1):
        marks = []
        if entry.key:
            marks.append(f"key={entry.key}")
        if entry.pinned:
            marks.append("pinned")
        if entry.keywords:
            marks.append("when: " + ", ".join(entry.keywords))
        suffix = f"  [{'; '.join(marks)}]" if marks else ""
        lines.append(f"{index}. {entry.content}{suffix}")
    if usage.warning:
        lines.append(usage.warning)
    return "\n".join(lines)


def _entry_list(entries: Sequence[FactEntry]) -> str:
    return "; ".join(f"#{i} ({len(e.content):,} chars) {preview(e.content)!r}" for i, e in enumerate(entries, start=1))


@functools.lru_cache(maxsize=4096)
def _normalized(text: str) -> str:
    # Every add compares against every entry of its target: remember their normal forms.
    return normalize_for_dedup(text)


def merge_texts(old: str, new: str) -> str | None:
    """Merge two similar facts without an LLM: keep the one that says more, if one contains the other.

    Two similar facts that each say something the other does not ("project atlas uses Python",
    "project beacon uses Python") are different facts; without a model to judge, they stay apart.
    Nor is a negated statement merged ("I eat meat, not fish" then "I eat fish, not meat" have the
    same words): stop-word filtering cannot see which way it points. Both stay, both seen.
    """
    if negated(old) or negated(new):
        return None
    old_words, new_words = set(content_terms(old)), set(content_terms(new))
    if new_words <= old_words:
        return old
    if old_words <= new_words:
        return new
    return None


def find_entry(target: Target, entries: Sequence[FactEntry], old_text: str) -> tuple[int, FactEntry]:
    """The one entry `old_text` names: an exact whole-entry match wins, else a unique substring."""
    needle = old_text.strip()
    if not needle:
        raise InvalidInput("old_text is empty; give a unique part of the entry to change")
    exact = [(i, e) for i, e in enumerate(entries, start=1) if e.content == needle]
    if exact:
        return exact[0]
    hits = [(i, e) for i, e in enumerate(entries, start=1) if needle in e.content]
    if not hits:
        folded = needle.casefold()
        hits = [(i, e) for i, e in enumerate(entries, start=1) if folded in e.content.casefold()]
    if not hits:
        raise NotFound(f"no {target} fact contains {preview(needle, 40)!r}; call action=read to see the entries")
    if len(hits) > 1:
        raise InvalidInput(
            f"old_text {preview(needle, 40)!r} matches {len(hits)} entries: "
            + "; ".join(f"#{i} {preview(e.content)!r}" for i, e in hits)
            + ". Give a longer substring that only one entry contains."
        )
    return hits[0]


class FactsService:
    """Use cases of the facts tier; every write is one transaction with its event."""

    def __init__(
        self,
        store: Store,
        settings: FactsSettings,
        similarity: Similarity | None = None,
        llm: MemoryLLM | None = None,
        stats: LLMStats | None = None,
        llm_timeout_s: float = 20.0,
    ) -> None:
        self._store = store
        self._settings = settings
        self._similarity = similarity
        self._llm = llm or NullLLM()
        self._stats = stats or LLMStats()
        self._llm_timeout_s = llm_timeout_s

    def cap(self, target: Target) -> int:
        """The character cap of a target."""
        return self._settings.user_cap if target == "user" else self._settings.env_cap

    def _usage(self, target: Target, entries: Sequence[FactEntry]) -> TargetUsage:
        return TargetUsage(target, sum(len(e.content) for e in entries), self.cap(target), len(entries))

    def _over_cap(self, target: Target, entries: Sequence[FactEntry], adding: int, what: str) -> None:
        usage = self._usage(target, entries)
        if usage.used + adding <= usage.cap:
            return
        raise CapacityExceeded(
            f"{what} would bring {target} facts to {usage.used + adding:,} of {usage.cap:,} chars. "
            f"Entries (index, size, preview): {_entry_list(entries) or 'none'}. "
            "Remove an entry (action=remove with a unique old_text), merge entries with action=replace, "
            "or shorten the new content, then try again."
        )

    async def view(self, target: Target) -> FactsView:
        """Entries and usage of one target."""
        async with self._store.read() as rx:
            entries = await rx.facts.list(target)
        usage = self._usage(target, entries)
        return FactsView(target, tuple(entries), usage, render(target, entries, usage))

    async def usage(self) -> list[TargetUsage]:
        """Usage of every target."""
        async with self._store.read() as rx:
            entries = await rx.facts.list()
        return [self._usage(t, [e for e in entries if e.target == t]) for t in TARGETS]

    async def add(
        self,
        target: Target,
        content: str,
        *,
        key: str | None = None,
        pinned: bool | None = None,
        keywords: Sequence[str] | None = None,
        actor: Actor = "agent",
    ) -> FactWrite:
        """Add an entry; with a key, replace the entry that has it (upsert)."""
        content = check_field("content", content)
        check_clean("content", content)
        key = check_key(key)
        words = check_keywords(keywords)
        merge = None
        if key is None and self._similarity is not None:
            # Similarity is computed before taking the write lock (other processes wait on it);
            # the candidate is used only if it is unchanged once the lock is held.
            async with self._store.read() as rx:
                current = await rx.facts.list(target)
            merge = await self._merge_candidate(content, [e for e in current if e.key is None])
        async with self._store.write() as tx:
            entries = await tx.facts.list(target)
            same_key = next((e for e in entries if key is not None and e.key == key), None)
            if same_key is not None:
                return await self._rewrite(
                    tx,
                    target,
                    entries,
                    same_key,
                    content,
                    actor,
                    "updated",
                    pinned=same_key.pinned if pinned is None else pinned,
                    keywords=words or same_key.keywords,
                )
            norm = _normalized(content)
            twin = next((e for e in entries if _normalized(e.content) == norm), None)
            if twin is not None:
                index = entries.index(twin) + 1
                return FactWrite(
                    "unchanged",
                    target,
                    twin,
                    index,
                    self._usage(target, entries),
                    f"{target} facts already hold this entry (#{index}); nothing stored twice.",
                )
            if merge is not None and merge[0] in entries:
                old, merged = merge
                write = await self._rewrite(
                    tx,
                    target,
                    entries,
                    old,
                    merged,
                    actor,
                    "merged",
                    pinned=old.pinned or bool(pinned),
                    keywords=tuple(dict.fromkeys((*old.keywords, *words))),
                )
                return dataclasses.replace(
                    write,
                    message=f"merged into {target} entry #{write.index}, which said nearly the same thing.",
                )
            self._over_cap(target, entries, len(content), f"Adding {len(content):,} chars")
            entry = await tx.facts.insert(
                target,
                content,
                key=key,
                pinned=bool(pinned),
                keywords=words,
                ts=now(),
            )
            await tx.events.record(
                actor,
                "fact_added",
                f"fact:{entry.id}",
                {"target": target, "key": key, "content": content, "pinned": bool(pinned), "keywords": list(words)},
            )
            usage = self._usage(target, [*entries, entry])
        return FactWrite("added", target, entry, usage.entries, usage, f"added to {target} facts as #{usage.entries}.")

    async def _merge_candidate(self, content: str, entries: Sequence[FactEntry]) -> tuple[FactEntry, str] | None:
        """The entry a new fact restates and the merged text, if a safe merge exists.

        Above MERGE_ABOVE a fact that one contains the other merges without a model; otherwise, from
        SEPARATE_BELOW up, the memory LLM (when there is one) judges.
        """
        if self._similarity is None or not entries:
            return None
        scores = await self._similarity(content, [e.content for e in entries])
        if not scores:
            return None
        best = max(range(len(scores)), key=scores.__getitem__)
        old = entries[best]
        merged = merge_texts(old.content, content) if scores[best] > MERGE_ABOVE else None
        if merged is None and scores[best] >= SEPARATE_BELOW and not isinstance(self._llm, NullLLM):
            # The grey zone, and close pairs where neither contains the other ("prefers dark mode",
            # "prefers light mode"): only a model can tell a restatement or an update from a new fact.
            judged = await run_job(
                self._llm,
                *merge_prompt(old.content, content),
                MergeJudgmentOut,
                timeout_s=self._llm_timeout_s,
                stats=self._stats,
                job="merge",
                foreground=True,
            )
            merged = judged.merged if judged is not None and judged.same_fact else None
            if merged is not None:
                # The merge replaces both entries: it may only join what they say.
                verdict = check_grounded(merged, [old.content, content], min_share=1.0, echoes=PROMPT_EXAMPLES)
                await self._stats.record(
                    "merge", "kept" if verdict.ok else "ungrounded", error=None if verdict.ok else verdict.reason
                )
                merged = merged if verdict.ok else None
        if merged is None or len(merged.encode("utf-8")) > MAX_FIELD_BYTES or scan(merged):
            return None  # the merge would not be storable: keep the new fact separately
        return old, merged

    async def _rewrite(
        self,
        tx: Tx,
        target: Target,
        entries: list[FactEntry],
        old: FactEntry,
        content: str,
        actor: Actor,
        status: WriteStatus,
        *,
        pinned: bool,
        keywords: Sequence[str],
    ) -> FactWrite:
        others = [e for e in entries if e.id != old.id]
        index = entries.index(old) + 1
        if old.content == content and old.pinned == pinned and tuple(keywords) == old.keywords:
            return FactWrite(
                "unchanged",
                target,
                old,
                index,
                self._usage(target, entries),
                f"{target} entry #{index} already reads so; nothing changed.",
            )
        norm = _normalized(content)
        twin = next((e for e in others if _normalized(e.content) == norm), None)
        if twin is not None:
            raise InvalidInput(
                f"the new content duplicates {target} entry #{entries.index(twin) + 1}; "
                "remove this entry instead (action=remove)."
            )
        self._over_cap(target, others, len(content), f"Changing entry #{index} to {len(content):,} chars")
        ts = now()
        await tx.facts.update(old.id, content=content, pinned=pinned, keywords=keywords, ts=ts)
        await tx.events.record(
            actor,
            f"fact_{status}",
            f"fact:{old.id}",
            {
                "target": target,
                "key": old.key,
                "old_content": old.content,
                "content": content,
                "pinned": pinned,
                "keywords": list(keywords),
            },
        )
        entry = FactEntry(old.id, target, content, old.key, pinned, tuple(keywords), old.created_at, ts, old.owner)
        usage = self._usage(target, [entry if e.id == old.id else e for e in entries])
        return FactWrite(status, target, entry, index, usage, f"{status} {target} entry #{index}.")

    async def consolidate(self, target: Target, *, actor: Actor = "agent") -> ConsolidateResult:
        """Merge redundant entries (the memory LLM, else restatement merges); never silently deleting.

        Applied only if the facts are unchanged since the snapshot the merge was computed from;
        every merged text is re-scanned; every removed entry's text stays in its event.
        """
        async with self._store.read() as rx:
            snapshot = await rx.facts.list(target)
        if len(snapshot) < 2:
            return ConsolidateResult(target, 0, 0, "nothing to consolidate")
        contents = [e.content for e in snapshot]
        plan: list[tuple[str, list[int]]] | None = None
        if not isinstance(self._llm, NullLLM):
            out = await run_job(
                self._llm,
                *consolidation_prompt(target, contents, self.cap(target)),
                ConsolidationOut,
                timeout_s=self._llm_timeout_s,
                stats=self._stats,
                job="consolidate",
                foreground=True,
            )
            plan = validate_consolidation(contents, out) if out is not None else None
            if plan is not None:
                # Each merged entry may only say what the entries it covers say.
                verdicts = [
                    check_grounded(c, [contents[i - 1] for i in s], min_share=1.0, echoes=PROMPT_EXAMPLES)
                    for c, s in plan
                ]
                failed = [v for v in verdicts if not v.ok]
                if failed:
                    await self._stats.record("consolidate", "ungrounded", len(failed), error=failed[0].reason)
                    plan = None
                else:
                    await self._stats.record("consolidate", "kept", len(plan))
        if plan is None:
            plan = await self._restatement_plan(snapshot)
        plan = [(c, s) for c, s in plan if len(s) > 1 or c != contents[s[0] - 1]]
        if not plan:
            return ConsolidateResult(target, 0, 0, "no redundant entries found")
        for merged, _ in plan:
            check_field("content", merged)
            if scan(merged):
                return ConsolidateResult(target, 0, 0, "a merged entry failed the content scan; nothing changed")
        merged_count = removed = 0
        async with self._store.write() as tx:
            current = await tx.facts.list(target)
            if [(e.id, e.updated_at) for e in current] != [(e.id, e.updated_at) for e in snapshot]:
                return ConsolidateResult(target, 0, 0, "the facts changed meanwhile; nothing applied, try again")
            ts = now()
            for merged, sources in plan:
                keep, *drop = [snapshot[i - 1] for i in sources]
                await tx.facts.update(
                    keep.id,
                    content=merged,
                    pinned=any(e.pinned for e in (keep, *drop)),
                    keywords=tuple(dict.fromkeys(k for e in (keep, *drop) for k in e.keywords)),
                    ts=ts,
                )
                for gone in drop:
                    await tx.facts.delete(gone.id)
                await tx.events.record(
                    actor,
                    "fact_consolidated",
                    f"fact:{keep.id}",
                    {
                        "target": target,
                        "content": merged,
                        "sources": [{"id": e.id, "content": e.content} for e in (keep, *drop)],
                    },
                )
                merged_count += 1
                removed += len(drop)
        return ConsolidateResult(
            target,
            merged_count,
            removed,
            f"merged {merged_count} group(s), {removed} entr{'y' if removed == 1 else 'ies'} folded in",
        )

    async def consolidation_prompt_for(self, target: Target) -> tuple[str, str] | None:
        """The consolidation prompt for a target's current entries (None with fewer than two)."""
        async with self._store.read() as rx:
            entries = await rx.facts.list(target)
        if len(entries) < 2:
            return None
        return consolidation_prompt(target, [e.content for e in entries], self.cap(target))

    async def _restatement_plan(self, entries: Sequence[FactEntry]) -> list[tuple[str, list[int]]]:
        """Without a model: fold entries that another entry restates and extends (cosine > 0.7)."""
        if self._similarity is None:
            return []
        absorbed: dict[int, int] = {}
        texts = {i: e.content for i, e in enumerate(entries, start=1) if e.key is None}
        for i, text in texts.items():
            others = [j for j in texts if j != i]
            scores = await self._similarity(text, [texts[j] for j in others]) or []
            for j, score in zip(others, scores, strict=True):
                if score > MERGE_ABOVE and i not in absorbed and j not in absorbed.values():
                    merged = merge_texts(texts[j], text)
                    if merged == texts[j] and j not in absorbed:
                        absorbed[i] = j  # j says everything i says
                        break
        groups: dict[int, list[int]] = {}
        for small, big in absorbed.items():
            groups.setdefault(big, [big]).append(small)
        return [(entries[big - 1].content, sorted(members)) for big, members in groups.items()]

    async def replace(self, target: Target, old_text: str, content: str, *, actor: Actor = "agent") -> FactWrite:
        """Rewrite the one entry `old_text` names with `content`."""
        old_text = check_field("old_text", old_text)
        content = check_field("content", content)
        check_clean("content", content)
        async with self._store.write() as tx:
            entries = await tx.facts.list(target)
            _, old = find_entry(target, entries, old_text)
            return await self._rewrite(
                tx,
                target,
                entries,
                old,
                content,
                actor,
                "replaced",
                pinned=old.pinned,
                keywords=old.keywords,
            )

    async def remove(self, target: Target, old_text: str, *, actor: Actor = "agent") -> FactWrite:
        """Delete the one entry `old_text` names (its text stays in the audit log)."""
        old_text = check_field("old_text", old_text)
        async with self._store.write() as tx:
            entries = await tx.facts.list(target)
            index, old = find_entry(target, entries, old_text)
            await tx.facts.delete(old.id)
            await tx.events.record(
                actor,
                "fact_removed",
                f"fact:{old.id}",
                {"target": target, "key": old.key, "old_content": old.content},
            )
            usage = self._usage(target, [e for e in entries if e.id != old.id])
        return FactWrite("removed", target, old, index, usage, f"removed {target} entry #{index}.")
