"""heal-python: every tool of tests/heal/corpus.json on the MCP Python SDK's
MCPServer (``@server.tool()``, stdio), each tool a function whose signature
carries the types and pydantic constraints of its JSON Schema (built here,
as a developer would write them by hand), answering "ok" to arguments that
reach it. The heal bench (go run ./tests/heal) drives it.

    .venv/bin/python tests/heal/servers/python/server.py [--plain] [--sdk mcp|fastmcp] [--corpus FILE]

--plain serves without toolerr (the SDK's own texts). --sdk fastmcp serves
the same functions on FastMCP (``@mcp.tool``, ``mcp.run()``) instead, which
the benchmarks (go run ./tests/bench) time beside the others.
"""

from __future__ import annotations

import argparse
import inspect
import json
import keyword
import re
from datetime import datetime
from pathlib import Path
from typing import Annotated, Any, Literal, Optional, Union
from uuid import UUID

from mcp.server.mcpserver import MCPServer
from pydantic import AnyUrl, ConfigDict, Field, create_model

KNOWN = {
    "type", "description", "title", "default", "$schema", "$defs", "properties", "required",
    "additionalProperties", "items", "enum", "const", "anyOf", "oneOf", "pattern", "format", "minLength",
    "maxLength", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "minItems", "maxItems", "examples",
}


def model_name(path: str) -> str:
    return re.sub(r"[^0-9A-Za-z]+", "_", path).strip("_") or "Arguments"


def annotation(schema: Any, path: str) -> Any:
    """The Python type (with pydantic constraints) of one JSON Schema. An
    unknown keyword raises, so that no tool is served looser than published
    without saying so."""
    if schema is True or not schema:
        return Any
    unknown = set(schema) - KNOWN
    if unknown:
        raise ValueError(f"{path}: keywords {sorted(unknown)} are not converted")
    union = schema.get("anyOf") or schema.get("oneOf")
    if union:
        return union_of([annotation(member, f"{path}_{i}") for i, member in enumerate(union)])
    if "const" in schema:
        return Literal[schema["const"]]
    if "enum" in schema:
        return Literal[tuple(schema["enum"])]
    kind = schema.get("type")
    if isinstance(kind, list):
        return union_of([annotation({**schema, "type": k}, path) for k in kind])
    if kind == "null":
        return type(None)
    if kind == "boolean":
        return bool
    if kind == "string":
        fmt = schema.get("format")
        if fmt == "uri":
            return AnyUrl
        if fmt == "uuid":
            return UUID
        if fmt == "date-time":
            return datetime
        return Annotated[str, Field(min_length=schema.get("minLength"), max_length=schema.get("maxLength"),
                                    pattern=schema.get("pattern"))]
    if kind in ("number", "integer"):
        return Annotated[int if kind == "integer" else float,
                         Field(ge=schema.get("minimum"), le=schema.get("maximum"), gt=schema.get("exclusiveMinimum"),
                               lt=schema.get("exclusiveMaximum"))]
    if kind == "array":
        return Annotated[list[annotation(schema.get("items", {}), f"{path}_item")],
                         Field(min_length=schema.get("minItems"), max_length=schema.get("maxItems"))]
    if kind == "object" or kind is None:
        return model(schema, path)
    raise ValueError(f"{path}: type {kind!r} is not converted")


def union_of(members: list[Any]) -> Any:
    none = [m for m in members if m is type(None)]
    rest = [m for m in members if m is not type(None)]
    result = rest[0] if len(rest) == 1 else Union[tuple(rest)]  # noqa: UP007 - built at run time
    return Optional[result] if none else result  # noqa: UP007


def fields(schema: dict[str, Any], path: str) -> dict[str, Any]:
    required = set(schema.get("required", []))
    out: dict[str, Any] = {}
    for name, prop in schema.get("properties", {}).items():
        kind = annotation(prop, f"{path}_{name}")
        out[name] = kind if name in required else (kind, None)
    for name in required - set(out):
        out[name] = Any  # required, whatever its type
    return out


def model(schema: dict[str, Any], path: str) -> Any:
    config = ConfigDict(extra="forbid") if schema.get("additionalProperties") is False else None
    return create_model(model_name(path), __config__=config, **fields(schema, path))


def handler(tool: dict[str, Any]) -> Any:
    """A function whose signature is the tool's top-level properties."""
    schema = tool["inputSchema"]
    params = []
    for name, spec in fields(schema, model_name(tool["tool"])).items():
        if not name.isidentifier() or keyword.iskeyword(name):
            raise ValueError(f"{tool['tool']}: property {name!r} cannot be a Python parameter")
        kind, default = spec if isinstance(spec, tuple) else (spec, inspect.Parameter.empty)
        params.append(inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, annotation=kind, default=default))

    async def ok(**_arguments: Any) -> str:
        return "ok"

    ok.__signature__ = inspect.Signature(params, return_annotation=str)  # type: ignore[attr-defined]
    # FastMCP reads the types from the annotations (pydantic's TypeAdapter of the function).
    ok.__annotations__ = {p.name: p.annotation for p in params} | {"return": str}
    ok.__name__ = model_name(tool["tool"])
    ok.__doc__ = tool["tool"]
    return ok


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--plain", action="store_true", help="serve without toolerr")
    parser.add_argument("--sdk", choices=("mcp", "fastmcp"), default="mcp", help="the MCPServer of mcp, or FastMCP")
    parser.add_argument("--corpus", default=str(Path(__file__).resolve().parents[2] / "corpus.json"))
    options = parser.parse_args()
    corpus = json.loads(Path(options.corpus).read_text(encoding="utf-8"))
    if options.sdk == "fastmcp":
        from fastmcp import FastMCP

        server: Any = FastMCP("heal-python")
        for tool in corpus["tools"]:
            server.tool(name=tool["tool"], output_schema=None)(handler(tool))
    else:
        server = MCPServer("heal-python", log_level="ERROR")
        for tool in corpus["tools"]:
            server.tool(name=tool["tool"], structured_output=False)(handler(tool))
    if not options.plain:
        import toolerr

        toolerr.heal(server)
    if options.sdk == "fastmcp":
        server.run(show_banner=False, log_level="ERROR")
    else:
        server.run()


if __name__ == "__main__":
    main()
