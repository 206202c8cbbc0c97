#!/usr/bin/env bash
# Create .venv (if missing) and install this package into it, with the extras given as $1
# (e.g. "dev"). Installs again only when pyproject.toml or the extras changed since the last
# install, so after the first run the course starts with no network at all.
set -euo pipefail
cd "$(dirname "$0")/.."
extras=${1:-}
PYTHON=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  "$PYTHON" -m venv .venv
fi
stamp=.venv/.course-installed
project=$(sha256sum pyproject.toml | cut -d' ' -f1)
installed=$(cat "$stamp" 2>/dev/null || true)
# Up to date when the same pyproject.toml was installed with these extras (or with "dev", which
# includes everything the plain install has).
if [ "$installed" != "$project [$extras]" ] && { [ -n "$extras" ] || [ "$installed" != "$project [dev]" ]; }; then
  .venv/bin/python -m pip install --quiet --upgrade pip
  if [ -n "$extras" ]; then
    .venv/bin/python -m pip install --quiet -e ".[$extras]"
  else
    .venv/bin/python -m pip install --quiet -e .
  fi
  echo "$project [$extras]" > "$stamp"
fi
