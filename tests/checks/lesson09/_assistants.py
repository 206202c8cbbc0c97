"""A second correct assistant for 09.1, built another way, and the wrong assistants made from
one of the two with a single realistic mistake each.

``HAND_BUILT`` uses none of the reference registry or loop: its own routing (one compiled
pattern per category), its own permissions (``all()``), tools as plain records with schemas from
``function_to_tool``, arguments checked with ``validate_arguments``, a hand-written loop with a
thread pool, a trace written as the calls come back, and a calculator that is an
``ast.NodeVisitor``. The check must accept it exactly as it accepts the notebook's.
"""

from __future__ import annotations

from typing import Any

from solution_cells import load_cells, run_source

from ._solution import CELLS, NOTEBOOK

HAND_BUILT = '''
import ast
import json
import operator
import re
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, Callable

from course_lib.capstone.policies import (
    CATEGORIES, KEYWORDS, MAX_TURNS, ORDER_ID, PERMISSIONS, ROLES, TOOL_TAGS,
)
from course_lib.capstone.shop import shop_tools
from course_lib.reference import function_to_tool, validate_arguments
from course_lib.reference.loop import AgentResult, Step

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
    """Compute arithmetic: numbers, + - * / ** and parentheses, e.g. 3 * 19.5 + 2.

    Args:
        expression: The arithmetic expression to compute.
    """
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


class HandAssistant:
    def __init__(self, client, model, tools):
        self.client, self.model, self.tools = client, model, tools
        self.trace = []

    def ask(self, question, *, role):
        categories = route(question)
        offer = {
            name: tool for name, tool in self.tools.items()
            if tool.tags[0] in categories and may_use(role, tool.tags)
        }
        messages = [{"role": "user", "content": question}]
        steps = []
        for turn in range(1, MAX_TURNS + 1):
            request = {"model": self.model, "messages": messages}
            if offer:
                request["tools"] = [tool.schema for tool in offer.values()]
            message = self.client.chat.completions.create(**request).choices[0].message
            calls = [
                {"id": c.id, "type": "function",
                 "function": {"name": c.function.name, "arguments": c.function.arguments}}
                for c in message.tool_calls or []
            ]
            assistant = {"role": "assistant", "content": message.content}
            if calls:
                assistant["tool_calls"] = calls
            messages.append(assistant)
            if not calls:
                return AgentResult(message.content, messages, steps, "answer")
            with ThreadPoolExecutor(max_workers=len(calls)) as pool:
                results = list(pool.map(lambda call: self.dispatch(offer, call), calls))
            for call, result in zip(calls, results):
                name, arguments = call["function"]["name"], call["function"]["arguments"]
                self.trace.append({"call_id": call["id"], "tool": name, "arguments": arguments,
                                   "role": role, "ok": not result.startswith('{"error"')})
                messages.append({"role": "tool", "tool_call_id": call["id"], "content": result})
                steps.append(Step(turn, call["id"], name, arguments, result))
        return AgentResult(None, messages, steps, "max_iterations")

    @staticmethod
    def dispatch(offer, call):
        name = call["function"]["name"]
        if name not in offer:
            return json.dumps({"error": f"no tool {name} here"})
        try:
            arguments = json.loads(call["function"]["arguments"] or "{}")
        except json.JSONDecodeError as error:
            return json.dumps({"error": f"the arguments are not JSON: {error}"})
        problems = validate_arguments(offer[name].schema["function"]["parameters"], arguments)
        if problems:
            return json.dumps({"error": "; ".join(problems)}, ensure_ascii=False)
        try:
            value = offer[name].function(**arguments)
        except Exception as error:
            return json.dumps({"error": f"{type(error).__name__}: {error}"}, ensure_ascii=False)
        return json.dumps(value, ensure_ascii=False)


def build_assistant(client, *, model, shop):
    tools = {
        function.__name__: Tool(function, function_to_tool(function), TOOL_TAGS[function.__name__])
        for function in [*shop_tools(shop), calculate]
    }
    return HandAssistant(client, model, tools)
'''

LOOP = "            for call, result in zip(calls, results):\n"
# One mistake each, edited into HAND_BUILT: (old text, new text).
HAND_BUILT_MISTAKES = {
    "refused calls unanswered": (
        LOOP,
        LOOP.replace("\n", "\n                if call['function']['name'] not in offer:\n")
        + "                    self.trace.append({'call_id': call['id'], 'tool': "
        "call['function']['name'], 'arguments': call['function']['arguments'], 'role': role, "
        "'ok': False})\n                    continue\n",
    ),
    "only the first call answered": (LOOP, LOOP.replace("calls, results", "calls[:1], results")),
    "one call after another": (
        "                results = list(pool.map(lambda call: self.dispatch(offer, call), calls))",
        "                results = [self.dispatch(offer, call) for call in calls]",
    ),
    "no budget": (
        "for turn in range(1, MAX_TURNS + 1):",
        "for turn in __import__('itertools').count(1):",
    ),
}  # fmt: skip


def hand_built(mistake: str | None = None) -> Any:
    """``build_assistant`` of ``HAND_BUILT``, with one of its ``HAND_BUILT_MISTAKES``."""
    source = HAND_BUILT
    if mistake is not None:
        old, new = HAND_BUILT_MISTAKES[mistake]
        assert old in source, mistake
        source = source.replace(old, new)
    namespace: dict[str, Any] = {"__name__": "hand_built"}
    run_source(source, "<hand-built assistant>", namespace)
    return namespace["build_assistant"]


def notebook_with(*edits: tuple[str, str, str]) -> Any:
    """The notebook's ``build_assistant`` with ``edits`` (cell, old, new) applied."""
    return load_cells(NOTEBOOK, CELLS, edits=edits)["build_assistant"]
