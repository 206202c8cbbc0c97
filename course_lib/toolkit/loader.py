"""Imports ``my_toolkit.lessonNN`` from the sources the toolkit wrote (or the grader sent),
whatever else ``sys.path`` holds: a ``my_toolkit`` installed with pip is not the one the course
means while a lesson runs. A module whose source changed is imported afresh; an unchanged one
stays, so that its classes stay the same objects from cell to cell."""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import linecache
import sys
from typing import Any

from course_lib.toolkit.export import PACKAGE


class SourceFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds ``my_toolkit`` and its lesson modules in ``sources`` (name -> (source, filename))."""

    def __init__(self) -> None:
        self.sources: dict[str, tuple[str, str]] = {PACKAGE: ("", f"<{PACKAGE}>")}

    def find_spec(self, name: str, path: Any = None, target: Any = None):
        if name not in self.sources:
            return None
        return importlib.util.spec_from_loader(
            name, self, origin=self.sources[name][1], is_package=name == PACKAGE
        )

    def create_module(self, spec):  # the default module
        return None

    def exec_module(self, module) -> None:
        source, filename = self.sources[module.__name__]
        module.__file__ = filename
        lines = source.splitlines(keepends=True)
        linecache.cache[filename] = (len(source), None, lines, filename)  # for tracebacks
        exec(compile(source, filename, "exec", dont_inherit=True), module.__dict__)


FINDER = SourceFinder()


def install(sources: dict[str, tuple[str, str]]) -> None:
    """Make ``sources`` importable; forget the modules whose source changed."""
    if FINDER not in sys.meta_path:
        sys.meta_path.insert(0, FINDER)
    package = sys.modules.get(PACKAGE)
    if package is not None and getattr(package, "__spec__", None) is not None:
        if package.__spec__.loader is not FINDER:  # someone else's my_toolkit was imported
            for name in [n for n in sys.modules if n == PACKAGE or n.startswith(PACKAGE + ".")]:
                del sys.modules[name]
    changed = [name for name, entry in sources.items() if FINDER.sources.get(name) != entry]
    FINDER.sources.update(sources)
    if changed:  # a later lesson's module may hold objects of a changed earlier one
        first = min(changed)
        for name in [n for n in FINDER.sources if n != PACKAGE and n >= first]:
            sys.modules.pop(name, None)


def load(module: str, attribute: str) -> Any:
    """``module.attribute``, importing the module from the installed sources."""
    return getattr(importlib.import_module(module), attribute)
