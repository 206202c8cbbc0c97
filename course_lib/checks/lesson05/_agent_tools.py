"""What the checks of lesson 05 share: the notebook, the tools, the model, and reading results.

The tools exist twice from one source text (``TOOLS_SOURCE``): beside the learner's code, where
the learner's loop calls them, and here, where the reference loop runs the same conversation to
say what the learner's should look like. The model is a session on the check's side
(``Learner.model``), so what the learner's loop sent is read from ``session.exchanges``; the
reference loop talks to a session of its own with the same policy and seed, so both see the same
call ids and the same replies.
"""

from __future__ import annotations

import json
from functools import cache
from typing import Any

from course_lib.checks.catalog import Catalog
from course_lib.checks.compare import Plain, fail
from course_lib.checks.function_cases import run_source
from course_lib.checks.learner import Learner, ModelSession, Reply
from course_lib.driver import CASE_MODULE, build_client, said, said_value

NOTEBOOK = "05_agent_loop"
CHECK_MODEL = "toy-check-model-05"  # not MODEL: the learner must pass ``model`` through
CITIES = ["北京", "上海", "深圳", "Paris", "London", "東京"]

TOOLS_SOURCE = '''\
from course_lib.reference import ToolRegistry

SKIES = {"北京": "晴", "上海": "多云", "深圳": "小雨", "Paris": "cloudy", "London": "rain"}


class CheckRegistry(ToolRegistry):
    """The check's registry: it also keeps the arguments each call received, as received."""

    def __init__(self):
        super().__init__()
        self.sent = []

    def call(self, name, arguments=None):
        self.sent.append(arguments)
        return super().call(name, arguments)


def make_registry():
    registry = CheckRegistry()

    @registry.tool
    def get_weather(city: str, unit: str = "c") -> dict:
        """Current weather (temperature and sky) in a city, such as 北京 or Paris."""
        if city not in SKIES:
            raise KeyError(f"no weather station in {city}")
        celsius = 10 + sum(map(ord, city)) % 25
        temperature = celsius if unit == "c" else round(celsius * 9 / 5 + 32)
        return {"city": city, "temperature": temperature, "unit": unit, "sky": SKIES[city]}

    @registry.tool
    def get_time(city: str) -> str:
        """The local time in a city."""
        return f"{city} 12:{sum(map(ord, city)) % 60:02d}"

    return registry
'''

# Describes what the learner's function returned as plain data, beside the learner's code: the
# check reads only this description, never the learner's objects.
VIEW_SOURCE = """\
from course_lib.driver import json_problem_at, safe_repr, type_name

RESULT_FIELDS = ("answer", "messages", "steps", "stopped")
STEP_FIELDS = ("turn", "tool_call_id", "name", "arguments", "result")


def as_data(value):
    problem = json_problem_at(value)
    if problem:
        return {"problem": problem, "repr": safe_repr(value)[:300]}
    return {"json": json.loads(json.dumps(value, ensure_ascii=False))}


def describe_messages(messages):
    if not isinstance(messages, list):
        return {"container": type_name(messages), "repr": safe_repr(messages)[:200]}
    kinds = sorted({type_name(m) for m in messages if not isinstance(m, dict)})
    if kinds:
        return {"container": "list", "kinds": kinds}
    return as_data(messages)


def describe_step(step):
    if isinstance(step, dict):
        return {field: step.get(field) for field in STEP_FIELDS}
    if all(hasattr(step, field) for field in STEP_FIELDS):
        return {field: getattr(step, field) for field in STEP_FIELDS}
    return None


def describe_steps(steps):
    if not isinstance(steps, list):
        return {"container": type_name(steps), "repr": safe_repr(steps)[:200]}
    described = [describe_step(step) for step in steps]
    for step, description in zip(steps, described):
        if description is None:
            return {"bad_step": safe_repr(step)[:200]}
    return as_data(described)


def describe_result(result, registry):
    view = {"type": type_name(result), "repr": safe_repr(result)[:200]}
    view["sent"] = as_data(registry.sent)
    view["missing"] = [field for field in RESULT_FIELDS if not hasattr(result, field)]
    if not view["missing"]:
        view["stopped"] = as_data(result.stopped)
        view["answer"] = as_data(result.answer)
        view["messages"] = describe_messages(result.messages)
        view["steps"] = describe_steps(result.steps)
    return view
"""

KERNEL_SOURCE = TOOLS_SOURCE + "\n\n" + VIEW_SOURCE

HINTS = Catalog() | {
    "not_json": (
        "{what} must be plain data: dicts with string keys, lists, strings, numbers, booleans "
        "and None, as the API sends and receives them."
    ),
}
hint = HINTS.hint
TEXTS = Catalog() | {"plain_json": "plain JSON data"}


@cache
def _check_namespace() -> dict[str, Any]:
    return run_source("import json\n" + KERNEL_SOURCE, "<05 tools>", CASE_MODULE)


def check_registry() -> Any:
    """The check's own copy of the registry the learner's loop is given."""
    return _check_namespace()["make_registry"]()


def describe_result(result: Any, registry: Any) -> dict[str, Any]:
    """``VIEW_SOURCE``'s description, here: the reference's result seen as the learner's is."""
    return _check_namespace()["describe_result"](result, registry)


def check_tools() -> list[dict]:
    """The tools the learner's loop must send: its registry's schemas, as plain JSON."""
    return json.loads(json.dumps(check_registry().schemas()))


def run_loop(
    learner: Learner, target: str, code: str, result: str, policy: Any, question: str, **names: Any
) -> tuple[Reply, ModelSession]:
    """Run ``code`` beside the learner's code with their loop ``target``, a client on a new model
    session of ``policy`` (on the check's side), the check's registry, ``question``, the check's
    model and ``names`` bound; the reply (``result``) and the session, whose ``exchanges`` hold
    what the loop sent. 05.1, 05.2 and 05.6 run their loops this way."""
    session = learner.model(policy, model_name=CHECK_MODEL)
    registry = learner.source("make_registry()", setup=KERNEL_SOURCE)
    bind = {target: learner.target(target), "client": learner.client(session), "registry": registry}
    bind |= {"question": question, "model": CHECK_MODEL, **names}
    return learner.run(code, result=result, bind=bind), session


def oracle_client(policy: Any) -> Any:
    """A real ``openai.OpenAI`` on a model session of the check's own, for the reference loop."""
    session = ModelSession(policy, CHECK_MODEL, id="oracle")
    return build_client(lambda message: session.answer(message), session.id, "openai")


def parsed_json(value: Any) -> Any:
    """JSON text parsed; anything else, or text that is not JSON, as it is."""
    try:
        return json.loads(value)
    except (TypeError, ValueError):
        return value


def unwrap(case: str, described: dict[str, Any], what: str) -> Any:
    """The plain value of ``as_data``'s description, or a failed case naming what is not JSON."""
    __tracebackhide__ = True
    if "json" in described:
        return described["json"]
    shown, where = Plain(said_value(described.get("repr", ""))), said(described.get("problem"))
    fail(case, Plain(TEXTS.text("plain_json")), shown, hint("not_json", what=what), where=where)
    return None  # not reached: fail() raises
