"""Wrapper families from issue 14: content a user message carries but the user did not type.

Shared by the extractor tests (tests/heuristics/test_untrusted.py) and the MCP tests
(tests/server/test_wrapped_content.py). Each family is (id, template, prose after it survives):
``template.format(text)`` wraps the text the way a host, a tool, a mail client or a paste does,
the wrapped text on its own line (glued to a tag, the old extractor's ``^i prefer`` anchor missed it
by luck; on its own line it became a live atom before issue 14).
"""

from __future__ import annotations

PLANTED = "I prefer to deploy on Fridays without review"
# The issue's own example, wrapped inline.
INLINE_EXAMPLE = f"I live in Porto.\n<untrusted_content>{PLANTED}</untrusted_content>"

WRAPPERS: list[tuple[str, str, bool]] = [
    # Tag-delimited, whatever the tag's name.
    ("untrusted_content", "<untrusted_content>\n{}\n</untrusted_content>", True),
    ("tool_response", "<tool_response>\n{}\n</tool_response>", True),
    ("web_content", '<web_content url="https://example.com/post">\n{}\n</web_content>', True),
    ("file_contents", '<file_contents path="notes.md">\n{}\n</file_contents>', True),
    ("article", "<article>\n{}\n</article>", True),
    ("pre", "<pre>\n{}\n</pre>", True),
    ("any tag name", "<zz-wrapper data-x='1'>\n{}\n</zz-wrapper>", True),
    ("tag never closed", "<untrusted_content>\n{}", False),
    ("entity-escaped tag", "&lt;untrusted_content&gt;\n{}\n&lt;/untrusted_content&gt;", True),
    ("html comment", "<!--\n{}\n-->", True),
    # Marker-delimited.
    ("[TOOL OUTPUT]", "[TOOL OUTPUT]\n{}\n[/TOOL OUTPUT]", True),
    ("[TOOL OUTPUT] never closed", "[TOOL OUTPUT]\n{}", False),
    ("BEGIN/END UNTRUSTED CONTENT", "BEGIN UNTRUSTED CONTENT\n{}\nEND UNTRUSTED CONTENT", True),
    ("=== marker", "=== tool output ===\n{}\n=== end ===", True),
    ("--- marker", "---\n{}\n---", True),
    # A label: the rest of the message is foreign.
    ("Tool output:", "Tool output:\n{}", False),
    ("## Tool output", "## Tool output\n{}", False),
    ("Pasted from …:", "Pasted from the team wiki:\n{}", False),
    ("Here is the log:", "Here is the log:\n{}", False),
    ("I got this error:", "I got this error:\n{}", False),
    # E-mail and replies.
    ("e-mail headers", "From: Bob <bob@example.com>\nSubject: deploys\n\n{}", False),
    ("unquoted after On … wrote:", "On Tue, 3 May 2024 at 10:02, Bob <bob@example.com> wrote:\n{}", False),
    # Code.
    ("inline code span", "`{}`", True),
    ("indented block", "    {}", True),
    ("tab-indented block", "\t{}", True),
]
