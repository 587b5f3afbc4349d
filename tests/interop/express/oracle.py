"""The official Express compiler and decompiler as an oracle over a pipe.

`a2ui-agent-sdk` (module `a2ui.inference_formats.express`) is the reference implementation of
Express. The differential test (`tests/express_matches_official_sdk.rs`) starts this script
once and writes one JSON request per line; each gets one JSON answer per line:

    {"catalog": PATH, "version": "v0.9", "decompile": [messages]}
        -> {"text": "..."} | {"error": "...", "kind": "..."}
    {"catalog": PATH, "version": "v0.9", "compile": "source"}
        -> {"messages": [...]} | {"error": "...", "kind": "parse" | "invalid" | "other"}
    {"catalog": PATH, "version": "v0.9", "validate": [messages]}
        -> {"valid": true} | {"valid": false, "error": "..."}

`kind` says how the compiler refused: `parse` for text its grammar cannot read, `invalid` for
a block that reads but that the catalog refuses, `other` for any other exception (a crash of
the compiler rather than a refusal). `validate` runs the SDK's own validator
(`a2ui.utils.validation.validate_payload`, a renderer's reading): the compiler writes some
messages its validator refuses. One process answers thousands of programs, so the cost of
importing the SDK and loading the catalog is paid once.
"""

import json
import sys

from a2ui.core.catalog.catalog import Catalog
from a2ui.inference_formats.express import (
    ExpressCompiler,
    ExpressDecompiler,
    ExpressParseError,
    ExpressValidationError,
)
from a2ui.parser import to_message_dicts
from a2ui.utils.validation import validate_payload

_tools: dict[tuple[str, str], tuple[ExpressCompiler, ExpressDecompiler, Catalog]] = {}


def tools(path: str, version: str) -> tuple[ExpressCompiler, ExpressDecompiler, Catalog]:
    key = (path, version)
    if key not in _tools:
        with open(path, encoding="utf-8") as f:
            catalog = Catalog.from_json(json.load(f))
        _tools[key] = (
            ExpressCompiler([catalog], version=version),
            ExpressDecompiler([catalog]),
            catalog,
        )
    return _tools[key]


def kind(error: BaseException) -> str:
    if isinstance(error, (ExpressParseError, SyntaxError)):
        return "parse"
    if isinstance(error, ExpressValidationError):
        return "invalid"
    return "other"


def answer(request: dict) -> dict:
    compiler, decompiler, catalog = tools(request["catalog"], request.get("version", "v0.9"))
    try:
        if "decompile" in request:
            return {"text": decompiler.decompile(request["decompile"])}
        if "validate" in request:
            return validate(catalog, request["validate"])
        messages = compiler.compile(request["compile"])
        return {"messages": to_message_dicts(messages)}
    except Exception as e:  # the answer is what the compiler did, whatever it raised
        return {"error": f"{type(e).__name__}: {e}", "kind": kind(e)}


def validate(catalog: Catalog, messages: list) -> dict:
    try:
        validate_payload([catalog], messages)
        return {"valid": True}
    except Exception as e:  # any refusal of the validator is an answer
        return {"valid": False, "error": f"{type(e).__name__}: {e}"}


def main() -> None:
    for line in sys.stdin:
        if not line.strip():
            continue
        sys.stdout.write(json.dumps(answer(json.loads(line))) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
