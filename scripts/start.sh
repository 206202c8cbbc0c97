#!/usr/bin/env bash
# shellcheck source-path=SCRIPTDIR
# Set up the course (a .venv in the course folder, on first use) and start it: JupyterLab on
# notebooks/, opening 00_welcome.ipynb, talking to the offline local model. No API key needed.
# A thin wrapper: scripts/course.py does the work (and runs the same on Windows and with conda).
# Kept to POSIX sh so that any bash runs it, macOS's bash 3.2 included.
here=$(cd "$(dirname "$0")" && pwd) || exit 1
# shellcheck source=find-python.sh
. "$here/find-python.sh"
exec "$python" "$here/course.py" start ${1+"$@"}
