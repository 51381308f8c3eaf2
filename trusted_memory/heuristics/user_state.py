"""The heuristic user-state inference: what the rules can see without a model.

It reads only the user's own words (trusted atoms and recent user messages) and infers the obvious:
languages, tools and practices the user mentions, style preferences the user states, how the user
writes (measured), and what they are working on. Statistical guesses about style are marked
`guessed`, so the service sends them to the pending-review queue instead of applying them.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from ..usermodel import Inference

MIN_MESSAGES_FOR_PATTERNS = 5
MAX_NAMES = 6
# Characters read per text: a stored turn holds 4 KiB, and the name tables cost ~2 ms per KiB.
MAX_TEXT_CHARS = 4096


@dataclass(frozen=True, slots=True)
class _Names:
    """One regex over a whole table of names: a single pass per text finds every name it mentions."""

    pattern: re.Pattern[str]
    names: dict[str, str]  # group -> canonical name


def _names(table: dict[str, str]) -> _Names:
    groups = {f"n{i}": name for i, name in enumerate(table)}
    alternatives = "|".join(f"(?P<n{i}>{pattern})" for i, pattern in enumerate(table.values()))
    return _Names(re.compile(rf"(?<![\w.#+-])(?:{alternatives})(?![\w#+])", re.IGNORECASE), groups)


LANGUAGES = _names(
    {
        "Python": r"python3?|pythonic",
        "TypeScript": r"typescript|tsx?(?= files?)",
        "JavaScript": r"javascript|node\.?js",
        "Go": r"golang|go (?:code|modules?|service|binary)",
        "Rust": r"rust|cargo",
        "Java": r"java(?!script)",
        "Kotlin": r"kotlin",
        "Swift": r"swiftui|swift (?:code|apps?|packages?)",
        "C#": r"c#|\.net|dotnet",
        "C++": r"c\+\+|cpp",
        "C": r"(?<!objective-)c (?:code|library|program)",
        "Ruby": r"ruby|rails",
        "PHP": r"php|laravel",
        "Scala": r"scala",
        "Elixir": r"elixir|phoenix framework",
        "Haskell": r"haskell",
        "SQL": r"sql(?!ite)",
        "Bash": r"bash|shell scripts?|zsh",
        "R": r"(?<=in )r(?= (?:code|scripts?|studio))|rstudio",
        "Lua": r"lua",
        "Dart": r"flutter|dart (?:code|sdk)",
        "Clojure": r"clojure",
        "Julia": r"julia(?= (?:code|lang))",
    }
)
TOOLS = _names(
    {
        "Docker": r"docker(?:file)?|docker compose",
        "Kubernetes": r"kubernetes|k8s|kubectl|helm charts?",
        "PostgreSQL": r"postgres(?:ql)?|psql",
        "MySQL": r"mysql|mariadb",
        "SQLite": r"sqlite3?",
        "Redis": r"redis",
        "MongoDB": r"mongo(?:db)?",
        "Git": r"git(?!hub|lab)|rebase",
        "GitHub": r"github(?: actions)?",
        "GitLab": r"gitlab",
        "pytest": r"pytest",
        "Jest": r"jest",
        "React": r"react(?:js| components?| apps?| hooks?| native)|jsx",
        "Vue": r"vue(?:js)?",
        "Django": r"django",
        "FastAPI": r"fastapi",
        "Flask": r"flask",
        "Terraform": r"terraform",
        "AWS": r"aws|s3 buckets?|lambda functions?",
        "GCP": r"gcp|google cloud",
        "Azure": r"azure",
        "Vim": r"n?vim|neovim",
        "VS Code": r"vs ?code|visual studio code",
        "Emacs": r"emacs",
        "Kafka": r"kafka",
        "GraphQL": r"graphql",
        "Linux": r"linux|ubuntu|debian|arch linux",
        "macOS": r"macos|mac ?book|os x",
        "Windows": r"windows (?:10|11|machine|laptop|box)|wsl",
        "Jupyter": r"jupyter",
        "pandas": r"pandas",
        "numpy": r"numpy",
        "Airflow": r"airflow",
        "Nginx": r"nginx",
        "Make": r"makefile|make targets?",
        "uv": r"uv (?:pip|run|sync|lock)",
        "Poetry": r"poetry (?:lock|install|add|run)",
        "npm": r"npm|pnpm|yarn",
        "Figma": r"figma",
        "Jira": r"jira",
        "Slack": r"slack (?:channels?|messages?|threads?)|(?:on|in) slack",
        "Notion": r"(?:in|on) notion(?!\s+of\b)|notion (?:pages?|docs?)",
        "Excel": r"excel (?:sheets?|files?|spreadsheets?)|spreadsheets?",
    }
)
PATTERNS = _names(
    {
        "type hints": r"type hints?|typed python|mypy|static typing",
        "TDD": r"tdd|test[- ]first|tests? before (?:the )?code",
        "code review": r"code reviews?|pull requests?|PRs?",
        "CI": r"\bci\b|continuous integration|pipelines?",
        "functional style": r"functional (?:style|programming)|immutab\w+|pure functions?",
        "async": r"asyncio|async(?:/await| functions?| code)",
        "microservices": r"microservices?",
        "monorepo": r"monorepo",
        "small commits": r"small commits?|atomic commits?",
        "conventional commits": r"conventional commits?",
        "pair programming": r"pair(?:ing| programming)",
        "trunk-based": r"trunk[- ]based",
        "feature flags": r"feature flags?",
        "code formatting": r"ruff|prettier|formatters?|linting|linters?",
    }
)

# A statement about how the user wants answers: (field, value, pattern).
_STATED_STYLE: tuple[tuple[str, str, re.Pattern[str]], ...] = tuple(
    (path, value, re.compile(pattern, re.IGNORECASE))
    for path, value, pattern in (
        (
            "style.verbosity",
            "concise",
            r"\b(?:prefer|like|want|keep(?: it| them| answers| replies)?|be|give me|please|make (?:it|them))\b"
            r"[^.!?\n]{0,25}"
            r"\b(?:short|shorter|brief|briefer|concise|terse|succinct|to the point)\b"
            r"|\b(?:too|so) (?:long|verbose|wordy)\b|\bless (?:verbose|wordy|text)\b|\bno (?:long )?essays?\b"
            r"|\btl;?dr\b",
        ),
        (
            "style.verbosity",
            "detailed",
            r"\b(?:prefer|like|want|give me|keep)\b[^.!?\n]{0,25}"
            r"\b(?:detailed|thorough|in-depth|comprehensive|long(?:er)?)"
            r" (?:answers?|replies|responses|explanations?)\b|\bmore detail(?:s|ed)?\b",
        ),
        (
            "style.explanation_depth",
            "thorough",
            r"\bexplain (?:it |things |everything )?(?:in depth|in detail|thoroughly|step by step)\b"
            r"|\bwalk me through\b"
            r"|\bexplain (?:the )?(?:why|reasoning)\b|\bi (?:want|like) to understand (?:why|how)\b",
        ),
        (
            "style.explanation_depth",
            "brief",
            r"\b(?:don'?t|do not|no need to) explain\b|\bskip the explanations?\b"
            r"|\bjust (?:give|show|send) me the (?:code|answer|command|fix)\b",
        ),
        (
            "style.humor",
            "none",
            r"\b(?:no|without|skip the|cut the|stop (?:the|with the)?) ?(?:jokes|joking|humou?r|puns|emojis?)\b",
        ),
        (
            "style.humor",
            "playful",
            r"\b(?:love|like|enjoy|appreciate) (?:the |your |a bit of )?(?:jokes|puns|humou?r)\b"
            r"|\bfeel free to (?:joke|be funny)\b",
        ),
        (
            "style.formality",
            "casual",
            r"\b(?:no need to be|don'?t be|stop being) (?:so )?formal\b|\bkeep it casual\b|\bcasual tone\b"
            r"|\blike a friend\b",
        ),
        ("style.formality", "formal", r"\b(?:keep it|be|stay|remain) (?:formal|professional)\b|\bformal tone\b"),
        (
            "style.tone",
            "direct",
            r"\b(?:be|just be) (?:direct|blunt|straight(?: with me)?)\b|\bno fluff\b|\bdon'?t sugar-?coat"
            r"|\bno sugar-?coating\b"
            r"|\bskip the (?:pleasantries|small talk|preamble)\b",
        ),
        (
            "style.tone",
            "warm",
            r"\b(?:be|more) (?:encouraging|supportive|gentle|patient) with me\b"
            r"|\bplease be (?:encouraging|supportive|gentle|kind)\b",
        ),
    )
)
# Cheap single-pass filters: a text without any of these words cannot match the patterns below.
_STYLE_HINT = re.compile(
    r"short|brief|concise|terse|succinct|point|long|verbose|wordy|less|essay|tl;?dr|detail|thorough|depth|"
    r"comprehensive|explain|walk me|understand|jok|humou?r|pun|emoji|funny|formal|casual|friend|direct|blunt|"
    r"straight|fluff|sugar|pleasantries|small talk|preamble|encouraging|supportive|gentle|patient|kind",
    re.IGNORECASE,
)
_FOCUS_HINT = re.compile(
    r"working on|building|trying|fixing|migrating|writing|implementing|refactoring|debugging|setting up|porting|"
    r"designing|today|this week|next|task|focus|priority|stuck|blocked|fail|won'?t|broken|can'?t",
    re.IGNORECASE,
)
_NEGATED = re.compile(r"\b(?:don'?t|do not|never|not)\s+(?:\w+\s+){0,2}$", re.IGNORECASE)
_TASK = re.compile(
    r"\b(?:i'?m|i am|we'?re|we are|i'?ve been|we'?ve been) (?:currently |now |still )?"
    r"(?:working on|building|trying to|fixing|migrating|writing|implementing|refactoring|debugging|setting up|porting"
    r"|designing)"
    r" ([^.!?\n]{4,120})"
    r"|\b(?:today|this week|next),? (?:i|we)(?:'ll| will| want to| need to| have to) ([^.!?\n]{4,120})"
    r"|\b(?:my|our) (?:current )?(?:task|focus|priority) (?:is|right now is) (?:to )?([^.!?\n]{4,120})",
    re.IGNORECASE,
)
_BLOCKER = re.compile(
    r"\b(?:i'?m|we'?re|i am|we are) (?:stuck|blocked) (?:on|by|with) ([^.!?\n]{4,120})"
    r"|\b([^.!?\n]{4,80}?) (?:keeps? failing|is failing|won'?t (?:build|compile|start|deploy|work)|is broken)\b"
    r"|\bcan'?t (?:get|make) ([^.!?\n]{4,80}?) (?:to )?(?:work|build|pass|run)\b",
    re.IGNORECASE,
)
_JOKE = re.compile(r"\b(?:lol|lmao|haha+|hehe)\b|[:;]-?[)D]|[\U0001F600-\U0001F64F\U0001F923]", re.IGNORECASE)
_POLITE = re.compile(
    r"\b(?:please|thank you|thanks|kind regards|dear|would you mind|could you kindly)\b", re.IGNORECASE
)


@dataclass(frozen=True, slots=True)
class _TextFacts:
    """What the rules find in one text; texts recur from pass to pass, so this is cached per text."""

    names: tuple[frozenset[str], frozenset[str], frozenset[str]]  # languages, tools, patterns
    styles: tuple[tuple[str, str, str], ...]  # (path, value, sentence)
    task: tuple[str, str] | None  # (value, sentence)
    blocker: tuple[str, str] | None


@lru_cache(maxsize=4096)
def _facts(text: str) -> _TextFacts:
    names = tuple(
        frozenset(t.names[m.lastgroup] for m in t.pattern.finditer(text) if m.lastgroup)
        for t in (LANGUAGES, TOOLS, PATTERNS)
    )
    styles: list[tuple[str, str, str]] = []
    if _STYLE_HINT.search(text):
        for path, value, pattern in _STATED_STYLE:
            match = pattern.search(text)
            if match is None or (_NEGATED.search(text[: match.start()][-30:]) and "no" not in match.group(0).lower()):
                continue
            styles.append((path, value, _sentence(text, match.start())))
    focus = _FOCUS_HINT.search(text) is not None
    return _TextFacts(
        (names[0], names[1], names[2]),
        tuple(styles),
        _last(_TASK, text) if focus else None,
        _last(_BLOCKER, text) if focus else None,
    )


def states_style(text: str) -> bool:
    """True when the text states how the user wants answers ("keep it short", "no jokes")."""
    return bool(_facts(text[:MAX_TEXT_CHARS]).styles)


def infer_user_state(user_texts: Sequence[str], atom_texts: Sequence[str], project: str | None) -> list[Inference]:
    """Inferences from the user's own words: `user_texts` are recent messages (oldest first),
    `atom_texts` trusted memories. Never reads anything else."""
    user_texts = [t[:MAX_TEXT_CHARS] for t in user_texts]
    texts = [*(t[:MAX_TEXT_CHARS] for t in atom_texts), *user_texts]
    facts = [_facts(t) for t in texts]
    inferences: list[Inference] = []
    for i, path in enumerate(("technical.languages", "technical.tools", "technical.patterns")):
        counts: Counter[str] = Counter()
        for f in facts:
            counts.update(f.names[i])
        if counts:
            named = ", ".join(name for name, _ in counts.most_common(MAX_NAMES))
            inferences.append(Inference(path, named, f"mentioned in {len(texts)} messages and memories", 0.8, "stated"))
    stated: dict[str, Inference] = {}  # the latest explicit statement wins for each style field
    for f in facts:
        for path, value, sentence in f.styles:
            stated[path] = Inference(path, value, f'the user said: "{sentence}"', 0.9, "stated")
    inferences.extend(stated.values())
    inferences.extend(_measured(user_texts))
    if project:
        inferences.append(
            Inference("current_focus.project", project, "the project of the current session", 0.9, "stated")
        )
    newest_first = [*facts[len(atom_texts) :][::-1], *facts[: len(atom_texts)][::-1]]  # the user's messages first
    for path, found in (
        ("current_focus.task", next((f.task for f in newest_first if f.task), None)),
        ("current_focus.blocker", next((f.blocker for f in newest_first if f.blocker), None)),
    ):
        if found:
            value, sentence = found
            inferences.append(Inference(path, value, f'the user said: "{sentence}"', 0.8, "stated"))
    return inferences


_COMMAND = re.compile(
    r"\s*(?:(?:please|pls|ok(?:ay)?|so|now|then|and|also|next)[,:]?\s+)*"
    r"(?:add|build|change|check|clean|commit|convert|create|delete|deploy|draft|explain|fix|format|generate|"
    r"give|implement|install|list|look|make|merge|move|open|push|refactor|remove|rename|rewrite|run|send|"
    r"set|show|split|summari[sz]e|tell|test|translate|try|update|use|write)\b",
    re.IGNORECASE,
)


def _measured(user_texts: Sequence[str]) -> list[Inference]:
    """How the user writes, counted; the style it suggests is only a guess."""
    if len(user_texts) < MIN_MESSAGES_FOR_PATTERNS:
        return []
    n = len(user_texts)
    words = sum(len(t.split()) for t in user_texts) / n
    length = "short" if words <= 12 else "long" if words >= 60 else "medium"
    questions = sum(t.rstrip().endswith("?") for t in user_texts) / n
    # An instruction is a message that opens with a command ("fix the test", "please add …"); casual
    # chat ("been painting a lot lately") is neither, so it no longer counts as giving instructions.
    commands = sum(bool(_COMMAND.match(t)) for t in user_texts) / n
    basis = (
        f"measured over the last {n} messages (average {words:.0f} words, {questions:.0%} questions, "
        f"{commands:.0%} instructions)"
    )
    out = [Inference("interaction_patterns.message_length", length, basis, 0.9, "measured")]
    asks = (
        "questions"
        if questions >= 0.6
        else "instructions"
        if commands >= 0.6
        else "mixed"
        if questions + commands >= 0.6
        else None
    )
    if asks is not None:
        out.append(Inference("interaction_patterns.asks", asks, basis, 0.9, "measured"))
    if length == "short":
        out.append(Inference("style.verbosity", "concise", f"guessed from short messages: {basis}", 0.6, "guessed"))
    jokes = sum(bool(_JOKE.search(t)) for t in user_texts) / n
    if jokes >= 0.3:
        out.append(
            Inference(
                "style.humor",
                "light",
                f"guessed: {jokes:.0%} of the last {n} messages joke or use emoji",
                0.55,
                "guessed",
            )
        )
    polite = sum(bool(_POLITE.search(t)) for t in user_texts) / n
    lower = sum(t[:1].islower() for t in user_texts) / n
    if polite >= 0.5:
        out.append(
            Inference(
                "style.formality",
                "formal",
                f"guessed: {polite:.0%} of the last {n} messages use polite forms",
                0.5,
                "guessed",
            )
        )
    elif lower >= 0.6 and polite == 0:
        out.append(
            Inference(
                "style.formality",
                "casual",
                f"guessed: {lower:.0%} of the last {n} messages start in lower case",
                0.5,
                "guessed",
            )
        )
    return out


def _last(pattern: re.Pattern[str], text: str) -> tuple[str, str] | None:
    matches = list(pattern.finditer(text))
    if not matches:
        return None
    match = matches[-1]
    value = next(g for g in match.groups() if g)
    return " ".join(value.split()).strip(" ,;:"), _sentence(text, match.start())


def _sentence(text: str, at: int) -> str:
    start = max(text.rfind(". ", 0, at), text.rfind("\n", 0, at), text.rfind("? ", 0, at), text.rfind("! ", 0, at)) + 1
    ends = [i for i in (text.find(". ", at), text.find("\n", at), text.find("? ", at), text.find("! ", at)) if i >= 0]
    end = min(ends) + 1 if ends else len(text)
    sentence = " ".join(text[start:end].split())
    return sentence if len(sentence) <= 200 else sentence[:199] + "…"
