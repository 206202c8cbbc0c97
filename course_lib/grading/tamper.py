"""The guard that runs inside the learner's kernel, around every check cell.

The grader calls three functions through silent kernel requests (the learner never sees them):

- ``install()`` right after the kernel starts, before any notebook cell: take a snapshot of the
  check machinery (every ``course_lib.checks`` module, the registry, the builtins, the stdlib
  helpers the checks use, and the IPython hooks that decide whether an error is shown);
- ``before_check(...)`` right before a check cell: put back whatever the notebook changed
  (so tampering is neutralised, and reported), spot answers taken from ``course_lib.reference``
  and objects whose ``__eq__`` claims to equal anything, then start a profiler that watches the
  check while it runs;
- ``after_check(...)`` right after the check cell: stop watching and say whether the *genuine*
  ``check()``, called from the check cell itself for this exercise, returned normally (it
  raises on every failure). The grader only counts a pass this guard saw, so hiding a failure
  (a custom exception handler, a patched ``showtraceback``, a silenced error message) earns
  nothing.

This is a best-effort defence inside a process the learner's code also runs in: it stops the
routes the course knows about (see the README's "Grading a class"), not a determined attacker
who studies this file.
"""

from __future__ import annotations

import builtins
import copy
import dis
import json
import sys
import threading
import types
from dataclasses import dataclass, field
from typing import Any

# Modules whose functions the checks lean on; replacing one of their functions is tampering.
HELPER_MODULES = (
    "json",
    "json.encoder",
    "json.decoder",
    "math",
    "random",
    "copy",
    "inspect",
    "typing",
    "re",
    "functools",
    "operator",
    "dataclasses",
    "enum",
    "types",
)
# IPython shell attributes that decide how a cell runs and whether its error is shown.
SHELL_METHODS = (
    "showtraceback",
    "_showtraceback",
    "showsyntaxerror",
    "run_cell",
    "run_cell_async",
    "run_code",
    "run_ast_nodes",
    "transform_cell",
    "transform_ast",
    "set_custom_exc",
)
CHECKS_PREFIX = "course_lib.checks"
REFERENCE_PREFIX = "course_lib.reference"
MAX_SCAN = 200  # values looked at per object when hunting for a rigged __eq__


class _Anything:
    """A fresh object nothing has a reason to equal: only a rigged ``__eq__`` says it does."""


@dataclass
class _ModuleState:
    module: types.ModuleType
    attributes: dict[str, Any]
    functions: dict[str, tuple]  # name -> (code, defaults, kwdefaults, closure contents)
    classes: dict[str, dict[str, Any]]
    data: dict[str, Any]  # containers, deep-copied


@dataclass
class _Snapshot:
    modules: dict[str, _ModuleState]
    module_objects: dict[str, types.ModuleType]
    builtins: dict[str, Any]
    helpers: dict[str, dict[str, Any]]
    registry: dict[str, tuple]
    shell: dict[str, Any]
    user_builtins: Any
    check: Any
    check_code: types.CodeType


@dataclass
class _Watch:
    """What the profiler saw during one check cell."""

    exercise: str
    allowed: frozenset[str]
    passed: bool = False
    cheats: list[str] = field(default_factory=list)


_state: dict[str, Any] = {}


def _shell():
    from IPython import get_ipython

    return get_ipython()


def _user_ns() -> dict:
    if "user_ns" not in _state:
        shell = _shell()
        _state["user_ns"] = shell.user_ns if shell is not None else vars(sys.modules["__main__"])
    return _state["user_ns"]


def _function_state(func: types.FunctionType) -> tuple:
    cells = tuple(_cell_contents(cell) for cell in (func.__closure__ or ()))
    return (func.__code__, func.__defaults__, func.__kwdefaults__, cells)


def _cell_contents(cell: types.CellType) -> Any:
    try:
        return cell.cell_contents
    except ValueError:  # an empty cell
        return None


def _module_state(module: types.ModuleType) -> _ModuleState:
    attributes = dict(vars(module))
    functions = {
        name: _function_state(value)
        for name, value in attributes.items()
        if isinstance(value, types.FunctionType)
    }
    classes = {
        name: dict(vars(value))
        for name, value in attributes.items()
        if isinstance(value, type) and value.__module__ == module.__name__
    }
    data = {
        name: _freeze(value)
        for name, value in attributes.items()
        if type(value) in (dict, list, set, tuple)
        and not name.startswith("__")
        and name != "EXERCISES"
    }
    return _ModuleState(module, attributes, functions, classes, data)


def _freeze(value: Any) -> Any:
    """A copy to compare against later: deep where possible, else one level deep."""
    try:
        return copy.deepcopy(value)
    except Exception:  # noqa: BLE001 (modules, locks and the like cannot be copied)
        return copy.copy(value)


def _shell_state(shell) -> dict[str, Any]:
    if shell is None:
        return {}
    return {
        "instance": {name: vars(shell).get(name) for name in SHELL_METHODS},
        "class": {name: getattr(type(shell), name, None) for name in SHELL_METHODS},
        "custom_exceptions": shell.custom_exceptions,
        "CustomTB": vars(shell).get("CustomTB"),
        "input_transformers_cleanup": list(shell.input_transformers_cleanup),
        "input_transformers_post": list(shell.input_transformers_post),
        "ast_transformers": list(shell.ast_transformers),
        "events": {name: list(cbs) for name, cbs in shell.events.callbacks.items()},
        "excepthook": sys.excepthook,
    }


def install() -> None:
    """Snapshot the check machinery; run once per kernel, before any notebook cell."""
    import course_lib.checks  # noqa: F401  (registers every exercise)
    from course_lib.checks import core

    modules = {
        name: module
        for name, module in sorted(sys.modules.items())
        if (name == CHECKS_PREFIX or name.startswith(CHECKS_PREFIX + "."))
        # Trusted checks (lessonNN) run in the grader, not here: nothing of theirs to guard.
        and not name.startswith(CHECKS_PREFIX + ".lesson")
    }
    helpers = {}
    for name in HELPER_MODULES:
        module = sys.modules.get(name) or __import__(name, fromlist=["_"])
        modules_callables = {
            key: value
            for key, value in vars(module).items()
            if callable(value) and not key.startswith("__")
        }
        helpers[name] = modules_callables
        modules[name] = module
    _state["snapshot"] = _Snapshot(
        modules={
            name: _module_state(m) for name, m in modules.items() if name.startswith("course")
        },
        module_objects=dict(modules),
        builtins=dict(vars(builtins)),
        helpers=helpers,
        registry={key: _exercise_state(value) for key, value in core.EXERCISES.items()},
        shell=_shell_state(_shell()),
        user_builtins=_user_ns().get("__builtins__"),
        check=core.check,
        check_code=core.check.__code__,
    )


def _exercise_state(spec: Any) -> tuple:
    return (spec, tuple(getattr(spec, name) for name in spec.__dataclass_fields__))


# --- verify and restore -------------------------------------------------------------------------


def _same(a: Any, b: Any) -> bool:
    """Structural equality that never calls a learner's ``__eq__``."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=False))
    if isinstance(a, (str, int, float, bool, type(None), frozenset, set)):
        return a == b
    return a is b


def restore() -> list[str]:
    """Put every part of the snapshot back; one line per thing that had been changed."""
    snap: _Snapshot = _state["snapshot"]
    changed: list[str] = []
    for name, module in snap.module_objects.items():
        if sys.modules.get(name) is not module:
            changed.append(f"sys.modules[{name!r}] was replaced")
            sys.modules[name] = module
    for name, state in snap.modules.items():
        changed += _restore_module(name, state)
    for module_name, functions in snap.helpers.items():
        module = snap.module_objects[module_name]
        for key, value in functions.items():
            if vars(module).get(key) is not value:
                changed.append(f"{module_name}.{key} was replaced")
                setattr(module, key, value)
    for key, value in snap.builtins.items():
        if vars(builtins).get(key) is not value:
            changed.append(f"builtins.{key} was replaced")
            setattr(builtins, key, value)
    user_ns = _user_ns()
    if user_ns.get("__builtins__") is not snap.user_builtins:
        changed.append("the notebook's __builtins__ was replaced")
        user_ns["__builtins__"] = snap.user_builtins
    changed += _restore_registry(snap)
    changed += _restore_shell(snap.shell)
    return changed


def _restore_module(name: str, state: _ModuleState) -> list[str]:
    changed = []
    namespace = vars(state.module)
    for key, value in state.attributes.items():
        if namespace.get(key, _Anything) is not value:
            changed.append(f"{name}.{key} was replaced")
            namespace[key] = value
    for key, original in state.functions.items():
        func = state.attributes[key]
        if _function_state(func) != original or any(
            a is not b for a, b in zip(_function_state(func)[3], original[3], strict=False)
        ):
            changed.append(f"{name}.{key} was changed in place")
            func.__code__, func.__defaults__, func.__kwdefaults__ = original[:3]
            for cell, contents in zip(func.__closure__ or (), original[3], strict=False):
                cell.cell_contents = contents
    for key, original in state.classes.items():
        cls = state.attributes[key]
        current = vars(cls)
        for attr, value in original.items():
            if attr in ("__dict__", "__weakref__"):
                continue
            if current.get(attr, _Anything) is not value:
                changed.append(f"{name}.{key}.{attr} was replaced")
                setattr(cls, attr, value)
        for attr in sorted(set(current) - set(original)):
            if callable(current[attr]):  # caches like __slotnames__ are data, not tampering
                changed.append(f"{name}.{key}.{attr} was added")
                delattr(cls, attr)
    for key, original in state.data.items():
        if not _same(namespace.get(key), original):
            changed.append(f"{name}.{key} was modified")
            namespace[key] = _freeze(original)
    return changed


def _restore_registry(snap: _Snapshot) -> list[str]:
    from course_lib.checks import core

    changed = []
    registry = core.EXERCISES
    for key, (spec, fields) in snap.registry.items():
        if registry.get(key) is not spec:
            changed.append(f"the check registered for exercise {key} was replaced")
            registry[key] = spec
        current = tuple(getattr(spec, name) for name in spec.__dataclass_fields__)
        if any(a is not b for a, b in zip(current, fields, strict=False)):
            changed.append(f"the check registered for exercise {key} was changed")
            for name, value in zip(spec.__dataclass_fields__, fields, strict=False):
                object.__setattr__(spec, name, value)
    return changed


def _restore_shell(original: dict[str, Any]) -> list[str]:
    shell = _shell()
    if shell is None or not original:
        return []
    changed = []
    for name, value in original["instance"].items():
        if vars(shell).get(name) is not value:
            changed.append(f"IPython's {name} was replaced")
            if value is None:
                vars(shell).pop(name, None)
            else:
                vars(shell)[name] = value
    for name, value in original["class"].items():
        if getattr(type(shell), name, None) is not value:
            changed.append(f"IPython's {type(shell).__name__}.{name} was replaced")
            setattr(type(shell), name, value)
    if shell.custom_exceptions != original["custom_exceptions"]:
        changed.append("a custom exception handler was installed (set_custom_exc)")
        shell.custom_exceptions = original["custom_exceptions"]
        if original["CustomTB"] is None:
            vars(shell).pop("CustomTB", None)
        else:
            shell.CustomTB = original["CustomTB"]
    for name in ("input_transformers_cleanup", "input_transformers_post", "ast_transformers"):
        current = getattr(shell, name)
        added = [item for item in current if item not in original[name] and _is_learners(item)]
        if added:
            changed.append(f"a code transformer was added to IPython's {name}")
            current[:] = [item for item in current if item not in added]
    for event, callbacks in shell.events.callbacks.items():
        added = [cb for cb in callbacks if _is_learners(cb)]
        if added:
            changed.append(f"a callback was registered on IPython's {event!r} event")
            callbacks[:] = [cb for cb in callbacks if cb not in added]
    if sys.excepthook is not original["excepthook"]:
        changed.append("sys.excepthook was replaced")
        sys.excepthook = original["excepthook"]
    return changed


def _is_learners(obj: Any) -> bool:
    """Defined in the notebook itself (not by IPython or a library it loads)."""
    func = getattr(obj, "__func__", obj)
    module = getattr(func, "__module__", None) or getattr(type(func), "__module__", None)
    return module == _user_ns().get("__name__", "__main__")


# --- answers that are not the learner's own -----------------------------------------------------


def _reference_name(obj: Any) -> str | None:
    """``course_lib.reference``'s name for ``obj`` if it comes from there."""
    if isinstance(obj, types.ModuleType):
        name = obj.__name__
        return name if name.startswith(REFERENCE_PREFIX) else None
    if not isinstance(obj, (type, types.FunctionType, types.MethodType)):
        return None  # instances (a registry the lesson made) are data, not borrowed code
    module = getattr(obj, "__module__", None)
    if isinstance(module, str) and module.startswith(REFERENCE_PREFIX):
        return getattr(obj, "__qualname__", None) or getattr(obj, "__name__", "?")
    return None


def _static_cheats(targets: list[str], source: str, allowed: frozenset[str]) -> list[str]:
    """Targets that *are* reference objects, and reference names the exercise cell uses."""
    import ast

    user_ns = _user_ns()
    cheats = []
    for name in targets:
        ref = _reference_name(user_ns.get(name))
        if ref and ref.split(".")[0] not in allowed:
            cheats.append(
                f"`{name}` is course_lib.reference's {ref}, not your own code: this exercise "
                "asks you to write it yourself"
            )
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return cheats
    for node in ast.walk(tree):
        used = None
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith(REFERENCE_PREFIX):
            names = [alias.name for alias in node.names if alias.name not in allowed]
            used = f"from {node.module} import {', '.join(names)}" if names else None
        elif isinstance(node, ast.Import):
            names = [a.name for a in node.names if a.name.startswith(REFERENCE_PREFIX)]
            used = f"import {', '.join(names)}" if names and "*" not in allowed else None
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            ref = _reference_name(user_ns.get(node.id))
            if ref and ref.split(".")[0] not in allowed and "*" not in allowed:
                used = f"{node.id} (course_lib.reference's {ref})"
        if used:
            cheats.append(
                f"the exercise cell uses {used}: answers must be your own code, not "
                "course_lib.reference's"
            )
    return sorted(set(cheats), key=cheats.index)


def _rigged(value: Any, budget: list[int] | None = None) -> str | None:
    """The class of an object inside ``value`` whose ``__eq__`` says it equals anything."""
    budget = budget if budget is not None else [MAX_SCAN]
    budget[0] -= 1
    if budget[0] < 0:
        return None
    kind = type(value)
    if kind in (str, int, float, bool, type(None), bytes):
        return None
    if kind in (list, tuple, set, frozenset):
        return next((found for item in value if (found := _rigged(item, budget))), None)
    if kind is dict:
        items = [*value.keys(), *value.values()]
        return next((found for item in items if (found := _rigged(item, budget))), None)
    owner = next((cls for cls in kind.__mro__ if "__eq__" in vars(cls)), object)
    if owner.__module__ != _user_ns().get("__name__", "__main__"):
        return None
    try:
        claims = value == _Anything() or not (value != _Anything())
    except Exception:
        return None
    return kind.__qualname__ if claims is True else None


# --- the watch around one check cell ------------------------------------------------------------


_RETURN_OPS = {dis.opmap[name] for name in ("RETURN_VALUE", "RETURN_CONST") if name in dis.opmap}


def _returned_normally(frame: types.FrameType) -> bool:
    """True when the frame left through a ``return``, False when an exception unwound it (a
    profiler sees both as a "return" event; the last instruction tells them apart)."""
    code = frame.f_code.co_code
    return 0 <= frame.f_lasti < len(code) and code[frame.f_lasti] in _RETURN_OPS


def _make_profiler(watch: _Watch, snap: _Snapshot):
    user_ns = _user_ns()

    def profile(frame, event, arg):
        if event == "call":
            back = frame.f_back
            if back is None or back.f_globals is not user_ns or frame.f_globals is user_ns:
                return
            module = frame.f_globals.get("__name__", "")
            # Methods a dataclass generates (``__init__``, ``__eq__``) hold no logic to borrow:
            # building a reference result object is not answering with reference code.
            if module.startswith(REFERENCE_PREFIX) and frame.f_code.co_filename != "<string>":
                qualname = getattr(frame.f_code, "co_qualname", frame.f_code.co_name)
                if qualname.split(".")[0] not in watch.allowed and "*" not in watch.allowed:
                    watch.cheats.append(
                        f"your code called course_lib.reference's {qualname} while the check "
                        "ran: answers must be your own code"
                    )
        elif event == "return":
            if frame.f_code is snap.check_code:
                cell = frame.f_back
                if (
                    cell is not None
                    and cell.f_globals is user_ns
                    and cell.f_code.co_name == "<module>"
                    and frame.f_locals.get(frame.f_code.co_varnames[0]) == watch.exercise
                    and _returned_normally(frame)
                ):
                    watch.passed = True
            elif (
                frame.f_globals is user_ns
                and arg is not None
                and frame.f_code.co_name != "<module>"
            ):
                found = _rigged(arg)
                if found:
                    watch.cheats.append(
                        f"your code returned a {found} whose __eq__ claims to equal anything: "
                        "checks compare values as JSON, and a rigged __eq__ earns nothing"
                    )

    return profile


def before_check(exercise: str, targets: list[str], source: str, allowed: list[str]) -> str:
    """Restore the machinery, look for borrowed or rigged answers, start watching. JSON out."""
    snap: _Snapshot = _state["snapshot"]
    restored = restore()
    user_ns = _user_ns()
    if "check" in user_ns and user_ns["check"] is not snap.check:
        restored.append("the name `check` was rebound (the check cell imports the real one)")
    allowed_set = frozenset(allowed)
    cheats = _static_cheats(targets, source, allowed_set)
    for name in targets:
        found = _rigged(user_ns.get(name))
        if found:
            cheats.append(
                f"`{name}` holds a {found} whose __eq__ claims to equal anything: checks compare "
                "values as JSON, and a rigged __eq__ earns nothing"
            )
    watch = _Watch(exercise, allowed_set)
    profiler = _make_profiler(watch, snap)
    _state["watch"] = (watch, profiler)
    threading.setprofile(profiler)
    sys.setprofile(profiler)
    return json.dumps({"restored": restored, "cheats": cheats})


def after_check(exercise: str) -> str:
    """Stop watching; report whether the genuine check passed and what changed meanwhile."""
    current = sys.getprofile()
    sys.setprofile(None)
    threading.setprofile(None)
    watch, profiler = _state.pop("watch", (None, None))
    if watch is None or watch.exercise != exercise:
        return json.dumps({"passed": False, "cheats": ["the grader's watch was lost"]})
    cheats = list(dict.fromkeys(watch.cheats))
    if current is not profiler:
        cheats.append("the grader's watch was switched off while the check ran (sys.setprofile)")
    changed = restore()
    cheats += [f"while the check ran, {line}" for line in changed]
    return json.dumps({"passed": watch.passed, "cheats": cheats})
