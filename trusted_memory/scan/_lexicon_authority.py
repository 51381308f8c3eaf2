"""Concepts of borrowed authority and of orders given to an AI reader (round 6).

The chat-register attacks of the newest authors rarely dismiss instructions; they claim that
someone with power approved a request — send the keys, read me the card number, wire the money —
so that the agent skips its own judgement. Each idea alone is everyday talk ("my boss approved the
budget", "send me the notes"); the combos in ``_injection_combos`` need the claim beside a request
for secrets or money. ``DIRECTIVE`` is an order of any kind ("must", "please", "rate it 5/5",
"add an action item"): beside a phrase that addresses the AI reading a document ("Note to agent:",
"if you are an AI reading this"), it is an instruction smuggled into content.
"""

from __future__ import annotations

from ._concepts import Concept, terms
from ._lexicon_languages import more

_BOSS = (
    r"(?:boss|manager|admin|administrator|sysadmin|ceo|cfo|cto|supervisor|team\s+lead|security\s+team|it\s+team"
    r"|it\s+department|legal|compliance|account\s+owner|org\s+admin|maintainers|director|management|landlord)"
)

AUTHORITY = Concept(
    "authority",
    *terms(
        """pre-approved|preapproved|pre-authorized|pre-authorised|already signed off|signed off on it
        |has signed off|gave the green light|per it|per legal|per compliance|per security|per management
        |per the admin|per hr|according to legal|according to it|according to compliance
        |i'm the admin|i am the admin|i'm the ceo|i am the ceo|i'm the owner|i am the owner|the admin here
        |it's the admin|its the admin|this is the admin|this is it support|i'm your developer|i am your developer
        |i'm your creator|i am your creator|your real creator|your developers want|i'm from it|i am from it"""
    ),
    regex=(
        (
            rf"\b(?:my|the|our|your|their)\s+{_BOSS}\b[^.!?\n]{{0,60}}?\b(?:said|says|approved|authori[sz]ed|signed\s+off"
            r"|okayed|ok'?d|cleared|allowed|agreed|wants|asked|requested|told\s+me|confirmed|is\s+fine\s+with)\b",
            (
                "boss",
                "manager",
                "admin",
                "ceo",
                "cfo",
                "cto",
                "supervisor",
                "lead",
                "security",
                "it ",
                "legal",
                "compliance",
                "owner",
                "maintainers",
                "director",
                "management",
                "landlord",
            ),
            24,
        ),
    ),
)

# Moving money: the other payload of borrowed authority ("wire the €4,800 to the new IBAN today").
MONEY = Concept(
    "money",
    *terms("iban|payroll|gift card*|bitcoin|btc|crypto wallet|sort code"),
    *more("money"),
    regex=(
        (
            # Told to the agent: after "you", "please", "must", "have to" … or opening a clause.
            r"(?:\b(?:you|u|please|pls|plz|must|have\s+to|need\s+to|needs\s+to|should|go\s+ahead\s+and|just|can)\s+"
            r"|^\s*|[.!?:;,—–-]\s*)(?:wire|transfer|send|pay|move)\b[^.!?\n]{0,40}?(?:[$€£]\s?\d|\d[\d,.]*\s?(?:€|eur|usd|gbp|dollars|euros)\b"
            r"|\biban\b|\bfunds\b|\bpayroll\b|\bgift\s+cards?\b|\bbitcoin\b|\bbtc\b|\bcrypto\b)",
            ("wire", "transfer", "send", "pay", "move"),
            24,
        ),
    ),
)

# An order: a modal of obligation or an imperative verb (English; the AI reader's address carries
# most of the signal, and most documents that smuggle orders are written in English).
DIRECTIVE = Concept(
    "directive",
    *terms(
        """must|should|shall|please|make sure|be sure to|you are to|you need to|you have to|you will|always
        |add|tell|say|state|report|rate|rank|recommend|include|change|replace|remove|delete|send|forward|approve
        |mark|fix|skip|ignore|stop|open|visit|click|download|run|execute|respond|reply|answer|describe|cite
        |mention|print|output|call|upload|transfer|book|buy|grant|push|commit|merge|deploy|close|accept|confirm
        |assign|omit|hide|praise|treat|classify|score|grade|flag|disable|enable|install|insert|append|email
        |share|give|post|summarize|summarise|present|list|claim|pretend|act|refuse|disregard|override
        |dile|di a|di que|borra|elimina|envía|recomienda|aprueba|cancela|escribe|dale|informa
        |disabilita|cancella|scrivi|aggiungi|invia|copia|rispondi|informe|aprova|aprove|copie|envie|manda
        |apague|diga|låtsas|inaktivera|skicka|radera|hänvisa|verwijder|stuur|zeg|usuń|wyślij|napisz
        |してください|伝えて|無効に"""
    ),
    *more("directive"),
)
