#!/usr/bin/env bash
# Set up (a .venv in the repository, on first use) and start the course:
# JupyterLab on notebooks/, talking to the offline local model. No API key needed.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup-venv.sh
extra=()
if [ "$(id -u)" = "0" ]; then extra+=(--allow-root); fi
exec .venv/bin/jupyter lab --notebook-dir=notebooks --ip=127.0.0.1 "${extra[@]}" "$@"
