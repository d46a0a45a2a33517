"""The boards: the Python reader of targets/boards/<board>/board.json (stdlib only).

Every board.json is checked against targets/boards/board.schema.json when read, so a
malformed description fails here, naming the file and the field, not later in a build. The
other readers: compiler/target/board.cc (C++) and targets/cmake/TinyforgeBoardJson.cmake
(CMake); tests/targets/test_board_json.py checks that the three agree.

The schema uses a small subset of JSON Schema (type, const, enum, pattern, required,
properties, additionalProperties, items, minItems, uniqueItems, minimum); `validate`
implements exactly that subset and rejects a schema that uses anything else
(docs/decisions.md).
"""
from __future__ import annotations

import functools
import json
import re
from pathlib import Path

from .errors import BoardError, ErrorKind
from .paths import repo_root

SCHEMA_ID = "tinyforge.board/1"

_TYPES = {"object": dict, "array": list, "string": str, "boolean": bool, "null": type(None)}
_KEYWORDS = {"$schema", "$id", "title", "description", "type", "const", "enum", "pattern",
             "required", "properties", "additionalProperties", "items", "minItems",
             "uniqueItems", "minimum"}


def boards_dir() -> Path:
    return repo_root() / "targets" / "boards"


@functools.lru_cache(maxsize=None)
def _schema_at(path: Path) -> dict:
    return json.loads(path.read_text())


def schema() -> dict:
    return _schema_at(boards_dir() / "board.schema.json")


def _type_ok(value, name: str) -> bool:
    if name == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    if name == "number":
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    return isinstance(value, _TYPES[name])


def validate(doc, node: dict | None = None, where: str = "") -> None:
    """Raises BoardError (invalid input) naming the first place `doc` breaks the schema."""
    node = schema() if node is None else node
    unknown = set(node) - _KEYWORDS
    if unknown:
        raise BoardError(f"board.schema.json: keyword(s) {sorted(unknown)} not supported by "
                         "board_catalog.validate", ErrorKind.INTERNAL)
    at = where or "(top level)"

    def fail(msg: str) -> None:
        raise BoardError(f"{at}: {msg}", ErrorKind.INVALID_INPUT)

    if "type" in node and not _type_ok(doc, node["type"]):
        fail(f"expected {node['type']}, got {type(doc).__name__}")
    if "const" in node and doc != node["const"]:
        fail(f"expected {node['const']!r}, got {doc!r}")
    if "enum" in node and doc not in node["enum"]:
        fail(f"{doc!r} is not one of {node['enum']}")
    if "pattern" in node and (not isinstance(doc, str) or not re.search(node["pattern"], doc)):
        fail(f"{doc!r} does not match {node['pattern']}")
    if "minimum" in node and (not _type_ok(doc, "number") or doc < node["minimum"]):
        fail(f"{doc!r} is below the minimum {node['minimum']}")
    if isinstance(doc, dict):
        for key in node.get("required", []):
            if key not in doc:
                fail(f"'{key}' missing")
        props = node.get("properties", {})
        for key, value in doc.items():
            if key in props:
                validate(value, props[key], f"{where}.{key}" if where else key)
            elif node.get("additionalProperties", True) is False:
                fail(f"unknown field '{key}'")
    if isinstance(doc, list):
        if len(doc) < node.get("minItems", 0):
            fail(f"needs at least {node['minItems']} item(s)")
        if node.get("uniqueItems") and len({json.dumps(x, sort_keys=True) for x in doc}) != len(doc):
            fail("items repeat")
        if "items" in node:
            for i, item in enumerate(doc):
                validate(item, node["items"], f"{where}[{i}]")


def load(path: str | Path) -> dict:
    """One board.json, parsed and checked against the schema."""
    path = Path(path)
    try:
        doc = json.loads(path.read_text())
    except (OSError, ValueError) as e:
        raise BoardError(f"{path}: {e}", ErrorKind.INVALID_INPUT) from None
    try:
        validate(doc)
    except BoardError as e:
        raise BoardError(f"{path}: {e}", e.kind) from None
    if ("qemu" in doc) != ("linker_script" in doc):
        raise BoardError(f"{path}: an emulated board has both 'qemu' and 'linker_script', a "
                         "compile-only board neither", ErrorKind.INVALID_INPUT)
    if doc["name"] != path.parent.name:
        raise BoardError(f"{path}: name '{doc['name']}' is not the directory's name",
                         ErrorKind.INVALID_INPUT)
    return doc


def names() -> list[str]:
    """Every board: the emulated ones and the compile-only vendor boards."""
    return sorted(p.parent.name for p in boards_dir().glob("*/board.json"))


def emulated_names() -> list[str]:
    """The boards tinyforge builds firmware for and runs under QEMU (they have "qemu")."""
    return [n for n in names() if is_emulated(board(n))]


def is_emulated(doc: dict) -> bool:
    return "qemu" in doc


def boards() -> dict[str, dict]:
    """Every board, by name."""
    return {name: board(name) for name in names()}


@functools.lru_cache(maxsize=None)
def _board_at(path: Path, mtime_ns: int) -> dict:
    return load(path)


def board(name: str) -> dict:
    """The board called `name` (its directory under targets/boards)."""
    path = boards_dir() / name / "board.json"
    if not path.is_file():
        raise BoardError(f"unknown board '{name}' (known: {', '.join(names())})",
                         ErrorKind.INVALID_INPUT)
    return _board_at(path, path.stat().st_mtime_ns)


def resolve_board(name: str) -> str:
    """A board name, or the CPU of exactly one emulated board (as `compile --target` maps
    them)."""
    known = boards()
    if name in known:
        return name
    by_cpu = [b for b, j in known.items() if is_emulated(j) and j["cpu"] == name.lower()]
    if len(by_cpu) == 1:
        return by_cpu[0]
    listing = ", ".join(f"{b} ({j['cpu']})" for b, j in known.items())
    raise BoardError(f"unknown board '{name}' (known: {listing})", ErrorKind.INVALID_INPUT)


def resolve_emulated_board(name: str) -> str:
    """resolve_board, for running: a compile-only board is refused, naming the ones that run."""
    resolved = resolve_board(name)
    if not is_emulated(board(resolved)):
        raise BoardError(f"board '{resolved}' is compile-only (no emulator): use `tinyforge "
                         f"compile --target {resolved}` and your own firmware (docs/boards.md); "
                         f"boards that run here: {', '.join(emulated_names())}",
                         ErrorKind.INVALID_INPUT)
    return resolved
