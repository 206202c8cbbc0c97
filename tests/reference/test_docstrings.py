"""Descriptions from Google, NumPy and reST docstrings."""

from course_lib.reference import inspect_function
from course_lib.reference.docstrings import parse_docstring


def google(city: str, unit: str = "c", days: int = 1) -> str:
    """Forecast the weather for a city.

    Uses the national service; results are cached for ten minutes.

    Args:
        city (str): City name in any language,
            e.g. 北京 or Paris.
        unit: Temperature unit, "c" or "f".
        days (int, optional): How many days ahead.

    Returns:
        str: The forecast as text.

    Raises:
        KeyError: If the city is unknown.
    """
    return city


def numpy_style(a: int, b: int) -> int:
    """Add two integers.

    Parameters
    ----------
    a : int
        The first addend,
        wrapped onto two lines.
    b : int
        The second addend.

    Returns
    -------
    int
        The sum.
    """
    return a + b


def rest_style(path: str, strict: bool = False) -> str:
    """Read a file.

    Reads it as UTF-8.

    :param path: Where the file is,
        relative to the project.
    :param strict: Fail on decoding errors.
    :type strict: bool
    :returns: The text.
    :raises OSError: When the file cannot be read.
    """
    return path


def test_google_description_keeps_summary_and_body_but_not_sections():
    spec = inspect_function(google)
    assert spec.description == (
        "Forecast the weather for a city.\n\n"
        "Uses the national service; results are cached for ten minutes."
    )
    assert "Returns" not in spec.description and "KeyError" not in spec.description


def test_google_multiline_and_typed_parameter_descriptions():
    properties = inspect_function(google).parameters["properties"]
    assert properties["city"]["description"] == "City name in any language, e.g. 北京 or Paris."
    assert properties["unit"]["description"] == 'Temperature unit, "c" or "f".'
    assert properties["days"]["description"] == "How many days ahead."


def test_numpy_style():
    spec = inspect_function(numpy_style)
    assert spec.description == "Add two integers."
    assert spec.param_descriptions == {
        "a": "The first addend, wrapped onto two lines.",
        "b": "The second addend.",
    }


def test_rest_style():
    spec = inspect_function(rest_style)
    assert spec.description == "Read a file.\n\nReads it as UTF-8."
    assert spec.param_descriptions == {
        "path": "Where the file is, relative to the project.",
        "strict": "Fail on decoding errors.",
    }


def test_undocumented_parameters_are_fine():
    def f(x: int, y: int) -> None:
        """Only a summary.

        Args:
            x: The x.
        """

    properties = inspect_function(f).parameters["properties"]
    assert properties["x"]["description"] == "The x."
    assert properties["y"] == {"type": "integer"}


def test_missing_or_blank_docstring_gives_empty_description():
    assert parse_docstring(None).description == ""
    assert parse_docstring("   \n ").params == {}

    def f(x: int) -> None: ...

    assert inspect_function(f).description == ""


def test_paragraph_breaks_inside_a_parameter_description_survive():
    info = parse_docstring(
        """Do.

        Args:
            mode: First paragraph
                continues here.

                Second paragraph.
        """
    )
    assert info.params["mode"] == "First paragraph continues here.\n\nSecond paragraph."
