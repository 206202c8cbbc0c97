"""Find the submissions: ``SUBMISSIONS/<student>/<NN_slug>.ipynb``, in a stable order, and read
each one without letting the file system decide what happens.

A submission folder is untrusted: a student's zip can hold a FIFO named ``02_reflection.ipynb``
(opening it blocks forever), a link to ``/dev/zero`` (reading it never ends), a link to a
classmate's file or to the grader's own files, a socket, a device. Nothing here follows a link
or opens a file before ``lstat`` says what it is; a link is followed only when it resolves to a
regular file inside the student's own folder; the file is then opened with ``O_NOFOLLOW`` and
``O_NONBLOCK`` and checked again with ``fstat`` before a byte is read, and never more than
``MAX_FILE_BYTES + 1`` bytes are read. Whatever is refused becomes a ``Submission`` with a
``problem``: that student's ``invalid`` rows, with a message saying what to do, and the run goes on.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path

from course_lib.grading.names import printable, student_ids
from course_lib.i18n import translate

MAX_FILE_BYTES = 50 * 1024 * 1024

# Learner-facing messages, whole sentences (one place, for the translation); ``no_folder`` is
# the instructor's (``course grade: {error}``).
MESSAGES = {
    "no_folder": (
        "submissions folder {root} does not exist: expected SUBMISSIONS/<student>/<NN_slug>.ipynb"
    ),
    "not_a_file": (
        "refused without opening it: {name} is {kind}, not a notebook file. Submit the .ipynb "
        "file saved by JupyterLab."
    ),
    "link_outside": (
        "refused without opening it: {name} is a link to a file outside your folder. Submit "
        "the notebook file itself, not a link."
    ),
    "link_broken": (
        "refused: {name} is a link that leads nowhere (or in a circle). Submit the notebook "
        "file itself, not a link."
    ),
    "too_large": (
        "the file is larger than {limit} MB; clear the outputs (Edit > Clear Outputs of All "
        "Cells), save and submit again."
    ),
    "unreadable": (
        "the file could not be read ({reason}). Submit the notebook file again; if this "
        "persists, ask your instructor."
    ),
    "folder_unreadable": (
        "your folder could not be read ({reason}), so none of your files were graded. Ask "
        "your instructor to check the folder's permissions."
    ),
}

KINDS = (
    (stat.S_ISDIR, "folder"),
    (stat.S_ISFIFO, "fifo"),
    (stat.S_ISCHR, "character_device"),
    (stat.S_ISBLK, "block_device"),
    (stat.S_ISSOCK, "socket"),
    (stat.S_ISLNK, "link"),
)
# What a file that is not a notebook is (``not_a_file``'s {kind}).
KIND_TEXTS = {
    "folder": "a folder",
    "fifo": "a named pipe (FIFO)",
    "character_device": "a character device",
    "block_device": "a block device",
    "socket": "a socket",
    "link": "a link",
    "other": "not a regular file",
}


class UnreadableSubmission(ValueError):
    """The file cannot be read safely; the message says why and what to do."""


@dataclass(frozen=True, order=True)
class Submission:
    """One file to grade; ``notebook`` is the lesson slug the file name claims. A non-empty
    ``problem`` means the file was refused before it was opened, and says why."""

    student: str
    notebook: str
    path: Path
    problem: str = ""


def say(key: str, **values: object) -> str:
    return translate(MESSAGES, key, **values)


def _kind(mode: int) -> str:
    name = next((name for test, name in KINDS if test(mode)), "other")
    return translate(KIND_TEXTS, name)


def _student_folders(root: Path) -> list[tuple[str, Path]]:
    """``(folder name, path)`` of every student folder (hidden ones skipped), sorted by name.

    The folders themselves are the instructor's (a link to a folder is followed); what is inside
    them is the students'."""
    if not root.is_dir():
        raise FileNotFoundError(say("no_folder", root=root))
    return sorted(
        (entry.name, Path(entry.path))
        for entry in os.scandir(root)
        if not entry.name.startswith(".") and entry.is_dir(follow_symlinks=True)
    )


def students(root: Path) -> list[str]:
    """Every student under ``root`` (their gradebook names), sorted, with or without files."""
    return sorted(student_ids(name for name, _ in _student_folders(root)).values())


def discover(root: Path, *, notebook: str | None = None) -> list[Submission]:
    """Every ``<student>/<name>.ipynb`` under ``root``, sorted by student then notebook.

    Hidden files and folders (``.ipynb_checkpoints``, ``.DS_Store``) are skipped: they are
    editor leftovers, not submissions. Files directly under ``root`` are not anyone's work.
    Anything else named ``*.ipynb`` is a submission, refused (with its ``problem``) when it is
    not a regular file of the student's own folder."""
    folders = _student_folders(root)
    ids = student_ids(name for name, _ in folders)
    found: list[Submission] = []
    for name, folder in folders:
        found += _in_folder(ids[name], folder, notebook)
    return sorted(found)


def _in_folder(student: str, folder: Path, notebook: str | None) -> list[Submission]:
    try:
        real_folder = os.path.realpath(folder)
        entries = sorted(os.scandir(folder), key=lambda entry: entry.name)
    except OSError as exc:
        return [Submission(student, "", folder, say("folder_unreadable", reason=_reason(exc)))]
    found = []
    for entry in entries:
        if entry.name.startswith(".") or not entry.name.endswith(".ipynb"):
            continue
        slug = printable(entry.name[: -len(".ipynb")])
        if notebook is not None and slug != notebook:
            continue
        path, problem = _regular_file(Path(entry.path), real_folder)
        found.append(Submission(student, slug, path, problem))
    return found


def _regular_file(path: Path, real_folder: str) -> tuple[Path, str]:
    """The path to read and ``""``, or the path and why it is refused (nothing is opened)."""
    shown = printable(path.name)
    try:
        mode = os.lstat(path).st_mode
    except OSError as exc:
        return path, say("unreadable", reason=_reason(exc))
    if stat.S_ISREG(mode):
        return path, ""
    if not stat.S_ISLNK(mode):
        return path, say("not_a_file", name=shown, kind=_kind(mode))
    target = os.path.realpath(path)
    if os.path.commonpath([target, real_folder]) != real_folder:
        return path, say("link_outside", name=shown)
    try:
        mode = os.lstat(target).st_mode
    except OSError:
        return path, say("link_broken", name=shown)
    if stat.S_ISLNK(mode):  # realpath gave up: a circle of links
        return path, say("link_broken", name=shown)
    if not stat.S_ISREG(mode):
        return path, say("not_a_file", name=shown, kind=_kind(mode))
    return Path(target), ""


def read_submission(path: Path, max_bytes: int = MAX_FILE_BYTES) -> bytes:
    """The bytes of a file ``discover`` accepted, read without following a link or blocking:
    ``UnreadableSubmission`` if it turned into something else meanwhile, or is too large."""
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    flags |= getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOCTTY", 0)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        raise UnreadableSubmission(say("unreadable", reason=_reason(exc))) from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            name = printable(path.name)
            raise UnreadableSubmission(say("not_a_file", name=name, kind=_kind(info.st_mode)))
        too_large = say("too_large", limit=max_bytes // 2**20)
        if info.st_size > max_bytes:
            raise UnreadableSubmission(too_large)
        chunks, size = [], 0
        while size <= max_bytes:
            chunk = os.read(fd, min(1 << 20, max_bytes + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        if size > max_bytes:
            raise UnreadableSubmission(too_large)
        return b"".join(chunks)
    except OSError as exc:
        raise UnreadableSubmission(say("unreadable", reason=_reason(exc))) from None
    finally:
        os.close(fd)


def _reason(exc: OSError) -> str:
    """An OS error without the path (paths differ between machines and runs)."""
    return exc.strerror or type(exc).__name__


def named_file(path: Path, student: str, notebook: str) -> Submission:
    """A file named on the command line (``course check``): a link is followed (it is the user's
    own), but what it leads to must be a regular file, and it is read like any submission."""
    try:
        mode = os.stat(path).st_mode
    except OSError as exc:
        return Submission(student, notebook, path, say("unreadable", reason=_reason(exc)))
    if not stat.S_ISREG(mode):
        kind = _kind(mode)
        return Submission(student, notebook, path, say("not_a_file", name=path.name, kind=kind))
    return Submission(student, notebook, Path(os.path.realpath(path)))
