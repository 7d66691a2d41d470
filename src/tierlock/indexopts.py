"""The package-index options ``install-tier`` shares with ``lock`` (``--index-url``, ``--extra-index-url``,
``--find-links``, ``--no-index``), and their form as requirements-file option lines that pip and uv both read."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the parser of install-tier is built without the lock backends (imported when options are given)
    from tierlock.lockfiles.resolvers import IndexOptions


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("-i", "--index-url", metavar="URL", help="the package index (passed to the backend)")
    parser.add_argument("--extra-index-url", action="append", default=[], metavar="URL", help="an extra index")
    parser.add_argument("-f", "--find-links", action="append", default=[], metavar="DIR_OR_URL", help="find-links")
    parser.add_argument("--no-index", action="store_true", help="use no index, only --find-links")


def from_args(args: argparse.Namespace) -> IndexOptions:
    from tierlock.lockfiles.resolvers import IndexOptions

    return IndexOptions(
        index_url=args.index_url,
        extra_index_urls=tuple(args.extra_index_url),
        find_links=tuple(local(link) for link in args.find_links),
        no_index=args.no_index,
    )


def local(link: str) -> str:
    """A find-links folder relative to where the user stands (the backend runs elsewhere)."""
    return link if "://" in link else str(Path(link).resolve())


def given(args: argparse.Namespace) -> bool:
    """Whether any index option is on the command line."""
    return bool(args.index_url or args.extra_index_url or args.find_links or args.no_index)


def requirement_lines(options: IndexOptions) -> tuple[str, ...]:
    """The options as lines at the top of a requirements file (pip and uv read them there)."""
    argv = options.argv()
    lines: list[str] = []
    i = 0
    while i < len(argv):
        if argv[i] == "--no-index":
            lines.append("--no-index")
            i += 1
        else:
            lines.append(f"{argv[i]} {argv[i + 1]}")
            i += 2
    return tuple(lines)
