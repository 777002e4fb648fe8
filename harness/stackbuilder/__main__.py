"""``python -m harness.stackbuilder``: regenerate ``fixtures/stacks/*.yaml`` deterministically."""

from __future__ import annotations

import sys

from harness.errors import InputError
from harness.stackbuilder.fixtures import write_fixtures


def main() -> int:
    try:
        for path in write_fixtures():
            print(f"wrote {path}")
    except InputError as exc:
        print(f"stackbuilder: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
