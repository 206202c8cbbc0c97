#!/usr/bin/env bash
# shellcheck source-path=SCRIPTDIR
# Only set up the course's environment (.venv), with the development tools when $1 is "dev".
# Installs again only when pyproject.toml changed. A thin wrapper around scripts/course.py.
# Kept to POSIX sh so that any bash runs it, macOS's bash 3.2 included.
here=$(cd "$(dirname "$0")" && pwd) || exit 1
# shellcheck source=find-python.sh
. "$here/find-python.sh"
if [ "${1:-}" = "dev" ]; then
  exec "$python" "$here/course.py" setup --dev
fi
exec "$python" "$here/course.py" setup
