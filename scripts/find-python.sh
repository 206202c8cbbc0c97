# shellcheck shell=sh
# Sourced by the wrappers beside it: sets $python to a Python 3 to run scripts/course.py with.
# course.py itself finds a newer one when this one is too old, or says how to get one; this file
# only covers a system with no Python 3 at all. POSIX sh, so macOS's bash 3.2 runs it too.
python=
for candidate in python3 python; do
  if command -v "$candidate" >/dev/null 2>&1 &&
    "$candidate" -c 'import sys; sys.exit(sys.version_info[0] != 3)' >/dev/null 2>&1; then
    python=$candidate
    break
  fi
done
if [ -z "$python" ]; then
  cat >&2 <<'MESSAGE'
The course needs Python 3.10 or newer, and this computer has no python3 on the PATH.
macOS: download Python 3.12 from https://www.python.org/downloads/macos/ (or: brew install python@3.12).
Debian or Ubuntu: sudo apt install python3 python3-venv
Windows: download Python 3.12 from https://www.python.org/downloads/windows/, then run: py scripts\course.py start
Then run this command again.
MESSAGE
  exit 1
fi
