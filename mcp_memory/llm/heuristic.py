"""The rule-based memory brain used when no model is configured (``llm.provider = none``).

Pure regular expressions over short clauses (stdlib only, well under a millisecond per message):
``extract`` turns one user message into typed atoms, ``note_category`` files a line into a
session-note category, ``summarize_turns`` writes a third-person episode summary, ``one_line``
makes the session-buffer line and ``looks_like_turn_or_refusal`` rejects LLM output that is a
reply instead of a summary. The rules favour precision: a missed memory costs one repetition by
the user, a wrong one is recalled in every later session.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from dataclasses import dataclass

from mcp_memory.model import ATOM_TYPES
from mcp_memory.scan import scan, strip_invisible
from mcp_memory.text import STOP_WORDS, content_terms, fold, tokenize

__all__ = [
    "Extracted",
    "extract",
    "looks_like_turn_or_refusal",
    "note_category",
    "one_line",
    "strip_untrusted",
    "summarize_turns",
]

MAX_ATOM_CHARS = 300


@dataclass(frozen=True, slots=True)
class Extracted:
    """One atom found in a user message: its type, self-contained text, confidence and tags."""

    type: str
    text: str
    confidence: float
    tags: tuple[str, ...]


# --- removing what the user did not write ----------------------------------------------------------

_BLOCK_TAGS = (
    r"tool_output|tool_outputs|tool_result|tool_results|tool_use|tool_call|function_results|function_calls"
    r"|function_call|function_result|document|documents|file|web|web_page|search_results|search_result"
    r"|system-reminder|system_reminder|system|context|attachment|email|output|stdout|stderr|result"
    r"|results|pasted|clipboard|retrieved|source|quote|blockquote|transcript|webpage|page|html"
)
_BLOCK = re.compile(rf"<({_BLOCK_TAGS})\b[^>]*>.*?</\1\s*>", re.IGNORECASE | re.DOTALL)
# An opening tag whose block never closes: everything after it is foreign.
_UNCLOSED = re.compile(rf"<(?:{_BLOCK_TAGS})\b[^>]*>.*", re.IGNORECASE | re.DOTALL)
# A closing tag without its opening one (nesting, truncation): what precedes it is foreign.
_STRAY_CLOSE = re.compile(rf"^.*</(?:{_BLOCK_TAGS})\s*>", re.IGNORECASE | re.DOTALL)
_FENCE = re.compile(r"(`{3,}|~{3,}).*?(?:\1|\Z)", re.DOTALL)
_QUOTED = re.compile(r"^[ \t]*>.*$|^[ \t]*On .{4,120} wrote:[ \t]*$", re.MULTILINE)
_FORWARDED = re.compile(r"^[ \t]*-{2,}\s*(?:Original|Forwarded) Message\s*-{2,}.*", re.MULTILINE | re.DOTALL | re.IGNORECASE)
_CODE_LINE = re.compile(
    r"""^(?:
        [ ]{4,}\S | \t
      | Traceback\ \(most | \s*File\ ".*",\ line\ \d | \s*at\ [\w.$<>]+\s*\( | \s*\^{2,}
      | \[?\d{4}-\d\d-\d\d[ T]\d\d:\d\d | \[?\d\d:\d\d:\d\d
      | \[?(?:INFO|DEBUG|WARN|WARNING|ERROR|TRACE|FATAL|CRITICAL)\b
      | [$#%]\ \S | >>>\ | \.\.\.\ \S | [\w.]+(?:Error|Exception|Warning)\b.*:\s
      | def\ \w+\s*\( | class\ \w+\s*[(:{] | import\ [\w.]+ | from\ [\w.]+\ import\ | (?:const|let|var)\ \w+\s*=
      | function\s*\w*\s*\( | (?:fn|func)\ \w+\s*\( | pub\ (?:fn|struct|enum|mod)\b | package\ [\w.]+\s*;?\s*$
      | (?:if|elif|else|for|while|try|except|with)\b.*[:{]\s*$ | return\b.*[;)\]]\s*$
      | \s*(?:\#include|//|/\*|\*/|<!--)
      | .*[{};]\s*$ | \s*[})\]]+[;,]?\s*$
      | (?:npm|yarn|pnpm|pip|cargo)\ (?:ERR|WARN|error)
    )""",
    re.VERBOSE,
)
_BULLET = re.compile(r"^\s*(?:[-*+•]|\d+[.)])\s+\w")
_SYMBOL = re.compile(r"[^\w\s.,'!?-]|_")


def _is_code_line(line: str) -> bool:
    """A line that looks like code, a log record or a stack frame rather than prose."""
    if not line.strip() or _BULLET.match(line):
        return False
    if _CODE_LINE.match(line):
        return True
    # Symbol-dense lines (JSON, paths and punctuation soup) are pasted, not written.
    return len(line) >= 12 and len(_SYMBOL.findall(line)) > 0.25 * len(line)


def _drop_pasted_runs(text: str) -> str:
    """Drop runs of two or more code/log-like lines; one stray line may be the user's own."""
    if "\n" not in text:
        return text  # a run needs two lines (a lone traceback header is not worth a pass)
    lines = text.split("\n")
    flags = [_is_code_line(line) for line in lines]
    keep: list[str] = []
    i = 0
    while i < len(lines):
        if not flags[i]:
            keep.append(lines[i])
            i += 1
            continue
        j = i
        while j < len(lines) and flags[j]:
            j += 1
        if j - i < 2 and not lines[i].lstrip().startswith("Traceback"):
            keep.extend(lines[i:j])
        i = j
    return "\n".join(keep)


def strip_untrusted(message: str) -> str:
    """Remove content the user did not author (tool output, documents, code, quotes, logs); keep their prose."""
    text = strip_invisible(message).replace("\r\n", "\n")
    text = _BLOCK.sub("\n", text)
    text = _STRAY_CLOSE.sub("\n", text)
    text = _UNCLOSED.sub("\n", text)
    text = _FENCE.sub("\n", text)
    text = _FORWARDED.sub("\n", text)
    text = _QUOTED.sub("", text)
    text = _drop_pasted_runs(text)
    return re.sub(r"\n{3,}", "\n\n", text).strip()


# --- sentences and clauses --------------------------------------------------------------------------

_SENTENCE_END = re.compile(r"(?<=[.!?])[\"')\]]*\s+|\n+|;\s+|\s+[-–—]{1,2}\s+")
_ABBREV = re.compile(r"(?:\b(?:e\.g|i\.e|etc|vs|approx|mr|mrs|ms|dr|st|no|cf|fig)\.)$", re.IGNORECASE)
_CLAUSE_SPLIT = re.compile(
    r"(\s*,\s*(?:and|but|so|plus|though|although)?\s*|\s+(?:and|but|so|plus|though|although|whereas)\s+)", re.IGNORECASE
)


def _sentences(text: str) -> list[str]:
    """Split prose into sentences, re-joining breaks after abbreviations such as "e.g."."""
    out: list[str] = []
    pos = 0
    for m in _SENTENCE_END.finditer(text):
        tail = text[max(pos, m.start() - 8):m.start()]
        if "\n" not in m.group(0) and _ABBREV.search(tail):
            continue
        out.append(text[pos:m.start()].strip())
        pos = m.end()
    out.append(text[pos:].strip())
    return [s for s in out if s]


@functools.lru_cache(maxsize=1024)
def _norm(text: str) -> str:
    """Lower-case a clause and spell out the contractions and chat shorthand the rules expect."""
    s = _SHORTHAND_RE.sub(lambda m: _SHORTHAND[m.group(0)], fold(text).replace("`", ""))
    return " ".join(s.split())


_SHORTHAND = {
    "i am": "i'm", "im": "i'm", "ive": "i've", "i have been": "i've been", "we are": "we're",
    "id rather": "i'd rather", "i would rather": "i'd rather", "i would like": "i'd like", "do not": "don't",
    "dont": "don't", "cannot": "can't", "can not": "can't", "cant": "can't", "lets": "let's", "let us": "let's",
    "wanna": "want to", "gonna": "going to", "gotta": "have to", "u": "you", "ur": "your", "pls": "please",
    "plz": "please", "we will": "we'll", "i will": "i'll", "favorite": "favourite", "fave": "favourite",
}
_SHORTHAND_RE = re.compile(
    r"(?<![\w'])(?:" + "|".join(re.escape(k) for k in sorted(_SHORTHAND, key=len, reverse=True)) + r")(?![\w'])"
)

# Discourse openers carry no content; removed from the text too.
_LEAD = re.compile(
    r"^(?:(?:ok(?:ay)?|so|well|also|and|but|plus|oh|ah|hmm+|um+|uh+|ugh+|yeah|yep|yes|no|nope|right|alright"
    r"|cool|great|nice|sure|btw|by the way|fyi|fwiw|tbh|honestly|actually|basically|anyway|anyways|lol|haha"
    r"|hey|hi|hello|ps|just so you know|for the record|heads up|as you know|oh and|one more thing|fun fact"
    r"|side note|now|lately|recently|currently|also note|quick note|just fyi|in general|generally speaking"
    r"|for context|for reference|just a heads up|a heads up)\b[\s,:!.\-]*)+",
    re.IGNORECASE,
)
# Hedges soften a statement; kept in the text, removed for matching, confidence lowered.
_HEDGE = re.compile(r"^(?:i think|i guess|i believe|i suppose|i feel like|probably|maybe|i'd say|imo|imho)\b[\s,]*")
# "Remember that …" is removed here rather than in _LEAD: it also marks the rest as worth keeping as a note.
_EXPLICIT = re.compile(
    r"^(?:please\s+)?(?:(?:remember|keep in mind|note)(?:\s+that\b|\s*:)|for future reference\b|for the record\b)[\s,:]*",
    re.IGNORECASE,
)
_LABEL = re.compile(
    r"^(?P<label>[a-z][\w' -]{0,40}?\b(?:context|note|fyi|update|heads up|reminder|important|background|info"
    r"|btw|ps|side note|for the record|tl;?dr|summary|edit)\b[\w' -]{0,30}?):\s+",
    re.IGNORECASE,
)
_SELF_NOTE = re.compile(r"^(?:note to self|til|today i learned|lesson learned|lessons learned)\b[\s:,\-]*", re.IGNORECASE)
_RULE_SCOPE = re.compile(
    r"^(?:from now on|going forward|from here on(?: out)?|moving forward|in (?:this|our|the) "
    r"(?:repo|repository|project|codebase|team|company|monorepo))\b[\s,:]*",
    re.IGNORECASE,
)
_HYPOTHETICAL = re.compile(
    r"^(?:if|suppose|supposing|imagine|assuming|assume|hypothetically|what if|let's say|say we|in case"
    r"|even if|were i|had i|i wonder|i was wondering|i'm wondering)\b"
)
_STRONG_HYPOTHETICAL = re.compile(r"\b(?:were|would|could|might|'d|should)\b|\?")
_SUBORDINATE = re.compile(
    r"^(?:when|whenever|if|before|after|once|unless|until|while|every time|each time|in|on|for|from now on"
    r"|going forward)\b"
)
_PRONOUN_START = re.compile(r"^(?:i|i'm|i've|i'd|i'll|we|we're|we've|we'd|we'll|he|she|they|it|it's|you|let's)\b")
_DEICTIC = re.compile(
    r"\b(?:it(?!\s+(?:when|if|whenever)\b)|them|him|her)\b|\b(?:this|that|these|those)\b(?=\s*(?:$|[,.;:!?)]|(?:is|was|are|were|way|one"
    r"|ones|thing|stuff|again|too|instead|for|to|in|on|with|at|from|by|as|so|because|but|and|or|will|would"
    r"|should|could|can|might|must)\b))"
)
# Verbs that can follow "and" with the subject left out ("we use X and deploy to Y").
_SHARED_VERBS = frozenset((
    "use", "uses", "deploy", "deploys", "host", "hosts", "run", "runs", "prefer", "like", "love", "hate",
    "live", "work", "keep", "store", "ship", "release", "write", "always", "never", "usually", "switched",
    "moved", "decided", "chose", "picked",
))


# --- clause classification --------------------------------------------------------------------------

# Internal verdicts; underscored so they can never collide with an atom type ("question" is one).
QUESTION, REQUEST, COMMAND, NEUTRAL = "_question", "_request", "_command", ""

_ADV = (
    r"(?:(?:really|also|still|just|generally|usually|normally|typically|mostly|definitely|totally|absolutely"
    r"|strongly|much|kinda|kind of|sort of|honestly|personally|actually|truly|do|def|always|now|very much"
    r"|mainly|primarily|only|currently|already|finally|eventually)\s+)*"
)
_SCOPE = (
    r"\b(?:in|for|across|throughout|within)\s+(?:this|the|our|my|all)\s+(?:repo|repository|project|codebase"
    r"|code base|team|company|monorepo|service|services|app|package|org|workspace|code)\b|\bhere\b"
    r"|\bby default\b|\beverywhere\b|\bgoing forward\b|\bfrom now on\b|\bfrom here on\b|\bat all times\b"
)
_Q_START = re.compile(
    r"^(?:(?:what|what's|whats|why|how|how's|when|where|where's|who|who's|which|whose)\b(?!\s+(?:i|we)\s)"
    r"|(?:how|what|why|where|when|which)\s+(?:i|we)\s+(?:do|can|should|would|could|did|am|are|was)\b"
    r"|(?:is|are|am|was|were|do|does|did|can|could|would|will|should|shall|have|has|had|may|might|must"
    r"|isn't|aren't|don't|doesn't|didn't|can't|won't|wouldn't|shouldn't)\s+(?:i|we|you|it|this|that|there"
    r"|they|he|she|the|my|our|your|any|anyone|someone)\b"
    r"|any (?:idea|ideas|thoughts|clue|suggestions?)\b|anyone know|wdyt|thoughts\b|i was wondering|i wonder)"
)
_R_START = re.compile(
    r"^(?:please|kindly|can you|could you|would you|will you|would you mind|help me|help|let me know|lmk"
    r"|i need you|i want you|i'd like you|i'd love (?:it )?if you|go ahead|feel free|i'd like to ask"
    r"|i have a (?:question|request|quick question)|let me|lemme|don't forget)\b"
)
_IMPERATIVE = re.compile(
    r"^(?:fix|write|add|create|generate|make|refactor|run|rerun|re-run|show|open|explain|tell|give|translate"
    r"|summari[sz]e|check|search|look|find|review|update|change|remove|delete|rename|move|implement|try"
    r"|list|convert|debug|merge|rewrite|edit|install|set up|setup|configure|build|print|draft|suggest"
    r"|recommend|compare|describe|walk|send|email|book|schedule|remind|read|analy[sz]e|ignore|continue"
    r"|keep going|stop|undo|revert|clean|format|document|optimi[sz]e|improve|simplify|split|extract"
    r"|replace|port|do|redo|go|get|put|commit|push|pull|call|paste|copy|lint|sort|fetch|download|upload"
    r"|plot|draw|calculate|compute|count|verify|validate|double-check|proofread|answer|reply|respond"
    r"|use|switch|bump|upgrade|downgrade|retry|restart|start|kill|wrap|mock|patch|benchmark|profile"
    r"|save|store|drop|skip|hide|include|exclude|enable|disable|turn|tweak|adjust|increase|decrease"
    r"|reduce|limit|speed|don't|never mind|nvm|let's (?:see|try|check|look|debug|test|figure|think|do|start"
    r"|continue|get|take|step|fix|run|add|write|make|focus|move on|revisit)|deploy|test|ship|release"
    r"|tidy|inline|annotate|type|comment|explain|show|keep|be|make sure|stay|avoid|give me|focus)\b"
    # "commit messages should …", "build is …": a verb-looking word that is really the subject.
    r"(?!\s+(?:[\w-]+\s+)?(?:should|must|shall|is|are|was|were|needs?|has|have|goes|lives|live)\b)"
)


@dataclass(frozen=True, slots=True)
class _Rule:
    """One extraction rule: the first matching rule wins, so the specific ones are registered first."""

    pattern: re.Pattern[str]
    kind: str
    confidence: float
    first: frozenset[str]  # the clause's first word must be one of these (empty: any word)
    needs: re.Pattern[str] | None  # one of these substrings must occur (None: no pre-check)


_RULES: list[_Rule] = []


def _rule(kind: str, confidence: float, pattern: str, first: str = "", needs: str = "") -> None:
    """Register one rule; ``first`` and ``needs`` are cheap pre-checks that keep extract() fast."""
    needed = re.compile("|".join(re.escape(n) for n in needs.split("|"))) if needs else None
    _RULES.append(_Rule(re.compile(pattern), kind, confidence, frozenset(first.split()), needed))


_I = r"(?:i|my \w+ and i|me and my \w+)"
_REL = (
    r"(?:wife|husband|partner|spouse|girlfriend|boyfriend|fiance|fiancee|sister|brother|sibling|siblings"
    r"|mom|mum|mother|dad|father|parents|son|daughter|kid|kids|child|children|baby|grandma|grandmother"
    r"|grandpa|grandfather|grandparents|aunt|uncle|cousin|niece|nephew|family|in-laws|twins|dog|cat|pet"
    r"|puppy|kitten|boss|manager|team lead|lead|cto|ceo|coworker|co-worker|colleague|colleagues"
    r"|teammate|teammates|team|friend|best friend|roommate|flatmate|landlord|neighbou?r|doctor|therapist"
    r"|accountant|lawyer|dentist|client|clients|customer|customers|company|employer|startup)"
)
_REL_VERB = (
    r"(?:is|are|was|were|'s|lives|live|works|work|studies|goes|go|has|have|had|just|likes|loves|hates"
    r"|prefers|starts|start|started|turns|turned|is called|'s name is|name is|names are|got|moved|plays"
    r"|teaches|runs|handles|takes|was born|passed|retired|graduated|graduates|attends|visits|comes|needs"
    r"|can't|doesn't|don't|never|always|birthday is|birthday's|speaks|owns|drives|uses|wants)"
)
_ATTR = (
    r"(?:version|deadline|due date|launch date|release date|language|languages|framework|database|db"
    r"|stack|port|host|hostname|url|domain|endpoint|base url|region|cluster|frontend|front end|backend"
    r"|back end|api|server|orm|ci|cd|ci/cd|pipeline|package manager|linter|formatter|test runner|license"
    r"|timezone|time zone|standup|stand-up|meeting|sync|retro|rotation|on-call|oncall|budget|owner"
    r"|maintainer|stakeholder|repo|repository|default branch|main branch|staging|prod|production"
    r"|registry|bucket|namespace|entry point|entrypoint|cron|sla|slo|quota|python|node|java|rust|ruby"
    r"|php|go|cloud|provider|hosting|infra|infrastructure|cache|queue|broker|auth|os|distro|shell"
    r"|editor|ide|theme|font|code name|codename|name|cadence|frequency|sprint|sprints|schedule|workflow"
    r"|release|releases|monitoring|logging|alerting|tracing|storage|email|vpn|domain name|workspace|channel"
    r"|org|organization|account|team name|product|company)"
)
_FACT_VERB = (
    r"(?:uses|use|is using|are using|relies on|rely on|depends on|is written in|are written in"
    r"|is built (?:with|on|in)|are built (?:with|on|in)|runs on|run on|is running on|are running on"
    r"|is deployed (?:on|to|via|with|at)|are deployed (?:on|to|via|with)|is hosted (?:on|at|by|in|with)"
    r"|are hosted|lives on|is on port|runs on port|listens on|is served (?:by|from)|talks to|connects to"
    r"|targets|is backed by|is powered by|runs (?:every|daily|hourly|nightly|weekly|at \d))"
)
_SUBJ = r"(?:(?:the|our|this|my|all|both)\s+)?(?!(?:it|this|that|they|he|she|you|i|we|there|which|what)\b)[\w.+#/-]+(?:\s+[\w.+#/-]+){0,3}?"
_VAGUE_OBJ = (
    r"(?!(?:a |an |one |the |some |no |any |another )?(?:question|idea|problem|issue|doubt|feeling|suggestion"
    r"|request|bug|error|weird|strange|small|quick|meeting|call"
    r"|few|clue|time|minute|second|moment|sec|look|try|go)\b)"
)
_GOAL_SKIP = (
    r"(?!(?:ask|say|see|know|understand|check|confirm|clarify|make sure|mention|point out|be clear|figure"
    r"|look|try|test|share|show|hear|thank|do this|do that|go|start|add that|note|tell|be honest|think"
    r"|get this|get that|fix this|fix that|sleep|leave|stop|run (?:the|this|it|that|tests?|them)|talk|discuss"
    r"|chat|lunch|dinner|breakfast|bed|grab|head out|step away|be (?:afk|away|back|honest))\b)"
)

_rule("preference", 0.9, rf"^i'd\s+{_ADV}(?:rather|prefer|like it if|love it if)\b\s+\S", first="i'd")
_rule("preference", 0.85, r"^i'm\s+(?:not\s+)?(?:a\s+)?(?:big\s+|huge\s+|massive\s+|real\s+)?fan of\s+\S", first="i'm")
_rule("preference", 0.9,
      rf"^{_I}\s+{_ADV}(?:prefer|like|love|enjoy|adore|hate|dislike|despise|detest|loathe|favou?r|avoid"
      rf"|can't stand|swear by|can't live without|lean towards)\b"
      r"(?!\s+(?:you|it(?!\s+(?:when|if|whenever)\b)|this|that|them)\b)\s+\S", first="i my me")
_rule("preference", 0.85,
      rf"^{_I}\s+(?:don't|never|really don't)\s+{_ADV}(?:like|love|enjoy|want|use|care for)\b"
      r"(?!\s+(?:you|it|this|that|them|to)\b)\s+\S", first="i my me")
_rule("preference", 0.9, r"^my\s+(?:all-time\s+)?(?:favourite|preferred|go-to|fav)\s+\S", first="my")
_rule("preference", 0.75,
      rf"^i\s+{_ADV}(?:use|code in|work in|write in|write with|program in|develop on|develop in|live in"
      r" (?:vim|emacs|vscode|the terminal)|main|daily-drive)\b\s+(?!(?:the|this|that|it|your|them)\b)\S", first="i")
_rule("preference", 0.7,
      r"^i\s+(?:normally|usually|always|typically|generally|mostly|tend to)\s+"
      r"(?!(?:get|got|see|hit|run into|forget|have to|need)\b)\w+\s+\S", first="i")
_rule("intent", 0.7,
      rf"^(?:i|we)(?:'m|'re)?\s+{_ADV}(?:plan(?:ning)? on|thinking (?:about|of)|considering)\s+\w+ing\b", first="i we i'm we're")
_rule("intent", 0.85,
      r"^(?:my|our)\s+(?:\w+\s+)?(?:goal|goals|plan|aim|objective|target|dream|resolution|priority|mission)"
      r"\b(?:\s+\w+){0,4}?\s+(?:is|are|:)\s+\S", first="my our")
_rule("intent", 0.8,
      rf"^(?:{_I}|we)(?:'m|'re| are)\s+{_ADV}(?:trying|planning|hoping|aiming|going|about|looking|preparing"
      rf"|working|intending|meaning)\s+to\s+{_GOAL_SKIP}\w", first="i'm we're i my me we")
_rule("intent", 0.8,
      rf"^(?:i|we)(?:\s+|(?='))(?:{_ADV})(?:want|need|plan|intend|hope|aim|mean|'d like|'d love|have|got|wish"
      r"|am going)"
      rf"\s+to\s+{_GOAL_SKIP}\w", first="i we i'd we'd")
_rule("intent", 0.75,
      rf"^(?:i|we)(?:'m|'re)\s+{_ADV}(?:building|working on|writing|developing|making|creating|designing"
      r"|learning|studying|preparing for|training for|applying (?:for|to)|saving (?:up )?for|organi[sz]ing"
      r"|planning)\s+\S", first="i'm we're")
_rule("intent", 0.6, rf"^(?:need|want|have|plan|hoping|trying)\s+to\s+{_GOAL_SKIP}\w", first="need want have plan hoping trying")
_rule("decision", 0.85,
      rf"^(?:(?:we|i|the team|team)(?:'ve|\s+have|\s+had)?\s+)?{_ADV}(?:decided|chose|chosen|picked"
      r"|agreed|settled on|opted|went with|gone with|committed to|standardi[sz]ed on|landed on|voted)\b\s+\S")
_rule("decision", 0.85,
      rf"^(?:{_I}|we)(?:'re|'m| are)\s+{_ADV}(?:going with|going to use|going to go with|switching|moving"
      r"|migrating|sticking with|standardi[sz]ing on|adopting|dropping|replacing|ditching|phasing out"
      r"|sunsetting)\b\s+\S", first="i'm we're we my me")
_rule("decision", 0.8,
      rf"^(?:we|i)\s+{_ADV}(?:switched|moved|migrated|replaced|dropped|ditched|adopted|upgraded|downgraded"
      r"|ported)\b\s+\S", first="we i")
_rule("decision", 0.8,
      r"^let's\s+(?:just\s+)?(?:use|go with|stick with|stick to|switch to|move to|adopt|keep|pick|choose"
      r"|standardi[sz]e on|settle on|migrate to|drop|ditch|call it|go for|rename)\b\s+\S", first="let's")
_rule("decision", 0.7,
      r"^(?:we|i)\s+(?:should|will|'ll|shall|are going to|'re going to|must)\s+(?:\w+\s+)?(?:use|go with"
      r"|switch to|move to|adopt|stick with|standardi[sz]e on|migrate to|keep using|drop)\b\s+\S", first="we i we'll i'll")
_rule("convention", 0.8,
      r"^we\s+(?:\w+\s+)?(?:always|never|usually|typically|generally|normally|don't|don't ever|try to|tend to"
      r"|try not to)\s+(?!(?:know|think|understand|care|have time|get|see|need|want|really)\b)\w+\s+\S", first="we")
_rule("convention", 0.85,
      r"^(?:our|the|my)\s+(?:\w+\s+){0,2}?(?:convention|conventions|rule|rules|policy|standard|style"
      r"|style guide|guideline|guidelines|practice|workflow|process|branching (?:model|strategy))"
      r"\s+(?:is|are|says|:)\s+\S", first="our the my")
_rule("convention", 0.8,
      r"^(?:all\s+|our\s+|the\s+)?(?:[\w-]+\s+)?(?:tests?|unit tests|integration tests|e2e tests|docs|documentation|migrations"
      r"|fixtures|configs|scripts|helpers|utils|components|types|models|schemas|templates|assets"
      r"|static files|env vars|notebooks|benchmarks|examples)\s+(?:go|goes|live|lives|belong|belongs"
      r"|should go|should live|must go|must live|are kept|are stored|sit)\s+(?:in|under|into|inside|next to)\b")
_rule("convention", 0.7,
      r"^(?!(?:it|this|that|you|i|we|they|he|she|there|which|what|who)\b)(?:\w[\w-]*\s+){1,4}?"
      r"(?:should|must|shall|needs? to|has to|have to)\s+(?:always\s+|never\s+|not\s+)?(?:be|follow|use|go"
      r"|start|end|include|have|match|pass|live|stay|look|reference|mention|contain|get|run)\b\s+\S", needs="should|must|shall|need|has to|have to")
_rule("convention", 0.7,
      r"^(?:every|each|all|no)\s+(?:\w+\s+){0,3}?(?:needs?|requires?|must|should|has to|have to|gets?|goes"
      r"|go)\b\s+\S", first="every each all no")
_rule("error", 0.85, r"\b(?:i|we)\s+(?:keep|kept|constantly|always)\s+(?:on\s+)?(?:getting|seeing|hitting|running into)\b", needs="keep|kept|constantly|always")
_rule("fact", 0.8,
      r"^(?:i'm|i've been)\s+(?:a|an)\s+(?!(?:bit|little|lot|tad|big fan|huge fan|fan|question)\b)\w", first="i'm i've")
_rule("fact", 0.8,
      rf"^{_I}(?:'m|'re| are)\s+{_ADV}(?:(?:\w+\s+)?(?:allergic|intolerant)|vegetarian|vegan|pescatarian|diabetic|married"
      r"|engaged|divorced|single|pregnant|retired|unemployed|self-employed|freelancing|based|from"
      r"|originally from|located|left-handed|right-handed|colou?rblind|deaf|blind|dyslexic|autistic"
      r"|\d+(?:\s+years old|\s*yo)?\b|new to|fluent in|a native|native|moving|relocating|expecting"
      r"|in charge of|responsible for|the only|part of|on the \w+ team|on call|on-call|remote|colorblind)\b", first="i'm we're my me we")
_rule("fact", 0.8,
      rf"^i\s+{_ADV}(?:live|work|grew up|was born|moved|studied|study|teach|own|speak|drive|commute"
      rf"|volunteer|play|attend|go to|went to|graduated|lived|worked|manage|lead|coach|bought|rent|have"
      rf"|just got|got)\b\s+{_VAGUE_OBJ}(?!to\b)\S", first="i")
_rule("fact", 0.8, r"^i\s+(?:can't|don't|never)\s+(?:eat|drink|tolerate|consume|have any)\b\s+\S", first="i")
_rule("fact", 0.75,
      r"^(?:my|our)\s+(?:\w+\s+)?(?:flight|trip|vacation|holiday|appointment|wedding|anniversary|exam|interview"
      r"|surgery|visit|move|lease|contract|party|race|marathon|conference|talk|presentation|checkup|check-up)\b"
      r".*\b(?:is|are|was|starts|ends|lands|leaves)\b\s+\S", first="my our")
_rule("fact", 0.75,
      r"^i've\s+been\s+\w+ing\b.*\bfor\s+(?:\d+|a|an|one|two|three|four|five|six|seven|eight|nine|ten"
      r"|many|several|a few|over \w+)\s+(?:years?|months?|decades?|weeks?)\b", first="i've")
_rule("fact", 0.8, rf"^(?:my|our)\s+(?:\w+\s+)?{_REL}(?:'s)?(?:\s+[a-z]+)?\s+{_REL_VERB}\b\s*\S", first="my our")
_rule("fact", 0.75, rf"^the\s+(?:kids|baby|twins|dog|cat|family|children)\s+{_REL_VERB}\b\s+\S", first="the")
_rule("fact", 0.8,
      r"^my\s+(?:\w+\s+)?(?:birthday|name|nickname|pronouns|age|address|job|job title|role|title|position"
      r"|hometown|timezone|time zone|schedule|shift|shifts|commute|car|house|apartment|flat|office|desk"
      r"|laptop|computer|machine|os|setup|stack|editor|ide|shell|terminal|keyboard|diet|native language"
      r"|first language|mother tongue|degree|major|background|specialty|hobby|hobbies|username|handle"
      r"|github|working hours|hours)\s+(?:is|are|was|:|'s)\s*\S", first="my")
_rule("fact", 0.8,
      rf"^(?:the|our|my|this)\s+(?:[\w.+#/-]+\s+){{0,3}}?{_ATTR}(?:\s+(?:for|of|on|in)\s+(?:[\w.-]+\s+){{1,4}}?)?"
      r"\s*(?:is|are|'s|:)\s+(?!(?:failing|broken|down|slow|wrong|weird|red|flaky|empty|null|none|missing"
      r"|not|fine|good|ok|okay|done|great|bad|a mess|messed|off|up|gone|stuck|confusing|annoying|huge"
      r"|too|so|very|really|still|already|just|kind of|kinda|pretty)\b)\S", first="the our my this")
_rule("fact", 0.75, rf"^{_SUBJ}\s+{_FACT_VERB}\b\s*\S", needs="use|rel|depend|written|built|run|deployed|hosted|lives on|port|listens|served|talks to|connects|targets|backed|powered")
_rule("fact", 0.75, rf"^{_SUBJ}\s+(?:is|are|runs?|listens?|lives?|sits?)\s+(?:on|at)\s+(?:port\s+\d{{2,5}}|[\w.-]+:\d{{2,5}}|localhost)", needs="port|:|localhost")
_rule("fact", 0.75, r"^we're\s+(?:a|an)\s+\S", first="we're")
_rule("fact", 0.8, r"^(?:my|our|the)\s+(?:[\w-]+\s+){0,2}?(?:is|are)\s+(?:called|named)\s+\S", first="my our the")
_rule("fact", 0.75, r"^we're\s+(?:using|running|deploying|hosting|on|based in|located in)\b\s+\S", first="we're")
_rule("fact", 0.75,
      rf"^we\s+{_ADV}(?:use|deploy|host|run|build|ship|release|store|keep|test|rely on|target|support|work|follow"
      rf"|have|write|develop|maintain|own|sell|serve|process|handle|pay|live|moved|meet|sync)\b\s+{_VAGUE_OBJ}\S", first="we")

_ERR_TOKEN = re.compile(
    r"\b[A-Z][A-Za-z0-9]*(?:Error|Exception|Fault|Failure)\b|\b(?:HTTP|status|error|code)\s*[45]\d\d\b"
    r"|\b[45]\d\d\s+(?:error|errors|bad gateway|gateway timeout|internal server error|not found|forbidden"
    r"|unauthori[sz]ed)\b|\bOOMKilled\b|\bsegfault|\bsegmentation fault\b|\bSIG(?:SEGV|KILL|TERM|ABRT|BUS)\b"
    r"|\bE(?:NOENT|ACCES|CONNREFUSED|CONNRESET|ADDRINUSE|TIMEDOUT|PIPE)\b|\b[Pp]ermission denied\b"
    r"|\bexit (?:code|status) \d+\b|\b(?:[Tt]imed out|[Dd]eadlock|[Oo]ut of memory|[Ss]tack overflow|CrashLoopBackOff|ImagePullBackOff)\b"
)
_ERR_VERB = re.compile(
    r"\b(?:fails?|failing|failed|crash(?:es|ed|ing)?|throws?|throwing|raises?|raising|errors? out|dies|died"
    r"|blows up|breaks?|returns?|returning|gives?|giving|spits out|chokes|getting|get|got|seeing|hitting"
    r"|hit|keeps?|again|every time|everytime|always|constantly|randomly|sometimes|intermittently|whenever"
    r"|still)\b"
)
_FILE_PATH = re.compile(
    r"(?:~|\.{1,2})?/?(?:[\w.@+-]+/)+[\w.@+-]*|(?<![\w/.])\.?[\w-]+(?:\.[\w-]+)*\.(?:py|pyi|toml|ya?ml|json"
    r"|jsonl|md|rst|txt|cfg|ini|conf|env|lock|sh|bash|zsh|fish|ts|tsx|js|jsx|mjs|cjs|go|rs|rb|java|kt"
    r"|swift|c|h|cpp|hpp|cs|php|sql|html|css|scss|vue|svelte|proto|tf|hcl|xml|gradle|csv|ipynb|local)\b"
    r"|\b(?:Dockerfile|Makefile|Justfile|Procfile|Gemfile|Vagrantfile|\.env(?:\.\w+)?|\.gitignore)\b"
)
_FILE_PLACE = re.compile(
    r"\b(?:is|are|in|under|inside|at|into|from|to)\s+(?:(?:the|a|our|my|this)\s+)?(?:\w+\s+)?$"
)
_FILE_VERB = re.compile(
    r"\b(?:is|are|'s|lives?|sits?|goes|go|has|have|kept|keep|stored|store|defined|located|found|configured"
    r"|set|resides?|put|saved|loaded|read|written)\b"
)
# Product names that end in .js are not files.
_PRODUCT_JS = re.compile(
    r"(?:[A-Z]\w*|node|next|nuxt|vue|express|three|d3|chart|react|angular|ember|backbone|alpine|solid|deno"
    r"|p5|socket\.io)\.js"
)
_SENSITIVE = re.compile(
    r"\b(?:password|passcode|passphrase|pin|ssn|social security|credit card|card number|cvv|iban|api key"
    r"|private key|secret key|access token)\b"
)
_CONVENTION_IMPERATIVE = re.compile(
    rf"^(?:(?:always|never)\s+(?!mind\b)\w+\s+\S|(?:use|prefer|avoid)\s+.+?\s+(?:for|instead of|over|rather than"
    rf"|when|to|in)\s+.*(?:{_SCOPE})|name\s+(?:all\s+|the\s+|our\s+)?(?:\w+\s+)?\w+s\s+(?:with|as|using|after"
    rf"|in|like|by)\s+\S|don't\s+(?:ever\s+)?\w+\s+.*(?:{_SCOPE}))"
)


_FIRST_PERSON_CLAUSE = re.compile(r"\b(?:we|i)\s+\w+")
_SUBJECT = re.compile(r"^(i|we)\s")
# A clause that starts with its verb lost its subject ("need to find a gift"); the user is meant.
_BARE_VERB = re.compile(r"^(?:need|want|have|plan|hoping|trying|decided|chose|picked|agreed)\b")


@dataclass(frozen=True, slots=True)
class _Hit:
    """How one clause was read: an atom type, question/request/command, or neutral."""

    kind: str
    confidence: float = 0.0


def _classify(clause: str) -> _Hit:
    """Read one clause (already normalized) into an atom type or a reason to skip it."""
    s = _HEDGE.sub("", clause)
    if not s:
        return _Hit(NEUTRAL)
    if s.endswith("?") or _Q_START.match(s):
        return _Hit(QUESTION)
    if _CONVENTION_IMPERATIVE.match(s):
        return _Hit("convention", 0.75)
    if _R_START.match(s):
        return _Hit(REQUEST)
    if _IMPERATIVE.match(s):
        return _Hit(COMMAND)
    hedged = s != clause
    head = s.split(" ", 1)[0]
    for rule in _RULES:
        if rule.first and head not in rule.first:
            continue
        if rule.needs is not None and rule.needs.search(s) is None:
            continue
        if rule.pattern.search(s):
            return _Hit(rule.kind, rule.confidence - (0.15 if hedged else 0.0))
    return _Hit(NEUTRAL)


def _classify_raw(clause: str, raw: str) -> _Hit:
    """Classify with the signals that need original casing (error names, file paths) added."""
    hit = _classify(clause)
    if hit.kind in (QUESTION, REQUEST, COMMAND):
        return hit
    if hit.kind in ("", "fact") and _ERR_VERB.search(clause) and _ERR_TOKEN.search(raw):
        return _Hit("error", 0.75)
    # The path pattern is the costliest one; most clauses have no "/" or "." and cannot name a file.
    if hit.kind in ("", "fact") and ("/" in raw or "." in raw or "file" in raw or "~" in raw):
        m = _FILE_PATH.search(raw)
        if m and m.group(0).strip("./~") and not _PRODUCT_JS.fullmatch(m.group(0)):
            before = fold(raw[:m.start()])
            # A file atom says where something lives: a verb, then a place word right before the path.
            if _FILE_VERB.search(before) and _FILE_PLACE.search(before):
                return _Hit("file", 0.75)
    if hit.kind == "" and "please" in clause.split() and _FIRST_PERSON_CLAUSE.search(clause):
        return _Hit(REQUEST)
    return hit


# --- text and tags ----------------------------------------------------------------------------------

_FILLER = re.compile(r"\b(?:btw|tbh|lol|lmao|haha+|pls|plz|please|fyi|imo|imho|fwiw|ngl|rn|tho)\b", re.IGNORECASE)
_EMOTICONS = (":)", ":D", ":P", ";)", ":-)")
_FIRST_PERSON = re.compile(r"\bi(?=\b|')")

_TAGS: dict[str, str] = {}
for _tag, _words in {
    "testing": "pytest unittest vitest jest mocha test tests testing tdd coverage e2e",
    "python": "python pytest django flask fastapi pip poetry uv ruff black mypy sqlalchemy alembic pandas venv",
    "javascript": "javascript js node npm pnpm yarn react next vue svelte typescript ts tailwind vite",
    "docker": "docker dockerfile compose container containers",
    "kubernetes": "kubernetes k8s helm kubectl",
    "database": "postgres postgresql mysql sqlite redis mongodb mongo db database sql orm orms migrations",
    "ci": "ci cd pipeline jenkins circleci actions",
    "deploy": "deploy deployed deploys deployment heroku fly aws gcp azure terraform vercel netlify staging prod",
    "git": "git commit commits pr prs merge squash branch rebase",
    "style": "tabs spaces indentation formatting naming snake_case camelcase lint linting linter flake8 style",
    "editor": "vim neovim vscode emacs editor ide jetbrains",
    "family": "wife husband partner sister brother mom mum dad mother father kids son daughter parents family "
              "grandma grandpa aunt uncle cousin niece nephew baby twins",
    "pets": "dog cat pet puppy kitten",
    "health": "allergic allergy vegetarian vegan diet gluten lactose diabetic",
    "work": "job manager boss coworker colleague standup on-call oncall meeting meetings hospital startup",
    "rust": "rust cargo",
    "go": "golang",
}.items():
    for _w in _words.split():
        _TAGS.setdefault(_w, _tag)


def _tags(tokens: Sequence[str]) -> tuple[str, ...]:
    """Up to four topic tags from a fixed keyword map, in order of first mention."""
    out: list[str] = []
    for token in tokens:
        tag = _TAGS.get(token)
        if tag is not None and tag not in out:
            out.append(tag)
            if len(out) == 4:
                break
    return tuple(out)


def _tidy(text: str) -> str:
    """Clean an atom's text: no fillers or trailing punctuation, "I" capitalised, first letter upper."""
    text = _LEAD.sub("", text.strip())
    text = " ".join(_FILLER.sub(" ", text).split())
    while True:
        trimmed = text.rstrip(" \t,.;:!-–—")
        for emoticon in _EMOTICONS:
            trimmed = trimmed.removesuffix(emoticon)
        while trimmed and ("\U0001f300" <= trimmed[-1] <= "\U0001faff" or "\u2600" <= trimmed[-1] <= "\u27bf"):
            trimmed = trimmed[:-1]  # a trailing emoji is tone, not content
        if trimmed == text:
            break
        text = trimmed
    text = _FIRST_PERSON.sub("I", text)
    if len(text) > MAX_ATOM_CHARS:
        cut = text[: MAX_ATOM_CHARS - 1]
        text = (cut.rsplit(" ", 1)[0] if " " in cut else cut).rstrip(",;: ") + "…"
    return text[:1].upper() + text[1:]


# --- extraction -------------------------------------------------------------------------------------

_ATOM_KINDS = frozenset(ATOM_TYPES)
_DATE = re.compile(
    r"\bby\s+(?:the\s+)?(?:end of|next|this|tomorrow|tonight|eod|eow|eom|monday|tuesday|wednesday|thursday"
    r"|friday|saturday|sunday|jan\w*|feb\w*|mar\w*|apr\w*|may|jun\w*|jul\w*|aug\w*|sep\w*|oct\w*|nov\w*"
    r"|dec\w*|q[1-4]|\d)|\b(?:this|next)\s+(?:year|quarter|month|week|summer|winter|spring|fall|autumn)\b"
    r"|\bgoal\b|\bdeadline\b"
)


@dataclass(slots=True)
class _Clause:
    """A piece of a sentence with the separator before it and how it was classified."""

    sep: str
    raw: str
    hit: _Hit


def _clauses(sentence: str) -> list[_Clause]:
    """Split a sentence at conjunctions and commas where a new clause starts; re-join the rest."""
    pieces = _CLAUSE_SPLIT.split(sentence)
    first = pieces[0]
    out = [_Clause("", first, _classify_raw(_norm(first), first))]
    for k in range(1, len(pieces) - 1, 2):
        sep, raw = pieces[k], pieces[k + 1]
        if not raw.strip():
            out[-1].raw += sep + raw
            continue
        norm = _norm(raw)
        hit = _classify_raw(norm, raw)
        cur = out[-1]
        new = hit.kind in _ATOM_KINDS or hit.kind in (QUESTION, REQUEST) or bool(_PRONOUN_START.match(norm))
        conj = fold(sep).strip(" ,")
        if not new and conj in ("", "and"):
            # "we use X and deploy to Y": the second verb shares the first clause's subject.
            subject = _SUBJECT.match(_norm(cur.raw))
            first_word = norm.split(" ", 1)[0]
            if subject and first_word in _SHARED_VERBS:
                prefixed = f"{subject.group(1)} {raw.strip()}"
                shared = _classify_raw(_norm(prefixed), prefixed)
                if shared.kind in _ATOM_KINDS:
                    new, hit, raw = True, shared, ("We " if subject.group(1) == "we" else "I ") + raw.strip()
        if not new and hit.kind in (COMMAND, REQUEST) and conj != "and" and cur.hit.kind not in ("", "convention"):
            new = True  # "I'm a PM, so keep it simple": the tail is a request, not part of the fact
        if new and conj == "and" and len(cur.raw.split()) < 3 and norm.startswith("i"):
            new = False  # "my partner and I are …" is one subject, not two clauses
        if new:
            out.append(_Clause(sep, raw, hit))
        else:
            cur.raw += sep + raw
            if cur.hit.kind == NEUTRAL:
                cur.hit = _classify_raw(_norm(cur.raw), cur.raw)
    return out


def _sentence_atoms(sentence: str) -> list[tuple[str, str, float]]:
    """The (type, text, confidence) atoms of one sentence."""
    text = sentence.strip()
    note = _SELF_NOTE.match(text)
    if note:
        rest = text[note.end():].strip()
        return [("note", rest, 0.75)] if len(content_terms(rest)) >= 2 else []
    text = _LEAD.sub("", text)
    label = _LABEL.match(text) if ":" in text else None
    if label and not _IMPERATIVE.match(_norm(label.group("label"))):
        text = text[label.end():]
    explicit = bool(_EXPLICIT.match(text))
    text = _EXPLICIT.sub("", text) if explicit else text
    scope = _RULE_SCOPE.match(text)
    if scope:
        text = text[scope.end():]
    low = _norm(text)
    if not low:
        return []
    only_conventions = False
    if _HYPOTHETICAL.match(low):
        if not low.startswith("if ") or _STRONG_HYPOTHETICAL.search(low):
            return []
        only_conventions = True  # "if the build fails, we never merge" is still a rule
    clauses = _clauses(text)
    if scope:
        for c in clauses:
            # Under "from now on" an instruction is a standing rule, not a one-off request.
            if c.hit.kind in (COMMAND, REQUEST, NEUTRAL) and len(content_terms(c.raw)) >= 2:
                c.hit = _Hit("convention", 0.8)
    out: list[tuple[str, str, float]] = []
    made: dict[int, int] = {}  # clause index → its atom in ``out``
    scoped = False  # "From now on," is written once, onto the first atom
    for i, c in enumerate(clauses):
        kind = c.hit.kind
        if kind not in _ATOM_KINDS or (only_conventions and kind != "convention"):
            continue
        body = c.raw
        prev = clauses[i - 1] if i else None
        if prev is not None and prev.hit.kind in (NEUTRAL, *_ATOM_KINDS):
            resolve = _DEICTIC.search(_norm(body)) is not None
            condition = prev.hit.kind == NEUTRAL and _SUBORDINATE.match(_norm(prev.raw)) is not None
            if resolve or condition:
                if i - 1 in made:  # the earlier atom absorbs this one, keeping its type and text
                    kind, earlier, _ = out.pop(made.pop(i - 1))
                    body = earlier + c.sep + body
                else:
                    body = prev.raw + c.sep + body
        elif _DEICTIC.search(_norm(body)):
            continue  # "let's keep it that way": the pronoun points at something this message never names
        confidence = c.hit.confidence
        if kind == "intent" and _DATE.search(fold(body)):
            kind = "goal"
        if kind == "note" or explicit:
            confidence = max(confidence, 0.7)
        if scope and not scoped:
            body = scope.group(0).strip().rstrip(",:") + ", " + body.lstrip()
            scoped = True
        if _BARE_VERB.match(_norm(body)):
            body = "I " + body.lstrip()
        made[i] = len(out)
        out.append((kind, body, confidence))
    if explicit and not out and not clauses[0].hit.kind:
        out.append(("note", text, 0.7))
    return out


def extract(message: str) -> list[Extracted]:
    """Atoms stated by the user in one message; [] for questions, requests, chit-chat and pasted content."""
    prose = strip_untrusted(message)
    if not prose:
        return []
    found: list[Extracted] = []
    seen: set[str] = set()
    for sentence in _sentences(prose):
        for kind, body, confidence in _sentence_atoms(sentence):
            text = _tidy(body)
            key = fold(text)
            tokens = tokenize(text)
            if key in seen or len({t for t in tokens if t not in STOP_WORDS}) < 2 or _SENSITIVE.search(key):
                continue
            if scan(text):
                continue  # never let an injection or a credential become a memory
            seen.add(key)
            if len(text) > 200:
                confidence -= 0.1
            found.append(Extracted(kind, text, round(min(0.95, max(0.3, confidence)), 2), _tags(tokens)))
    return found


# --- session notes ----------------------------------------------------------------------------------

_NOTE_LEARN = re.compile(
    r"\b(?:turns out|turned out|til|today i learned|i learned|we learned|learned that|learnt|lessons? learned"
    r"|the (?:root )?cause (?:was|is)|root cause|note to self|it was because|was caused by|realized|realised"
    r"|found out|the trick (?:is|was)|gotcha|the fix (?:is|was) to|apparently|it seems that)\b"
)
_NOTE_DECISION = re.compile(
    r"\b(?:decided|decide to|chose|chosen|we'll use|will use|going with|go with|agreed|settled on|let's use"
    r"|switched to|switching to|picked|opted|decision|we'll go|sticking with)\b"
)
_NOTE_PROGRESS = re.compile(
    r"\b(?:done|finished|completed|fixed|implemented|merged|passing|passes|pass now|shipped|released|resolved"
    r"|landed|added|works now|working now|green|closed|refactored|migrated|set up|published|upgraded"
    r"|(?:i|we|just|successfully|has been|have)\s+deployed)\b"
)
_NOTE_ISSUE = re.compile(
    r"\b(?:error|errors|exception|traceback|fail|fails|failing|failed|failure|broken|breaks|broke|blocked"
    r"|blocker|blocking|bug|bugs|crash|crashes|crashed|regression|flaky|timeout|timed out|doesn't work"
    r"|not working|stuck|issue|issues|problem|wrong|panic|segfault|oom|leak|can't|won't)\b"
)
_NOTE_NEGATED = re.compile(r"\b(?:not|n't|still|never|no longer|yet|again)\b")
_NOTE_CONTEXT = re.compile(
    r"\b(?:uses|using|we use|is written in|runs on|deployed (?:on|to)|hosted|deadline|due|requirement|requires"
    r"|must support|constraint|the repo|the project|our stack|is on port|version|lives in|the team|customer"
    r"|client|budget|depends on|backed by|background|for context|we have|there are|there is|the api|the app)\b"
)


def note_category(text: str) -> str | None:
    """The session-note category of one line: decision, context, progress, issue, learnings, or None."""
    low = _norm(text)
    if not low or len(content_terms(low)) < 2:
        return None
    issue = _NOTE_ISSUE.search(low) is not None or _ERR_TOKEN.search(text) is not None
    if _NOTE_LEARN.search(low):
        return "learnings"
    if low.endswith("?"):
        return "issue" if issue else None  # a question is only worth a note when it names a problem
    if _NOTE_DECISION.search(low):
        return "decision"
    if _NOTE_PROGRESS.search(low) and not _NOTE_NEGATED.search(low):
        return "progress"
    if issue:
        return "issue"
    if _NOTE_CONTEXT.search(low):
        return "context"
    return None


# --- episode summaries ------------------------------------------------------------------------------

_GREETING = re.compile(
    r"^(?:hi|hello|hey|thanks|thank you|thx|ty|ok|okay|cool|great|nice|sure|bye|good (?:morning|night|evening"
    r"|afternoon)|yes|no|yep|nope|perfect|awesome|lol|got it|sounds good|that works|ok that works|cheers"
    r"|welcome|you're welcome|np|no problem)\b[\s\w!.,']{0,20}$"
)
_PAST = {
    "is": "was", "are": "were", "am": "was", "'m": "was", "have": "had", "has": "had", "do": "did",
    "does": "did", "go": "went", "make": "made", "get": "got", "keep": "kept", "run": "ran", "write": "wrote",
    "build": "built", "choose": "chose", "find": "found", "think": "thought", "take": "took", "give": "gave",
    "can": "could", "will": "would", "'ll": "would", "can't": "couldn't", "don't": "didn't",
    "doesn't": "didn't", "isn't": "wasn't", "aren't": "weren't", "won't": "wouldn't", "feel": "felt",
    "say": "said", "see": "saw", "know": "knew", "send": "sent", "spend": "spent", "lose": "lost",
    "set": "set", "put": "put", "read": "read", "let": "let", "shut": "shut", "split": "split",
    "leave": "left", "mean": "meant", "buy": "bought", "bring": "brought", "teach": "taught", "sell": "sold",
    "tell": "told", "hold": "held", "stand": "stood", "understand": "understood", "begin": "began",
    "rewrite": "rewrote", "drive": "drove", "speak": "spoke", "grow": "grew", "show": "showed",
}
# Verbs that double their final consonant in the past tense (prefer → preferred).
_DOUBLE = frozenset((
    "prefer", "plan", "stop", "ship", "drop", "commit", "admit", "refer", "submit", "permit", "control",
    "swap", "step", "map", "log", "tag", "plug", "scan", "skip", "chat", "pin", "ban", "zip",
))
_OUTCOME = re.compile(
    r"^(?:(?:i|we)(?:'ve| have)?\s+(?:just\s+|now\s+|also\s+|successfully\s+)?)?(fixed|added|updated|implemented"
    r"|created|wrote|refactored|removed|renamed|moved|changed|replaced|ran|tested|installed|configured"
    r"|set up|deployed|merged|migrated|converted|cleaned up|found|identified|traced|resolved|rewrote"
    r"|split|extracted|optimi[sz]ed|improved|documented|bumped|upgraded|reverted|patched|enabled|disabled"
    r"|switched|verified|confirmed|committed|pushed|tracked down|narrowed|wired|added)\b\s+(\S.*)",
    re.IGNORECASE,
)
_ASK_PREFIX = re.compile(
    r"^(?:please|kindly|can you|could you|would you|will you|can u|could u|i need you to|i want you to"
    r"|i'd like you to|i would like you to|help me)\s+(?:please\s+)?",
    re.IGNORECASE,
)


def _past(verb: str) -> str:
    """The simple past of a verb (a table for the irregular ones, rules for the rest)."""
    if verb in _PAST:
        return _PAST[verb]
    if verb.endswith("ed"):
        return verb
    if verb.endswith("e"):
        return verb + "d"
    if verb.endswith("y") and len(verb) > 2 and verb[-2] not in "aeiou":
        return verb[:-1] + "ied"
    if verb in _DOUBLE:
        return verb + verb[-1] + "ed"
    if verb.endswith("s") and verb[:-1] in _PAST:
        return _PAST[verb[:-1]]
    return verb + "ed"


_PERSON_WORD = re.compile(r"\b(?:i|we|you)'(?:m|ve|d|ll|re)\b|\b[a-z]+\b", re.IGNORECASE)
_AS_USER = {
    "i": "they", "me": "them", "my": "their", "mine": "theirs", "we": "they", "us": "them", "our": "their",
    "ours": "theirs", "myself": "themselves", "ourselves": "themselves", "i'm": "they were", "i've": "they had",
    "i'd": "they would", "i'll": "they would", "we're": "they were", "we've": "they had", "we'd": "they would",
    "we'll": "they would", "you": "the assistant", "your": "the assistant's", "yours": "the assistant's",
    "yourself": "the assistant", "you're": "the assistant was", "you've": "the assistant had",
    "you'd": "the assistant would", "you'll": "the assistant would",
}
_AS_ASSISTANT = {
    "i": "it", "me": "it", "my": "its", "mine": "its", "myself": "itself", "we": "they", "us": "them",
    "our": "their", "i'm": "it was", "i've": "it had", "i'd": "it would", "i'll": "it would", "you": "the user",
    "your": "the user's", "yours": "the user's", "yourself": "the user", "you're": "the user was",
    "you've": "the user had", "you'd": "the user would", "you'll": "the user would",
}


def _person(text: str, speaker: str) -> str:
    """Rewrite first- and second-person words for a third-person account by ``speaker``."""
    table = _AS_USER if speaker == "user" else _AS_ASSISTANT
    return _PERSON_WORD.sub(lambda m: table.get(m.group(0).lower().replace("\u2019", "'"), m.group(0)), text)


def _user_point(sentence: str) -> str | None:
    """One third-person past-tense line for a user sentence, or None when it says nothing durable."""
    # Match on the normalised form, but write the summary from the user's own casing.
    raw = " ".join(_LEAD.sub("", sentence).split()).rstrip(".!")
    low = _norm(raw)
    if not low or _GREETING.match(low) or len(content_terms(low)) < 2:
        return None
    how = re.match(r"^how (?:do|can|should|would|could) (?:i|we) (.+?)\??$", raw, re.IGNORECASE)
    if how:
        return f"The user asked how to {_person(how.group(1), 'user')}"
    what = re.match(r"^(?:what|which)(?:\s+is|'s|\s+are) (.+?)\??$", raw, re.IGNORECASE)
    if what:
        return f"The user asked about {_person(what.group(1), 'user')}"
    ask = _ASK_PREFIX.match(raw)
    body = raw[ask.end():].strip() if ask else raw
    if body.endswith("?") and not ask:
        return None
    body = body.rstrip("?").strip()
    blow = _norm(body)
    if ask or _IMPERATIVE.match(blow):
        if blow and _IMPERATIVE.match(blow) and not blow.startswith(("let's", "don't", "never mind", "nvm")):
            return f"The user asked to {_person(body[:1].lower() + body[1:], 'user')}"
        return None
    lets = re.match(r"^let(?:'s|\s+us)\s+(.+)$", body, re.IGNORECASE)
    if lets:
        return f"They agreed to {_person(lets.group(1), 'user')}"
    if _classify(blow).kind not in _ATOM_KINDS:
        return None
    be = re.match(r"^(i|we)(?:'m|'re|\s+am|\s+are)\s+(.+)$", body, re.IGNORECASE)
    if be:
        subject, verb = ("The user", "was") if be.group(1).lower() == "i" else ("They", "were")
        return f"{subject} {verb} {_person(be.group(2), 'user')}"
    first = re.match(
        r"^(i|we)('ve|'d|'ll|\s+have|\s+would|\s+will)?\s+((?:(?:really|also|just|still|always|usually|never"
        r"|don't|do not|do|actually|definitely)\s+)*)([\w']+)\b(.*)$",
        body, re.IGNORECASE,
    )
    if first is None:
        return f"The user said {_person(body[:1].lower() + body[1:], 'user')}"
    subject = "The user" if first.group(1).lower() == "i" else "They"
    aux = (first.group(2) or "").strip().lower()
    adverbs = first.group(3).lower().split()
    verb, rest = first.group(4), _person(first.group(5), "user")
    if aux in ("'d", "would", "'ll", "will"):
        return f"{subject} would {' '.join(adverbs + [verb])}{rest}"
    if "don't" in adverbs or "not" in adverbs:
        kept = [a for a in adverbs if a not in ("do", "don't", "not")]
        return f"{subject} {' '.join(kept + ['did not', verb])}{rest}"
    kept = [a for a in adverbs if a != "do"]
    return f"{subject} {' '.join(kept + [_past(verb.lower())])}{rest}"


def _assistant_point(sentence: str) -> str | None:
    """A "The assistant fixed …" line when the assistant reports an outcome, else None."""
    raw = re.sub(r"^\s*(?:[-*•]|\d+[.)])\s+", "", sentence).strip().rstrip(".!:")
    m = _OUTCOME.match(raw)
    if not m or len(content_terms(m.group(2))) < 1 or raw.endswith("?"):
        return None
    return f"The assistant {m.group(1).lower()} {_person(m.group(2), 'assistant')}"


def _fit(sentences: Sequence[str], max_bytes: int) -> str | None:
    """Join whole sentences up to ``max_bytes`` of UTF-8; cut the first at a word if even it is too long."""
    out: list[str] = []
    used = 0
    for s in sentences:
        size = len(s.encode()) + (1 if out else 0)
        if used + size > max_bytes:
            break
        out.append(s)
        used += size
    if out:
        return " ".join(out)
    if not sentences or max_bytes < 8:
        return None
    budget = max_bytes - len("…".encode())
    cut = sentences[0].encode()[:budget].decode(errors="ignore")
    return (cut.rsplit(" ", 1)[0] if " " in cut else cut).rstrip(" ,;:") + "…"


def summarize_turns(turns: Sequence[tuple[str, str]], max_bytes: int = 2048) -> str | None:
    """A third-person, past-tense episode summary of a session, ≤ max_bytes; None if nothing is worth keeping."""
    points: list[str] = []
    seen: set[str] = set()
    for role, text in turns:
        prose = strip_untrusted(text)
        taken = 0
        for sentence in _sentences(prose):
            point = _user_point(sentence) if role == "user" else _assistant_point(sentence)
            if point is None or taken >= 4:
                continue
            point = " ".join(point.split())
            if len(point) > MAX_ATOM_CHARS:
                point = point[:MAX_ATOM_CHARS - 1].rsplit(" ", 1)[0] + "…"
            key = fold(point)
            if key in seen or looks_like_turn_or_refusal(point):
                continue  # a point that reads like a reply would get the whole summary rejected
            seen.add(key)
            points.append(point[:1].upper() + point[1:].rstrip(".,;: ") + ".")
            taken += 1
    if not points:
        return None
    # After the first mention, consecutive user points read better with "they".
    for i in range(1, len(points)):
        if points[i].startswith("The user ") and points[i - 1].startswith(("The user ", "They ")):
            rest = points[i][len("The user "):]
            points[i] = "They were " + rest[4:] if rest.startswith("was ") else "They " + rest
    return _fit(points, max_bytes)


# --- one-line summaries and reply detection ---------------------------------------------------------

def one_line(text: str, limit: int = 100) -> str:
    """The first meaningful sentence of a text on one line, cut at a word boundary with "…"."""
    without_code = _FENCE.sub("\n", text)
    lines = [ln.strip() for ln in (without_code if without_code.strip() else text).splitlines()]
    lines = [ln for ln in lines if ln and any(c.isalnum() for c in ln) and not ln.startswith(("```", "~~~"))]
    if not lines:
        return ""
    sentences = _sentences(" ".join(lines[0].split()))
    if not sentences:
        return ""
    # Skip a leading "Thanks!" or "Ok." when something follows on the same line.
    line = next((s for s in sentences if not _GREETING.match(_norm(s))), sentences[0])
    if len(line) <= limit:
        return line
    cut = line[: max(1, limit - 1)]
    if " " in cut:
        cut = cut.rsplit(" ", 1)[0]
    return cut.rstrip(" ,;:-") + "…"


_REPLY_START = re.compile(
    r"^(?:sure|certainly|of course|absolutely|okay|ok|great|happy to|i'd be happy|i would be happy|i can't"
    r"|i cannot|i can not|i'm sorry|i am sorry|sorry|as an ai|as a language model|here is|here's|here are"
    r"|i'm unable|i am unable|i won't|unfortunately|thanks|thank you|hello|hi|hey|no problem|got it"
    r"|let me|i apologi[sz]e|understood|alright|i understand|good question|great question|i'll|i will"
    r"|below is|this summary)\b"
)
_REPLY_ANY = re.compile(
    r"\b(?:as an ai|language model|i can't (?:help|assist|do that|provide)|i cannot (?:help|assist|provide)"
    r"|i'm not able to|i am not able to|i'm unable to|let me know|feel free|is there anything else"
    r"|would you like|hope this helps|you|your|you're|you've|yours)\b"
)


def looks_like_turn_or_refusal(summary: str) -> bool:
    """True when a supposed summary reads like a chat reply or a refusal rather than a summary."""
    low = _norm(summary.strip().strip("\"'*# "))
    if not low:
        return True
    if _REPLY_START.match(low) or _REPLY_ANY.search(low):
        return True
    # A question anywhere means the model is talking to someone, not recording what happened.
    return re.search(r"\?(?:\s|$)", low) is not None
