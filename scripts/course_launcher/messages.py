"""Every sentence the launcher says to a learner, in one place, in English or Chinese.

Each message is a whole sentence (or a few) with named placeholders, filled with
``say(NAME, **fields)``; nothing is glued from fragments. This module is read by the first stage
of the launcher, which may run under an old Python, so it uses nothing newer than Python 3.6.

The translations live in the course's ``launcher`` catalog,
``course_lib/locale/<lang>/launcher.po`` (``python -m course_lib i18n update`` keeps it in step
with ``MESSAGES`` below). The launcher runs before the course's packages are installed, so it
reads that file itself (``read_catalog``: the few lines of the PO format the catalog uses), and
uses a translation only as ``course_lib.i18n`` does: reviewed (not fuzzy), made from the English
as it is now. The language: ``--lang`` on the command line (``choose_language``), else the
``COURSE_LANG`` environment variable, else English; never the operating system's locale.
"""

import hashlib
import os
import re
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
# why uv could not be had (the {reason} above and below)
NO_UV_ON_PATH = "uv is not on the PATH"
NO_PIP_FOR_UV = "no pip to install it with"
PIP_UV_FAILED = "pip install uv exited with {code}"
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

# Every message above, by its name: the table the catalog translates.
MESSAGES = {
    name: value
    for name, value in list(globals().items())
    if name.isupper() and isinstance(value, str)
}


def say(message: str, **fields: object) -> None:
    """Print the message called ``message`` (a constant above) filled with ``fields``.

    Failures and what to do about them go to standard error, progress to standard output.
    """
    failure = message in ERRORS or message.startswith("HOW_TO_GET_")
    print(text(message, **fields), file=sys.stderr if failure else sys.stdout, flush=True)


def text(message: str, **fields: object) -> str:
    """The message called ``message`` filled with ``fields``, for callers that print it, in the
    language chosen (English where the catalog has no reviewed translation of it)."""
    english = MESSAGES[message]
    translated = translations(language()).get(message, english)
    try:
        return translated.format(**fields)
    except (KeyError, IndexError, ValueError):  # a broken translation: tests/i18n forbids it
        return english.format(**fields)


# -- the language and the catalog ----------------------------------------------------------------

LANGUAGES = ("en", "zh-CN")
ENVIRONMENT_VARIABLE = "COURSE_LANG"
CATALOGS = os.path.join(
    os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
    "course_lib",
    "locale",
)
CONTEXT_PREFIX = "course_launcher.messages:"  # each entry's msgctxt: this, then the name
_chosen = []  # the language --lang asked for, once chosen
_read = {}  # language -> {name: translation}


def known(lang):
    """``lang`` as one of ``LANGUAGES`` (``zh_CN``, ``zh-cn`` and ``zh`` are ``zh-CN``), or None."""
    if not isinstance(lang, str):
        return None
    wanted = lang.strip().replace("_", "-").lower()
    for name in LANGUAGES:
        if wanted in (name.lower(), name.split("-")[0].lower()):
            return name
    return None


def lang_option(arguments):
    """(what ``--lang X`` / ``--lang=X`` in ``arguments`` names, None when none does; the other
    arguments). The last one given wins."""
    found, rest = None, []
    items = iter(arguments)
    for item in items:
        if item == "--lang":
            found = next(items, "")
        elif item.startswith("--lang="):
            found = item.partition("=")[2]
        else:
            rest.append(item)
    return found, rest


def choose_language(arguments):
    """Speak the language ``--lang X`` / ``--lang=X`` in ``arguments`` names, if it is one the
    course speaks (an unknown one is reported by the command that takes it)."""
    found, _ = lang_option(arguments)
    if known(found):
        _chosen[:] = [known(found)]


def language():
    """The language the launcher speaks: ``choose_language``'s, else ``COURSE_LANG``'s, else
    English."""
    if _chosen:
        return _chosen[0]
    return known(os.environ.get(ENVIRONMENT_VARIABLE)) or "en"


def translations(lang):
    """name -> reviewed translation, for ``lang`` (none for English or an unreadable file)."""
    if lang == "en":
        return {}
    if lang not in _read:
        path = os.path.join(CATALOGS, lang, "launcher.po")
        try:
            entries = read_catalog(path)
        except (OSError, UnicodeDecodeError, ValueError):
            entries = []
        _read[lang] = {
            context[len(CONTEXT_PREFIX) :]: translated
            for context, english, translated, usable in entries
            if usable
            and context[len(CONTEXT_PREFIX) :] in MESSAGES
            and MESSAGES[context[len(CONTEXT_PREFIX) :]] == english
        }
    return _read[lang]


_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", '"': '"', "\\": "\\"}


def _unquote(line):
    """The text of one PO string line (``"..."``), its escapes undone."""
    body = line.strip()
    if len(body) < 2 or not (body.startswith('"') and body.endswith('"')):
        raise ValueError("not a PO string: " + line)
    return re.sub(r"\\(.)", lambda m: _ESCAPES.get(m.group(1), m.group(1)), body[1:-1])


def read_catalog(path):
    """``(msgctxt, msgid, msgstr, usable)`` for each entry of the PO file at ``path``.

    ``usable``: translated, not fuzzy, and (when the entry is stamped ``# source <hash>``) made
    from this English: the hash is ``course_lib.i18n.catalog.source_hash``'s (12 hex digits of
    SHA-256)."""
    entries = []
    with open(path, encoding="utf-8") as file:
        blocks = file.read().split("\n\n")
    for block in blocks:
        fields, current, fuzzy, source = {}, None, False, ""
        for line in block.splitlines():
            if line.startswith("#,") and "fuzzy" in line:
                fuzzy = True
            elif line.startswith("# source "):
                source = line[len("# source ") :].strip()
            elif line.startswith("#"):
                continue
            elif line.startswith(("msgctxt ", "msgid ", "msgstr ")):
                current, _, rest = line.partition(" ")
                fields[current] = _unquote(rest)
            elif line.startswith('"') and current:
                fields[current] += _unquote(line)
        if "msgid" not in fields or not fields["msgid"]:
            continue
        english, translated = fields["msgid"], fields.get("msgstr", "")
        made_from = hashlib.sha256(english.encode("utf-8")).hexdigest()[:12]
        usable = bool(translated) and not fuzzy and (not source or source == made_from)
        entries.append((fields.get("msgctxt", ""), english, translated, usable))
    return entries


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
