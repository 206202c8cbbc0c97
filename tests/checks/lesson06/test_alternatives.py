"""Correct answers to 06.1 and 06.4 written differently from the solution, as a learner might
(06.2's and 06.3's are in their own test modules): another structure, other helpers, and error
messages in Chinese where the message is free text. Each must pass."""

from __future__ import annotations

from course_lib.checks import evaluate
from lesson06.notebook import load

VISITOR_CALCULATOR = """
class Calculator(ast.NodeVisitor):
    def visit_Expression(self, node):
        return self.visit(node.body)

    def visit_Constant(self, node):
        if type(node.value) not in (int, float):
            raise ValueError(f"不支持的常量：{node.value!r}")
        return float(node.value)

    def visit_UnaryOp(self, node):
        if type(node.op) not in UNARY:
            raise ValueError("不支持的一元运算符")
        return UNARY[type(node.op)](self.visit(node.operand))

    def visit_BinOp(self, node):
        if type(node.op) not in BINARY:
            raise ValueError("不支持的运算符")
        left = self.visit(node.left)
        right = self.visit(node.right)
        if isinstance(node.op, ast.Pow) and not -MAX_EXPONENT <= right <= MAX_EXPONENT:
            raise ValueError("指数太大")
        return BINARY[type(node.op)](left, right)

    def generic_visit(self, node):
        raise ValueError(f"不允许的语法：{type(node).__name__}")


def safe_calculate(expression):
    if type(expression) is not str:
        raise ValueError("表达式必须是字符串")
    if len(expression) > MAX_LENGTH:
        raise ValueError(f"表达式超过 {MAX_LENGTH} 个字符")
    try:
        tree = ast.parse(expression, mode="eval")
    except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
        raise ValueError("无法解析的表达式") from exc
    try:
        value = Calculator().visit(tree)
    except (ZeroDivisionError, OverflowError, RecursionError) as exc:
        raise ValueError(f"无法计算：{exc}") from exc
    if type(value) is not float or value != value or value in (float("inf"), float("-inf")):
        raise ValueError("结果不是有限的实数")
    return value
"""

TRACED = """
class TracedRegistry:
    def __init__(self, registry):
        self.registry = registry
        self.records = []

    def schemas(self, format="openai"):
        return self.registry.schemas(format=format)

    def names(self):
        return self.registry.names()

    def call(self, name, arguments):
        started = time.perf_counter_ns()
        result = self.registry.call(name, arguments)
        elapsed = (time.perf_counter_ns() - started) / 1_000_000
        self.records.append(self._record(name, arguments, elapsed, result))
        return result

    @staticmethod
    def _record(name, arguments, elapsed, result):
        message = error_message(result)
        return dict(
            tool=name,
            arguments=parsed_arguments(arguments),
            duration_ms=float(elapsed),
            ok=message is None,
            error=message,
            result_chars=len(result),
        )

    def to_jsonl(self):
        lines = [json.dumps(record, ensure_ascii=False) for record in self.records]
        return "\\n".join(lines) + "\\n" if lines else ""
"""


def test_a_node_visitor_calculator_with_chinese_messages_passes():
    namespace = load()
    exec(VISITOR_CALCULATOR, namespace)  # noqa: S102
    assert evaluate("06.1", namespace["safe_calculate"]).startswith("Exercise 06.1 passed")


def test_a_traced_registry_timed_in_nanoseconds_with_a_record_helper_passes():
    namespace = load()
    exec(TRACED, namespace)  # noqa: S102
    assert evaluate("06.4", namespace["TracedRegistry"]).startswith("Exercise 06.4 passed")
