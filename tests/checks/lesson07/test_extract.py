"""Exercise 07.4: the solution passes; a wrong extract fails on the rule it breaks."""

from __future__ import annotations

import json

import pytest
from pydantic import ValidationError
from rules import assert_breaks_rule
from solution_cells import rejected

from course_lib.checks import NotDoneYet, evaluate
from course_lib.checks.lesson07.extract import cases, validation_problem
from course_lib.reference import to_strict
from lesson07.notebook import solution


def extract_with(
    *,
    model=True,
    system=False,
    schema="parse",
    returns="parsed",
    validate=True,
    wrap=True,
    names_model=True,
):
    """An extract with one chosen mistake (the defaults give a correct one)."""
    extraction_error = solution("ExtractionError")

    def extract(client, text, schema_model, **kwargs):
        used_model = kwargs["model"] if model else "local-toy"
        messages = [{"role": "user", "content": text}]
        if system:
            messages.insert(0, {"role": "system", "content": "Extract the data."})
        if schema == "parse":
            ask = client.chat.completions.parse
            response_format = schema_model
        else:
            ask = client.chat.completions.create
            raw = schema_model.model_json_schema()
            response_format = {
                "type": "json_schema",
                "json_schema": {
                    "name": schema_model.__name__,
                    "schema": to_strict(raw) if schema == "to_strict" else raw,
                    "strict": True,
                },
            }
        try:
            reply = ask(model=used_model, messages=messages, response_format=response_format)
            message = reply.choices[0].message
            if returns == "dict":
                return json.loads(message.content)
            if not validate:
                return schema_model.model_construct(**json.loads(message.content))
            if schema != "parse":
                return schema_model.model_validate_json(message.content)
            return message.parsed
        except ValidationError as error:
            if not wrap:
                raise
            if not names_model:  # says that it failed, not what failed
                raise extraction_error("The reply does not fit the schema.") from error
            raise extraction_error(
                f"The reply does not fit {schema_model.__name__}: {error}"
            ) from error

    return extract


def test_the_solution_passes_every_text():
    assert evaluate("07.4", solution("extract")) == "Exercise 07.4 passed: extract (9 texts)."


def test_the_helper_without_mistakes_passes():
    assert evaluate("07.4", extract_with()).startswith("Exercise 07.4 passed")


def test_a_strict_schema_made_with_lesson_06s_to_strict_and_validated_by_hand_passes():
    assert evaluate("07.4", extract_with(schema="to_strict")).startswith("Exercise 07.4 passed")


def test_the_cases_hold_replies_that_validate_and_replies_that_do_not():
    scripted = [reply for _, _, reply in cases() if reply is not None]
    assert validation_problem("Person", scripted[0]) == ["age"]
    assert validation_problem("Person", scripted[1]) == ["city", "age"]
    assert validation_problem("Trip", scripted[2]) == []  # not JSON at all: no field to name
    assert validation_problem("Person", '{"name": "张三", "city": "北京", "age": 30}') is None


# One wrong answer per rule of the contract, each breaking that rule alone.
WRONG_BY_RULE = {
    "07.4": {
        "model": extract_with(model=False),
        "messages": extract_with(system=True),
        "strict_schema": extract_with(schema="pydantic's own"),
        "instance": extract_with(returns="dict"),
        "validate": extract_with(schema="to_strict", validate=False),
        "wrap": extract_with(wrap=False),
        "message": extract_with(names_model=False),
    }
}


@pytest.mark.parametrize("rule", sorted(WRONG_BY_RULE["07.4"]))
def test_a_wrong_extract_breaking_one_rule_gets_that_rules_hint(rule):
    assert_breaks_rule("07.4", rule, WRONG_BY_RULE["07.4"][rule])


def test_trusting_the_json_is_told_it_skipped_validation():
    message = rejected("07.4", WRONG_BY_RULE["07.4"]["validate"])
    assert 'with the reply \'{"name": "张三", "city": "北京", "age": "thirty"}\'' in message
    assert "Expected: ExtractionError naming Person and the field(s) age" in message
    assert "model_construct or building the object by hand skips validation" in message


def test_pydantics_own_schema_sent_as_strict_is_told_why_strict_mode_refused_it():
    message = rejected("07.4", WRONG_BY_RULE["07.4"]["strict_schema"])
    assert "model_json_schema() leaves objects open" in message
    assert "'additionalProperties' is required to be supplied and to be false" in message


def test_letting_pydantics_error_through_is_told_to_wrap_it():
    message = rejected("07.4", WRONG_BY_RULE["07.4"]["wrap"])
    assert "Got:      ValidationError: 1 validation error for Person" in message
    assert "raise ExtractionError(...) from it" in message


def test_an_error_that_does_not_name_the_model_is_told_what_to_name():
    message = rejected("07.4", WRONG_BY_RULE["07.4"]["message"])
    assert "should name the schema model (Person) and the fields that failed (age)" in message


def test_returning_a_dict_is_told_to_return_the_model():
    message = rejected("07.4", WRONG_BY_RULE["07.4"]["instance"])
    assert "Expected: an instance of Person" in message and "Got:      a returned dict" in message


def test_json_object_mode_is_told_it_does_not_follow_the_schema():
    def extract(client, text, schema_model, *, model):
        reply = client.chat.completions.create(
            model=model,
            messages=[{"role": "user", "content": text}],
            response_format={"type": "json_object"},
        )
        return schema_model.model_validate_json(reply.choices[0].message.content)

    assert '"json_object" promises JSON, not your schema' in rejected("07.4", extract)


def test_a_forced_tool_is_told_it_works_but_response_format_is_asked():
    def extract(client, text, schema_model, *, model):
        tool = {
            "type": "function",
            "function": {
                "name": "record",
                "parameters": to_strict(schema_model.model_json_schema()),
            },
        }
        reply = client.chat.completions.create(
            model=model,
            messages=[{"role": "user", "content": text}],
            tools=[tool],
            tool_choice={"type": "function", "function": {"name": "record"}},
        )
        arguments = reply.choices[0].message.tool_calls[0].function.arguments
        return schema_model.model_validate_json(arguments)

    assert "A forced tool gets JSON too" in rejected("07.4", extract)


def test_its_own_stub_is_not_done_yet():
    def extract(client, text, schema_model, *, model):
        raise NotImplementedError("Exercise 07.4: parse with response_format=schema_model ...")

    with pytest.raises(NotDoneYet):
        evaluate("07.4", extract)
