#!/usr/bin/env bash
# shellcheck source-path=SCRIPTDIR
# Set up the development tools (a .venv in the course folder, on first use) and run the whole
# test suite; arguments go to pytest. This is the test command the README gives; .ci/run runs
# exactly this. A thin wrapper: scripts/course.py does the work.
# Kept to POSIX sh so that any bash runs it, macOS's bash 3.2 included.
here=$(cd "$(dirname "$0")" && pwd) || exit 1
# shellcheck source=find-python.sh
. "$here/find-python.sh"
exec "$python" "$here/course.py" test ${1+"$@"}
