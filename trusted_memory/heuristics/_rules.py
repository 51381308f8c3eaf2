"""Clause classification: the ordered extraction rules and the reading of one clause into an atom type.

Part of the rule-based memory brain (see ``trusted_memory.heuristics``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from trusted_memory.model import ATOM_TYPES
from trusted_memory.text import fold

from ._sentences import HEDGE

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
IMPERATIVE = re.compile(
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
_SUBJ = (
    r"(?:(?:the|our|this|my|all|both)\s+)?(?!(?:it|this|that|they|he|she|you|i|we|there|which|what)\b)"
    r"[\w.+#/-]+(?:\s+[\w.+#/-]+){0,3}?"
)
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
_rule(
    "preference",
    0.9,
    rf"^{_I}\s+{_ADV}(?:prefer|like|love|enjoy|adore|hate|dislike|despise|detest|loathe|favou?r|avoid"
    rf"|can't stand|swear by|can't live without|lean towards)\b"
    r"(?!\s+(?:you|it(?!\s+(?:when|if|whenever)\b)|this|that|them)\b)\s+\S",
    first="i my me",
)
_rule(
    "preference",
    0.85,
    rf"^{_I}\s+(?:don't|never|really don't)\s+{_ADV}(?:like|love|enjoy|want|use|care for)\b"
    r"(?!\s+(?:you|it|this|that|them|to)\b)\s+\S",
    first="i my me",
)
_rule("preference", 0.9, r"^my\s+(?:all-time\s+)?(?:favourite|preferred|go-to|fav)\s+\S", first="my")
_rule(
    "preference",
    0.75,
    rf"^i\s+{_ADV}(?:use|code in|work in|write in|write with|program in|develop on|develop in|live in"
    r" (?:vim|emacs|vscode|the terminal)|main|daily-drive)\b\s+(?!(?:the|this|that|it|your|them)\b)\S",
    first="i",
)
_rule(
    "preference",
    0.7,
    r"^i\s+(?:normally|usually|always|typically|generally|mostly|tend to)\s+"
    r"(?!(?:get|got|see|hit|run into|forget|have to|need)\b)\w+\s+\S",
    first="i",
)
_rule(
    "intent",
    0.7,
    rf"^(?:i|we)(?:'m|'re)?\s+{_ADV}(?:plan(?:ning)? on|thinking (?:about|of)|considering)\s+\w+ing\b",
    first="i we i'm we're",
)
_rule(
    "intent",
    0.85,
    r"^(?:my|our)\s+(?:\w+\s+)?(?:goal|goals|plan|aim|objective|target|dream|resolution|priority|mission)"
    r"\b(?:\s+\w+){0,4}?\s+(?:is|are|:)\s+\S",
    first="my our",
)
_rule(
    "intent",
    0.8,
    rf"^(?:{_I}|we)(?:'m|'re| are)\s+{_ADV}(?:trying|planning|hoping|aiming|going|about|looking|preparing"
    rf"|working|intending|meaning)\s+to\s+{_GOAL_SKIP}\w",
    first="i'm we're i my me we",
)
_rule(
    "intent",
    0.8,
    rf"^(?:i|we)(?:\s+|(?='))(?:{_ADV})(?:want|need|plan|intend|hope|aim|mean|'d like|'d love|have|got|wish"
    r"|am going)"
    rf"\s+to\s+{_GOAL_SKIP}\w",
    first="i we i'd we'd",
)
_rule(
    "intent",
    0.75,
    rf"^(?:i|we)(?:'m|'re)\s+{_ADV}(?:building|working on|writing|developing|making|creating|designing"
    r"|learning|studying|preparing for|training for|applying (?:for|to)|saving (?:up )?for|organi[sz]ing"
    r"|planning)\s+\S",
    first="i'm we're",
)
_rule(
    "intent",
    0.6,
    rf"^(?:need|want|have|plan|hoping|trying)\s+to\s+{_GOAL_SKIP}\w",
    first="need want have plan hoping trying",
)
_rule(
    "decision",
    0.85,
    rf"^(?:(?:we|i|the team|team)(?:'ve|\s+have|\s+had)?\s+)?{_ADV}(?:decided|chose|chosen|picked"
    r"|agreed|settled on|opted|went with|gone with|committed to|standardi[sz]ed on|landed on|voted)\b\s+\S",
)
_rule(
    "decision",
    0.85,
    rf"^(?:{_I}|we)(?:'re|'m| are)\s+{_ADV}(?:going with|going to use|going to go with|switching|moving"
    r"|migrating|sticking with|standardi[sz]ing on|adopting|dropping|replacing|ditching|phasing out"
    r"|sunsetting)\b\s+\S",
    first="i'm we're we my me",
)
_rule(
    "decision",
    0.8,
    rf"^(?:we|i)\s+{_ADV}(?:switched|moved|migrated|replaced|dropped|ditched|adopted|upgraded|downgraded"
    r"|ported)\b\s+\S",
    first="we i",
)
_rule(
    "decision",
    0.8,
    r"^let's\s+(?:just\s+)?(?:use|go with|stick with|stick to|switch to|move to|adopt|keep|pick|choose"
    r"|standardi[sz]e on|settle on|migrate to|drop|ditch|call it|go for|rename)\b\s+\S",
    first="let's",
)
_rule(
    "decision",
    0.7,
    r"^(?:we|i)\s+(?:should|will|'ll|shall|are going to|'re going to|must)\s+(?:\w+\s+)?(?:use|go with"
    r"|switch to|move to|adopt|stick with|standardi[sz]e on|migrate to|keep using|drop)\b\s+\S",
    first="we i we'll i'll",
)
_rule(
    "convention",
    0.8,
    r"^we\s+(?:\w+\s+)?(?:always|never|usually|typically|generally|normally|don't|don't ever|try to|tend to"
    r"|try not to)\s+(?!(?:know|think|understand|care|have time|get|see|need|want|really)\b)\w+\s+\S",
    first="we",
)
_rule(
    "convention",
    0.85,
    r"^(?:our|the|my)\s+(?:\w+\s+){0,2}?(?:convention|conventions|rule|rules|policy|standard|style"
    r"|style guide|guideline|guidelines|practice|workflow|process|branching (?:model|strategy))"
    r"\s+(?:is|are|says|:)\s+\S",
    first="our the my",
)
_rule(
    "convention",
    0.8,
    r"^(?:all\s+|our\s+|the\s+)?(?:[\w-]+\s+)?(?:tests?|unit tests|integration tests|e2e tests|docs|documentation"
    r"|migrations|fixtures|configs|scripts|helpers|utils|components|types|models|schemas|templates|assets"
    r"|static files|env vars|notebooks|benchmarks|examples)\s+(?:go|goes|live|lives|belong|belongs"
    r"|should go|should live|must go|must live|are kept|are stored|sit)\s+(?:in|under|into|inside|next to)\b",
)
_rule(
    "convention",
    0.7,
    r"^(?!(?:it|this|that|you|i|we|they|he|she|there|which|what|who)\b)(?:\w[\w-]*\s+){1,4}?"
    r"(?:should|must|shall|needs? to|has to|have to)\s+(?:always\s+|never\s+|not\s+)?(?:be|follow|use|go"
    r"|start|end|include|have|match|pass|live|stay|look|reference|mention|contain|get|run)\b\s+\S",
    needs="should|must|shall|need|has to|have to",
)
_rule(
    "convention",
    0.7,
    r"^(?:every|each|all|no)\s+(?:\w+\s+){0,3}?(?:needs?|requires?|must|should|has to|have to|gets?|goes"
    r"|go)\b\s+\S",
    first="every each all no",
)
_rule(
    "error",
    0.85,
    r"\b(?:i|we)\s+(?:keep|kept|constantly|always)\s+(?:on\s+)?(?:getting|seeing|hitting|running into)\b",
    needs="keep|kept|constantly|always",
)
_rule(
    "fact",
    0.8,
    r"^(?:i'm|i've been)\s+(?:a|an)\s+(?!(?:bit|little|lot|tad|big fan|huge fan|fan|question)\b)\w",
    first="i'm i've",
)
_rule(
    "fact",
    0.8,
    rf"^{_I}(?:'m|'re| are)\s+{_ADV}(?:(?:\w+\s+)?(?:allergic|intolerant)|vegetarian|vegan|pescatarian|diabetic|married"
    r"|engaged|divorced|single|pregnant|retired|unemployed|self-employed|freelancing|based|from"
    r"|originally from|located|left-handed|right-handed|colou?rblind|deaf|blind|dyslexic|autistic"
    r"|\d+(?:\s+years old|\s*yo)?\b|new to|fluent in|a native|native|moving|relocating|expecting"
    r"|in charge of|responsible for|the only|part of|on the \w+ team|on call|on-call|remote|colorblind)\b",
    first="i'm we're my me we",
)
_rule(
    "fact",
    0.8,
    rf"^i\s+{_ADV}(?:live|work|grew up|was born|moved|studied|study|teach|own|speak|drive|commute"
    rf"|volunteer|play|attend|go to|went to|graduated|lived|worked|manage|lead|coach|bought|rent|have"
    rf"|just got|got)\b\s+{_VAGUE_OBJ}(?!to\b)\S",
    first="i",
)
_rule("fact", 0.8, r"^i\s+(?:can't|don't|never)\s+(?:eat|drink|tolerate|consume|have any)\b\s+\S", first="i")
_rule(
    "fact",
    0.75,
    r"^(?:my|our)\s+(?:\w+\s+)?(?:flight|trip|vacation|holiday|appointment|wedding|anniversary|exam|interview"
    r"|surgery|visit|move|lease|contract|party|race|marathon|conference|talk|presentation|checkup|check-up)\b"
    r".*\b(?:is|are|was|starts|ends|lands|leaves)\b\s+\S",
    first="my our",
)
_rule(
    "fact",
    0.75,
    r"^i've\s+been\s+\w+ing\b.*\bfor\s+(?:\d+|a|an|one|two|three|four|five|six|seven|eight|nine|ten"
    r"|many|several|a few|over \w+)\s+(?:years?|months?|decades?|weeks?)\b",
    first="i've",
)
_rule("fact", 0.8, rf"^(?:my|our)\s+(?:\w+\s+)?{_REL}(?:'s)?(?:\s+[a-z]+)?\s+{_REL_VERB}\b\s*\S", first="my our")
_rule("fact", 0.75, rf"^the\s+(?:kids|baby|twins|dog|cat|family|children)\s+{_REL_VERB}\b\s+\S", first="the")
_rule(
    "fact",
    0.8,
    r"^my\s+(?:\w+\s+)?(?:birthday|name|nickname|pronouns|age|address|job|job title|role|title|position"
    r"|hometown|timezone|time zone|schedule|shift|shifts|commute|car|house|apartment|flat|office|desk"
    r"|laptop|computer|machine|os|setup|stack|editor|ide|shell|terminal|keyboard|diet|native language"
    r"|first language|mother tongue|degree|major|background|specialty|hobby|hobbies|username|handle"
    r"|github|working hours|hours)\s+(?:is|are|was|:|'s)\s*\S",
    first="my",
)
_rule(
    "fact",
    0.8,
    rf"^(?:the|our|my|this)\s+(?:[\w.+#/-]+\s+){{0,3}}?{_ATTR}(?:\s+(?:for|of|on|in)\s+(?:[\w.-]+\s+){{1,4}}?)?"
    r"\s*(?:is|are|'s|:)\s+(?!(?:failing|broken|down|slow|wrong|weird|red|flaky|empty|null|none|missing"
    r"|not|fine|good|ok|okay|done|great|bad|a mess|messed|off|up|gone|stuck|confusing|annoying|huge"
    r"|too|so|very|really|still|already|just|kind of|kinda|pretty)\b)\S",
    first="the our my this",
)
_rule(
    "fact",
    0.75,
    rf"^{_SUBJ}\s+{_FACT_VERB}\b\s*\S",
    needs="use|rel|depend|written|built|run|deployed|hosted|lives on|port|listens|served|talks to|connects|targets"
    "|backed|powered",
)
_rule(
    "fact",
    0.75,
    rf"^{_SUBJ}\s+(?:is|are|runs?|listens?|lives?|sits?)\s+(?:on|at)\s+(?:port\s+\d{{2,5}}|[\w.-]+:\d{{2,5}}|localhost)",
    needs="port|:|localhost",
)
_rule("fact", 0.75, r"^we're\s+(?:a|an)\s+\S", first="we're")
_rule("fact", 0.8, r"^(?:my|our|the)\s+(?:[\w-]+\s+){0,2}?(?:is|are)\s+(?:called|named)\s+\S", first="my our the")
_rule("fact", 0.75, r"^we're\s+(?:using|running|deploying|hosting|on|based in|located in)\b\s+\S", first="we're")
_rule(
    "fact",
    0.75,
    rf"^we\s+{_ADV}(?:use|deploy|host|run|build|ship|release|store|keep|test|rely on|target|support|work|follow"
    rf"|have|write|develop|maintain|own|sell|serve|process|handle|pay|live|moved|meet|sync)\b\s+{_VAGUE_OBJ}\S",
    first="we",
)

ERR_TOKEN = re.compile(
    r"\b[A-Z][A-Za-z0-9]*(?:Error|Exception|Fault|Failure)\b|\b(?:HTTP|status|error|code)\s*[45]\d\d\b"
    r"|\b[45]\d\d\s+(?:error|errors|bad gateway|gateway timeout|internal server error|not found|forbidden"
    r"|unauthori[sz]ed)\b|\bOOMKilled\b|\bsegfault|\bsegmentation fault\b|\bSIG(?:SEGV|KILL|TERM|ABRT|BUS)\b"
    r"|\bE(?:NOENT|ACCES|CONNREFUSED|CONNRESET|ADDRINUSE|TIMEDOUT|PIPE)\b|\b[Pp]ermission denied\b"
    r"|\bexit (?:code|status) \d+\b"
    r"|\b(?:[Tt]imed out|[Dd]eadlock|[Oo]ut of memory|[Ss]tack overflow|CrashLoopBackOff|ImagePullBackOff)\b"
)
_ERR_VERB = re.compile(
    r"\b(?:fails?|failing|failed|crash(?:es|ed|ing)?|throws?|throwing|raises?|raising|errors? out|dies|died"
    r"|blows up|breaks?|returns?|returning|gives?|giving|spits out|chokes|getting|get|got|seeing|hitting"
    r"|hit|keeps?|again|every time|everytime|always|constantly|randomly|sometimes|intermittently|whenever"
    r"|still)\b"
)
# Each alternative starts only where a path-like run starts, and its runs never give characters back:
# an attempt from every position of a long dotted run ("eyJaaaa.eyJaaaa…") made this quadratic.
_FILE_PATH = re.compile(
    r"(?:(?=[~/])|(?<![\w.@+-]))(?:~|\.{1,2})?/?(?:[\w.@+-]++/)+[\w.@+-]*+"
    r"|(?<![\w/.-])\.?[\w-]++(?:\.[\w-]++)*\.(?:py|pyi|toml|ya?ml|json"
    r"|jsonl|md|rst|txt|cfg|ini|conf|env|lock|sh|bash|zsh|fish|ts|tsx|js|jsx|mjs|cjs|go|rs|rb|java|kt"
    r"|swift|c|h|cpp|hpp|cs|php|sql|html|css|scss|vue|svelte|proto|tf|hcl|xml|gradle|csv|ipynb|local)\b"
    r"|\b(?:Dockerfile|Makefile|Justfile|Procfile|Gemfile|Vagrantfile|\.env(?:\.\w+)?|\.gitignore)\b"
)
_FILE_PLACE = re.compile(r"\b(?:is|are|in|under|inside|at|into|from|to)\s+(?:(?:the|a|our|my|this)\s+)?(?:\w+\s+)?$")
_FILE_VERB = re.compile(
    r"\b(?:is|are|'s|lives?|sits?|goes|go|has|have|kept|keep|stored|store|defined|located|found|configured"
    r"|set|resides?|put|saved|loaded|read|written)\b"
)
# Product names that end in .js are not files.
_PRODUCT_JS = re.compile(
    r"(?:[A-Z]\w*|node|next|nuxt|vue|express|three|d3|chart|react|angular|ember|backbone|alpine|solid|deno"
    r"|p5|socket\.io)\.js"
)
_CONVENTION_IMPERATIVE = re.compile(
    rf"^(?:(?:always|never)\s+(?!mind\b)\w+\s+\S|(?:use|prefer|avoid)\s+.+?\s+(?:for|instead of|over|rather than"
    rf"|when|to|in)\s+.*(?:{_SCOPE})|name\s+(?:all\s+|the\s+|our\s+)?(?:\w+\s+)?\w+s\s+(?:with|as|using|after"
    rf"|in|like|by)\s+\S|don't\s+(?:ever\s+)?\w+\s+.*(?:{_SCOPE}))"
)


_FIRST_PERSON_CLAUSE = re.compile(r"\b(?:we|i)\s+\w+")


@dataclass(frozen=True, slots=True)
class ClauseHit:
    """How one clause was read: an atom type, question/request/command, or neutral."""

    kind: str
    confidence: float = 0.0


def classify(clause: str) -> ClauseHit:
    """Read one clause (already normalized) into an atom type or a reason to skip it."""
    s = HEDGE.sub("", clause)
    if not s:
        return ClauseHit(NEUTRAL)
    if s.endswith("?") or _Q_START.match(s):
        return ClauseHit(QUESTION)
    if _CONVENTION_IMPERATIVE.match(s):
        return ClauseHit("convention", 0.75)
    if _R_START.match(s):
        return ClauseHit(REQUEST)
    if IMPERATIVE.match(s):
        return ClauseHit(COMMAND)
    hedged = s != clause
    head = s.split(" ", 1)[0]
    for rule in _RULES:
        if rule.first and head not in rule.first:
            continue
        if rule.needs is not None and rule.needs.search(s) is None:
            continue
        if rule.pattern.search(s):
            return ClauseHit(rule.kind, rule.confidence - (0.15 if hedged else 0.0))
    return ClauseHit(NEUTRAL)


def classify_raw(clause: str, raw: str) -> ClauseHit:
    """Classify with the signals that need original casing (error names, file paths) added."""
    hit = classify(clause)
    if hit.kind in (QUESTION, REQUEST, COMMAND):
        return hit
    if hit.kind in ("", "fact") and _ERR_VERB.search(clause) and ERR_TOKEN.search(raw):
        return ClauseHit("error", 0.75)
    # The path pattern is the costliest one; most clauses have no "/" or "." and cannot name a file.
    if hit.kind in ("", "fact") and ("/" in raw or "." in raw or "file" in raw or "~" in raw):
        m = _FILE_PATH.search(raw)
        if m and m.group(0).strip("./~") and not _PRODUCT_JS.fullmatch(m.group(0)):
            before = fold(raw[: m.start()])
            # A file atom says where something lives: a verb, then a place word right before the path.
            if _FILE_VERB.search(before) and _FILE_PLACE.search(before):
                return ClauseHit("file", 0.75)
    if hit.kind == "" and "please" in clause.split() and _FIRST_PERSON_CLAUSE.search(clause):
        return ClauseHit(REQUEST)
    return hit


ATOM_KINDS = frozenset(ATOM_TYPES)
