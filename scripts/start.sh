#!/usr/bin/env bash
# Set up (a .venv in the repository, if missing) and start the course:
# JupyterLab on notebooks/, talking to the offline local model. No API key needed.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  "$PYTHON" -m venv .venv
fi
.venv/bin/python -m pip install --quiet --upgrade pip
.venv/bin/python -m pip install --quiet -e .
extra=()
if [ "$(id -u)" = "0" ]; then extra+=(--allow-root); fi
exec .venv/bin/jupyter lab --notebook-dir=notebooks --ip=127.0.0.1 "${extra[@]}" "$@"
