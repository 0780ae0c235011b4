"""Lines the plugin prints outside mypy's report, on stderr: each starts with ``PREFIX``, so
that a user (and a test) can tell them from mypy's own."""

from __future__ import annotations

import sys
from typing import Final

from mypy_plugin import DISTRIBUTION

PREFIX: Final = f"{DISTRIBUTION}: "


def say(line: str) -> None:
    print(PREFIX + line, file=sys.stderr)
