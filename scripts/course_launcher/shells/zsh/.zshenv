# shellcheck shell=sh
# JupyterLab's Terminal in the course, when the shell is zsh (see ../../terminal_shell.py).
# ZDOTDIR points here, so zsh reads this file and .zshrc beside it; each reads the learner's own
# file first (from COURSE_USER_ZDOTDIR, their ZDOTDIR or home).
ZDOTDIR="$COURSE_USER_ZDOTDIR"
if [ -f "$ZDOTDIR/.zshenv" ]; then
  # shellcheck source=/dev/null
  . "$ZDOTDIR/.zshenv"
fi
COURSE_USER_ZDOTDIR="$ZDOTDIR"
ZDOTDIR="$COURSE_ZSH_DIR"
