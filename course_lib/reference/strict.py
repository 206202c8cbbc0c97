"""OpenAI strict mode as a pure transformation of a parameters schema.

With ``"strict": true`` OpenAI constrains the model's output to the schema, which only works for a
subset of JSON Schema. ``to_strict`` rewrites any schema (ours or one from elsewhere) into that
subset, or raises ``ValueError`` saying where and why it cannot (``TypeError`` when the input is
not JSON Schema data at all):

- every object lists every property in ``required`` and has ``additionalProperties: false``,
  wherever it is: in ``$defs``, array items, ``anyOf`` branches, or a ``["object", "null"]`` type;
- a property that used to be optional becomes nullable instead: the model sends ``null`` where
  it would have left the argument out, and ``ToolRegistry.call`` reads that null as "use the
  default" at every depth. A scalar gets ``"null"`` added to its type (and ``None`` to its
  ``enum``), anything else becomes ``anyOf`` with ``{"type": "null"}``;
- every array says what it holds (``items``): a bare ``list`` is refused, as is an object whose
  keys are not known in advance (an open map such as ``dict[str, V]``, also inside a type list
  like ``dict | None``). A top level without properties is a tool without parameters;
- ``default``, ``title``, ``examples`` and other annotations are removed, so the schema is
  portable: Azure OpenAI rejects ``default`` in a strict schema, and api.openai.com accepts it
  but never applies it (every property is required). Keywords JSON Schema does not define go
  too (they only annotate); ``description`` stays;
- ``$ref`` never has sibling keywords, and ``allOf`` never appears: a reference with siblings
  and every ``allOf`` are replaced by one schema meaning the same (``schema_refs.intersect``);
  chains of references are followed to their end. A reference alone stays a reference into
  ``$defs`` (each definition is converted once), so recursive types keep working. A description
  beside a recursive reference is dropped, since inlining it would never end;
- constraints strict mode does not support but that do not change the *shape* of the data
  (``minLength``, ``uniqueItems``, unknown ``format`` values, ...) are dropped: argument
  validation still enforces them;
- what strict mode cannot express at all raises: tuples (``prefixItems``), ``oneOf``, ``not``,
  ``if``, a top level that is not an object, and schemas past the documented size limits
  (``strict_limits``).

The input is never mutated. Work is counted (``Budget``): a schema whose strict form would be
far larger than itself (references copied into references) is refused instead of expanding for
ever, so every input finishes in time proportional to its size.

What each keyword becomes (kept, dropped, refused) and the error catalog are in
``strict_keywords``; the size limits in ``strict_limits``.
"""

from __future__ import annotations

from typing import Any

from .schema_refs import ANNOTATIONS, Budget, Document, clean, intersect, measure, short
from .strict_keywords import (
    ADVICE,
    DROPPED,
    MAX_SCHEMA_DEPTH,
    MESSAGES,
    OBJECT_KEYWORDS,
    brief,
    checked,
    kept,
    refuse_unsupported,
    types_of,
    values_of_types,
)
from .strict_limits import check_limits
from .type_map import allows_null, or_null

__all__ = ["to_strict"]


def to_strict(schema: dict[str, Any]) -> dict[str, Any]:
    """Return a strict-mode version of a parameters schema; raise ``ValueError`` if impossible."""
    if not isinstance(schema, dict):
        raise TypeError(MESSAGES["not_a_dict"].format(kind=type(schema).__name__))
    return _Strictifier(schema).run()


class _Strictifier:
    """One conversion: the input document, the definitions emitted so far, the work done."""

    def __init__(self, root: dict[str, Any]) -> None:
        self.budget = Budget(measure(root))
        self.document = Document(root, self.budget)
        self.names: dict[str, str] = {}  # input pointer -> name under the output's $defs
        self.bodies: dict[str, dict] = {}  # input pointer -> its converted schema
        self.active: list[str] = ["#"]  # pointers being converted right now (recursion)
        self.pending: list[str] = []

    def run(self) -> dict[str, Any]:
        root = self.document.root
        node = clean(root)
        if "$ref" in node or "allOf" in node:
            node, pointers = self.document.flatten(root, "parameters")
            self.active.extend(pointers)
        self._check_root(node)
        out = self._convert_flat(node, "parameters", 0, is_root=True)
        converted: dict[str, dict] = {}
        while self.pending:
            pointer = self.pending.pop(0)
            name = self.names[pointer]
            converted[name] = self._body(pointer, f"$defs.{name}", 1)
        if converted:
            out["$defs"] = {name: converted[name] for name in self._def_order()}
        out = self._copy(out)  # converted definitions may be shared: give each place its own
        check_limits(out)
        return out

    # -- one schema ------------------------------------------------------------------------

    def convert(self, node: Any, path: str, depth: int) -> dict[str, Any]:
        self.budget.spend()
        if depth > MAX_SCHEMA_DEPTH:
            raise ValueError(MESSAGES["too_deep"].format(path=short(path), limit=MAX_SCHEMA_DEPTH))
        if node is True or node == {}:
            raise ValueError(MESSAGES["any"].format(path=path, advice=ADVICE))
        if node is False:
            raise ValueError(MESSAGES["nothing"].format(path=path))
        if not isinstance(node, dict):
            raise ValueError(
                MESSAGES["malformed"].format(
                    path=path, key="schema", expected="an object", got=brief(node)
                )
            )
        node = clean(node)
        if "$ref" in node:
            return self._reference_with(node, path, depth)
        if "allOf" in node:
            return self._inlined(node, path, depth)
        return self._convert_flat(node, path, depth)

    def _convert_flat(
        self, node: dict, path: str, depth: int, is_root: bool = False
    ) -> dict[str, Any]:
        """Convert a schema without ``$ref`` and ``allOf`` at its top."""
        refuse_unsupported(node, path)
        if "anyOf" in node:
            return self._any_of(node, path, depth)
        types = types_of(node, path)
        if not types and "enum" not in node and "const" not in node:
            raise ValueError(MESSAGES["any"].format(path=path, advice=ADVICE))
        if types and ("enum" in node or "const" in node):
            node = values_of_types(node, types, path)
        out: dict[str, Any] = {}
        if "type" not in node and types:
            out["type"] = types[0] if len(types) == 1 else types
        for key, value in node.items():
            if not kept(key, value, types):
                continue
            if key == "items":
                out[key] = self.convert(value, f"{path}[]", depth + 1)
            elif key in OBJECT_KEYWORDS:
                out[key] = None  # placeholder: _object fills it in, keeping the key's position
            else:
                out[key] = value
        if "array" in types and not isinstance(node.get("items"), dict):
            raise ValueError(MESSAGES["no_items"].format(path=path))
        if "object" in types:
            self._object(node, out, path, depth, is_root)
        return out

    def _object(self, node: dict, out: dict, path: str, depth: int, is_root: bool) -> None:
        properties = node.get("properties")
        extra = node.get("additionalProperties", None)
        closed_empty = extra is False or (is_root and extra is None)
        if properties is None and not closed_empty or extra not in (None, False):
            raise ValueError(MESSAGES["open_map"].format(path=path))
        properties = checked(properties or {}, dict, "properties", "an object of schemas", path)
        required = checked(node.get("required", []), list, "required", "a list of names", path)
        undeclared = [name for name in required if name not in properties]
        if undeclared:
            raise ValueError(MESSAGES["undeclared"].format(path=path, names=undeclared))
        converted = {}
        for name, prop in properties.items():
            schema = self.convert(prop, f"{path}.{name}", depth + 1)
            if name not in required and not allows_null(schema, None):
                schema = or_null(schema)
            converted[name] = schema
        out["properties"] = converted
        out["required"] = list(properties)
        out["additionalProperties"] = False

    def _any_of(self, node: dict, path: str, depth: int) -> dict[str, Any]:
        branches = checked(node["anyOf"], list, "anyOf", "a non-empty list of schemas", path)
        if not branches:
            raise ValueError(
                MESSAGES["malformed"].format(
                    path=path, key="anyOf", expected="a non-empty list", got="[]"
                )
            )
        shared = {k: v for k, v in node.items() if k != "anyOf" and k not in ANNOTATIONS | DROPPED}
        out: dict[str, Any] = {}
        for key, value in node.items():
            if key == "anyOf":
                out[key] = self._branches(branches, shared, path, depth)
            elif key in ANNOTATIONS:
                out[key] = value
        return out

    def _branches(self, branches: list, shared: dict, path: str, depth: int) -> list[dict]:
        """Convert each branch; keywords beside ``anyOf`` apply to every branch (distributed)."""
        out: list[dict] = []
        for i, branch in enumerate(branches):
            where = f"{path}|{i}"
            if shared and isinstance(branch, dict):
                flat, _ = self.document.flatten(branch, where, depth)
                branch = intersect(shared, flat, where, self.document, depth)
            converted = self.convert(branch, where, depth + 1)
            if set(converted) == {"anyOf"}:
                out.extend(converted["anyOf"])  # a union inside a union is one union
            else:
                out.append(converted)
        return out

    # -- references ------------------------------------------------------------------------

    def _reference_with(self, node: dict, path: str, depth: int) -> dict[str, Any]:
        """A ``$ref``, alone or with siblings: a reference, or the definition copied in."""
        siblings = {k: v for k, v in node.items() if k != "$ref" and k not in DROPPED}
        pointer, _ = self.document.target(node["$ref"], path)
        if set(siblings) <= ANNOTATIONS:
            if not siblings or pointer in self.active:
                return self._reference(pointer)  # alone, or recursive: its description goes
            body = self._body(pointer, path, depth + 1)
            return {**body, **siblings}  # shared with other uses until the final copy
        if pointer in self.active:
            keys = ", ".join(sorted(siblings))
            raise ValueError(MESSAGES["recursive"].format(path=path, pointer=pointer, keys=keys))
        return self._inlined(node, path, depth)

    def _inlined(self, node: dict, path: str, depth: int) -> dict[str, Any]:
        flat, pointers = self.document.flatten(node, path, depth)
        recursive = [p for p in pointers if p in self.active]
        if recursive:
            keys = ", ".join(sorted(set(node) - {"$ref"}))
            raise ValueError(
                MESSAGES["recursive"].format(path=path, pointer=recursive[0], keys=keys)
            )
        self.active.extend(pointers)
        try:
            return self.convert(flat, path, depth + 1)
        finally:
            del self.active[len(self.active) - len(pointers) :]

    def _reference(self, pointer: str) -> dict[str, Any]:
        if pointer == "#":
            return {"$ref": "#"}
        name = self.names.get(pointer)
        if name is None:
            name = self.names[pointer] = self._free_name(pointer)
            self.pending.append(pointer)
        return {"$ref": f"#/$defs/{name}"}

    def _body(self, pointer: str, path: str, depth: int) -> dict[str, Any]:
        """The converted definition at ``pointer``, converted once however often it is used."""
        body = self.bodies.get(pointer)
        if body is None:
            self.active.append(pointer)
            try:
                body = self.convert(self.document.lookup(pointer, path), path, depth)
            finally:
                self.active.pop()
            self.bodies[pointer] = body
        return body

    def _free_name(self, pointer: str) -> str:
        base = pointer.rsplit("/", 1)[-1].replace("~1", "/").replace("~0", "~") or "schema"
        base = "".join(ch if ch.isalnum() or ch in "_-." else "_" for ch in base)
        taken = set(self.names.values())
        name, n = base, 1
        while name in taken:
            n += 1
            name = f"{base}{n}"
        return name

    def _def_order(self) -> list[str]:
        """Definitions in the input's order first (stable output), then the ones we named."""
        defs = self.document.root.get("$defs")
        order = list(defs) if isinstance(defs, dict) else []
        own = [self.names[f"#/$defs/{n}"] for n in order if f"#/$defs/{n}" in self.names]
        return own + [name for name in self.names.values() if name not in own]

    def _check_root(self, node: dict) -> None:
        json_type = node.get("type")
        typeless_object = json_type is None and "properties" in node and "anyOf" not in node
        if json_type != "object" and not typeless_object:
            raise ValueError(MESSAGES["root"].format(brief=brief(self.document.root)))

    def _copy(self, node: Any) -> Any:
        self.budget.spend()
        if isinstance(node, dict):
            return {k: self._copy(v) for k, v in node.items()}
        if isinstance(node, list):
            return [self._copy(v) for v in node]
        return node
