"""``course i18n update`` and ``course i18n status``: the translator's two commands."""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path

from course_lib.authoring.build import REPO_ROOT, SOLUTIONS, read, solution_paths
from course_lib.i18n import EDITIONS
from course_lib.i18n.catalog import (
    TRANSLATIONS,
    catalog_path,
    read_catalog,
    render_catalog,
    write_catalog,
)
from course_lib.i18n.messages import LOCALE, TABLES, catalog_file, table_entries
from course_lib.i18n.parts import Part
from course_lib.i18n.update import lesson_status, notebook_parts, relative, updated_entries


def register(subparsers: argparse._SubParsersAction) -> None:
    i18n = subparsers.add_parser(
        "i18n", help="update the translation catalogs from the English notebooks; report progress"
    )
    actions = i18n.add_subparsers(dest="action", metavar="ACTION", required=True)
    update = actions.add_parser(
        "update", help="add new cells, mark edited ones fuzzy, drop removed ones (translations/)"
    )
    update.add_argument(
        "--check", action="store_true", help="write nothing; fail if a catalog is out of date"
    )
    status = actions.add_parser(
        "status", help="per lesson: entries translated, pending (fuzzy or empty) and stale"
    )
    status.add_argument(
        "--complete", action="store_true", help="fail unless every lesson is 100%% translated"
    )
    for action in (update, status):
        action.add_argument("--lang", choices=EDITIONS, action="append", help="default: all")
        action.add_argument("--solutions", type=Path, default=SOLUTIONS, help=argparse.SUPPRESS)
        action.add_argument(
            "--translations", type=Path, default=TRANSLATIONS, help=argparse.SUPPRESS
        )
        action.add_argument("--locale", type=Path, default=LOCALE, help=argparse.SUPPRESS)
    update.set_defaults(handler=run_update)
    status.set_defaults(handler=run_status)


@dataclass(frozen=True)
class CatalogJob:
    """One catalog to keep in step: where it is, what it is titled, the English parts."""

    lang: str
    path: Path
    title: str
    parts: list[Part]
    name: str  # how the status report names it


def catalog_jobs(args: argparse.Namespace) -> list[CatalogJob]:
    """Every lesson catalog, then every message catalog, for the languages asked for."""
    jobs = []
    for lang in args.lang or EDITIONS:
        for source in solution_paths(args.solutions):
            path = catalog_path(lang, source.stem, args.translations)
            parts = notebook_parts(read(source))
            jobs.append(CatalogJob(lang, path, f"lesson {source.stem}", parts, source.stem))
        for domain in TABLES:
            parts = [Part(key, english, "message") for key, english in table_entries(domain)]
            path = catalog_file(lang, domain, args.locale)
            jobs.append(CatalogJob(lang, path, f"{domain} of course_lib", parts, domain))
    return jobs


def run_update(args: argparse.Namespace) -> int:
    out_of_date = []
    for job in catalog_jobs(args):
        entries = updated_entries(job.parts, read_catalog(job.path))
        where = relative(job.path, REPO_ROOT)
        if args.check:
            current = job.path.read_text(encoding="utf-8") if job.path.exists() else None
            if current != render_catalog(job.lang, job.title, entries):
                out_of_date.append(where)
        elif write_catalog(job.path, job.lang, job.title, entries):
            print(f"updated {where}")
    if args.check:
        for where in out_of_date:
            print(f"{where} is out of date", file=sys.stderr)
        if out_of_date:
            print("Run `python -m course_lib i18n update`.", file=sys.stderr)
            return 1
        print("The translation catalogs are up to date with the English.")
    return 0


def run_status(args: argparse.Namespace) -> int:
    incomplete = False
    shown_lang = None
    for job in catalog_jobs(args):
        if job.lang != shown_lang:
            print(f"{job.lang}: catalog, translated / total, pending, stale")
            shown_lang = job.lang
        status = lesson_status(job.name, job.parts, read_catalog(job.path))
        incomplete |= status.translated < status.total or status.stale > 0
        print(
            f"  {status.notebook:<24} {status.translated:>4} / {status.total:<4} "
            f"{status.percent:>3}%  pending {status.pending:>3}  stale {status.stale:>3}"
        )
    if args.complete and incomplete:
        print("Not everything is translated.", file=sys.stderr)
        return 1
    return 0
