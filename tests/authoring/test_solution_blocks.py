"""Solution blocks become stubs; malformed blocks are refused with a message that says why."""

from __future__ import annotations

import ast

import pytest

from course_lib.authoring.blocks import BlockError, stub_source


def test_an_in_body_block_becomes_a_raise_at_the_block_indentation():
    source = (
        "class Box:\n"
        "    def size(self) -> int:\n"
        '        """How big."""\n'
        "        # BEGIN SOLUTION\n"
        "        return 3\n"
        "        # END SOLUTION\n"
    )
    stub = stub_source(source, "04.1", "return the size")
    assert stub == (
        "class Box:\n"
        "    def size(self) -> int:\n"
        '        """How big."""\n'
        '        raise NotImplementedError("Exercise 04.1: return the size")\n'
    )


def test_a_top_level_block_becomes_one_ellipsis_assignment_per_name():
    source = (
        "import json\n"
        "# BEGIN SOLUTION\n"
        "TOOL = {\n    'type': 'function',\n}\n"
        "A, B = 1, 2\n"
        "LIMIT: int = 5\n"
        "# END SOLUTION\n"
        "print(json.dumps(TOOL))"
    )
    stub = stub_source(source, "01.1", "write the tool")
    assert stub.splitlines() == [
        "import json",
        "TOOL = ...  # Exercise 01.1: write the tool",
        "A = ...  # Exercise 01.1: write the tool",
        "B = ...  # Exercise 01.1: write the tool",
        "LIMIT = ...  # Exercise 01.1: write the tool",
        "print(json.dumps(TOOL))",
    ]


def test_several_blocks_in_one_cell_are_all_replaced_and_the_result_parses():
    source = (
        "def f():\n    # BEGIN SOLUTION\n    return 1\n    # END SOLUTION\n\n"
        "def g():\n    # BEGIN SOLUTION\n    return 2\n    # END SOLUTION"
    )
    stub = stub_source(source, "02.1", 'it says "quote" and 北京')
    assert stub.count("raise NotImplementedError") == 2
    assert "return" not in stub
    raised = ast.literal_eval(stub.splitlines()[1].strip()[len("raise NotImplementedError(") : -1])
    assert raised == 'Exercise 02.1: it says "quote" and 北京'


@pytest.mark.parametrize(
    "source, message",
    [
        (
            "def f():\n    # BEGIN SOLUTION\n    return 1",
            "line 2: # BEGIN SOLUTION is never closed",
        ),
        (
            "def f():\n    # BEGIN SOLUTION\n    # BEGIN SOLUTION\n    # END SOLUTION",
            "line 3: # BEGIN SOLUTION inside the block opened on line 2",
        ),
        ("def f():\n    return 1\n    # END SOLUTION", "line 3: # END SOLUTION without a # BEGIN"),
        ("def f():\n    return 1", "an exercise cell needs a solution block"),
        ("# BEGIN SOLUTION\nprint('hi')\n# END SOLUTION", "may only assign names (found Expr)"),
        ("# BEGIN SOLUTION\ndef f():\n    pass\n# END SOLUTION", "(found FunctionDef)"),
        ("# BEGIN SOLUTION\nTOOL['x'] = 1\n# END SOLUTION", "not TOOL['x']"),
        ("# BEGIN SOLUTION\n# END SOLUTION", "assigns nothing"),
    ],
)
def test_malformed_blocks_are_refused_with_the_reason(source, message):
    with pytest.raises(BlockError, match=None) as caught:
        stub_source(source, "01.1", "hint")
    assert message in str(caught.value)
