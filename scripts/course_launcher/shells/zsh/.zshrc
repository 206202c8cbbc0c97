# shellcheck shell=sh
# JupyterLab's Terminal in the course, when the shell is zsh (see .zshenv beside this file):
# the learner's own .zshrc, then the course's environment first on the PATH.
ZDOTDIR="$COURSE_USER_ZDOTDIR"
if [ -f "$ZDOTDIR/.zshrc" ]; then
  # shellcheck source=/dev/null
  . "$ZDOTDIR/.zshrc"
fi
PATH="$COURSE_ENV_BIN:$PATH"
export PATH
