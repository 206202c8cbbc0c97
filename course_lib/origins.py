"""Where a target's code was written, reported by the driver so that the grader can judge it.

The driver runs in the learner's kernel and reports facts, never a verdict: for a target the
check is about to call, the file of its own code, and every object of ``course_lib`` its code
reaches (through the globals its functions read, their closures and defaults, its class's
methods and bases, the containers and the notebook's objects among them, and code kept where a
name does not show it: on another module, on an object of a library or of the course, in
``builtins``). The grader decides what is allowed (``course_lib.grading.provenance``): a
target that *is* the course's answer, found however it was found (``gc.get_objects()``, a module
name decoded from bytes), or that calls it, shows here with a ``course_lib`` file. A notebook
that replaces the driver can forge this report, as it can forge any answer; docs/grading.md says
what is left then.
"""

from __future__ import annotations

import dis
import functools
import types
from typing import Any

NOTEBOOK_MODULE = "__main__"  # what IPython names the notebook's module
COURSE_PACKAGE = "course_lib"
MAX_OBJECTS = 3_000  # objects looked at for one target
MAX_REACHED = 40  # course_lib objects reported for one target
MAX_ITEMS = 200  # items of one container looked at
GLOBAL_READS = ("LOAD_GLOBAL", "LOAD_NAME")


def origins(value: Any) -> dict[str, Any]:
    """``module`` and ``file`` of the value itself; ``files``: the source files of the
    notebook's functions its code reaches (a function rebuilt from another's code keeps that
    code's file); ``reached``: the ``course_lib`` objects its code can reach (``{"module",
    "name", "file"}`` each)."""
    walk = _Walk()
    walk.run(value)
    own = _where(value)
    return {
        "module": own[0],
        "file": own[1],
        "files": walk.files[:MAX_REACHED],
        "reached": walk.reached[:MAX_REACHED],
    }


def _where(value: Any) -> tuple[str, str]:
    """The module of a function or class (of a bound method, a partial, a wrapper), and the
    source file of a function: what it says about itself. A class has no file of its own (a
    dataclass's ``__init__`` is written from a string)."""
    try:
        for _ in range(10):
            if isinstance(value, types.MethodType | staticmethod | classmethod):
                value = value.__func__
            elif isinstance(value, functools.partial):
                value = value.func
            elif not _is_code_owner(value) and hasattr(value, "__wrapped__"):
                value = value.__wrapped__
            else:
                break
        module = _text(getattr(value, "__module__", "")) if _is_code_owner(value) else ""
    except Exception:  # noqa: BLE001 (a learner's object may raise anything)
        return "", ""
    if isinstance(value, types.FunctionType):
        return module, value.__code__.co_filename
    return module, ""


def _is_code_owner(value: Any) -> bool:
    return isinstance(value, types.FunctionType | type | types.BuiltinFunctionType)


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


class _Walk:
    def __init__(self) -> None:
        self.seen: set[int] = set()
        self.reached: list[dict[str, str]] = []
        self.files: list[str] = []
        self.left = MAX_OBJECTS

    def run(self, value: Any) -> None:
        stack = [value]
        while stack and self.left > 0:
            item = stack.pop()
            if id(item) in self.seen:
                continue
            self.seen.add(id(item))
            self.left -= 1
            try:
                stack.extend(self._inside(item))
            except Exception:  # noqa: BLE001 (a learner's object may raise anything: skip it)
                continue

    def _inside(self, item: Any) -> list[Any]:
        """What to look at next from ``item``; a ``course_lib`` object is reported instead."""
        if isinstance(item, types.ModuleType):
            self._report_module(item)
            return []
        if isinstance(item, types.MethodType | staticmethod | classmethod):
            return [item.__func__]
        if isinstance(item, functools.partial):
            return [item.func, *item.args, *item.keywords.values()]
        if isinstance(item, property):
            return [item.fget, item.fset, item.fdel]
        if isinstance(item, types.FunctionType):
            return self._function(item)
        if isinstance(item, type):
            return self._class(item)
        if isinstance(item, list | tuple | set | frozenset):
            return list(item)[:MAX_ITEMS]
        if isinstance(item, dict):
            return list(item.values())[:MAX_ITEMS]
        found = [item.__wrapped__] if hasattr(item, "__wrapped__") else []  # lru_cache, wraps
        kind = type(item)
        fields = list(_own_dict(item).values())[:MAX_ITEMS]
        if self._course(kind):  # the lesson's registry: only code kept on it (``registry.v``)
            found += [value for value in fields if _is_code(value)]
        elif _module_of(kind) == NOTEBOOK_MODULE:
            found += [kind, *fields]
        else:  # a library's object (``SimpleNamespace``): code kept on it. Not a module's
            # names kept there (the key read is not known: all of them would be reached, and
            # every later exercise with them); the grader flags that from the source.
            found += [value for value in fields if _is_code(value)]
        return found

    def _function(self, function: types.FunctionType) -> list[Any]:
        if self._course(function):
            return []
        code = function.__code__
        if not _is_notebook_code(function):
            return []
        if code.co_filename not in self.files:
            self.files.append(code.co_filename)
        names = _globals_read(code)
        scope = function.__globals__
        found: list[Any] = []
        builtin = _own_dict(scope.get("__builtins__"))
        for name in sorted(names):
            if name in scope:
                found.append(scope[name])
            elif _module_of(builtin.get(name)) not in ("", "builtins"):  # put in builtins
                found.append(builtin[name])
        for cell in function.__closure__ or ():
            try:
                found.append(cell.cell_contents)
            except ValueError:  # an empty cell
                continue
        found += list(function.__defaults__ or ())
        found += list((function.__kwdefaults__ or {}).values())
        wrapped = function.__dict__.get("__wrapped__")
        if wrapped is not None:
            found.append(wrapped)
        # A module the function reads: the attributes of it that the function names.
        modules = [item for item in found if isinstance(item, types.ModuleType)]
        attributes = _names_used(code)
        for module in modules:
            if _module_name(module).startswith(COURSE_PACKAGE):
                found += [getattr(module, n) for n in sorted(attributes) if hasattr(module, n)]
            else:  # code another module was given (``json.v = ...``), not its own
                names_of = _own_dict(module)
                found += [
                    names_of[n]
                    for n in sorted(attributes)
                    if _is_code(names_of.get(n)) and _foreign(names_of[n], module)
                ]
        return found

    def _class(self, kind: type) -> list[Any]:
        if self._course(kind):
            return []
        found: list[Any] = []
        for klass in kind.__mro__:
            if klass is object:
                continue
            if _module_of(klass) != NOTEBOOK_MODULE:
                found.append(klass)
                continue
            found += list(vars(klass).values())
        return found

    def _course(self, value: Any) -> bool:
        """Report ``value`` if it is ``course_lib``'s own; say whether it was."""
        module = _module_of(value)
        if not module.startswith(COURSE_PACKAGE):
            return False
        name = _text(getattr(value, "__qualname__", "")) or _text(getattr(value, "__name__", ""))
        self._add(module, name, _file_of(value))
        return True

    def _report_module(self, module: types.ModuleType) -> None:
        name = _module_name(module)
        if name.startswith(COURSE_PACKAGE):
            self._add(name, "", _text(getattr(module, "__file__", "")))

    def _add(self, module: str, name: str, file: str) -> None:
        entry = {"module": module, "name": name, "file": file}
        if entry not in self.reached:
            self.reached.append(entry)


def _own_dict(value: Any) -> dict:
    """``value``'s own names (a module's, an instance's, a dict itself), read without running
    any of its code (no ``__getattr__``), or ``{}``."""
    if isinstance(value, dict):
        return value
    try:
        names = object.__getattribute__(value, "__dict__")
    except Exception:  # noqa: BLE001 (no __dict__, or a learner's object that raises)
        return {}
    return names if isinstance(names, dict) else {}


def _is_code(value: Any) -> bool:
    return _is_code_owner(value) or isinstance(
        value, types.MethodType | functools.partial | types.ModuleType
    )


def _foreign(value: Any, module: types.ModuleType) -> bool:
    """Whether ``value`` was defined outside ``module`` and outside the library it belongs to
    (``json.v = reference_validate``; not ``json.JSONDecodeError``)."""
    if isinstance(value, types.ModuleType):
        return _module_name(value).startswith(COURSE_PACKAGE)
    home = _module_of(getattr(value, "__func__", value))
    package = _module_name(module).split(".")[0]
    return bool(home) and home.split(".")[0] != package


def _is_notebook_code(function: types.FunctionType) -> bool:
    """Code written in the notebook (its module is the notebook's), whose globals are worth
    following; a function of a library is not walked into."""
    return _module_of(function) == NOTEBOOK_MODULE


def _module_of(value: Any) -> str:
    try:
        return _text(getattr(value, "__module__", ""))
    except Exception:  # noqa: BLE001
        return ""


def _module_name(module: types.ModuleType) -> str:
    return _text(getattr(module, "__name__", ""))


def _file_of(value: Any) -> str:
    function = getattr(value, "__func__", value)
    code = getattr(function, "__code__", None)
    if isinstance(code, types.CodeType):
        return code.co_filename
    return ""


def _globals_read(code: types.CodeType, depth: int = 0) -> set[str]:
    """The global names the code (and the code nested in it) reads: not its attribute names,
    which ``co_names`` mixes in (``self.registry`` is no global ``registry``)."""
    names = {
        instruction.argval
        for instruction in dis.get_instructions(code)
        if instruction.opname in GLOBAL_READS and isinstance(instruction.argval, str)
    }
    if depth < 10:
        for const in code.co_consts:
            if isinstance(const, types.CodeType):
                names |= _globals_read(const, depth + 1)
    return names


def _names_used(code: types.CodeType, depth: int = 0) -> set[str]:
    names = set(code.co_names)
    if depth < 10:
        for const in code.co_consts:
            if isinstance(const, types.CodeType):
                names |= _names_used(const, depth + 1)
    return names
