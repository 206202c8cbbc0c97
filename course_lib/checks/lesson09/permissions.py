"""Exercise 09.2, ``may_use(role, tags) -> bool``: the permissions policy.

A tool's tags hold a category and the permissions it needs (``PERMISSIONS``); a role may use a
tool when it holds every permission the tool needs, and a tool that names none is refused to
everyone (deny by default). An unknown role is a configuration mistake: ``ValueError``. Rules,
the case that breaks each, and the hint that names it: see ``RULES``.
"""

from __future__ import annotations

from random import Random

from course_lib.capstone.policies import CATEGORIES, PERMISSIONS, ROLES, TOOL_TAGS
from course_lib.checks.catalog import Catalog
from course_lib.checks.compare import HintText, Plain, fail, hidden_rng
from course_lib.checks.core import Rule, exercise
from course_lib.checks.learner import Learner, Reply, raise_learner_error
from course_lib.checks.lesson09._policy_oracles import NOTEBOOK, expected_may_use

TEXTS = Catalog() | {
    "case": "may_use({role!r}, {tags})",
    "raises": "ValueError naming {role!r}",
    "returned": "returned {value}",
    "summary": "{visible} visible and {hidden} hidden cases",
}

# (role, tags, the collection they come in): the visible cases, in the order the check runs them.
VISIBLE = (
    ("customer", ("products", "read"), "tuple"),
    ("staff", ("internal", "notes"), "frozenset"),
    ("customer", ("internal", "notes"), "frozenset"),
    ("customer", ("orders", "read", "write"), "list"),
    ("staff", ("orders",), "list"),
    ("staff", (), "list"),
    ("admin", ("read",), "list"),
)


def tags_source(tags: tuple[str, ...], shape: str) -> str:
    """The tags as Python source in the given collection (sorted inside sets, so every run
    shows the same text)."""
    if shape in ("tuple", "list"):
        return repr((tuple if shape == "tuple" else list)(tags))
    return f"{shape}({sorted(tags)!r})"


def case_label(role: str, tags: tuple[str, ...], shape: str) -> str:
    return TEXTS.text("case", role=role, tags=tags_source(tags, shape))


FIRST = case_label(*VISIBLE[0])
RULES = (
    Rule("bool", "Return `True` or `False` (a bool, not a set)", case=FIRST, hint="bool"),
    Rule("iterables", "`tags` may be any collection of strings: a tuple (as in `TOOL_TAGS`), a "
         "list, a set or a frozenset (as a registry keeps them)", case=FIRST, hint="iterables"),
    Rule("categories", 'Only the tags in `PERMISSIONS` are permissions; a category tag such as '
         '"orders" neither grants nor refuses anything', case=FIRST, hint="categories"),
    Rule("all_held", 'The role must hold every permission the tool needs: a tool tagged "read" '
         'and "write" is refused to a customer', case=case_label(*VISIBLE[3]), hint="all_held"),
    Rule("deny_default", "A tool that needs no permission at all is refused to every role",
         case=case_label(*VISIBLE[4]), hint="deny_default"),
    Rule("unknown_role", "An unknown role (not in `ROLES`) raises `ValueError`",
         case=case_label(*VISIBLE[6]), hint="unknown_role"),
    Rule("names_role", "whose message names the role: a role comes from your program, not from "
         "the model, so an unknown one is a configuration mistake", case=case_label(*VISIBLE[6]),
         hint="names_role"),
)  # fmt: skip

HINTS = Catalog() | {
    "bool": "Return True or False (bool(...) around your test); this one returned the type {kind}.",
    "iterables": (
        "tags can be any collection of strings (TOOL_TAGS holds tuples, a registry keeps "
        "frozensets): turn it into a set first, set(tags), before using set operations."
    ),
    "shape": (
        "The same tags as a tuple get the right answer, as a {shape} they do not: tags can be "
        "any collection of strings (a registry keeps frozensets), so read them the same way "
        "whatever their type, for example set(tags)."
    ),
    "categories": (
        "Only the tags in PERMISSIONS are permissions; a category tag such as 'products' neither "
        "grants nor refuses anything. Compare PERMISSIONS & set(tags) with the role's "
        "permissions, not every tag."
    ),
    "all_held": (
        "The tool needs {needed}; the role holds {held}. It may use the tool only if it holds "
        "every permission the tool needs, not just one of them."
    ),
    "deny_default": (
        "This tool names no permission at all, so it is refused to everyone (deny by default). "
        "Careful: every permission of an empty set is held, so a subset test alone says yes."
    ),
    "too_strict": "The tool needs {needed} and the role holds all of it: it may use the tool.",
    "unknown_role": (
        "{role!r} is not a role in ROLES: raise ValueError (a configuration mistake must not "
        "pass silently as a refusal)."
    ),
    "value_error": "Raise ValueError for an unknown role, not {kind}.",
    "names_role": "Name the unknown role in the ValueError's message, e.g. unknown role {role!r}.",
}
hint = HINTS.hint


def explain_wrong(
    learner: Learner, role: str, tags: tuple[str, ...], shape: str, expected: bool
) -> HintText:
    """The hint for a wrong answer. Refusing what the role may use is blamed on the type of
    ``tags`` only when the same tags as a tuple are accepted, and on the category tags only
    when the same permissions without them are accepted (asked again to see)."""
    needed = sorted(PERMISSIONS & set(tags))
    if not needed:
        return hint("deny_default")
    if not expected:
        return hint("all_held", needed=needed, held=sorted(ROLES[role]))
    if shape != "tuple":
        as_tuple = learner.attempt("may_use", role, learner.source(tags_source(tags, "tuple")))
        if as_tuple.value is True:
            return hint("shape", shape=shape)
    if set(tags) - PERMISSIONS:
        again = learner.attempt("may_use", role, learner.source(tags_source(needed, shape)))
        if again.value is True:
            return hint("categories")
    return hint("too_strict", needed=needed)


def hidden_cases(rng: Random, count: int = 16) -> list[tuple[str, tuple[str, ...], str]]:
    """Every tool's tags as TOOL_TAGS gives them, then random mixes of categories and
    permissions (some with none), as lists, sets and frozensets; and a role that is wrong."""
    cases = [(role, tags, "tuple") for tags in TOOL_TAGS.values() for role in sorted(ROLES)]
    rng.shuffle(cases)
    cases = cases[: count // 2]
    for _ in range(count // 2):
        tags = rng.sample(sorted(PERMISSIONS), rng.randint(0, 2)) + rng.sample(CATEGORIES, 1)
        shape = rng.choice(("list", "set", "frozenset"))
        cases.append((rng.choice(sorted(ROLES)), tuple(tags), shape))
    cases.append((rng.choice(("Staff", "guest", "customer ")), ("read",), "list"))
    # An unknown role is a mistake whatever the tool needs, even nothing at all.
    cases.append((rng.choice(("visitor", "admin ", "CUSTOMER")), (rng.choice(CATEGORIES),),
                  "tuple"))  # fmt: skip
    return cases


EXCEPTION_HINTS = [
    (lambda r: r.raised_a("TypeError") or r.raised_a("AttributeError"), hint("iterables"))
]


@exercise("09.2", notebook=NOTEBOOK, title="may_use", points=2, rules=RULES, hints=HINTS)
def check_may_use(learner: Learner) -> str:
    hidden = hidden_cases(hidden_rng("09.3"))  # the seed of its first number: same cases
    for role, values, shape in [*VISIBLE, *hidden]:
        case = case_label(role, values, shape)
        got = learner.attempt("may_use", role, learner.source(tags_source(values, shape)))
        if role not in ROLES:
            expect_value_error(case, role, got)
            continue
        if got.raised:
            raise_learner_error(case, got, EXCEPTION_HINTS)
        expected = expected_may_use(role, values)
        if got.type != "bool":
            shown = Plain(got.data.get("repr", "")) if got.value is None else got.value
            fail(case, expected, shown, hint("bool", kind=got.type))
        if got.value != expected:
            fail(case, expected, got.value, explain_wrong(learner, role, values, shape, expected))
    return TEXTS.text("summary", visible=len(VISIBLE), hidden=len(hidden))


def expect_value_error(case: str, role: str, got: Reply) -> None:
    __tracebackhide__ = True
    expected = Plain(TEXTS.text("raises", role=role))
    if not got.raised:
        shown = Plain(TEXTS.text("returned", value=got.data.get("repr", got.value)))
        fail(case, expected, shown, hint("unknown_role", role=role))
    if not got.raised_a("ValueError"):
        fail(case, expected, Plain(got.raised_text), hint("value_error", kind=got.type))
    if role not in got.message:
        fail(case, expected, Plain(got.raised_text), hint("names_role", role=role))
