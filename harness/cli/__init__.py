"""The ``tablecert`` command.

Each subcommand lives in its own module ``harness.cli.<name>`` exposing:

* ``HELP``: one line for the command list;
* ``EXAMPLE``: a ready-to-paste example shown at the end of ``--help``;
* ``add_arguments(parser)``: its flags;
* ``run(args) -> int``: the exit status.

Bad input raises :class:`harness.errors.InputError`; this module prints each of its errors as one
line on stderr and exits 2, never a traceback.  A command line argparse refuses (an unknown flag, a
number out of its bounds: :mod:`harness.cli.numbers`) is one line and exit 2 too.  Exit statuses:
:mod:`harness.exitcodes`.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence
from types import ModuleType
from typing import NoReturn

from harness import __version__, exitcodes
from harness.errors import InputError, error_lines

#: subcommand name -> module; order is the order ``tablecert --help`` lists them in
COMMANDS: dict[str, str] = {
    "run": "harness.cli.run_cmd",
    "bench": "harness.cli.bench_cmd",
    "deal": "harness.cli.deal",
    "math": "harness.cli.math_cmd",
    "stack": "harness.cli.stack",
    "validate": "harness.cli.validate",
    "coverage": "harness.cli.coverage",
    "catalogue": "harness.cli.catalogue",
    "emulate": "harness.cli.emulate",
    "defects": "harness.cli.defects",
    "variants": "harness.cli.variants",
    "soak": "harness.cli.soak",
    "explore": "harness.cli.explore",
    "plan-randomness": "harness.cli.plan_randomness",
    "report": "harness.cli.report",
    "verify": "harness.cli.verify",
    "merge": "harness.cli.merge",
    "history": "harness.cli.history",
    "diff": "harness.cli.diff",
    "clean": "harness.cli.clean",
    "keygen": "harness.cli.keygen",
    "sign": "harness.cli.sign",
}


def _load(name: str) -> ModuleType | None:
    try:
        return importlib.import_module(COMMANDS[name])
    except ModuleNotFoundError as exc:
        if exc.name == COMMANDS[name]:
            return None
        raise


class UsageError(Exception):
    """A command line argparse cannot use (an unknown flag, a number out of its bounds)."""

    def __init__(self, prog: str, message: str) -> None:
        super().__init__(message)
        self.prog = prog
        self.message = message


class _Parser(argparse.ArgumentParser):
    """argparse, with a usage error as one line and exit 2 from :func:`main` (like every other bad
    input), instead of the usage block and ``SystemExit``."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(self.prog, message)


def chosen_command(argv: Sequence[str]) -> str | None:
    """The subcommand ``argv`` names (its first word that is not an option), or None."""
    for word in argv:
        if word == "--":
            return None
        if not word.startswith("-"):
            return word if word in COMMANDS else None
    return None


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The parser of every command; with ``only``, the other commands are listed by name and help
    line without their flags (building a command's flags may import what the command needs:
    ``tablecert validate`` does not pay for the stack search's vocabulary)."""
    parser = _Parser(
        prog="tablecert",
        description="Certification test harness for casino table-game devices.",
        epilog="Example:\n  tablecert run            # every suite against the built-in emulators",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"tablecert {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for name in COMMANDS:
        mod = _load(name)
        if mod is None:
            continue
        p = sub.add_parser(
            name,
            help=mod.HELP,
            description=mod.HELP,
            epilog="Example:\n" + "\n".join("  " + line for line in mod.EXAMPLE.strip().splitlines())
                   + ("\n\n" + mod.EXIT_STATUS.strip() if getattr(mod, "EXIT_STATUS", "") else ""),
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )
        if only is None or name == only:
            mod.add_arguments(p)
            p.set_defaults(_module=mod)
    return parser


def _text_streams() -> None:
    """On a locale that cannot show every character (LANG=C without UTF-8, an ASCII terminal), a
    character it lacks is written as an escape (\\xa7 for the section sign), never an
    UnicodeEncodeError in the middle of the output."""
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        encoding = (getattr(stream, "encoding", "") or "").lower().replace("-", "")
        if reconfigure is not None and encoding not in ("utf8", "utf8sig"):
            reconfigure(errors="backslashreplace")


def main(argv: Sequence[str] | None = None) -> int:
    _text_streams()
    argv = list(sys.argv[1:] if argv is None else argv)
    # only the named command's flags are built (none for `tablecert --help`): start-up imports what
    # that command needs, and never scipy or numpy (tests/cli/test_startup.py)
    try:
        parser = build_parser(chosen_command(argv) or "")  # imports the command: Ctrl-C in its first second
    except KeyboardInterrupt:
        print("tablecert: interrupted", file=sys.stderr)
        return exitcodes.INTERRUPTED
    # ``tablecert run ... -- ARGS``: everything after the first ``--`` goes to pytest unchanged
    passthrough: list[str] | None = None
    if "--" in argv:
        cut = argv.index("--")
        argv, passthrough = argv[:cut], argv[cut + 1 :]
    try:
        args = parser.parse_args(argv)
    except UsageError as exc:
        print(f"{exc.prog}: {exc.message} (see {exc.prog} --help)", file=sys.stderr)
        return exitcodes.BAD_INPUT
    if getattr(args, "_module", None) is None:
        parser.print_help()
        return 2
    if passthrough is not None:
        if not getattr(args._module, "PASSTHROUGH", False):
            print(f"tablecert {args.command}: '--' passes options to pytest; only `tablecert run` takes them",
                  file=sys.stderr)
            return 2
        own = [a for a in passthrough if a.startswith("--tc")]
        if own:  # the run id, profile and report folder are tablecert's: never set behind its back
            print(f"tablecert {args.command}: {own[0].split('=', 1)[0][:60]} after '--': tablecert's own --tc-* "
                  f"options are set by tablecert {args.command}'s options, not passed to pytest (see tablecert "
                  f"{args.command} --help)", file=sys.stderr)
            return exitcodes.BAD_INPUT
        args.passthrough = passthrough
    code: int | None = None
    try:
        code = int(args._module.run(args))
        sys.stdout.flush()  # a reader gone before the last line is a broken pipe here, not at exit
        return code
    except InputError as exc:
        for err in error_lines(exc):
            print(f"tablecert {args.command}: {err}" if err.path is None else str(err), file=sys.stderr)
        return exitcodes.BAD_INPUT
    except KeyboardInterrupt:
        print("tablecert: interrupted", file=sys.stderr)
        return exitcodes.INTERRUPTED
    except BrokenPipeError:
        return _broken_pipe(code)
    except OSError as exc:  # a path the system refuses, a full disk: one line (harness.oserrors)
        from harness import oserrors

        print(f"tablecert {args.command}: {oserrors.describe(exc)}", file=sys.stderr)
        return oserrors.status(exc)


def _broken_pipe(code: int | None) -> int:
    """Output piped into `head` and closed early: the reader never saw the whole result, so the
    command must not claim success; a problem it found keeps its status (harness.exitcodes)."""
    import os

    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)
    return code if code not in (None, exitcodes.PASS) else exitcodes.RIG_ERROR


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
