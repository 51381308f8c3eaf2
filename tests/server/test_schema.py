"""The `memory` tool's input schema is derived from the actions' models: flat, complete, and no larger than before."""

from __future__ import annotations

import json
from typing import Any

import pytest
from mcp import Client
from pydantic import BaseModel, Field

from trusted_memory.model import IMPORTANCE_LEVELS, SCOPES, TARGETS
from trusted_memory.server.actions import ACTIONS
from trusted_memory.server.schema import parameter_schemas
from trusted_memory.trust import AGENT_DECLARABLE

# name + description + inputSchema of the tool when every parameter was still written out by hand
HAND_WRITTEN_CHARS = 8_151


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
    # Bounds come from the models; where two actions differ, the loosest is published.
    assert (properties["k"]["minimum"], properties["k"]["maximum"]) == (1, 50)
    assert (properties["budget_chars"]["minimum"], properties["budget_chars"]["maximum"]) == (200, 50_000)
    assert properties["tool_events"]["items"]["required"] == ["tool"]


@pytest.mark.anyio
async def test_the_tool_list_is_no_larger_than_the_hand_written_one(client: Client) -> None:
    tool, schema = await tool_schema(client)
    assert len(tool.name) + len(tool.description or "") + len(json.dumps(schema)) <= HAND_WRITTEN_CHARS


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
