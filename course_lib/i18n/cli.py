"""``course i18n update`` and ``course i18n status``: the translator's two commands."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from course_lib.authoring.build import SOLUTIONS, read, solution_paths
from course_lib.i18n.catalog import (
    EDITIONS,
    TRANSLATIONS,
    catalog_path,
    read_catalog,
    render_catalog,
    write_catalog,
)
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
    update.set_defaults(handler=run_update)
    status.set_defaults(handler=run_status)


def run_update(args: argparse.Namespace) -> int:
    out_of_date = []
    for lang in args.lang or EDITIONS:
        for source in solution_paths(args.solutions):
            path = catalog_path(lang, source.stem, args.translations)
            old = read_catalog(path)
            entries = updated_entries(notebook_parts(read(source)), old)
            where = relative(path, args.translations.parent)
            if args.check:
                current = path.read_text(encoding="utf-8") if path.exists() else None
                if current != render_catalog(lang, source.stem, entries):
                    out_of_date.append(where)
            elif write_catalog(path, lang, source.stem, entries):
                print(f"updated {where}")
    if args.check:
        for where in out_of_date:
            print(f"{where} is out of date", file=sys.stderr)
        if out_of_date:
            print("Run `python -m course_lib i18n update`.", file=sys.stderr)
            return 1
        print("The translation catalogs are up to date with the English notebooks.")
    return 0


def run_status(args: argparse.Namespace) -> int:
    incomplete = False
    for lang in args.lang or EDITIONS:
        print(f"{lang}: lesson, translated / total, pending, stale")
        for source in solution_paths(args.solutions):
            entries = read_catalog(catalog_path(lang, source.stem, args.translations))
            status = lesson_status(source.stem, notebook_parts(read(source)), entries)
            incomplete |= status.translated < status.total or status.stale > 0
            print(
                f"  {status.notebook:<24} {status.translated:>4} / {status.total:<4} "
                f"{status.percent:>3}%  pending {status.pending:>3}  stale {status.stale:>3}"
            )
    if args.complete and incomplete:
        print("Not every lesson is fully translated.", file=sys.stderr)
        return 1
    return 0
