#!/usr/bin/env bash
# Set up (a .venv in the repository, on first use) and run the whole test suite.
# This is the test command the README gives; .ci/run runs exactly this.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup-venv.sh dev
set +e
.venv/bin/python -m pytest "$@"
status=$?
set -e
if [ "$status" -eq 5 ]; then
  echo "pytest collected no tests: that is a failure here, not a pass." >&2
  exit 1
fi
exit "$status"
