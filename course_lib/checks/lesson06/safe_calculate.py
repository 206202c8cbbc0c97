"""Exercise 06.1, ``safe_calculate(expression) -> float``: arithmetic without ``eval``.

Every expression travels to the learner's function as a plain string; what comes back is JSON, or
the type of what was returned or raised. Nothing here evaluates an expression: the visible cases
carry their values, and the hidden ones are generated as trees whose values are computed while
they are built (``random_calculation``), so the oracle is the contract written as code, never a
call to ``eval``. The hostile texts are harmless even for a calculator that falls back to
``eval`` (an import of ``os``, a walk to ``__subclasses__``, powers that are cheap as integers),
so such a calculator returns something and is told so, without anything dangerous having run.
Rules, the case that breaks each, and the hint that names it: see ``RULES``.

One module because it is one exercise's check: most of its lines are the contract, the hint
table and the visible and hostile expressions with their values; the generator of hidden
calculations and the three expectations read those tables and nothing else.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Callable
from random import Random
from typing import Any

from course_lib.checks.catalog import Catalog
from course_lib.checks.compare import Plain, fail, hidden_rng
from course_lib.checks.core import Rule, exercise
from course_lib.checks.learner import Learner, raise_learner_error
from course_lib.checks.lesson06._roles_and_answers import NOTEBOOK, shown_answer
from course_lib.i18n import ENGLISH, translate

MAX_LENGTH = 200
TEXTS = Catalog() | {
    "case": "safe_calculate({expression})",
    "case_long": "safe_calculate(<{length} characters: {start}…>)",
    "code_case": "safe_calculate's code and the functions it calls",
    "value_error": "ValueError",
    "no_eval": "code that never calls eval or exec",
    "calls": "code that calls {names}",
    "summary": "{valid} calculations and {refused} refusals",
}
LONG_SUM = " + ".join(["1"] * 61)  # 241 characters of honest arithmetic
DEEP_MINUS = "-" * 100_000 + "1"  # nesting the parser itself cannot take
DEEP_PARENTHESES = "(" * 150 + "1" + ")" * 150  # 301 characters the parser takes
DEEP_UNARY = "-" * 150 + "1"  # deep but short: 151 characters, value 1.0
EXACT_LENGTH = " + ".join(["1"] * 49) + " + 1000"  # exactly MAX_LENGTH characters
# The rule names this case in English (tests/checks/rules.py matches it); a failure says it in
# the learner's language.
CODE_CASE = translate(TEXTS, "code_case", ENGLISH)


def case_label(expression: Any) -> str:
    if isinstance(expression, str) and len(expression) > 60:
        start = repr(expression[:12])
        return TEXTS.text("case_long", length=f"{len(expression):,}", start=start)
    return TEXTS.text("case", expression=repr(expression))


RULES = (
    Rule("no_eval", "never `eval` or `exec` the text, not even as a fallback", case=CODE_CASE,
         hint="eval_in_code"),
    Rule("not_str", "not a `str`: `ValueError`", case=case_label(42), hint="not_str"),
    Rule("length", "more than `MAX_LENGTH` (200) characters: `ValueError`, checked before parsing",
         case=case_label(DEEP_PARENTHESES), hint="length"),
    Rule("syntax", 'parse with `ast.parse(expression, mode="eval")` and walk its `.body`, as '
         '`add_only` does; text that does not parse: `ValueError`', case=case_label("1 +"),
         hint="syntax"),
    Rule("numbers", "constants are `int` or `float` only: `True`, `3j` and strings are refused",
         case=case_label("True + 1"), hint="bool"),
    Rule("operators", "operators are those in `BINARY` (`+ - * / // % **`) and `UNARY` (`+x`, "
         "`-x`) only: `2 ^ 3` is refused", case=case_label("2 ^ 3"), hint="xor"),
    Rule("nodes", "every other node (names, attributes, calls, subscripts, comprehensions, "
         "comparisons, ...): `ValueError`", case=case_label("pi * 2"), hint="names"),
    Rule("power_limit", "a power whose exponent is above `MAX_EXPONENT` (100) in absolute value: "
         "`ValueError`, checked before computing it", case=case_label("2 ** 1000"),
         hint="power_limit"),
    Rule("power_inclusive", "an exponent of exactly 100 (or -100) is allowed",
         case=case_label("2 ** 100"), hint="power_inclusive"),
    Rule("arithmetic_errors", "`ZeroDivisionError` and `OverflowError` become `ValueError`",
         case=case_label("1 / 0"), hint="arithmetic_errors"),
    Rule("finite", "a result that is not a finite float (`inf`, `nan`, the complex number "
         "`(-8) ** 0.5` gives): `ValueError`", case=case_label("1e308 * 10"), hint="finite"),
    Rule("float", 'return a `float`: convert each constant with `float(...)`, so '
         '`safe_calculate("2 * (3 + 4)")` is `14.0`', case=case_label("2 * (3 + 4)"), hint="float"),
    Rule("value", "the value is what the operators of `BINARY` and `UNARY` give: `-3 ** 2` is "
         "`-9.0`", case=case_label("-3 ** 2"), hint="sign"),
)  # fmt: skip

HINTS = Catalog() | {
    "valid": (
        "This is plain arithmetic and must give its value: numbers, + - * / // % **, unary "
        "+ and -, parentheses."
    ),
    "float": "Return a float: convert each constant with float(...), so 2 * (3 + 4) gives 14.0.",
    "sign": "The sign is lost: apply the unary operator, UNARY[type(node.op)], to the operand.",
    "value": (
        "Compute each operator as BINARY and UNARY do, on floats: // floors, % is the "
        "remainder, and -3 ** 2 is -(3 ** 2)."
    ),
    "power_inclusive": (
        "An exponent of exactly MAX_EXPONENT (100) is allowed: refuse only when abs(exponent) "
        "> MAX_EXPONENT, not >=."
    ),
    "eval_in_code": (
        "{names} appears in safe_calculate or a function it calls: never eval or exec the text, "
        "not even after checking its tree or as a fallback. Compute the value while you walk "
        "the tree."
    ),
    "length_inclusive": (
        "Text of exactly MAX_LENGTH (200) characters is allowed: refuse only when "
        "len(expression) > MAX_LENGTH, not >=."
    ),
    "modulo": (
        "% is operator.mod, whose result takes the sign of the divisor: -7 % 3 is 2.0 (math.fmod "
        "would give -1.0)."
    ),
    "float_constants": (
        "Convert each constant with float(...) before computing: in floats 10 ** 17 + 1 is "
        "10 ** 17, so this is 0.0; computed with ints and converted at the end it is 1.0."
    ),
    "eval": (
        "It returned something, so your code ran this text: never fall back to eval or exec. "
        "Walk the tree and refuse every node that is not a number or an allowed operator."
    ),
    "not_value_error": (
        "Every refusal is a ValueError, and this one raised {type}: check the node first, or "
        "catch the error where it happens, and raise ValueError instead."
    ),
    "not_str": "Refuse anything that is not a str with ValueError, before len() or ast.parse.",
    "length": (
        "Refuse text longer than MAX_LENGTH (200) characters with ValueError, before parsing: "
        "that also bounds how deep the nesting can go."
    ),
    "deep_nesting": (
        "Refuse text longer than MAX_LENGTH (200) characters before parsing: on this deeply "
        "nested text the parser itself fails, here with {type}."
    ),
    "syntax": "Text that does not parse is refused: turn ast.parse's SyntaxError into ValueError.",
    "bool": (
        "True is a bool, a subclass of int, but not a number here: test "
        "type(node.value) in (int, float), not isinstance."
    ),
    "complex": "Only int and float constants are numbers: refuse 3j (a complex).",
    "string": "Only int and float constants are numbers: refuse a string.",
    "names": "Names are not numbers: refuse ast.Name (no variables, no constants such as pi).",
    "attributes": "Attributes are not arithmetic: refuse ast.Attribute.",
    "calls": "Calls are not arithmetic: refuse ast.Call.",
    "subscripts": "Lists and subscripts are not arithmetic: refuse them.",
    "comprehensions": "Comprehensions are not arithmetic: refuse them.",
    "lambda": "A lambda is not arithmetic: refuse it.",
    "compare": "Comparisons are not arithmetic: refuse ast.Compare.",
    "conditional": "A conditional expression (x if c else y) is not arithmetic: refuse ast.IfExp.",
    "xor": (
        "Only the operators of BINARY and UNARY are allowed. In Python ^ is bitwise xor, not a "
        "power: refuse it with ValueError."
    ),
    "operators": (
        "Only the operators of BINARY and UNARY are allowed: refuse any other one with "
        "ValueError before looking it up or applying it."
    ),
    "power_limit": (
        "Refuse a power whose exponent is larger than MAX_EXPONENT (100) in absolute value, "
        "before computing it: 9 ** 9 ** 9 would run for minutes."
    ),
    "power_negative": "The exponent limit applies to its absolute value: -101 is too large too.",
    "power_computed": "Check the computed exponent (50 * 3 is 150), not only literal ones.",
    "arithmetic_errors": (
        "Turn arithmetic errors into ValueError: catch ArithmeticError, the base of "
        "ZeroDivisionError and OverflowError, around the computation."
    ),
    "overflow": (
        "A float power that is too large raises OverflowError: turn it into ValueError like "
        "ZeroDivisionError (catch ArithmeticError, their common base)."
    ),
    "finite": "This result is not a finite float: refuse inf and nan with ValueError.",
    "complex_result": (
        "A negative number to a fractional power gives a complex number: refuse a result "
        "that is not a float."
    ),
}
hint = HINTS.hint


# (expression, its value, the hint when the learner raises instead)
VALID: list[tuple[str, float, str]] = [
    ("2 * (3 + 4)", 14.0, "valid"),
    ("-3 ** 2", -9.0, "valid"),
    ("1 + 2.5", 3.5, "valid"),
    ("7 // 2", 3.0, "valid"),
    ("7 % 3", 1.0, "valid"),
    ("-7 // 2", -4.0, "valid"),
    ("2 ** -1", 0.5, "valid"),
    ("(1 + 2) * -(3 - 5)", 6.0, "valid"),
    ("10 / 4", 2.5, "valid"),
    ("+5", 5.0, "valid"),
    ("1.5e3 - 0.5", 1499.5, "valid"),
    ("2 ** 100", 2.0**100, "power_inclusive"),
    ("10 ** -100", 10.0**-100, "power_inclusive"),
    ("9 ** 9 ** 2", 9.0**81, "valid"),
    (DEEP_UNARY, 1.0, "valid"),
    ("(" * 90 + "1" + ")" * 90, 1.0, "valid"),
    (EXACT_LENGTH, 1049.0, "length_inclusive"),
    ("-7 % 3", 2.0, "valid"),
    ("10 ** 17 + 1 - 10 ** 17", 0.0, "valid"),
]
# The hint for a wrong value, where one mistake explains it better than "value".
WRONG_VALUE = {"-7 % 3": "modulo", "10 ** 17 + 1 - 10 ** 17": "float_constants"}

# (expression, the hint when it comes back with a value, the hint when it raises another error)
REFUSED: list[tuple[Any, str, str]] = [
    ("__import__('os')", "eval", "not_value_error"),
    ("().__class__.__base__.__subclasses__()", "eval", "not_value_error"),
    ("pi * 2", "names", "not_value_error"),
    ("(1).real", "attributes", "not_value_error"),
    ("abs(-3)", "calls", "not_value_error"),
    ("[1, 2][0]", "subscripts", "not_value_error"),
    ("[x for x in (1, 2)]", "comprehensions", "not_value_error"),
    ("lambda: 1", "lambda", "not_value_error"),
    ("1 < 2", "compare", "not_value_error"),
    ("1 if 2 else 3", "conditional", "not_value_error"),
    ("2 ^ 3", "xor", "operators"),
    ("~5", "operators", "operators"),
    ("not 1", "operators", "operators"),
    ("True + 1", "bool", "not_value_error"),
    ("'a' * 3", "string", "not_value_error"),
    ("3j * 2", "complex", "not_value_error"),
    ("3j // 2", "complex", "complex"),
    ("2 ** 1000", "power_limit", "not_value_error"),
    ("10 ** -101", "power_negative", "not_value_error"),
    ("2 ** (50 * 3)", "power_computed", "not_value_error"),
    ("9 ** 9 ** 3", "power_limit", "not_value_error"),
    ("1 / 0", "arithmetic_errors", "arithmetic_errors"),
    ("5 % 0", "arithmetic_errors", "arithmetic_errors"),
    ("7 // 0.0", "arithmetic_errors", "arithmetic_errors"),
    ("1e200 ** 2", "overflow", "overflow"),
    ("1e308 * 10", "finite", "not_value_error"),
    ("1e999", "finite", "not_value_error"),
    ("1e308 * 10 - 1e308 * 10", "finite", "not_value_error"),
    ("(-8) ** 0.5", "complex_result", "complex_result"),
    (DEEP_MINUS, "length", "deep_nesting"),
    (DEEP_PARENTHESES, "length", "deep_nesting"),
    (LONG_SUM, "length", "length"),
    ("1 +", "syntax", "syntax"),
    ("", "syntax", "syntax"),
    ("2 * (3", "syntax", "syntax"),
    (42, "not_str", "not_str"),
    (["1 + 1"], "not_str", "not_str"),
]

BINARY_OPERATORS: dict[str, Callable[[float, float], float]] = {
    "+": operator.add,
    "-": operator.sub,
    "*": operator.mul,
    "/": operator.truediv,
    "//": operator.floordiv,
    "%": operator.mod,
}
# Hostile wrappings of a hidden calculation, with the hint the wrapping earns.
WRAPPINGS = [
    ("({}).real", "attributes"),
    ("abs({})", "calls"),
    ("[{}][0]", "subscripts"),
    ("({}) if 1 else 0", "conditional"),
    ("({}) < 1", "compare"),
]


def random_calculation(rng: Random, depth: int) -> tuple[str, float | None]:
    """An expression and its value, built together: the value is computed from the tree as it
    is made (``None`` once a division by zero appears), never by evaluating the text."""
    if depth == 0 or rng.random() < 0.3:
        number: float = rng.choice([rng.randint(0, 20), rng.randint(1, 99) / 10])
        return str(number), float(number)
    if rng.random() < 0.15:
        text, value = random_calculation(rng, depth - 1)
        return f"-({text})", None if value is None else -value
    symbol = rng.choice(sorted(BINARY_OPERATORS))
    left_text, left = random_calculation(rng, depth - 1)
    right_text, right = random_calculation(rng, depth - 1)
    value: float | None = None
    if left is not None and right is not None:
        try:
            value = BINARY_OPERATORS[symbol](left, right)
        except ZeroDivisionError:
            value = None
    return f"({left_text} {symbol} {right_text})", value


def hidden_calculations(count: int = 14) -> list[tuple[str, float | None, str]]:
    """(expression, value or None when it must be refused, hint key): random arithmetic, some
    of it dividing by zero, some wrapped in a node that is not arithmetic."""
    rng = hidden_rng("06.1")
    cases: list[tuple[str, float | None, str]] = []
    while len(cases) < count:
        text, value = random_calculation(rng, 3)
        key = "valid" if value is not None else "arithmetic_errors"
        if rng.random() < 0.3:
            wrapper, key = rng.choice(WRAPPINGS)
            text, value = wrapper.format(text), None
        elif rng.random() < 0.5 and text.startswith("("):
            text = text[1:-1]  # the outer parentheses are optional
        if len(text) <= MAX_LENGTH:
            cases.append((text, value, key))
    return cases


def expect_value(learner: Learner, expression: str, expected: float, raised_key: str) -> None:
    __tracebackhide__ = True
    case = case_label(expression)
    reply = learner.attempt("safe_calculate", expression)
    if reply.raised:
        raise_learner_error(case, reply, [(lambda r: True, hint(raised_key))])
    got = reply.value
    if reply.type == "int" and "unjson" not in reply.data:
        fail(case, expected, got, hint("float"))
    if reply.type != "float" or not isinstance(got, float):
        fail(case, expected, shown_answer(reply), hint("float"))
    if not math.isclose(got, expected, rel_tol=1e-9):
        key = "sign" if math.isclose(got, -expected, rel_tol=1e-9) else "value"
        fail(case, expected, got, hint(WRONG_VALUE.get(expression, key)))


def expect_refusal(learner: Learner, expression: Any, returned_key: str, raised_key: str) -> None:
    __tracebackhide__ = True
    case = case_label(expression)
    reply = learner.attempt("safe_calculate", expression)
    if not reply.raised:
        fail(case, Plain(TEXTS.text("value_error")), shown_answer(reply), hint(returned_key))
    if not reply.raised_a("ValueError"):
        chosen = hint(raised_key, type=reply.type)
        raise_learner_error(case, reply, [(lambda r: True, chosen)])


# Beside the learner's code: the builtins eval and exec loaded by name in safe_calculate's code,
# or in the functions of its module it names, followed to any depth (``evaluate``, say). An
# attribute such as asteval's ``interpreter.eval`` is not the builtin and is not counted.
EVAL_SCAN = """\
import dis
import types

GLOBAL_LOADS = {"LOAD_GLOBAL", "LOAD_NAME"}


def names_used(fn, seen):
    if not isinstance(fn, types.FunctionType) or fn in seen:
        return set(), set()
    seen.add(fn)
    names, builtins_loaded, codes = set(), set(), [fn.__code__]
    while codes:
        code = codes.pop()
        names |= set(code.co_names)
        for instruction in dis.get_instructions(code):
            if instruction.opname in GLOBAL_LOADS and instruction.argval in ("eval", "exec"):
                builtins_loaded.add(instruction.argval)
        codes += [c for c in code.co_consts if isinstance(c, types.CodeType)]
    for name in sorted(names):
        builtins_loaded |= names_used(fn.__globals__.get(name), seen)[1]
    return names, builtins_loaded


found = sorted(names_used(fn, set())[1])
"""


def expect_no_eval(learner: Learner) -> None:
    __tracebackhide__ = True
    found = learner.run(EVAL_SCAN, result="found", bind={"fn": learner.target("safe_calculate")})
    if found.returned and found.value:
        names = " and ".join(found.value)
        got = Plain(TEXTS.text("calls", names=names))
        case = TEXTS.text("code_case")
        fail(case, Plain(TEXTS.text("no_eval")), got, hint("eval_in_code", names=names))


@exercise("06.1", notebook=NOTEBOOK, title="safe_calculate", points=3, rules=RULES, hints=HINTS)
def check_safe_calculate(learner: Learner) -> str:
    expect_no_eval(learner)
    hidden = hidden_calculations()
    valid = [*VALID, *((e, v, key) for e, v, key in hidden if v is not None)]
    for expression, expected, raised_key in valid:
        expect_value(learner, expression, expected, raised_key)
    refused = [
        *REFUSED,
        *((e, key, "not_value_error" if key != "arithmetic_errors" else key)
          for e, v, key in hidden if v is None),
    ]  # fmt: skip
    for expression, returned_key, raised_key in refused:
        expect_refusal(learner, expression, returned_key, raised_key)
    return TEXTS.text("summary", valid=len(valid), refused=len(refused))
