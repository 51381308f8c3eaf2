"""The `memory` tool's input schema and signature, derived from the actions' parameter models.

Hosts want one flat object: no oneOf/anyOf/allOf at the root, `action` a string enum, and every
other parameter optional with a single JSON type. So the published schema is the union of all the
actions' parameters, each with its type, enum or bounds and description as its model declares it
(bounds widened to the loosest action). Every parameter reaches the tool body untouched;
the chosen action's own model then validates it, so a wrong type gets an error that names that
action's parameters instead of the SDK's generic one.

The SDK builds a tool's input schema and argument model from the function's signature, so the
signature is what is derived here: `with_parameters` gives the tool function the derived
parameters in place of its `**arguments`.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Annotated, Any, TypeVar

from pydantic import BaseModel, Field, PlainValidator, WithJsonSchema

F = TypeVar("F", bound=Callable[..., Any])
Schema = dict[str, Any]

# Keys a JSON schema generator adds that a flat tool schema does not need.
_NOISE = ("title", "default")
# When two actions bound a parameter differently, the published bound is the loosest one.
_LOWER = ("minimum", "exclusiveMinimum", "minLength", "minItems")
_UPPER = ("maximum", "exclusiveMaximum", "maxLength", "maxItems")


def parameter_schemas(models: Iterable[type[BaseModel]]) -> dict[str, Schema]:
    """Each parameter's flat JSON schema, merged over every model that takes it, in first-seen order."""
    merged: dict[str, Schema] = {}
    for model in dict.fromkeys(models):  # actions that share a model are read once
        schema = model.model_json_schema()
        defs: dict[str, Schema] = schema.get("$defs", {})
        for name, prop in schema.get("properties", {}).items():
            flat = _flatten(prop, defs, f"{model.__name__}.{name}")
            merged[name] = _merge(merged[name], flat, name) if name in merged else flat
    return merged


def tool_parameters(actions: Mapping[str, type[BaseModel]]) -> list[inspect.Parameter]:
    """The tool's parameters: `action` (required, an enum of the actions), then every action's parameters."""

    def parameter(name: str, schema: Schema, default: Any = inspect.Parameter.empty) -> inspect.Parameter:
        # The SDK decodes a string argument as JSON unless the parameter is annotated `str` (for hosts
        # that send lists as JSON text), so content='["x"]' arrived as a list and was refused. String
        # parameters are therefore `str` to the SDK, with a pass-through validator: the value still
        # reaches the body untouched, and the action's own model judges its type.
        base: Any = str if schema.get("type") == "string" else Any
        annotation = Annotated[
            base, WithJsonSchema(schema), PlainValidator(_as_given), Field(json_schema_extra=_no_default)
        ]
        return inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=default, annotation=annotation)

    action = parameter("action", {"type": "string", "enum": list(actions)})
    return [action, *(parameter(n, s, None) for n, s in parameter_schemas(actions.values()).items())]


def with_parameters(fn: F, parameters: Sequence[inspect.Parameter]) -> F:
    """`fn` with `parameters` in place of its `**kwargs` in the signature the SDK reads."""
    signature = inspect.signature(fn, eval_str=True)
    kept = [p for p in signature.parameters.values() if p.kind is not inspect.Parameter.VAR_KEYWORD]
    # inspect.signature() returns __signature__ when a callable has one; the body still takes **kwargs.
    fn.__signature__ = signature.replace(parameters=[*kept, *parameters])  # type: ignore[attr-defined]
    return fn


def published_schema(generated: Schema) -> Schema:
    """The input schema as hosts get it: the SDK's, without the titles its generator adds."""
    properties = {
        name: {k: v for k, v in prop.items() if k != "title"} for name, prop in generated["properties"].items()
    }
    return {**{k: v for k, v in generated.items() if k != "title"}, "properties": properties}


def _as_given(value: Any) -> Any:
    return value


def _no_default(schema: Schema) -> None:
    # The SDK's `None` default would publish `"default": null` on typed parameters, a value their own
    # type refuses; leaving a parameter out is how a caller omits it.
    schema.pop("default", None)


def _flatten(node: Schema, defs: Mapping[str, Schema], where: str) -> Schema:
    """`node` without generator noise, references inlined and an optional's null arm dropped."""
    if "$ref" in node:
        target = defs[node["$ref"].rpartition("/")[2]]
        # The model's own title and docstring stay out: the field's description says what it is.
        node = {
            **{k: v for k, v in target.items() if k != "description"},
            **{k: v for k, v in node.items() if k != "$ref"},
        }
    if "anyOf" in node:
        arms = [arm for arm in node["anyOf"] if arm != {"type": "null"}]
        if len(arms) != 1:
            raise TypeError(f"{where} must have one JSON type (an optional is fine), not {node['anyOf']}")
        rest = {k: v for k, v in node.items() if k != "anyOf"}
        node = {**_flatten(arms[0], defs, where), **rest}
    flat = {k: v for k, v in node.items() if k not in _NOISE}
    if "items" in flat:
        flat["items"] = _flatten(flat["items"], defs, f"{where}[]")
    if "properties" in flat:
        flat["properties"] = {n: _flatten(p, defs, f"{where}.{n}") for n, p in flat["properties"].items()}
    return flat


def _merge(seen: Schema, other: Schema, name: str) -> Schema:
    """One schema for a parameter two actions take: the same declaration, bounds widened to the loosest."""
    bounds = set(_LOWER) | set(_UPPER)
    if {k: v for k, v in seen.items() if k not in bounds} != {k: v for k, v in other.items() if k not in bounds}:
        raise TypeError(f"parameter {name!r} is declared differently by two actions: {seen} vs {other}")
    merged = {k: v for k, v in seen.items() if k not in bounds}
    for key in bounds & seen.keys() & other.keys():
        merged[key] = min(seen[key], other[key]) if key in _LOWER else max(seen[key], other[key])
    return {k: merged[k] for k in [*seen, *other] if k in merged}  # the generator's key order
