"""Calls in a cell's source that run code handed over as a string, read (never run).

``exec('...')``, ``get_ipython().run_cell(...)`` or a magic that runs code do what their string
says, and the source cannot show what that is, however the string was built: ``borrowing``
follows what such strings spell when they are literals, and this module names the calls
themselves so that ``ownership`` can flag them. A magic that only times, profiles or captures
the cell's own code (``%%time``) runs nothing new, so it is not named here; ``borrowing.parse``
reads its code as the cell's.
"""

from __future__ import annotations

import ast

from course_lib.grading.routes import chain_of, fold, texts

# Calls that run code given as a string (``run_time_code``): builtins, called by name (or as
# ``builtins.exec``; ``re.compile`` is no such call), and IPython's and the standard library's
# methods, by their names; magics by name, but for those that run only the cell's own code.
RUN_CODE_BUILTINS = ("exec", "eval", "compile", "execfile")
RUN_CODE_METHODS = (
    "run_cell", "run_cell_async", "run_code", "run_ast_nodes", "runcode", "runsource", "ex",
    "ev", "safe_execfile", "safe_execfile_ipy", "safe_run_module", "run_path", "run_module",
    "magic", "run_source",
)  # fmt: skip
MAGIC_CALLS = ("run_line_magic", "run_cell_magic")
CODE_MAGICS = (
    "time", "timeit", "prun", "capture", "pip", "conda", "matplotlib", "load_ext",
    "reload_ext", "autoreload", "aimport", "config", "who", "whos", "who_ls", "pinfo", "pinfo2",
    "psearch", "precision", "pwd", "xmode", "html", "markdown", "latex", "svg", "HTML",
)  # fmt: skip
BUILTINS_NAMES = ("builtins", "__builtins__")
DYNAMIC_LOOKUPS = ("getattr", "vars", "globals", "__getattribute__")
RUN_TIME_CODE = "runs code from a string at run time ({call})"


def run_time_code(tree: ast.AST) -> list[str]:
    """The calls of the cell that run code given as a string at run time (``exec``,
    ``get_ipython().run_cell``, a magic that runs code), as phrases (sorted). The source cannot
    show what such code does, however the string was made; an honest answer needs none of them.
    Magics that only time, profile or capture the cell's own code (``%%time``) are left out:
    ``borrowing.parse`` reads that code as the cell's."""
    found = set()
    dynamic = False
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id in DYNAMIC_LOOKUPS:
            dynamic = True
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        if isinstance(func, ast.Name) and func.id in RUN_CODE_BUILTINS:
            found.add(func.id)
        elif isinstance(func, ast.Attribute):
            owner = chain_of(func.value) or ""
            if func.attr in RUN_CODE_METHODS:
                found.add(func.attr)
            elif func.attr in RUN_CODE_BUILTINS and (
                owner.split(".")[0] in BUILTINS_NAMES  # ``builtins.exec``
                or ((func.attr == "exec" or not owner) and not isinstance(func.value, ast.Constant))
            ):  # ``__import__('builtins').eval``; not ``re.compile``, ``interpreter.eval``
                found.add(func.attr)
            elif func.attr in MAGIC_CALLS:
                name = fold(node.args[0]) if node.args else None
                magic = (name or "").split()[:1]
                if not magic or magic[0] not in CODE_MAGICS:
                    found.add(f"{func.attr} {magic[0]}" if magic else func.attr)
    if dynamic:  # ``getattr(get_ipython(), 'run_' + 'cell')``
        found.update(text for text in texts(tree) if text in RUN_CODE_BUILTINS + RUN_CODE_METHODS)
    return sorted(RUN_TIME_CODE.format(call=call) for call in found)
