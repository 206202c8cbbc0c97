"""Exercise 06.1: the solution passes; a wrong calculator fails on the rule it breaks.

Every wrong calculator is the solution cell with one realistic mistake edited in, except the one
that falls back to ``eval``, which wraps the solution (the check only sends it harmless text).
"""

from __future__ import annotations

import ast
import inspect
import math

import pytest
from rules import assert_breaks_rule
from solution_cells import rejected

from course_lib.checks import NotDoneYet, evaluate
from course_lib.checks.lesson06 import safe_calculate as check_module
from course_lib.checks.lesson06.safe_calculate import (
    DEEP_MINUS,
    REFUSED,
    VALID,
    hidden_calculations,
    random_calculation,
)
from lesson06.notebook import EX1, solution, targets, wrong


def with_eval_fallback(expression):
    try:
        return solution("safe_calculate")(expression)
    except ValueError:
        return eval(expression)  # the mistake under test; the check sends only harmless text


def edited(old: str, new: str, *more: tuple[str, str]):
    return wrong("06.1", EX1, old, new, *more)


POWER_TEST = "abs(right) > MAX_EXPONENT"
NAMES_FROM_MATH = (
    '    allowed = "numbers',
    "    if isinstance(node, ast.Name):\n        return float(getattr(math, node.id))\n"
    '    allowed = "numbers',
)
WRONG_BY_RULE = {
    "06.1": {
        "no_eval": [with_eval_fallback],
        "not_str": edited(
            "if not isinstance(expression, str) or len(expression) > MAX_LENGTH:",
            "if len(expression) > MAX_LENGTH:",
        ),
        "length": edited(
            "if not isinstance(expression, str) or len(expression) > MAX_LENGTH:",
            "if not isinstance(expression, str):",
        ),
        "syntax": edited(
            "except (SyntaxError, ValueError, RecursionError, MemoryError):",
            "except (RecursionError, MemoryError):",
        ),
        "numbers": edited(
            "type(node.value) in (int, float)", "isinstance(node.value, (int, float))"
        ),
        "operators": edited(
            "    ast.Pow: operator.pow,\n",
            "    ast.Pow: operator.pow,\n    ast.BitXor: operator.pow,\n",
        ),  # fmt: skip
        "nodes": edited(*NAMES_FROM_MATH),
        "power_limit": edited(POWER_TEST, "False"),
        "power_inclusive": edited(POWER_TEST, "abs(right) >= MAX_EXPONENT"),
        "arithmetic_errors": edited(
            "except (ArithmeticError, RecursionError) as exc:", "except RecursionError as exc:"
        ),
        "finite": edited(
            "if not isinstance(result, float) or not math.isfinite(result):",
            "if not isinstance(result, float):",
        ),
        "float": edited(
            "return float(node.value)",
            "return node.value",
            ("not isinstance(result, float) or not math.isfinite", "not math.isfinite"),
        ),
        "value": edited(
            "return UNARY[type(node.op)](evaluate(node.operand))", "return evaluate(node.operand)"
        ),
    }
}


@pytest.mark.parametrize("rule", sorted(WRONG_BY_RULE["06.1"]))
def test_a_wrong_calculator_breaking_one_rule_gets_that_rules_hint(rule):
    assert_breaks_rule("06.1", rule, *WRONG_BY_RULE["06.1"][rule])


def test_the_solution_passes_every_calculation_and_refusal():
    assert evaluate("06.1", *targets("06.1")) == (
        "Exercise 06.1 passed: safe_calculate (27 calculations and 43 refusals)."
    )


def test_the_stub_is_not_done_yet():
    (stub,) = edited("    return result\n", '    raise NotImplementedError("Exercise 06.1: x")\n')
    with pytest.raises(NotDoneYet):
        evaluate("06.1", stub)


def test_every_expression_reaches_the_calculator_as_the_plain_value_of_the_case():
    seen = []

    def recording(expression):
        seen.append(expression)
        return solution("safe_calculate")(expression)

    evaluate("06.1", recording)
    assert {type(expression) for expression in seen} == {str, int, list}
    assert "__import__('os')" in seen and DEEP_MINUS in seen
    assert seen[: len(VALID)] == [expression for expression, _, _ in VALID]


def test_the_check_module_evaluates_no_text_itself():
    tree = ast.parse(inspect.getsource(check_module))
    called = {
        node.func.id
        for node in ast.walk(tree)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
    }
    assert not called & {"eval", "exec", "compile", "__import__"}


def test_hidden_calculations_carry_the_value_their_tree_gives():
    calculate = solution("safe_calculate")
    cases = hidden_calculations()
    assert cases == hidden_calculations()
    assert any(value is None for _, value, _ in cases) and any(v is not None for _, v, _ in cases)
    for expression, value, _ in cases:
        if value is not None:
            assert math.isclose(calculate(expression), value, rel_tol=1e-12)
        else:
            with pytest.raises(ValueError):
                calculate(expression)


def test_a_generated_tree_divides_by_zero_into_a_refusal():
    import random

    rng = random.Random(3)
    found = [random_calculation(rng, 3) for _ in range(300)]
    assert any(value is None for _, value in found)
    assert all(isinstance(value, float) for _, value in found if value is not None)


def test_the_visible_values_are_what_the_reference_solution_computes():
    calculate = solution("safe_calculate")
    for expression, value, _ in VALID:
        assert math.isclose(calculate(expression), value, rel_tol=1e-12)
    for expression, _, _ in REFUSED:
        with pytest.raises(ValueError):
            calculate(expression)


def test_a_calculator_that_falls_back_to_eval_is_told_eval_appears_in_its_code():
    message = rejected("06.1", with_eval_fallback)
    assert "Case: safe_calculate's code and the functions it calls" in message
    assert "eval appears in safe_calculate or a function it calls" in message


def test_eval_after_the_tree_walk_in_a_helper_is_found_in_that_helper():
    edits = (
        "        return BINARY[type(node.op)](left, right)\n",
        "        return BINARY[type(node.op)](left, right)\n"
        "    if node is None:\n        exec('')\n",
    )
    message = rejected("06.1", *edited(*edits))
    assert "exec appears in safe_calculate or a function it calls" in message


def test_an_eval_method_of_another_object_is_not_taken_for_the_builtin():
    calls_a_method = edited(
        "    return result\n",
        "    if result is None:\n        math.eval(result)\n    return result\n",
    )
    assert evaluate("06.1", *calls_a_method).startswith("Exercise 06.1 passed")


def test_a_calculator_reaching_eval_under_another_name_is_told_it_ran_the_text():
    import builtins

    hidden_eval = getattr(builtins, "ev" + "al")

    def with_hidden_eval(expression):
        try:
            return solution("safe_calculate")(expression)
        except ValueError:
            return hidden_eval(expression)  # the check sends only harmless text

    message = rejected("06.1", with_hidden_eval)
    assert "Case: safe_calculate(\"__import__('os')\")" in message
    assert "never fall back to eval" in message
    assert "Got:      a module object (not JSON)" in message


def test_text_of_exactly_the_length_limit_is_told_it_is_allowed():
    message = rejected(
        "06.1", *edited("len(expression) > MAX_LENGTH", "len(expression) >= MAX_LENGTH")
    )
    assert "<200 characters" in message and "not >=" in message


def test_fmod_for_the_remainder_is_told_the_sign_follows_the_divisor():
    fmod = (
        "        return BINARY[type(node.op)](left, right)",
        "        if isinstance(node.op, ast.Mod):\n            return math.fmod(left, right)\n"
        "        return BINARY[type(node.op)](left, right)",
    )
    message = rejected("06.1", *edited(*fmod))
    assert "safe_calculate('-7 % 3')" in message and "takes the sign of the divisor" in message


def test_int_arithmetic_converted_at_the_end_is_told_to_convert_each_constant():
    late_float = edited(
        "return float(node.value)",
        "return node.value",
        ("    return result\n", "    return float(result)\n"),
        ("not isinstance(result, float) or not math.isfinite", "not math.isfinite"),
    )
    message = rejected("06.1", *late_float)
    assert "safe_calculate('10 ** 17 + 1 - 10 ** 17')" in message
    assert "Convert each constant with float(...) before computing" in message


def test_a_calculator_resolving_names_is_told_names_are_not_numbers():
    assert "Names are not numbers" in rejected("06.1", *edited(*NAMES_FROM_MATH))


def test_a_calculator_leaking_zero_division_names_the_error_and_arithmetic_error():
    message = rejected("06.1", *WRONG_BY_RULE["06.1"]["arithmetic_errors"])
    assert "raised ZeroDivisionError" in message and "catch ArithmeticError" in message


def test_a_calculator_leaking_overflow_is_told_to_turn_it_into_value_error():
    (calculate,) = edited(
        "except (ArithmeticError, RecursionError) as exc:",
        "except (ZeroDivisionError, RecursionError) as exc:",
    )
    message = rejected("06.1", calculate)
    assert "1e200 ** 2" in message and "raised OverflowError" in message


def test_a_calculator_refusing_the_largest_exponent_is_told_it_is_allowed():
    message = rejected("06.1", *WRONG_BY_RULE["06.1"]["power_inclusive"])
    assert "2 ** 100" in message and "exactly MAX_EXPONENT (100) is allowed" in message


def test_a_calculator_without_an_exponent_limit_never_gets_a_costly_power():
    powers = [e for e, _, _ in REFUSED if isinstance(e, str) and "**" in e]
    (calculate,) = WRONG_BY_RULE["06.1"]["power_limit"]
    for expression in powers:  # each finishes at once even without the limit
        try:
            calculate(expression)
        except ValueError:
            pass
    assert "MAX_EXPONENT" in rejected("06.1", calculate)


def test_inf_is_shown_as_inf_and_told_it_is_not_finite():
    message = rejected("06.1", *WRONG_BY_RULE["06.1"]["finite"])
    assert "Got:      inf" in message and "not a finite float" in message


def test_a_calculator_without_the_length_limit_hears_about_the_parser_on_deep_nesting():
    (calculate,) = edited(
        "if not isinstance(expression, str) or len(expression) > MAX_LENGTH:",
        "if not isinstance(expression, str):",
        ("except (SyntaxError, ValueError, RecursionError, MemoryError):", "except SyntaxError:"),
    )
    try:
        ast.parse(DEEP_MINUS, mode="eval")
        parser_fails_loudly = False
    except SyntaxError:
        parser_fails_loudly = False
    except (MemoryError, RecursionError):
        parser_fails_loudly = True
    message = rejected("06.1", calculate)
    if parser_fails_loudly:
        assert "the parser itself fails" in message and "100,001 characters" in message
    else:
        assert "Refuse text longer than MAX_LENGTH" in message


def test_a_bool_constant_is_told_it_is_not_a_number():
    assert "True is a bool" in rejected("06.1", *WRONG_BY_RULE["06.1"]["numbers"])


def test_a_calculator_letting_complex_constants_through_is_told_to_refuse_3j():
    """A complex constant survives "3j * 2" (the final float test refuses the result) but not
    "3j // 2", where Python's own TypeError escapes: the hint names the constant, not the error."""
    let_through = edited(
        "type(node.value) in (int, float):\n        return float(node.value)",
        "type(node.value) in (int, float, complex):\n        return node.value * 1.0",
    )
    message = rejected("06.1", *let_through)
    assert "safe_calculate('3j // 2')" in message
    assert "refuse 3j (a complex)" in message


def test_the_code_case_is_said_in_the_learners_language_and_named_in_english_by_the_rule():
    from course_lib.checks import EXERCISES, CheckFailed, check
    from course_lib.i18n import speaking

    with speaking("zh-CN"), pytest.raises(CheckFailed) as caught:
        check("06.1", with_eval_fallback)
    case = caught.value.failure.case
    assert case.startswith("safe_calculate") and not case.isascii(), case
    assert EXERCISES["06.1"].rule("no_eval").case == (
        "safe_calculate's code and the functions it calls"
    )
