"""Every sentence the launcher says to a learner, in one place (a zh-CN catalog comes next).

Each message is a whole sentence (or a few) with named placeholders, filled with
``say(NAME, **fields)``; nothing is glued from fragments. This module is read by the first stage
of the launcher, which may run under an old Python, so it uses nothing newer than Python 3.6.
"""

import sys

# -- finding a Python that is new enough (first stage) -------------------------------------------

TOO_OLD = "The course needs Python 3.10 or newer, and {python} is Python {version}."
NONE_NEWER = "No newer Python was found; these were asked: {looked_for}."
NONE_ON_PATH = "No other Python was found on the PATH."
USING_NEWER = (
    "{python} is Python {version}, too old for the course; using {found} (Python {found_version})."
)
HOW_TO_GET_MACOS = (
    "To install one: download Python 3.12 from https://www.python.org/downloads/macos/ "
    "(or, with Homebrew, run: brew install python@3.12), open a new terminal in the course "
    "folder and run: python3.12 scripts/course.py {command}"
)
HOW_TO_GET_WINDOWS = (
    "To install one: download Python 3.12 from https://www.python.org/downloads/windows/ "
    "(or run: winget install Python.Python.3.12), open a new terminal in the course folder and "
    "run: py scripts\\course.py {command}"
)
HOW_TO_GET_APT = (
    "To install one on {system}, run: sudo apt install {package} {package}-venv, then run: "
    "{package} scripts/course.py {command}"
)
HOW_TO_GET_DEADSNAKES = (
    "{system} has no Python 3.10 package of its own. To install one, run: "
    "sudo add-apt-repository ppa:deadsnakes/ppa && sudo apt install python3.12 python3.12-venv, "
    "then run: python3.12 scripts/course.py {command}"
)
HOW_TO_GET_NO_APT_PACKAGE = (
    "{system} has no Python 3.10 package. Use the conda route below, or upgrade to Debian 12, "
    "which comes with Python 3.11."
)
HOW_TO_GET_OTHER = (
    "To install one, use your system's package manager (the package is usually called python3.12 "
    "or python312) or https://www.python.org/downloads/, then run: "
    "python3.12 scripts/course.py {command}"
)
HOW_TO_GET_CONDA = (
    "Or, with conda on any system: conda env create -f environment.yml, then "
    "conda activate tool-calling-course, then python scripts/course.py {command}"
)

# -- the environment (second stage) --------------------------------------------------------------

USAGE = """Usage: python3 scripts/course.py COMMAND [ARGUMENTS...]
       (on Windows: py scripts\\course.py COMMAND [ARGUMENTS...])

Commands:
  start [OPTIONS] set up the course (first time only) and open JupyterLab on 00_welcome.ipynb;
                  --lang zh-CN opens the Chinese edition with JupyterLab in Chinese;
                  other options go to JupyterLab, e.g. --no-browser, --port 8890
  test            set up the development tools and run the whole test suite (arguments go to pytest)
  check NOTEBOOK  grade your own notebook and print a scorecard
  grade ...       grade a class (see docs/grading.md)
  serve-model     serve the local model over HTTP on loopback
  setup [--dev]   only set up (or update) the course's environment

Each command runs inside the course's environment: .venv/ in the course folder, made on first
use and updated when pyproject.toml changes, or the conda environment that is active."""
UNKNOWN_OPTION = "setup takes only --dev; got {arguments}."
UNKNOWN_LANGUAGE = "start --lang takes one of {languages}; got {value!r}."
USING_CONDA = "Using the active conda environment {env_name} ({prefix})."
CONDA_BASE = (
    "conda's base environment is active; the course does not install into it and uses its own "
    ".venv instead. To use conda, create the course's environment: conda env create -f "
    "environment.yml, then conda activate tool-calling-course."
)
CONDA_TOO_OLD = (
    "The active conda environment {env_name} has Python {version}; the course needs 3.10 or "
    "newer. "
    "Create the course's environment instead: conda env create -f environment.yml, then "
    "conda activate tool-calling-course."
)
CREATING = "Creating the course's environment in {prefix} with Python {version} ({python})."
REBUILDING = (
    "The course's environment in {prefix} was made with Python {old_version} ({old_home}); "
    "you started the course with Python {version} ({python}), so it is made again with that one."
)
REBUILDING_BROKEN = (
    "The Python of the course's environment in {prefix} no longer runs, so it is made again."
)
REBUILDING_TOO_OLD = (
    "The course's environment in {prefix} has Python {version}, too old for the course, so it is "
    "made again."
)
RESTORED = "Setting up failed, so the previous environment in {prefix} was put back as it was."
KEPT_PREVIOUS = (
    "The previous environment in {prefix} (Python {version}) still works and is up to date, so "
    "the course goes on with it this time."
)
MOVE_FAILED = (
    "Could not move the old environment {prefix} aside ({error}). Close JupyterLab and any other "
    "program that uses it, then run the command again."
)
NO_VENV_MODULE = (
    "{python} cannot make virtual environments: Debian and Ubuntu ship that part of Python "
    "separately. Install it with: sudo apt install python{version}-venv, then run the command "
    "again."
)
VENV_FAILED = "Making the environment in {prefix} failed (exit code {code}); the output is above."
INSTALLING = (
    "Installing the course's packages into {prefix} with {installer} (the first time takes about "
    "{seconds} s; after that the course starts with no network)."
)
INSTALLING_AGAIN = (
    "pyproject.toml or the extras asked for changed since the last install, so the course's "
    "packages are installed again with {installer}."
)
INSTALLED = "Installed with {installer} in {elapsed:.1f} s."
UV_UNAVAILABLE = "uv could not be installed ({reason}); installing with pip instead."
UV_FAILED = "Installing with uv failed (exit code {code}); trying pip instead."
UV_REQUIRED = "COURSE_INSTALLER=uv was asked for, but uv could not be installed ({reason})."
BAD_INSTALLER = "COURSE_INSTALLER must be uv or pip (or unset); got {value!r}."
INSTALL_FAILED = (
    "Installing the course's packages failed (exit code {code}); the output is above. The "
    "environment is kept as it was: after fixing the cause (often: no network), run the command "
    "again."
)
READY = "The course's environment is ready: {prefix} (Python {version})."

# -- starting JupyterLab and running tests -------------------------------------------------------

START_BANNER = """
Starting JupyterLab on the course's notebooks. It opens {notebook}: start there.
If no browser window opens, copy the address below that ends in /lab/tree/{notebook}?token=...
To grade your own work, run this in a terminal in the course folder, in JupyterLab's Terminal,
or in a notebook cell (with a ! in front):
    {check_command}
Stop JupyterLab with Ctrl-C, twice.
"""
NO_TESTS = "pytest collected no tests: that is a failure here, not a pass."


def say(message: str, **fields: object) -> None:
    """Print the message called ``message`` (a constant above) filled with ``fields``.

    Failures and what to do about them go to standard error, progress to standard output.
    """
    failure = message in ERRORS or message.startswith("HOW_TO_GET_")
    print(text(message, **fields), file=sys.stderr if failure else sys.stdout, flush=True)


def text(message: str, **fields: object) -> str:
    """The message called ``message`` filled with ``fields``, for callers that print it."""
    return globals()[message].format(**fields)


# Messages that report a failure go to standard error; the rest describe progress.
ERRORS = {
    "TOO_OLD",
    "NONE_NEWER",
    "NONE_ON_PATH",
    "CONDA_TOO_OLD",
    "MOVE_FAILED",
    "NO_VENV_MODULE",
    "VENV_FAILED",
    "UV_REQUIRED",
    "BAD_INSTALLER",
    "INSTALL_FAILED",
    "UNKNOWN_OPTION",
    "UNKNOWN_LANGUAGE",
    "NO_TESTS",
    "RESTORED",
}
