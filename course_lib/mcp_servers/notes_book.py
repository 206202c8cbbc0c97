"""The notes behind the course's notes server, as plain Python (no MCP here).

``NotesBook`` holds a few notes in English and Chinese and answers tool calls with text blocks.
The MCP server (``notes.py``) is a thin layer over it, and lesson 08's check replays the calls a
model made on a fresh book of its own to know what the server must have answered, so the book
is deterministic: every process starts with the same four notes and numbers them the same way.

Its tools follow the MCP specification's split of errors: a tool that does not exist is a
*protocol* error (``UnknownTool``, which the server sends as a JSON-RPC error), while arguments
that do not fit the schema and a note that does not exist are *tool* errors (``isError`` results
whose text says what to fix), because a model can act on those.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from course_lib.reference.validation import validate_arguments

SEED_NOTES = (
    ("北京 trip", "Book the train to 北京 for Friday; visit the Summer Palace.", ("travel",)),
    ("Shopping", "Milk, 豆腐, rice and green tea.", ("home",)),
    ("上海 office", "Call Zhang San about the new 上海 office.", ("work",)),
    ("读书", "读完《三体》第二部，写下笔记。", ("reading", "home")),
)

MESSAGES = {
    "unknown_tool": "Unknown tool: {name}. The tools are: {names}.",
    "invalid": "Invalid arguments for {name}: {problems}. Fix them and call {name} again.",
    "no_note": "There is no note #{note_id}; the notes are {ids}.",
    "no_notes_left": "There is no note #{note_id}; the notebook is empty.",
    "no_match": "No note mentions {keyword!r}.",
    "empty": "The notebook is empty.",
    "added": "Added note #{note_id}: {title}.",
    "deleted": "Deleted note #{note_id} ({title}).",
}


def _object(properties: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": False,
    }


NOTE_ID = {"type": "integer", "description": "The note's number, e.g. 2."}

# name, title, description, input schema, annotations (the hints MCP clients may show)
TOOLS: tuple[dict[str, Any], ...] = (
    {
        "name": "search_notes",
        "title": "Search notes",
        "description": (
            "Search my notes for a keyword, in English or 中文 (e.g. 豆腐 or train). "
            "Returns one text block per matching note."
        ),
        "inputSchema": _object(
            {
                "keyword": {"type": "string", "description": "A word to look for, e.g. 北京"},
                "limit": {"type": "integer", "description": "At most this many", "default": 5},
            },
            ["keyword"],
        ),
        "annotations": {"readOnlyHint": True, "openWorldHint": False},
    },
    {
        "name": "read_note",
        "title": "Read a note",
        "description": "Read one note in full by its number.",
        "inputSchema": _object({"note_id": NOTE_ID}, ["note_id"]),
        "annotations": {"readOnlyHint": True, "openWorldHint": False},
    },
    {
        "name": "list_notes",
        "title": "List notes",
        "description": "List every note, one text block per note with its number and title.",
        "inputSchema": _object({}, []),
        "annotations": {"readOnlyHint": True, "openWorldHint": False},
    },
    {
        "name": "tags.list",
        "title": "List tags",
        "description": "Which tags are in use, and how many notes carry each one, as JSON.",
        "inputSchema": _object({}, []),
        "outputSchema": {
            "type": "object",
            "description": "Each tag in use, and how many notes carry it.",
            "additionalProperties": {"type": "integer", "minimum": 1},
        },
        "annotations": {"readOnlyHint": True, "openWorldHint": False},
    },
    {
        "name": "add_note",
        "title": "Add a note",
        "description": "Add a note with a title and its text.",
        "inputSchema": _object(
            {
                "title": {"type": "string"},
                "text": {"type": "string"},
                "tags": {"type": "array", "items": {"type": "string"}, "default": []},
            },
            ["title", "text"],
        ),
        "annotations": {"readOnlyHint": False, "destructiveHint": False, "openWorldHint": False},
    },
    {
        "name": "delete_note",
        "title": "Delete a note",
        "description": "Delete one note by its number. It cannot be undone.",
        "inputSchema": _object({"note_id": NOTE_ID}, ["note_id"]),
        "annotations": {"readOnlyHint": False, "destructiveHint": True, "idempotentHint": True},
    },
)
SCHEMAS = {tool["name"]: tool["inputSchema"] for tool in TOOLS}


_JSON_TYPES = {
    "string": lambda value: isinstance(value, str),
    "integer": lambda value: isinstance(value, int) and not isinstance(value, bool),
    "array": lambda value: isinstance(value, list),
}


def fits(schema: dict[str, Any], arguments: Any) -> bool:
    """Whether ``arguments`` plainly fit one of the book's flat schemas (the keywords it uses:
    ``type``, ``items``, ``required``, no others allowed). Only arguments that do not fit go to
    ``validate_arguments``, which explains every problem but needs jsonschema, slow to import."""
    if not isinstance(arguments, dict):
        return False
    properties = schema["properties"]
    if set(arguments) - set(properties) or set(schema["required"]) - set(arguments):
        return False
    for name, value in arguments.items():
        expected = properties[name]
        if not _JSON_TYPES[expected["type"]](value):
            return False
        items = expected.get("items")
        if items and not all(_JSON_TYPES[items["type"]](item) for item in value):
            return False
    return True


class UnknownTool(LookupError):
    """A call to a tool this book does not have: a protocol error, not a tool result."""


@dataclass(frozen=True)
class Answer:
    """What a tool call produced: text blocks, whether they describe a failure, and for a tool
    with an ``outputSchema`` the data itself (the server's ``structuredContent``)."""

    blocks: tuple[str, ...]
    is_error: bool = False
    data: Any = None


@dataclass
class Note:
    number: int
    title: str
    text: str
    tags: tuple[str, ...] = ()

    def line(self) -> str:
        tags = f" [{', '.join(self.tags)}]" if self.tags else ""
        return f"#{self.number} {self.title}{tags}"


@dataclass
class NotesBook:
    """Four notes to start with; numbers are never reused, so #2 stays gone once deleted."""

    notes: dict[int, Note] = field(default_factory=dict)
    next_number: int = 1

    def __post_init__(self) -> None:
        if not self.notes:
            for title, text, tags in SEED_NOTES:
                self._add(title, text, tags)

    def tools(self) -> list[dict[str, Any]]:
        """The tools as ``tools/list`` shows them, with the wire's names (``inputSchema``)."""
        return json.loads(json.dumps(TOOLS))

    def call(self, name: str, arguments: dict[str, Any] | None) -> Answer:
        """Answer one call; raises ``UnknownTool`` for a name that is not one of ``TOOLS``."""
        if name not in SCHEMAS:
            names = ", ".join(SCHEMAS)
            raise UnknownTool(MESSAGES["unknown_tool"].format(name=name, names=names))
        arguments = {} if arguments is None else arguments
        problems = (
            [] if fits(SCHEMAS[name], arguments) else validate_arguments(SCHEMAS[name], arguments)
        )
        if problems:
            text = MESSAGES["invalid"].format(name=name, problems="; ".join(problems))
            return Answer((text,), is_error=True)
        method = getattr(self, "_" + name.replace(".", "_"))
        return method(**arguments)

    # -- the tools -------------------------------------------------------------------------------

    def _search_notes(self, keyword: str, limit: int = 5) -> Answer:
        wanted = keyword.casefold()
        found = [
            f"{note.line()}: {note.text}"
            for note in self.notes.values()
            if wanted in f"{note.title} {note.text} {' '.join(note.tags)}".casefold()
        ][: max(limit, 0)]
        return Answer(tuple(found) or (MESSAGES["no_match"].format(keyword=keyword),))

    def _read_note(self, note_id: int) -> Answer:
        note = self.notes.get(note_id)
        if note is None:
            return self._no_note(note_id)
        return Answer((f"{note.line()}\n{note.text}",))

    def _list_notes(self) -> Answer:
        if not self.notes:
            return Answer((MESSAGES["empty"],))
        return Answer(tuple(note.line() for note in self.notes.values()))

    def _tags_list(self) -> Answer:
        counts: dict[str, int] = {}
        for note in self.notes.values():
            for tag in note.tags:
                counts[tag] = counts.get(tag, 0) + 1
        counts = dict(sorted(counts.items()))
        return Answer((json.dumps(counts, ensure_ascii=False),), data=counts)

    def _add_note(self, title: str, text: str, tags: list[str] | None = None) -> Answer:
        note = self._add(title, text, tuple(tags or ()))
        return Answer((MESSAGES["added"].format(note_id=note.number, title=note.title),))

    def _delete_note(self, note_id: int) -> Answer:
        note = self.notes.pop(note_id, None)
        if note is None:
            return self._no_note(note_id)
        return Answer((MESSAGES["deleted"].format(note_id=note.number, title=note.title),))

    # -- helpers ---------------------------------------------------------------------------------

    def _add(self, title: str, text: str, tags: tuple[str, ...]) -> Note:
        note = Note(self.next_number, title, text, tags)
        self.notes[note.number] = note
        self.next_number += 1
        return note

    def _no_note(self, note_id: int) -> Answer:
        if not self.notes:
            return Answer((MESSAGES["no_notes_left"].format(note_id=note_id),), is_error=True)
        ids = ", ".join(f"#{note.number} ({note.title})" for note in self.notes.values())
        return Answer((MESSAGES["no_note"].format(note_id=note_id, ids=ids),), is_error=True)
