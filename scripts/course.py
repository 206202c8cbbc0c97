#!/usr/bin/env python3
"""The course's front door, the same on Linux, macOS and Windows, with pip or conda.

    python3 scripts/course.py start        # Windows: py scripts\\course.py start
    python3 scripts/course.py test
    python3 scripts/course.py check notebooks/00_welcome.ipynb

Every command runs inside the course's environment, made on first use: ``.venv/`` in the
course folder (with uv when it can be had, else pip), or the conda environment that is active.
``scripts/course_launcher/`` holds the parts; ``main.py`` there lists the commands.

This file runs under whatever Python the learner typed, so until it has checked the version it
uses nothing newer than Python 3.6: an old interpreter gets a clear message, not a traceback.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from course_launcher import find_python, messages  # noqa: E402 (needs the line above)


def main() -> int:
    messages.choose_language(sys.argv[1:])  # --lang zh-CN: every message in Chinese
    if sys.version_info[:2] < find_python.MINIMUM:
        return find_python.run_with_newer_python(sys.argv)
    from course_launcher.main import main as run_command

    return run_command(sys.argv[1:])


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        sys.exit(130)
