"""The `memory` tool's input schema is derived from the actions' models: flat, complete, and no larger than before."""

from __future__ import annotations

import json
from typing import Any

import pytest
from mcp import Client
from pydantic import BaseModel, Field

from trusted_memory.model import ATOM_TYPES, IMPORTANCE_LEVELS, SCOPES, TARGETS
from trusted_memory.server.actions import ACTIONS
from trusted_memory.server.schema import parameter_schemas
from trusted_memory.trust import AGENT_DECLARABLE

# What a host puts in the model's context for the tool, on every request: name + description + input
# schema, at most 1,500 tokens counted as characters / 4 (issue 15). It was 7,990 characters (~1,998
# tokens) before the descriptions were cut and the generator's titles dropped.
MAX_TOOL_TOKENS = 1_500


async def tool_schema(client: Client) -> tuple[Any, dict[str, Any]]:
    (tool,) = (await client.list_tools()).tools
    return tool, tool.input_schema


@pytest.mark.anyio
async def test_the_schema_is_one_flat_object_hosts_accept(client: Client) -> None:
    _, schema = await tool_schema(client)
    assert schema["type"] == "object" and not {"oneOf", "anyOf", "allOf", "$defs"} & schema.keys()
    assert schema["required"] == ["action"]
    assert schema["properties"]["action"]["type"] == "string"
    for name, prop in schema["properties"].items():
        assert isinstance(prop.get("type"), str), name  # one JSON type, never a union with null
        assert "anyOf" not in json.dumps(prop) and "$ref" not in json.dumps(prop), name
        assert "default" not in prop, name
        if name != "action":
            assert prop.get("description"), name


@pytest.mark.anyio
async def test_the_schema_is_the_union_of_the_actions_parameters(client: Client) -> None:
    _, schema = await tool_schema(client)
    properties = schema["properties"]
    taken = {name for spec in ACTIONS.values() for name in spec.params.model_fields}
    assert set(properties) == taken | {"action"}
    assert properties["action"]["enum"] == list(ACTIONS)
    # The vocabularies are the model's, not copies that could drift.
    assert properties["scope"]["enum"] == list(SCOPES)
    assert properties["target"]["enum"] == list(TARGETS)
    assert properties["importance"]["enum"] == list(IMPORTANCE_LEVELS)
    assert properties["source"]["enum"] == list(AGENT_DECLARABLE)
    assert properties["atom_type"]["enum"] == list(ATOM_TYPES)
    # Bounds come from the models; where two actions differ, the loosest is published.
    assert (properties["k"]["minimum"], properties["k"]["maximum"]) == (1, 50)
    assert (properties["budget_chars"]["minimum"], properties["budget_chars"]["maximum"]) == (200, 50_000)
    assert properties["tool_events"]["items"]["required"] == ["tool"]


def tool_chars(tool: Any) -> int:
    """Characters of name + description + input schema (JSON as json.dumps writes it, spaces included)."""
    return len(tool.name) + len(tool.description or "") + len(json.dumps(tool.input_schema))


@pytest.mark.anyio
async def test_the_tool_costs_at_most_1500_tokens(client: Client) -> None:
    tool, schema = await tool_schema(client)
    assert tool_chars(tool) / 4 <= MAX_TOOL_TOKENS, f"{tool_chars(tool)} characters"
    # Generator noise hosts would pay for on every request.
    assert "title" not in schema and not any("title" in prop for prop in schema["properties"].values())


@pytest.mark.anyio
async def test_the_schema_uses_nothing_a_major_host_refuses(client: Client) -> None:
    """Claude (API, Code, Desktop) refuses root oneOf/anyOf/allOf and Claude Code drops a tool with root
    allOf/if/then; Cursor refuses oneOf/anyOf/allOf anywhere; VS Code refuses an array without items and
    the 2020-12 $schema; Gemini paths refuse $ref/$defs."""
    _, schema = await tool_schema(client)
    text = json.dumps(schema)
    for keyword in ("oneOf", "anyOf", "allOf", "if", "then", "else", "not", "$ref", "$defs", "$schema"):
        assert f'"{keyword}"' not in text, keyword

    def arrays(node: Any) -> list[Any]:
        if isinstance(node, dict):
            own = [node] if node.get("type") == "array" else []
            return own + [a for v in node.values() for a in arrays(v)]
        return [a for v in node for a in arrays(v)] if isinstance(node, list) else []

    assert arrays(schema) and all("items" in a for a in arrays(schema))


def test_a_parameter_declared_two_ways_is_refused() -> None:
    class One(BaseModel):
        x: str = Field(description="one thing")

    class Other(BaseModel):
        x: int = Field(description="one thing")

    with pytest.raises(TypeError, match="'x' is declared differently"):
        parameter_schemas([One, Other])


def test_a_parameter_of_two_types_is_refused() -> None:
    class Either(BaseModel):
        x: int | str | None = None

    with pytest.raises(TypeError, match="one JSON type"):
        parameter_schemas([Either])


def test_bounds_are_widened_to_the_loosest_action() -> None:
    class Tight(BaseModel):
        n: int = Field(ge=1, le=10, description="n")

    class Loose(BaseModel):
        n: int | None = Field(default=None, ge=0, description="n")

    assert parameter_schemas([Tight, Loose]) == {"n": {"description": "n", "minimum": 0, "type": "integer"}}


@pytest.mark.anyio
async def test_an_unknown_atom_type_is_refused_naming_the_types_and_what_add_atom_takes(client: Client) -> None:
    args = {"action": "add_atom", "content": "The plant is a ficus", "source": "user_said", "atom_type": "trivia"}
    result = await client.call_tool("memory", args)
    text = result.content[0].text  # type: ignore[union-attr]
    assert result.is_error and "atom_type" in text and "'preference'" in text and "'note'" in text
    assert "action=add_atom takes: content*, source*, atom_type" in text


@pytest.mark.anyio
async def test_unknown_parameter_names_are_quoted_and_capped_in_one_paragraph(client: Client) -> None:
    extras = {"\n\n": 1, "x" * 500: 2, "colour": 3} | {f"extra{i}": i for i in range(10)}
    result = await client.call_tool("memory", {"action": "search", "query": "ficus"} | extras)
    text = result.content[0].text  # type: ignore[union-attr]
    assert result.is_error and "\n\n" not in text and "'\\n\\n'" in text and "colour" in text
    assert "x" * 60 not in text and "more." in text and "action=search takes:" in text
