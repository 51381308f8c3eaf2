"""Prompt-injection rules: phrases that address an AI, in plain, foreign and obfuscated forms."""

from __future__ import annotations

import re

from ._injection_checks import (
    actor_check,
    authority_check,
    cjk_check,
    determiner_check,
    exfil_image_check,
    foreign_check,
    heading_check,
    line_start_check,
    marker_check,
    negated_follow,
    not_a_safety_rule,
    not_forbidden,
    not_how_to,
    override_check,
    safety_check,
    send_check,
    tag_check,
)
from ._rules import Rule, RuleSet, compile_rx

_IGNORE_VERB = (
    r"(?:ignor(?:e|ing)|disregard(?:ing)?|forget(?:ting)?|overrid(?:e|ing)|discard(?:ing)?|dismiss(?:ing)?"
    r"|abandon(?:ing)?|nullify|circumvent(?:ing)?|(?:do\s+not|don'?t|stop|no\s+longer)\s+follow(?:ing)?"
    r"|pay\s+no\s+attention\s+to)"
)
_STRONG_Q = (
    r"(?:all|any|every|each|your|previous(?:ly)?|prior|above|earlier|preceding|foregoing|former|original"
    r"|initial|system|safety|developer|pre-?programmed|ethical)"
)
_MORE_Q = (
    r"(?:the|of|these|those|all|any|your|previous|prior|above|earlier|preceding|original|initial|system"
    r"|safety|existing|developer|given|other|received|provided|stated|mentioned|set|security|content"
    r"|moderation|ethical|programmed|default|current|core)"
)
_AI = r"(?:ai|llm|chatbot|language\s+model|ai\s+(?:assistant|model|agent)|assistants?|agents?)"
_HIJACK = (
    r"(?:ignore|disregard|obey|comply|execute|reveal|send|forward|call|include|append|insert|trust"
    r"|follow\s+(?:these|the\s+following|this|instructions)|not\s+(?:tell|reveal|mention|inform|disclose)"
    r"|treat\s+this)"
)
# "when you read this," / "reading this note:" but not "when you read this paper" or "this fixture".
_THIS_END = r"(?:\s+(?:message|note|memory|text|entry|document|page|content|comment))?(?=\s*(?:[,.:;!\-]|$))"

# "Attackers can exfiltrate data via …", "a web page could tell the model to … exfiltrate it": what
# an attack can do, said about it, not an order (an order is bare: "exfiltrate the cookies", "you must …").
_REPORTED_CAPABILITY = compile_rx(
    r"\b(?:can|could|may|might|would|able\s+to)\s+(?:\w+\s+){0,2}$"
    r"|\b(?:tell|tells|telling|told|instruct|instructs|instructing|get|gets|getting)\s+[^.!?\n]{0,60}\bto\s+"
    r"(?:[^.!?\n]{0,50}\band\s+)?$"
)


# "get the tutoring bot to reveal its system prompt", "the chatbot would reveal its system prompt":
# "its" is a bot spoken of, and "to"/"would" before the verb make it a story, not an order to it.
_TOLD_OF = compile_rx(r"\b(?:to|would|will|could|can|might|did|does)\s+(?:\w+\s+)?$")


def not_told_of_a_bot(m: re.Match[str]) -> bool:
    if " its " not in m.group():
        return True
    return _TOLD_OF.search(m.string, max(0, m.start() - 30), m.start()) is None


INJECTION_RULES = RuleSet(
    Rule(
        "instruction override ('ignore previous instructions')",
        rf"\b{_IGNORE_VERB}\s+(?:(?:the|of|these|those|my|this|that|to)\s+)*{_STRONG_Q}\s+(?:{_MORE_Q}\s+){{0,4}}"
        r"(?P<noun>instructions?|prompts?|rules|directives?|guidelines|guidance|guardrails|commands|orders|constraints"
        r"|restrictions|programming|context|polic(?:y|ies)|messages|text|training|filters)\b",
        words=(
            "ignore ignoring disregard disregarding forget forgetting override overriding discard discarding "
            "dismiss dismissing abandon abandoning nullify circumvent circumventing",
        ),
        anchored=True,
        ahead=160,
        check=override_check,
    ),
    Rule(
        "instruction override ('do not follow your instructions')",
        rf"(?:follow(?:ing)?|attention\s+to)\s+(?:(?:the|of|these|those|my|this|that|to)\s+)*{_STRONG_Q}\s+"
        rf"(?:{_MORE_Q}\s+){{0,4}}"
        r"(?P<noun>instructions?|prompts?|rules|directives?|guidelines|guidance|guardrails|commands|orders|constraints"
        r"|restrictions|programming|context|polic(?:y|ies)|messages|text|training|filters)\b",
        words=("follow following attention",),
        anchored=True,
        ahead=160,
        check=lambda m: negated_follow(m) and override_check(m),
    ),
    Rule(
        "instruction override ('ignore the above')",
        r"\b(?:ignore|disregard|forget)\s+(?:(?:all|of|the|everything|that|what(?:'s|\s+is|\s+was))\s+)*"
        r"(?:above(?=\s*(?:$|[.,;:!\-]|and\b|then\b|instead\b|now\b|text\b|prompt\b|directions\b|instructions\b"
        r"|rules\b|guidance\b))|everything\s+before\s+this|above\s+this\s+line"
        r"|(?:you\s+(?:were|have\s+been|'ve\s+been)|you'?ve\s+been)\s+(?:told|given|instructed)"
        r"|(?:your|the)\s+(?:training|programming))",
        words=("ignore disregard forget",),
        anchored=True,
        ahead=120,
    ),
    Rule(
        "instruction override ('previous instructions are void')",
        r"\b(?:previous|prior|above|earlier|preceding|original|initial|system|safety|your)\s+"
        r"(?:instructions|prompts?|directives|guardrails|programming)\s+(?:are|were|have\s+been|has\s+been|should\s+be"
        r"|must\s+be|can\s+be|is)\s+(?:now\s+|hereby\s+)?(?:ignored|void|null|cancell?ed|revoked|obsolete|overridd?en"
        r"|disregarded|invalid|superseded|replaced|lifted|suspended|disabled|deactivated|no\s+longer\s+(?:valid|apply))",
        words=(
            "instructions prompt prompts directives guardrails programming",
            "previous prior above earlier preceding original initial system safety your",
        ),
        at=("previous", "prior", "above", "earlier", "preceding", "original", "initial", "system", "safety", "your"),
        whole=True,
        anchored=True,
        ahead=120,
    ),
    Rule(
        "role reassignment ('you are now …')",
        r"\b(?:you\s+are|you're)\s+(?:now\s+(?:(?:an?|the|my)\s+)?(?:\w+\s+){0,2}?(?:ai|assistant|bot|chatbot|model"
        r"|character|persona|entity|hacker|dan|unrestricted|unfiltered|uncensored|jailbroken|evil|liberated"
        r"|unshackled|in\s+\w+\s+mode|free\s+(?:from|of))\b|no\s+longer\s+(?:an?\s+ai|an?\s+assistant|bound|restricted"
        r"|limited|constrained|required\s+to\s+follow)|not\s+bound\s+by)",
        words=("now longer bound", "you"),
        at=("you",),
        anchored=True,
        ahead=100,
    ),
    Rule(
        "injected instructions ('new instructions:')",
        r"(?:here\s+are\s+)?(?:your\s+)?(?:new|real|actual|true|secret|hidden)\s+(?:system\s+)?instructions?\s*"
        r"(?::|-{1,2}\s|are\s*:)"
        r"|\byour\s+(?:new|real|actual|true)\s+(?:instructions|directives?|objective|orders|task|mission)"
        r"\s+(?:are|is)\b",
        words=(
            "instruction instructions directive directives objective orders task mission",
            "here your new real actual true secret hidden",
        ),
        at=("here", "your", "new", "real", "actual", "true", "secret", "hidden"),
        whole=True,
        anchored=True,
        ahead=80,
        check=heading_check,
    ),
    Rule(
        "fake system-prompt marker",
        r"\bsystem\s+(?:(?:prompt|message|instructions?)\b(?P<colon>\s*(?::|follows\b))?|(?:prompt\s+)?override\s*:)",
        words=("system", "prompt message instruction instructions override"),
        anchored=True,
        ahead=40,
        on_text=True,
        flags=re.IGNORECASE | re.MULTILINE,
        check=marker_check,
    ),
    Rule(
        "prompt extraction ('reveal your system prompt')",
        r"\b(?:reveal|print|show|display|output|repeat|leak|dump|tell\s+me|give\s+me|share|expose|disclose|recite"
        r"|write\s+out|echo|paste|summari[sz]e|translate|paraphrase|list|quote|reproduce|spell\s+out|encode)\s+"
        r"(?:me\s+|us\s+)?(?:(?:the\s+(?:full\s+|exact\s+|whole\s+)?(?:text|content|contents|wording)\s+of\s+)?"
        r"(?:your|its)\s+(?:(?:full|entire|complete|original|initial"
        r"|hidden|secret|exact|verbatim|current|internal|real)\s+)*(?:system\s+|developer\s+|hidden\s+|initial\s+)?"
        r"(?:prompt|instructions|guidelines|rules|directives|configuration|programming)"
        r"|the\s+(?:(?:full|entire|complete|exact|verbatim|hidden|secret|original|initial)\s+)*"
        r"(?:system|developer|hidden|secret|initial)\s+(?:prompt|instructions))\b"
        r"|\bwhat\s+(?:is|are|were)\s+your\s+(?:(?:system|original|initial|hidden|secret)\s+)*"
        r"(?:prompt|instructions|directives)\b"
        # Not the instructions for a thing ("what are your instructions for the oven?").
        r"(?!\s+(?:for|on|about)\s+(?:the|a|an|my|our|this)\s+"
        r"(?!(?:conversation|chat|session|system|prompt|task|job|bot|ai|assistant|model|agent)\b)[a-z])"
        r"|\b(?:show|tell|give|print|repeat)\s+me\s+(?:everything|all|the\s+text|what)\s+(?:that\s+)?(?:was|is|were|came)"
        r"\s+(?:written\s+)?(?:before|above)\b"
        r"|\bwhat\s+(?:text|words|instructions)\s+(?:appears?|came|comes|is|are|were)\s+(?:written\s+)?(?:before|above)\s+"
        r"(?:my|the|this)\s+(?:first\s+)?message\b",
        words=(
            "prompt instructions guidelines rules directives configuration programming message",
            "reveal print show display output repeat leak dump tell give share expose disclose recite write "
            "echo paste what summarize summarise translate paraphrase list quote reproduce spell encode",
        ),
        at=(
            "reveal",
            "print",
            "show",
            "display",
            "output",
            "repeat",
            "leak",
            "dump",
            "tell",
            "give",
            "share",
            "expose",
            "disclose",
            "recite",
            "write",
            "echo",
            "paste",
            "what",
            "summarize",
            "summarise",
            "translate",
            "paraphrase",
            "list",
            "quote",
            "reproduce",
            "spell",
            "encode",
        ),
        whole=True,
        anchored=True,
        ahead=120,
        check=lambda m: not_how_to(m) and not_forbidden(m) and not_told_of_a_bot(m),
    ),
    Rule(
        "prompt extraction ('repeat the words above')",
        r"\b(?:repeat|print|output|echo|write\s+out|recite)\s+(?:all\s+)?(?:of\s+)?(?:the\s+)?(?:words|text|content"
        r"|everything|lines?|messages?)\s+(?:above|before\s+this)(?=\s*(?:$|[.,;:!]|starting|verbatim|word\s+for"
        r"|exactly|including|in\s+full))",
        words=("repeat print output echo write recite", "above before"),
        anchored=True,
        ahead=80,
    ),
    Rule(
        "safety override ('bypass your safety filters')",
        r"\b(?:override|bypass|circumvent|ignore|disregard|disable|turn\s+off|deactivate|remove|switch\s+off|lift"
        r"|drop)\s+(?:(?:your|its|all|any|the|of|these|built-in|internal|ai|model)\s+)*(?:(?:safety|ethical|ethics"
        r"|content|moderation|alignment)\s+){1,2}(?:filters?|guardrails?|guidelines|restrictions|protocols?|measures"
        r"|training|rules|constraints|policies|principles)\b"
        r"|\b(?:override|bypass|circumvent)\s+(?:(?:your|its|all|any|the)\s+)*(?:guardrails|programming"
        r"|alignment|safeguards)\b",
        words=(
            "safety ethical ethics content moderation alignment guardrails programming safeguards",
            "override bypass circumvent ignore disregard disable turn deactivate remove switch lift drop",
        ),
        at=(
            "override",
            "bypass",
            "circumvent",
            "ignore",
            "disregard",
            "disable",
            "turn",
            "deactivate",
            "remove",
            "switch",
            "lift",
            "drop",
        ),
        whole=True,
        anchored=True,
        ahead=120,
        check=safety_check,
    ),
    Rule(
        "chat-template role tag",
        r"<\|\s*(?:im_start|im_end|im_sep|system|assistant|user|begin_of_text|start_header_id|end_header_id"
        r"|eot_id)\s*\|>|(?-i:\[/?INST\])|<</?sys>>|<(?:start|end)_of_turn>|</?im_(?:start|end|sep)>"
        r"|</?(?:system|system[_-](?:prompt|message|instructions?|override|reminder)|instructions?"
        r"|admin[_-]?(?:instructions?|override|message)|developer[_-](?:message|instructions?))\s*>(?![.:/\w-])",
        words=("system instruction instructions admin developer inst sys im assistant user turn eot begin header",),
        at=("<", "[inst", "[/inst"),
        ahead=40,
        on_text=True,  # "[INST]" is case-sensitive: "[inst]" tags entries in some changelogs
        flags=re.IGNORECASE | re.MULTILINE,
        check=tag_check,
    ),
    Rule(
        "fake role header ('### system:')",
        r"^[ \t]*#{1,6}[ \t]*(?:system(?:\s+prompt)?|assistant|instructions?|response)[ \t]*:",
        subs=(
            "system:",
            "system :",
            "assistant:",
            "assistant :",
            "instruction:",
            "instructions:",
            "response:",
            "prompt:",
            "prompt :",
        ),
        back=20,
        ahead=20,
    ),
    Rule(
        "fake role turn ('assistant:' / 'system:' at line start)",
        # Not an app's notice ("System: Your trial ends in 3 days", "System: your download is ready").
        r"^[ \t]*(?:system|assistant)[ \t]*:[ \t]*(?:you\b|your\b(?!\s+(?:free\s+)?(?:trial|subscription|plan|order"
        r"|package|parcel|delivery|invoice|payment|storage|disk|battery|download|backup|upload|device|booking)\b)|ignore|disregard|forget|new\b|from\s+now"
        r"|override|i\s+(?:am|will|have|must)\b|sure\b|certainly|okay\b|ok\b|understood|as\s+an?\b|the\s+user\b"
        r"|always\b|never\b|do\s+not\b|don't\b|please\b|important|attention)",
        subs=("system:", "system :", "assistant:", "assistant :"),
        back=20,
        ahead=40,
    ),
    Rule(
        "fake role turn (Human:/Assistant: transcript)",
        r"(?:human|user)[ \t]*:[^\n]*\n(?:[^\n]*\n){0,20}?[ \t]*assistant[ \t]*:",
        words=("human user", "assistant"),
        anchored=True,
        ahead=3000,
        check=line_start_check,
    ),
    Rule(
        "fake authority header ('SYSTEM OVERRIDE:')",
        r"(?:system|admin|administrator|developer|root)\s+(?:override|message|instructions?|command|directive|update|notice"
        r"|alert)"
        r"(?:[\])]?[ \t]*:|(?<=override)\s*[\])])",
        words=(
            "system admin administrator developer root",
            "override message instruction instructions command directive",
        ),
        anchored=True,
        ahead=40,
        check=authority_check,
    ),
    Rule(
        "jailbreak persona (developer mode)",
        r"\b(?:you\s+are|you're|are\s+now|now\s+in|act\s+in|respond\s+in|answer\s+in|simulate|stay\s+in)\s+(?:now\s+)?"
        r"(?:in\s+)?(?:developer|dev)\s+mode\b|\b(?:ai|assistant|chatgpt|claude|gpt|model|llm)\s+(?:with|in)\s+"
        r"(?:developer|dev)\s+mode\b|\b(?:developer|dev)\s+mode\s+output\b",
        words=("mode", "developer dev"),
        back=40,
        ahead=30,
    ),
    Rule(
        "jailbreak marker",
        r"\bjailbr(?:eak|oken)\s+(?:mode|enabled|activated|successful|complete|ai|assistant|model)\b"
        r"|\b(?:you\s+are|you're|are\s+now|you\s+have\s+been|you've\s+been)\s+(?:now\s+)?jailbr(?:eak|oken)(?:ed)?\b"
        r"|\b(?:this\s+is\s+a|initiate|initiating|activate|enable|begin)\s+(?:the\s+)?jailbreak\b",
        words=("jailbreak jailbroken jailbreaked",),
        at=("jailbr",),
        back=30,
        ahead=40,
    ),
    Rule(
        "jailbreak persona (DAN)",
        r"(?-i:\bDo\s+Anything\s+Now\b|\bDAN\s+(?:mode|prompt|jailbreak)\b)"
        r"|\bstands\s+for\s+[\"'“]?do\s+anything\s+now|\b(?:you|dan)\s+(?:can|will|could)\s+(?:now\s+)?do\s+anything"
        r"\s+now|\b(?:you\s+are|you're|act\s+as|acting\s+as|become|pretend\s+to\s+be|roleplay\s+as)\s+(?:now\s+)?"
        r"(?-i:DAN)\b",
        words=("dan anything",),
        back=40,
        ahead=40,
        on_text=True,
        flags=re.IGNORECASE | re.MULTILINE,
    ),
    Rule(
        "jailbreak persona ('act as an unrestricted AI')",
        r"\b(?:act|behave|respond|answer|reply|operate|roleplay|role-play)\s+(?:as|like)\s+(?:if\s+you\s+(?:are|were)\s+)?"
        r"(?:an?\s+)?(?:unrestricted|unfiltered|uncensored|unaligned|unbound|evil|jailbroken|rogue|amoral|unethical)\b"
        r"|\bpretend\s+(?:that\s+)?(?:you\s+)?(?:are|have|to\s+be)\s+(?:an?\s+)?(?:(?:ai|assistant|model|chatbot)\s+)?"
        r"(?:with\s+)?(?:no\s+(?:restrictions|rules|limits|filters|guidelines|guardrails)|unrestricted|unfiltered"
        r"|uncensored|evil|jailbroken)",
        words=(
            "act behave respond answer reply operate roleplay role pretend",
            "unrestricted unfiltered uncensored unaligned unbound jailbroken amoral unethical evil rogue "
            "restrictions rules limits filters guidelines guardrails",
        ),
        anchored=True,
        ahead=100,
    ),
    Rule(
        "jailbreak persona ('without ethical restrictions')",
        r"\b(?:without|no)\s+(?:any\s+)?(?:ethical|moral)(?:\s+(?:or|and|,)\s+(?:ethical|moral))?\s+(?:restrictions|guidelines|filters|limitations"
        r"|constraints|boundaries)\b",
        words=("ethical moral", "without no"),
        back=16,
        ahead=40,
    ),
    Rule(
        "exfiltration instruction ('exfiltrate')",
        r"\bexfiltrate\b",
        words=("exfiltrate",),
        ahead=12,
        check=lambda m: _REPORTED_CAPABILITY.search(m.string, max(0, m.start() - 80), m.start()) is None,
    ),
    Rule(
        "exfiltration instruction ('send … to http…')",
        r"\b(?:send|post|upload|forward|transmit|submit|leak|copy|email|report|beacon)(?P<inflected>\w*)\s+"
        r"(?:[^\n]{0,60}?\b(?P<sensitive>conversation|chat\s+(?:log|history)|memories|secrets?|api\s*keys?"
        r"|credentials?|passwords?|env(?:ironment)?\s+var\w*|\.env|ssh\s+keys?|transcript|system\s+prompt"
        r"|cookies?)\b[^\n]{0,60}?\bto\s+(?:https?://|ftp://|wss?://)"
        r"|(?:(?:the|all|this|these|every|any|your|my|its|their|everything|of|user'?s?|entire|full|whole|current"
        r"|complete)\s+)+[^\n]{0,80}?\bto\s+(?:https?://|ftp://|wss?://|(?:this|that|the\s+following|following)\s+"
        r"(?:url|endpoint|webhook|server|address|link)))",
        words=(
            "send sends sending post posts posting posted upload uploads uploading forward forwards forwarding "
            "transmit transmits submit submits leak leaks copy copies email emails report reports beacon",
            "http https ftp ws wss url endpoint webhook server address",
        ),
        at=("send", "post", "upload", "forward", "transmit", "submit", "leak", "copy", "email", "report", "beacon"),
        anchored=True,
        ahead=200,
        check=send_check,
    ),
    Rule(
        "memory-tool instruction (promote/confirm/approve)",
        r"\b(?:promote_atom|promote_episode|confirm_pending(?:_review)?|approve_atom|release_quarantine"
        r"|user_approved)\b",
        words=("promote confirm approve release approved",),
        at=("promote_", "confirm_pending", "approve_atom", "release_quarantine", "user_approved"),
        back=1,
        ahead=30,
    ),
    Rule(
        "tool-call instruction ('call the memory tool')",
        r"\b(?:call|invoke|trigger)\s+(?:the\s+|your\s+)?(?:memory|mcp)\s+tool\b"
        r"|\b(?:use|call|invoke)\s+(?:the\s+|a\s+|your\s+)?(?:\w+\s+)?tool\s+(?:to|and)\s+(?:promote|approve"
        r"|confirm|mark|elevate|trust|release|unquarantine|exfiltrate)\b",
        words=("tool",),
        back=40,
        ahead=40,
    ),
    Rule(
        "trust escalation ('mark this as user-approved')",
        r"\b(?:mark|flag|tag|label|store|save|record|remember|treat)\s+(?:this|it|these|that|the\s+(?:memory|atom"
        r"|fact|entry|note))\s+(?:as|with)\s+(?:source\s*[=:]?\s*)?(?:trusted|user[\s_-]?(?:approved|said))\b"
        r"(?!\s+(?:certificate|cert|ca|root|host|key|device|publisher|site|domain|network|sender)s?\b)",
        words=("trusted approved said", "mark flag tag label store save record remember treat"),
        back=60,
        ahead=10,
    ),
    Rule(
        "concealment instruction ('without telling the user')",
        r"\bwithout\s+(?:asking|telling|informing|notifying|alerting)\s+(?:the|your)\s+user(?=\s*(?:[.!;]|$))"
        r"|\b(?:don't|do\s+not|never)\s+(?:tell|inform|notify|alert|let)\s+(?:the|your)\s+user\s+(?:know\b|about\s+"
        r"(?:this|these|it)\b|that\s+you\b)",
        words=("user", "without don do never"),
        at=("without", "don't", "do not", "never"),
        anchored=True,
        ahead=60,
    ),
    Rule(
        "AI-addressed directive ('IMPORTANT: the AI must')",
        r"\b(?:important|attention|urgent|critical|notice)\s*[:!]+\s*(?:(?:the|all|any)\s+)?(?:ai|assistant|model"
        r"|agent|llm|chatbot|language\s+model|claude|gpt|chatgpt|copilot)s?\s+(?:must|shall|needs?\s+to|has\s+to"
        r"|(?:is|are)\s+required\s+to)\b"
        r"|\b(?:important|attention|urgent|critical|notice)\s*[:!]+\s*you\s+must\s+(?:now\s+|always\s+|never\s+)?"
        rf"{_HIJACK}",
        words=("important attention urgent critical notice", "must shall required need needs has"),
        anchored=True,
        ahead=80,
    ),
    Rule(
        "AI-addressed directive ('the AI must always')",
        rf"(?P<actor>{_AI})\s+(?:must|shall|(?:is|are)\s+required\s+to)\s+"
        rf"(?:(?:always|never|now|immediately|henceforth|from\s+now\s+on)\b\s*(?P<hijack>{_HIJACK})?"
        rf"|(?P<direct>{_HIJACK}))",
        words=("ai llm chatbot language assistant assistants agent agents", "must shall required"),
        anchored=True,
        ahead=80,
        check=lambda m: determiner_check(m) and (bool(m.group("direct")) or actor_check(m)) and not_a_safety_rule(m),
    ),
    Rule(
        "AI-addressed trigger ('when you read this')",
        r"\bwhen\s+(?:you|an?\s+(?:ai|assistant|model|agent|llm)|the\s+(?:ai|assistant|model|agent|llm))\s+"
        r"(?:reads?|process(?:es)?|encounters?|loads?|retrieves?|recalls?|parses?)\s+(?:this|these)"
        rf"{_THIS_END}"
        r"|\bif\s+you\s+are\s+an?\s+(?:ai|llm|language\s+model|large\s+language\s+model|ai\s+assistant|chatbot"
        r"|ai\s+agent|automated\s+agent)\b(?!\s+(?:enthusiast|researcher|engineer|developer|expert|fan|company|startup"
        r"|team|user|person|student|hobbyist|practitioner|builder)s?\b)"
        r"|\bnote\s+to\s+(?:the\s+|any\s+|all\s+)?(?:ai|assistant|llm|language\s+model|ai\s+agent)s?\b"
        r"(?!\s+(?:team|teams|group|working|channel|project|developers?|vendors?|committee|folks|people|crew|squad))",
        words=("when if note", "this these ai llm assistant assistants agent chatbot model"),
        anchored=True,
        ahead=60,
    ),
    Rule(
        "AI-addressed trigger ('AI reading this')",
        rf"\b(?:ai|llms?|assistants?|agents?|language\s+models?)\s+(?:reading|processing|parsing)\s+this{_THIS_END}",
        words=("reading processing parsing", "ai llm llms assistant assistants agent agents model models"),
        back=24,
        ahead=20,
    ),
    Rule(
        "markdown-image exfiltration (data in an image URL)",
        r"(?:!\[[^\[\]\n]{0,200}\]\(\s*<?|<img\b[^>]{0,300}?\bsrc\s*=\s*[\"']?)(?P<url>(?:https?:)?//[^)\s\"'>]{1,800})",
        subs=("![", "<img"),
        anchored=True,
        ahead=1400,
        check=exfil_image_check,
    ),
    Rule(
        "instruction override (German)",
        r"\b(?:ignorier(?:e|en)?|vergiss|vergessen\s+sie|missachte(?:n)?)\s+(?:\w+\s+){0,4}?(?:anweisungen"
        r"|instruktionen|befehle|vorgaben|regeln|anordnungen)\b",
        words=("ignoriere ignorieren ignorier vergiss vergessen missachte missachten",),
        ahead=150,
        check=foreign_check,
    ),
    Rule(
        "instruction override (Romance languages)",
        r"\b(?:ignora|ignorar|ignore|ignorez|ignorer|ignorate|olvida|olvide|olvidar|oublie|oubliez|oublier"
        r"|dimentica|dimenticate|esqueça|esquece|esquecer|desconsidera|desconsidere)\s+(?:\w+\s+){0,4}?"
        r"(?:instrucciones|instruç(?:ões|oes)|instrucoes|istruzioni|instructions|consignes|indicaciones|directivas"
        r"|reglas|regole|regras|règles|orientações|indicazioni)\b",
        words=(
            "ignora ignorar ignore ignorez ignorer ignorate olvida olvide olvidar oublie oubliez oublier dimentica "
            "dimenticate esqueça esquece esquecer desconsidera desconsidere",
            "instrucciones instruções instrucoes istruzioni instructions consignes indicaciones directivas reglas "
            "regole regras règles orientações indicazioni",
        ),
        anchored=True,
        ahead=150,
        check=foreign_check,
    ),
    Rule(
        "instruction override (Russian)",
        r"(?:проигнорируй|игнорируй|забудь|не\s+обращай\s+внимания\s+на)(?:те)?\s+(?:\w+\s+){0,4}?"
        r"(?:инструкци|указани|правил|команд|промпт)\w*",
        words=("игнорируй игнорируйте проигнорируй проигнорируйте забудь забудьте обращай обращайте",),
        at=("игнор", "забудь", "обращай"),
        back=4,
        ahead=150,
        check=foreign_check,
    ),
    Rule(
        "instruction override (CJK)",
        r"(?:忽略|无视|無視|忘记|忘記|忽視|不要遵守)[^。！？\n]{0,12}?(?:指令|指示|提示|规则|規則|说明|說明|命令)"
        r"|(?:(?:以前|前の|上記|これまで|システム)[^。！？\n]{0,6}?)?(?:指示|命令|ルール|プロンプト|指令)[^。！？\n]{0,12}?"
        r"(?:無視|忘れ)"
        r"|(?:(?:이전|모든|위의|앞의|시스템)[^.!?\n]{0,6}?)?(?:지시|명령|지침|규칙|프롬프트)[^.!?\n]{0,12}?(?:무시|잊어)",
        subs=("忽略", "无视", "無視", "忘记", "忘記", "忽視", "不要遵守", "忘れ", "무시", "잊어"),
        back=20,
        ahead=30,
        check=cjk_check,
    ),
)
