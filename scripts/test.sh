#!/usr/bin/env bash
# Set up (a .venv in the repository, if missing) and run the whole test suite.
# This is the test command the README gives; .ci/run runs exactly this.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  "$PYTHON" -m venv .venv
fi
.venv/bin/python -m pip install --quiet --upgrade pip
.venv/bin/python -m pip install --quiet -e ".[dev]"
set +e
.venv/bin/python -m pytest "$@"
status=$?
set -e
if [ "$status" -eq 5 ]; then
  echo "pytest collected no tests: that is a failure here, not a pass." >&2
  exit 1
fi
exit "$status"
