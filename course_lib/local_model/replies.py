"""The toy model's sentences, in English and Chinese (it answers in the language it was asked in).

Kept in one place so the wording is easy to read, test and translate.
"""

from __future__ import annotations

import json
from typing import Any

from course_lib.local_model.text import is_chinese, mostly_chinese
from course_lib.local_model.turns import ToolCall

MAX_QUOTE = 400
GREETINGS = ("hi", "hello", "hey", "good morning", "good evening", "你好", "您好", "嗨")


def label(call: ToolCall) -> str:
    """``name(key="value", n=3)``: how a call is quoted in answers."""
    arguments = call.parsed()
    if arguments is None:
        return f"{call.name}({call.arguments})"
    inner = ", ".join(f"{k}={json.dumps(v, ensure_ascii=False)}" for k, v in arguments.items())
    return f"{call.name}({inner})"


def quote(result: str) -> str:
    """A result (or a request) as quoted back: stripped, and cut at MAX_QUOTE characters."""
    result = result.strip()
    return result if len(result) <= MAX_QUOTE else result[:MAX_QUOTE] + "…"


def is_greeting(request: str) -> bool:
    words = request.strip().lower().strip("!.?！。？ ")
    return any(
        words == g or words.startswith(g + " ") or words.startswith(g) and is_chinese(g)
        for g in GREETINGS
    )


def greeting(request: str) -> str:
    if mostly_chinese(request):
        return "你好！我是本地的玩具模型。请告诉我你想查什么，我会用提供的工具来回答。"
    return "Hello! I am the local toy model. Ask me something my tools can answer."


def no_tools(request: str) -> str:
    if mostly_chinese(request):
        return (
            "我是本地的玩具模型，靠调用工具来回答问题，但这次请求没有提供任何工具。"
            f"你说的是：“{quote(request)}”"
        )
    return (
        "I am the local toy model: I answer by calling tools, and this request came with none. "
        f'You said: "{quote(request)}"'
    )


def no_fitting_tool(request: str, names: list[str]) -> str:
    if mostly_chinese(request):
        tools = ", ".join(names)
        return f"我没有找到适合“{quote(request)}”的工具，所以无法查询。（我有的工具：{tools}。）"
    return (
        f'I could not find a tool that fits "{quote(request)}", so I cannot look that up. '
        f"(Tools I have: {', '.join(names)}.)"
    )


def tools_switched_off(request: str, name: str) -> str:
    if mostly_chinese(request):
        return f'这次回复不能使用工具（tool_choice="none"），所以我无法调用 {name}。'
    return f'Tools are switched off for this reply (tool_choice="none"), so I cannot call {name}.'


def ambiguous(request: str, names: list[str]) -> str:
    if mostly_chinese(request):
        return f"你的请求同时符合多个工具：{' 或 '.join(names)}。你指的是哪一个？"
    return f"Your request fits more than one tool: {' or '.join(names)}. Which one do you mean?"


def clarify(request: str, tool: str, parameter: str, schema: dict[str, Any]) -> str:
    description = schema.get("description")
    description = quote(description) if isinstance(description, str) else ""
    if mostly_chinese(request):
        detail = f"（{description}）" if description else ""
        return f"要使用 {tool}，我还需要知道 {parameter}{detail}。请告诉我 {parameter}。"
    detail = f" ({description.rstrip('.')})" if description else ""
    return f"To use {tool} I need the {parameter}{detail}. Which {parameter} do you mean?"


def final_answer(request: str, lines: list[tuple[ToolCall, str, str | None]]) -> str:
    """Quote each (call, result, error) line: the answer is grounded in what the tools said."""
    chinese = mostly_chinese(request)
    out = ["工具返回的结果如下：" if chinese else "Here is what the tools returned:"]
    for call, result, error in lines:
        if error is None:
            out.append(f"- {label(call)}{'：' if chinese else ': '}{quote(result)}")
        elif chinese:
            reason = quote(error).rstrip(".。")
            out.append(f"- {label(call)} 调用失败：{reason}。我没能自动修正这个调用。")
        else:
            out.append(
                f"- {label(call)} failed: {quote(error).rstrip('.')}. "
                "I could not correct this call myself."
            )
    return "\n".join(out)
