"""Injection rules for the families the second blind part showed missing (issue 14, round 3).

Hidden instructions addressed to an AI in HTML, CSS, markdown and code comments, JSON fields and
calendar or issue text; exfiltration through templated links, DNS names and environment uploads;
tool poisoning; forged system or admin notices; "decode this and obey"; and "ignore the previous
instructions" in scripts the phrase rules did not read (Greek, Thai, Bengali, Tamil, Urdu, Hebrew,
Persian, Vietnamese, Indonesian, Swahili, Turkish). Each rule is a shape that addresses an AI or
hands it a hidden task, so talk about such things ("an HTML comment can hide instructions")
does not match.
"""

from __future__ import annotations

import re

from ._rules import Rule, RuleSet

_LOW = re.IGNORECASE | re.MULTILINE
_AI_NAME = (
    r"(?:ai|ais|a\.i\.|ai[\s-]agents?|ai[\s-]assistants?|assistants?|agents?|llms?|copilot|claude|chatgpt|gpt|gemini"
    r"|language\s+models?|models?|bots?|crawlers?|summari[sz]ers?)"
)
_AI_WORDS = "ai ais assistant assistants agent agents llm llms copilot claude chatgpt gpt gemini model models bot bots"

# "ignore the previous instructions" as an (ignore-verb, instructions-noun) pair in one clause.
_FOREIGN_PAIRS = (
    (("αγνόησε", "αγνοήστε", "ξέχνα", "ξεχάστε"), ("οδηγ", "κανόν")),
    (("ลืม", "เพิกเฉย", "ละเว้น", "ไม่ต้องสนใจ"), ("คำสั่ง", "คำแนะนำ")),
    (("ভুলে", "উপেক্ষা"), ("নির্দেশ",)),
    (("புறக்கணி", "மறந்து"), ("அறிவுறுத்தல்", "கட்டளை")),
    (("نظر انداز", "بھول"), ("ہدایات",)),
    (("התעלם", "שכח", "תתעלם"), ("הוראות", "ההנחיות", "הנחיות")),
    (("نادیده", "فراموش"), ("دستورالعمل", "دستورات")),
    (("bỏ qua", "quên"), ("hướng dẫn", "chỉ dẫn", "chỉ thị")),
    (("abaikan", "lupakan"), ("instruksi", "arahan", "perintah")),
    (("puuza", "sahau"), ("maelekezo", "maagizo")),
    (("yok say", "görmezden gel", "unut"), ("talimat",)),
)


def _pair_rule(verbs: tuple[str, ...], nouns: tuple[str, ...]) -> Rule:
    v, n = "|".join(verbs), "|".join(nouns)
    return Rule(
        "instruction override in another script (ignore the previous instructions)",
        rf"(?:{v})[^\n.!?。]{{0,80}}?(?:{n})|(?:{n})[^\n.!?。]{{0,80}}?(?:{v})",
        subs=verbs,
        back=100,
        ahead=120,
        flags=_LOW,
    )


MORE_RULES = RuleSet(
    Rule(
        "hidden instruction in an HTML comment addressed to an AI",
        rf"<!--[^>]{{0,60}}?(?:\bnote\s+(?:to|for)\s+)?@?{_AI_NAME}\b[^>]{{0,40}}?(?::|,|\bwhen\b|\bsummari|\breading\b|\bmust\b)",
        subs=("<!--",),
        anchored=True,
        ahead=200,
        flags=_LOW,
    ),
    Rule(
        "hidden instruction in a markdown comment addressed to an AI",
        rf"\[//\]\s*:\s*#\s*[(\"']\s*@?{_AI_NAME}\b",
        subs=("[//]",),
        anchored=True,
        ahead=120,
        flags=_LOW,
    ),
    Rule(
        "hidden instruction in a code comment addressed to an AI (// @ai-agent: …)",
        r"(?://|#|/\*|--|;)\s*@(?:ai|ai-agent|ai-assistant|assistant|agent|copilot|claude|llm|bot|gpt)\b\s*[:,]",
        subs=("@",),
        back=6,
        ahead=60,
        flags=_LOW,
    ),
    Rule(
        "instruction to an AI reading an invite or issue (@assistant when you read this …)",
        r"@(?:assistant|ai|agent|ai-agent|copilot|claude|gpt|llm|bot)\b[,:]?\s+(?:when|if|once|before|after|you\s+must"
        r"|ignore|always|never|do\s+not|don't)\b",
        subs=("@",),
        anchored=True,
        ahead=80,
        flags=_LOW,
    ),
    Rule(
        "text hidden by CSS that addresses an AI",
        r"style\s*=\s*[\"'][^\"'>]{0,200}?(?:display\s*:\s*none|font-size\s*:\s*[01](?:\.\d+)?(?:px|pt)|visibility\s*:"
        r"\s*hidden|opacity\s*:\s*0(?:\.0+)?\b|color\s*:\s*(?:#fff\b|#ffffff|white\b))[^>]{0,200}>[^<]{0,300}?"
        rf"\b(?:{_AI_NAME}|instructions?|ignore|system)\b",
        subs=("style",),
        anchored=True,
        ahead=800,
        flags=_LOW,
    ),
    Rule(
        "instruction field for an AI in data (assistant_instruction: …)",
        rf"\b(?:{_AI_NAME})[_-](?:instructions?|directives?|notes?|prompts?|commands?|tasks?)[\"']?\s*[:=]\s*[\"']?[a-z]",
        words=("instruction instructions directive note prompt command task",),
        subs=("_instruction", "-instruction", "_directive", "_prompt", "_note", "_command", "_task"),
        back=40,
        ahead=80,
        flags=_LOW,
    ),
    Rule(
        "exfiltration link (a URL whose query is a template for the agent to fill)",
        r"https?://[^\s)\]\"'<>]{1,200}?[?&][\w-]{1,30}=\{[^}\s]{1,60}\}",
        subs=("http",),
        anchored=True,
        ahead=300,
        flags=_LOW,
    ),
    Rule(
        "exfiltration link (append the conversation to a URL)",
        r"\]\(https?://[^\s)]{1,200}?[?&][\w-]{1,30}=\)[^\n]{0,200}?\b(?:history|conversation|chat|secrets?|passwords?"
        r"|tokens?|api\s+keys?|context|summary|historique|conversación|verlauf|cronologia|histórico)\b",
        subs=("](http",),
        anchored=True,
        ahead=400,
        flags=_LOW,
    ),
    Rule(
        "exfiltration by DNS (a host name made of a secret)",
        r"<[^<>\n]{0,40}\b(?:api\s+key|password|token|secret|credentials?|session|cookie)[^<>\n]{0,20}>\.[\w-]+\.[a-z]{2,}",
        subs=(">.",),
        back=80,
        ahead=80,
        flags=_LOW,
    ),
    Rule(
        "exfiltration command (uploads the environment)",
        r"\b(?:curl|wget)\b[^\n]{0,200}?\s(?:-d|--data(?:-binary|-raw)?|-f|--form)\s*[\"']?\$\((?:env|printenv|set|cat)\b"
        r"|\b(?:fetch|axios\.post|requests\.post|http\.post|got\.post)\s*\([^\n]{0,200}?(?:stringify\(\s*process\.env\s*\)"
        r"|body\s*:\s*process\.env\b|(?:json|data)\s*=\s*(?:dict\()?os\.environ\b)",
        words=("curl wget fetch post",),
        at=("curl", "wget", "fetch", "axios.post", "requests.post", "http.post", "got.post"),
        anchored=True,
        ahead=500,
        flags=_LOW,
    ),
    Rule(
        "tool poisoning (an instruction inside a tool description)",
        r"<important>|\bbefore\s+(?:using|calling|running|invoking)\s+this\s+tool\b[^\n]{0,40}?\b(?:read|send|pass|call"
        r"|include|fetch|upload|copy)\b",
        subs=("<important>", "this tool"),
        back=60,
        ahead=120,
        flags=_LOW,
    ),
    Rule(
        "tool hijack (plant a download-and-run line in a shell profile)",
        r"(?:\.bashrc|\.zshrc|\.bash_profile|\.profile|crontab)\b[^\n]{0,160}?\b(?:curl|wget)\s[^\n|]{0,200}\|\s*(?:sudo\s+)?"
        r"(?:ba|z)?sh\b",
        subs=(".bashrc", ".zshrc", ".bash_profile", ".profile", "crontab"),
        anchored=True,
        ahead=400,
        flags=_LOW,
    ),
    Rule(
        "labelled instruction for an agent (Agent instruction: …)",
        rf"^[\s>*#\[(-]*(?:{_AI_NAME})\s+(?:instructions?|directives?|commands?|tasks?|orders?)\s*[:\]]",
        words=(_AI_WORDS, "instruction instructions directive directives command commands task tasks order orders"),
        back=40,
        ahead=60,
        flags=_LOW,
    ),
    Rule(
        "forged system or admin notice",
        r"\bsystem\s+override\b|\[\s*(?:admin|system|developer|operator|maintainer)\s+(?:notice|override"
        r"|alert|instruction)\b|\b(?:important\s+)?system\s+note\s+for\s+(?:\w+\s+)?(?:assistants?|agents?|ais?|models?"
        r"|llms?|bots?)\b|\bnew\s+task\s+from\s+the\s+user\b",
        words=(
            "system admin developer operator maintainer task",
            "override notice message note alert instruction task",
        ),
        back=4,
        ahead=80,
        flags=_LOW,
    ),
    Rule(
        "safety switched off by decree (safety checks are paused, unrestricted mode)",
        r"\b(?:safety|moderation|content|memory\s+safety)\s+(?:layer|checks?|filters?|polic(?:y|ies)|guardrails)\s+"
        r"(?:is\s+|are\s+|has\s+been\s+|have\s+been\s+)?(?:now\s+)?(?:disabled|paused|suspended|lifted|off|removed)\b"
        r"|\bunrestricted\s+(?:output\s+)?mode\b|\braw,?\s+unfiltered\s+(?:completions|output|answers|responses)\b",
        words=("safety moderation content unrestricted unfiltered",),
        back=30,
        ahead=120,
        flags=_LOW,
    ),
    Rule(
        "decode-and-obey (an encoded instruction the agent is told to follow)",
        r"\b(?:decode|decipher|translate|convert|shift|reverse|unscramble|rot13)\b[^\n]{0,60}?\b(?:and|then)\s+"
        r"(?:follow|obey|execute|comply|act\s+on|do\s+what|run)\b|\bfollow\s+(?:these|the\s+following)\s+(?:bits|bytes"
        r"|codes?|hex|dots)\b",
        words=(
            "decode decipher translate convert shift reverse unscramble rot13 follow",
            "follow obey execute comply act do run",
        ),
        back=60,
        ahead=120,
        flags=_LOW,
    ),
    Rule(
        "the real instructions start here (earlier ones declared a test)",
        r"\b(?:the\s+)?real\s+instructions\s+(?:start|begin|are|follow)\b|\binstructions\s+above\s+were\s+(?:a\s+test|fake"
        r"|a\s+decoy)\b",
        words=("instructions",),
        back=40,
        ahead=60,
        flags=_LOW,
    ),
    *(_pair_rule(verbs, nouns) for verbs, nouns in _FOREIGN_PAIRS),
    # Round 8: documented jailbreak shapes that every corpus author wrote in some form and no benign
    # text of the thirteen parts holds: refusal suppression, a forced opening, a dropped persona, "print
    # everything above", a text that claims priority over the system prompt, every secret seen so far.
    Rule(
        "jailbreak (refusal suppressed)",
        r"\b(?:must\s+not|mustn't|may\s+not|cannot|can't|do\s+not|don't|never|will\s+not|won't)\s+refuse\b"
        r"|\brefus(?:e|ing|als?)\b[^\n.]{0,60}?\b(?:are\s+(?:now\s+)?bugs|do\s+the\s+opposite|not\s+allowed|forbidden)"
        r"|\bnever\s+(?:say|write|reply\s+with)\s+['\"“‘](?:i\s+can't|i\s+cannot|i'm\s+sorry|sorry|as\s+an\s+ai)",
        words=("refuse refusing refusals refusal never",),
        at=("refus", "never"),
        back=40,
        ahead=120,
        flags=_LOW,
    ),
    Rule(
        "jailbreak (forced opening: 'your reply must start with \"Sure\"')",
        r"\b(?:reply|response|answer|output)\s+(?:must|should|will|has\s+to)\s+(?:always\s+)?(?:start|begin)\s+with\s+"
        r"['\"“‘](?:sure|absolutely|of\s+course|here(?:'s|\s+is)|certainly|yes|i\s+will)",
        words=("reply response answer output", "start begin"),
        back=0,
        ahead=120,
        flags=_LOW,
    ),
    Rule(
        "jailbreak persona (you are no longer an assistant)",
        rf"\byou(?:'re|\s+are)\s+no\s+longer\s+(?:a|an|the|just\s+an?)\s+(?:\w+\s+){{0,2}}{_AI_NAME}\b"
        r"|\bdu\s+är\s+inte\s+längre\s+en\s+(?:assistent|ai|chattbot)|\bdu\s+bist\s+kein(?:e)?\s+(?:assistent|ki)\s+mehr"
        r"|\btu\s+n'es\s+plus\s+un\s+assistant|\bya\s+no\s+eres\s+un\s+asistente|\bnon\s+sei\s+più\s+un\s+assistente"
        r"|\bnão\s+és?\s+mais\s+um\s+assistente|\bvoc[eê]\s+não\s+é\s+mais\s+um\s+assistente",
        words=("longer längre mehr plus más più mais",),
        back=60,
        ahead=80,
        flags=_LOW,
    ),
    Rule(
        "prompt extraction ('print everything above this line')",
        r"\b(?:print|repeat|output|show|copy|paste|write|recite|dump)\s+(?:out\s+)?(?:everything|all|anything)\s+"
        r"(?:(?:that\s+)?(?:is|was|appears|written)\s+)?(?:above|before)\s+(?:this|my|the)\b",
        words=("everything all anything", "above before"),
        back=24,
        ahead=80,
        flags=_LOW,
    ),
    Rule(
        "instruction override (this text outranks the system prompt)",
        r"\b(?:higher|greater|more)\s+priority\s+than\s+(?:your|the|any|anything)\b"
        r"|\b(?:takes?|has|have)\s+priority\s+over\s+(?:your|the\s+system|any\s+(?:other|system|previous))\b"
        r"|\bsystem-level\s+priority\b",
        words=("priority",),
        back=40,
        ahead=80,
        flags=_LOW,
    ),
    Rule(
        "backdoor trigger (whenever you see the word '…')",
        r"\b(?:whenever|when|if|every\s+time)\s+(?:you\s+(?:see|read|get)|someone\s+(?:says|writes|types|uses)"
        r"|the\s+user\s+(?:says|writes|types)|anyone\s+(?:says|writes|types)|(?:a|the|any)\s+(?:message|text|email|input"
        r"|document)\s+contains)\s+(?:the\s+)?(?:word|phrase|code\s*word|string|keyword)\s+['\"“‘«]",
        words=("whenever when if every", "word phrase codeword code string keyword"),
        back=0,
        ahead=120,
        flags=_LOW,
    ),
    Rule(
        "payload splitting (remember a fragment, join the parts and run them)",
        r"\b(?:remember|store|save|keep)\s+(?:the\s+|this\s+)?(?:first\s+half|second\s+half|first\s+part"
        r"|second\s+part|next\s+part|fragment)\b"
        r"|\bstep\s+\d+\s+of\s+\d+\s*[:.-]\s*(?:\w+\s+){0,2}(?:remember|store|save|keep)\b"
        r"|\b(?:join|combine|concatenate|put\s+together|merge)\s+(?:the\s+|both\s+|these\s+|all\s+)?(?:two\s+|three\s+)?"
        r"(?:strings|parts|pieces|halves|fragments|snippets)\b[^\n.]{0,80}?\b(?:execute|run|eval|send|paste)\b",
        words=("remember store save keep join combine concatenate put merge step",),
        back=0,
        ahead=160,
        flags=_LOW,
    ),
    Rule(
        "tool abuse (open a reverse shell)",
        r"\b(?:open|start|spawn|launch|create|run|establish|give\s+me)\s+(?:a\s+|an\s+)?reverse\s+shell\b",
        words=("reverse", "shell"),
        at=("open", "start", "spawn", "launch", "create", "run", "establish", "give"),
        back=0,
        ahead=60,
        flags=_LOW,
    ),
    Rule(
        "exfiltration (every secret seen so far)",
        r"\b(?:output|print|list|dump|reveal|show|give|paste|repeat|send|write)\s+(?:me\s+)?(?:every|all|all\s+the|any)\s+"
        r"(?:\w+\s+)?(?:secrets?|passwords?|api\s+keys?|credentials?|tokens?)\s+(?:you(?:'ve|\s+have)?\s+(?:seen|stored"
        r"|saved|collected|know|remember|read)|in\s+(?:your\s+)?(?:memory|context))",
        words=("every all any", "secret secrets password passwords api credential credentials token tokens"),
        back=24,
        ahead=160,
        flags=_LOW,
    ),
)
