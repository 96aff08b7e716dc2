"""The ``damas`` command: the main parser, the subcommands of ``damas.commands``, one error path.

User errors (a bad FEN, an unknown variant, a missing file, a broken configuration, a damaged
database) print one line on standard error and exit with status 2; never a traceback.
"""

from __future__ import annotations

import argparse
import importlib
import logging
import sys
from collections.abc import Callable, Sequence

from damas import version
from damas.commands import ORDER
from damas.errors import EXIT_USAGE, USER_ERRORS, UserError

__all__ = ["EXIT_USAGE", "UserError", "build_parser", "main"]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="damas",
        description="Electronic draughts board controller.",
        epilog="example:\n  damas play --white Ana --black Rui   # then open the page it prints",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {version()}")
    parser.add_argument(
        "-v", "--verbose", action="count", default=0, help="also show debug lines (tracebacks, the Pico link's retries)"
    )
    parser.add_argument("-q", "--quiet", action="count", default=0, help="show only warnings and errors (-qq: errors)")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", help="what to do (damas COMMAND -h for its help)")
    for name in ORDER:
        importlib.import_module(f"damas.commands.{name}").register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    func: Callable[[argparse.Namespace], int] | None = getattr(args, "func", None)
    if func is None:
        parser.print_help()
        return EXIT_USAGE
    from damas.log import configure

    handler = configure(args.verbose - args.quiet)
    try:
        return func(args)
    except USER_ERRORS as exc:
        print(f"damas: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0
    finally:
        logging.getLogger().removeHandler(handler)


if __name__ == "__main__":
    sys.exit(main())
