"""The parts of ``scripts/course.py``, the course's launcher.

- ``find_python``: a Python new enough for the course, or how to get one (first stage).
- ``messages``: every sentence the launcher says, in one place.
- ``environment``: which environment the course runs in (``.venv`` or an active conda
  environment), and making it ready: created, rebuilt or installed again only when needed.
- ``install``: installing the course's packages, with uv when it can be had, else pip.
- ``jupyter``: JupyterLab's settings and command line for the course.
- ``terminal_shell``: the shell JupyterLab's Terminal runs, with the course's environment first.
- ``main``: the commands (start, test, check, grade, serve-model, setup).

``find_python``, ``messages`` and this file run before the Python version is checked, so they
use nothing newer than Python 3.6; the rest runs only under Python 3.10 or newer.
"""
