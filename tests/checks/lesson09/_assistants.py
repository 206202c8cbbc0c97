"""A second correct assistant for 09.6, built another way, and the wrong assistants made from
one of the two with a single realistic mistake each.

``HAND_BUILT`` uses none of the notebook's parts: its own routing (one compiled pattern per
category), its own permissions (``all()``), tools as plain records with strict schemas from
``function_to_tool(..., strict=True)`` (a null read as "not given"), arguments checked with
``validate_arguments``, its own Responses loop with a thread pool and its own conversion of the
history to input items, approval asked inside the dispatch (refusals in Chinese), its own budget
(exchanges kept from the back), and its own trace records in lesson 06's format. The check must
accept it exactly as it accepts the notebook's.
"""

from __future__ import annotations

from typing import Any

from solution_cells import load_cells, run_source

from ._solution import CELLS, NOTEBOOK

HAND_BUILT = """
import ast
import json
import operator
import re
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, Callable

from course_lib.capstone.conversation import message_size
from course_lib.capstone.policies import (
    CATEGORIES, CONTEXT_BUDGET, KEYWORDS, MAX_TURNS, NEEDS_APPROVAL, ORDER_ID, PERMISSIONS,
    ROLES, SYSTEM_PROMPT, TOOL_TAGS,
)
from course_lib.capstone.shop import shop_tools
from course_lib.reference import function_to_tool, validate_arguments

PATTERNS = {
    category: re.compile(
        "|".join(
            rf"(?<![A-Za-z0-9]){re.escape(word)}(?![A-Za-z0-9])" if word.isascii()
            else re.escape(word)
            for word in words
        ),
        re.IGNORECASE,
    )
    for category, words in KEYWORDS.items()
}


def route(question):
    picked = [
        category for category in CATEGORIES
        if PATTERNS[category].search(question)
        or (category == "orders" and ORDER_ID.search(question))
    ]
    return picked if picked else [*CATEGORIES]


def may_use(role, tags):
    if role not in ROLES:
        raise ValueError(f"no role called {role}")
    needed = [tag for tag in tags if tag in PERMISSIONS]
    return len(needed) > 0 and all(tag in ROLES[role] for tag in needed)


class Arithmetic(ast.NodeVisitor):
    OPERATORS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
                 ast.Div: operator.truediv, ast.Pow: operator.pow, ast.USub: operator.neg,
                 ast.UAdd: operator.pos, ast.Mod: operator.mod, ast.FloorDiv: operator.floordiv}

    def visit_Expression(self, node):
        return self.visit(node.body)

    def visit_Constant(self, node):
        if type(node.value) not in (int, float):
            raise ValueError("only numbers")
        return float(node.value)

    def visit_BinOp(self, node):
        left, right = self.visit(node.left), self.visit(node.right)
        if isinstance(node.op, ast.Pow) and abs(right) > 100:
            raise ValueError("exponent too large")
        return self.OPERATORS[type(node.op)](left, right)

    def visit_UnaryOp(self, node):
        return self.OPERATORS[type(node.op)](self.visit(node.operand))

    def generic_visit(self, node):
        raise ValueError(f"{type(node).__name__} is not allowed")


def calculate(expression: str) -> float:
    \"\"\"Compute arithmetic: numbers, + - * / ** and parentheses, e.g. 3 * 19.5 + 2.

    Args:
        expression: The arithmetic expression to compute.
    \"\"\"
    if len(expression) > 200:
        raise ValueError("too long")
    try:
        return Arithmetic().visit(ast.parse(expression, mode="eval"))
    except (KeyError, SyntaxError, ZeroDivisionError, OverflowError) as error:
        raise ValueError(f"cannot compute {expression}: {error}") from None


@dataclass
class Tool:
    function: Callable[..., Any]
    schema: dict
    tags: tuple


def refusal(text):
    return json.dumps({"error": text}, ensure_ascii=False)


def trimmed(history):
    \"\"\"Whole exchanges dropped from the front until the history fits (kept from the back).\"\"\"
    system, rest = history[:1], history[1:]
    starts = [i for i, m in enumerate(rest) if m["role"] == "user"]
    for start in starts:
        if sum(map(message_size, system + rest[start:])) <= CONTEXT_BUDGET:
            return system + rest[start:]
    return system + rest[starts[-1]:]


def responses_items(history):
    items = []
    for m in history:
        if m["role"] == "tool":
            items.append({"type": "function_call_output", "call_id": m["tool_call_id"],
                          "output": m["content"]})
            continue
        if m.get("content"):
            items.append({"type": "message", "role": m["role"], "content": m["content"]})
        for c in m.get("tool_calls", []):
            items.append({"type": "function_call", "call_id": c["id"],
                          "name": c["function"]["name"], "arguments": c["function"]["arguments"]})
    return items


class HandAssistant:
    def __init__(self, client, *, model, shop, approve):
        self.client, self.model, self.approve = client, model, approve
        self.tools = {
            f.__name__: Tool(f, function_to_tool(f, strict=True), TOOL_TAGS[f.__name__])
            for f in [*shop_tools(shop), calculate]
        }
        self.messages = [{"role": "system", "content": SYSTEM_PROMPT}]
        self.trace = []

    def ask(self, question, *, role):
        categories = route(question)
        offer = {
            name: tool for name, tool in self.tools.items()
            if tool.tags[0] in categories and may_use(role, tool.tags)
        }
        self.messages.append({"role": "user", "content": question})
        self.messages[:] = trimmed(self.messages)
        tools = [{"type": "function", **tool.schema["function"]} for tool in offer.values()]
        for turn in range(1, MAX_TURNS + 1):
            request = {"model": self.model, "input": responses_items(self.messages)}
            if tools:
                request["tools"] = tools
            response = self.client.responses.create(**request)
            calls = [
                {"id": item.call_id, "type": "function",
                 "function": {"name": item.name, "arguments": item.arguments}}
                for item in response.output if item.type == "function_call"
            ]
            assistant = {"role": "assistant", "content": response.output_text or None}
            if calls:
                assistant["tool_calls"] = calls
            self.messages.append(assistant)
            if not calls:
                return response.output_text
            with ThreadPoolExecutor(max_workers=len(calls)) as pool:
                results = list(pool.map(lambda call: self.traced(offer, call), calls))
            for call, result in zip(calls, results):
                self.messages.append({"role": "tool", "tool_call_id": call["id"],
                                      "content": result})
        return None

    def traced(self, offer, call):
        started = time.perf_counter()
        result = self.dispatch(offer, call)
        try:
            value = json.loads(result)
        except ValueError:
            value = None
        error = value["error"] if isinstance(value, dict) and "error" in value else None
        arguments = call["function"]["arguments"]
        try:
            parsed = json.loads(arguments)
        except ValueError:
            parsed = arguments
        self.trace.append({
            "tool": call["function"]["name"],
            "arguments": parsed if isinstance(parsed, dict) else arguments,
            "duration_ms": (time.perf_counter() - started) * 1000.0,
            "ok": error is None,
            "error": error,
            "result_chars": len(result),
        })
        return result

    def dispatch(self, offer, call):
        name = call["function"]["name"]
        if name not in offer:
            return refusal(f"no tool {name} here")
        try:
            arguments = json.loads(call["function"]["arguments"] or "{}")
        except json.JSONDecodeError as error:
            return refusal(f"the arguments are not JSON: {error}")
        problems = validate_arguments(offer[name].schema["function"]["parameters"], arguments)
        if problems:
            return refusal("; ".join(problems))
        arguments = {key: value for key, value in arguments.items() if value is not None}
        if name in NEEDS_APPROVAL:
            answer = self.approve(name, arguments)
            if answer is not True:
                return refusal(f"工作人员拒绝了 {name}：{answer}")
        try:
            value = offer[name].function(**arguments)
        except Exception as error:
            return refusal(f"{type(error).__name__}: {error}")
        return json.dumps(value, ensure_ascii=False)


ShopAssistant = HandAssistant
"""

LOOP = "            for call, result in zip(calls, results):\n"
# One mistake each, edited into HAND_BUILT: (old text, new text).
HAND_BUILT_MISTAKES = {
    "refused calls unanswered": (
        LOOP,
        LOOP + "                if call['function']['name'] not in offer:\n"
        "                    continue\n",
    ),
    "only the first call answered": (LOOP, LOOP.replace("calls, results", "calls[:1], results")),
    "one call after another": (
        "                results = list(pool.map(lambda call: self.traced(offer, call), calls))",
        "                results = [self.traced(offer, call) for call in calls]",
    ),
    "no budget": (
        "for turn in range(1, MAX_TURNS + 1):",
        "for turn in __import__('itertools').count(1):",
    ),
}  # fmt: skip


def hand_built(mistake: str | None = None) -> Any:
    """``ShopAssistant`` of ``HAND_BUILT``, with one of its ``HAND_BUILT_MISTAKES``."""
    source = HAND_BUILT
    if mistake is not None:
        old, new = HAND_BUILT_MISTAKES[mistake]
        assert old in source, mistake
        source = source.replace(old, new)
    namespace: dict[str, Any] = {"__name__": "hand_built"}
    run_source(source, "<hand-built assistant>", namespace)
    return namespace["ShopAssistant"]


def notebook_with(*edits: tuple[str, str, str]) -> Any:
    """The notebook's ``ShopAssistant`` with ``edits`` (cell, old, new) applied."""
    return load_cells(NOTEBOOK, CELLS, edits=edits)["ShopAssistant"]
