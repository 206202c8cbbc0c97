"""Exercise 04.1: the solution passes; each rule's wrong answer gets that rule's hint."""

from __future__ import annotations

import pytest
from rules import assert_breaks_rule
from solution_cells import rejected

from course_lib.checks import EXERCISES, NotDoneYet, evaluate
from course_lib.checks.lesson04._tool_sources import local_tool
from course_lib.checks.lesson04.registry.labels import keyword_case, now_case
from course_lib.reference import ToolRegistry as ReferenceRegistry

from ._solution import edited, solution

CELL = "w04-ex1-code"


def wrong(old: str, new: str):
    return edited("ToolRegistry", (CELL, old, new))


def test_the_solution_passes_every_case():
    assert evaluate("04.1", solution()["ToolRegistry"]) == (
        "Exercise 04.1 passed: ToolRegistry (3 forms, 3 formats, duplicates refused, 8 hidden "
        "registrations)."
    )


def test_the_stub_is_not_done_yet():
    stub = wrong(
        "        return list(self._tools)\n",
        '        raise NotImplementedError("Exercise 04.1: stub")\n',
    )
    with pytest.raises(NotDoneYet):
        evaluate("04.1", stub)


def test_the_exercise_is_registered_with_its_notebook_points_and_target():
    spec = EXERCISES["04.1"]
    assert (spec.notebook, spec.points, spec.targets) == ("04_registry", 3, ("ToolRegistry",))


METADATA_LINES = '                "owner": owner,\n                "version": version,\n'
REGISTER_RETURN = "return register if func is None else register(func)"
WRONG_BY_RULE = {
    "04.1": {
        "plain": wrong(REGISTER_RETURN, "return register"),
        "unchanged": wrong("            return function\n", "            return None\n"),
        "entry": wrong('"function": function,', '"func": function,'),
        "metadata": wrong(METADATA_LINES, ""),
        "parameters": wrong('"parameters": parameters_schema(function),',
                            '"parameters": parameters_schema(function)["properties"],'),
        "tags": wrong('"tags": list(tags),', '"tags": tags,'),
        "first_paragraph": wrong('doc.split("\\n\\n")[0].strip()', "doc"),
        "paragraph_lines": wrong('doc.split("\\n\\n")[0].strip()', 'doc.split("\\n")[0].strip()'),
        "tags_copy": wrong('"tags": list(tags),',
                           '"tags": tags if isinstance(tags, list) else list(tags),'),
        "string_form": wrong("if isinstance(func, str):", "if False:"),
        "use_description": wrong("if description is None else description",
                                 "if True else description"),
        "keyword_form": edited(
            "ToolRegistry",
            (CELL, "if isinstance(func, str):", "text_given = isinstance(func, str)\n"
             "        if text_given:"),
            (CELL, REGISTER_RETURN, "return register if text_given else register(func)"),
        ),
        "name": wrong("tool_name = name or function.__name__", "tool_name = function.__name__"),
        "no_docstring": wrong('inspect.getdoc(function) or ""', "inspect.getdoc(function)"),
        "order": wrong("return list(self._tools)", "return sorted(self._tools)"),
        "openai": wrong('out.append({"type": "function", "function": function})',
                        'out.append({"type": "function", **function})'),
        "metadata_out": wrong('function = {**name_and_text, "parameters": entry["parameters"]}',
                              'function = {**name_and_text, "parameters": entry["parameters"], '
                              '"tags": entry["tags"]}'),
        "responses": wrong('parameters = {"parameters": entry["parameters"], "strict": False}',
                           'parameters = {"parameters": entry["parameters"]}'),
        "anthropic": wrong('"input_schema": entry["parameters"]',
                           '"parameters": entry["parameters"]'),
        "default_format": wrong('def schemas(self, format: str = "openai")',
                                "def schemas(self, format: str)"),
        "new_list": wrong("        return out\n",
                          '        return self.__dict__.setdefault("_cache", {}).setdefault('
                          "format, out)\n"),
        "unknown_format": wrong("if format not in self.FORMATS:", "if False:"),
        "duplicate": wrong("if tool_name in self._tools and not replace:", "if False:"),
        "replace": wrong('            doc = inspect.getdoc(function) or ""\n',
                         "            self._tools.pop(tool_name, None)\n"
                         '            doc = inspect.getdoc(function) or ""\n'),
    }
}  # fmt: skip


@pytest.mark.parametrize("rule", sorted(WRONG_BY_RULE["04.1"]))
def test_a_wrong_answer_breaking_one_rule_gets_that_rules_hint(rule):
    assert_breaks_rule("04.1", rule, WRONG_BY_RULE["04.1"][rule])


def test_metadata_that_is_not_stored_as_given_is_named():
    cls = wrong('"owner": owner,', '"owner": None,')
    message = rejected("04.1", cls)
    assert "Case: " + keyword_case() + ": its owner" in message
    assert "Store owner and version in the entry as they were given" in message


def test_metadata_in_a_schema_is_named():
    cls = wrong(
        'name_and_text = {"name": tool_name, "description": entry["description"]}',
        'name_and_text = {"name": tool_name, "description": entry["description"], '
        '"version": entry["version"]}',
    )
    assert "leave them out of every schema" in rejected("04.1", cls)


def test_a_silent_overwrite_is_named_as_such():
    assert "This is the silent overwrite" in rejected("04.1", WRONG_BY_RULE["04.1"]["duplicate"])


def test_a_replacement_that_moves_the_tool_to_the_end_is_not_told_to_stop_sorting():
    message = rejected("04.1", WRONG_BY_RULE["04.1"]["replace"])
    assert "takes the old one's place" in message and "do not sort" not in message


def test_an_unknown_format_error_without_the_formats_is_told_to_name_them():
    cls = wrong(
        "unknown format {format!r}; use one of {', '.join(self.FORMATS)}",
        "unknown format {format!r}",
    )
    message = rejected("04.1", cls)
    assert "Name the three supported formats" in message
    assert "the message does not mention 'openai'" in message


def test_a_duplicate_refused_without_naming_replace_is_told_how_to_resolve_it():
    cls = wrong("or pass replace=True if replacing it is the intent", "or remove it first")
    assert "how to resolve it" in rejected("04.1", cls)


def test_a_duplicate_refused_after_overwriting_is_told_the_first_one_stays():
    cls = wrong(
        "            if tool_name in self._tools and not replace:\n",
        "            taken = tool_name in self._tools\n"
        '            self._tools[tool_name] = {"function": function}\n'
        "            if taken and not replace:\n",
    )
    assert "leaves the tool that was registered first in place" in rejected("04.1", cls)


def test_a_refused_replacement_is_named():
    cls = wrong("if tool_name in self._tools and not replace:", "if tool_name in self._tools:")
    assert "With replace=True a taken name is replaced" in rejected("04.1", cls)


def test_the_docstring_first_line_passes_for_one_line_summaries_only():
    cls = wrong('doc.split("\\n\\n")[0].strip()', 'doc.split("Args:")[0].strip()')
    message = rejected("04.1", cls)
    assert "Case: " + now_case() + ": its description" in message
    assert "first paragraph" in message


def test_the_solution_agrees_with_the_reference_registry():
    ours, theirs = solution()["ToolRegistry"](), ReferenceRegistry()
    get_weather, search_notes = local_tool("get_weather"), local_tool("search_notes")
    find_city, search_web = local_tool("find_city"), local_tool("search_web")
    for registry in (ours, theirs):
        registry.tool(get_weather)
        registry.tool("Search my notes, e.g. for 北京.")(search_notes)
        registry.tool(name="lookup_city", description="Find a city.", tags=["geo"])(find_city)
        with pytest.raises(ValueError, match="replace=True"):
            registry.tool(search_web, name="search_notes")
        registry.tool(name="search_notes", replace=True)(search_web)
    assert ours.names() == theirs.names()
    for format in ("openai", "responses", "anthropic"):
        assert ours.schemas(format=format) == theirs.schemas(format=format)


def test_a_refused_duplicate_that_removed_the_first_tool_is_told_the_first_stays():
    cls = wrong(
        "            if tool_name in self._tools and not replace:\n",
        "            if tool_name in self._tools and not replace:\n"
        "                del self._tools[tool_name]\n",
    )
    message = rejected("04.1", cls)
    assert "registering search_web under the taken name 'search_notes': the first one stays" in (
        message
    )
    assert "a refused registration leaves the tool that was registered first in place" in message
    assert "register each tool in self._tools[name]" not in message


def test_an_openai_function_with_a_key_too_many_is_told_which_keys_it_holds():
    cls = wrong(
        'function = {**name_and_text, "parameters": entry["parameters"]}',
        'function = {**name_and_text, "parameters": entry["parameters"], "strict": False}',
    )
    message = rejected("04.1", cls)
    assert 'registry.schemas(format="openai") for the visible tools' in message
    assert 'holds exactly "name", "description" and "parameters"' in message


def test_an_empty_description_given_and_taken_for_not_given_is_told_only_none_means_that():
    message = rejected(
        "04.1",
        wrong("if description is None else description", "if not description else description"),
    )
    assert "Case: @registry.tool(name='weather_quietly', description='') on get_weather" in message
    assert 'description="" is given' in message.split("Hint:")[1]


def test_names_that_return_the_same_list_object_each_time_are_told_to_return_a_new_one():
    message = rejected(
        "04.1",
        wrong(
            "        return list(self._tools)\n",
            '        kept = self.__dict__.setdefault("_names", [])\n'
            "        kept[:] = self._tools\n"
            "        return kept\n",
        ),
    )
    assert "Where:    at $[3]: expected true, got false" in message
    assert "Return a new list on every call" in message.split("Hint:")[1]
