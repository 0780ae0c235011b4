#!/usr/bin/env python3
"""Write ``mypy_plugin/rules/hooked.py``: every rule's codes and the keys of its hooks.

    python scripts/generate_hooked.py [--check]

Loading the plugin reads that file instead of importing the rules (``rules/__init__.py``, ``Hooked``),
which keeps mypy's start-up short. Run it after adding a rule or changing the names a rule
hooks; ``--check`` exits 1 when the file is not what the rules declare (the test suite runs it).
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
HOOKED_FILE = ROOT / "mypy_plugin" / "rules" / "hooked.py"
EXTRA_RULES = (("jit.jit_boundary", "TYPED_CALLS"),)
"""Rules that are not a module's ``RULE``: added by another entry point (``typed_jit.py``)."""


def quoted(text: str) -> str:
    """A string literal as the formatter writes it (double quotes)."""
    return json.dumps(text)


def generated() -> str:
    """The text of ``hooked.py`` for the rules as their modules declare them."""
    sys.path.insert(0, str(ROOT))
    from mypy_plugin.rules import RULE_MODULES, Hooked

    def record(module: str, attribute: str) -> str:
        hooked = Hooked.of(module, attribute, getattr(importlib.import_module(f"mypy_plugin.rules.{module}"), attribute))
        codes = ", ".join(quoted(code) for code in hooked.codes) + ("," if len(hooked.codes) == 1 else "")
        lines = [f"    Hooked(\n        {quoted(module)},\n        {quoted(attribute)},\n        codes=({codes}),"]
        for kind in Hooked._fields[3:]:
            keys = getattr(hooked, kind)
            if len(keys) == 1:
                lines.append(f"        {kind}=({quoted(keys[0])},),")
            elif keys:
                lines.append(f"        {kind}=(\n" + "".join(f"            {quoted(key)},\n" for key in keys) + "        ),")
        return "\n".join(lines) + "\n    )"

    rules = ",\n".join(record(module, "RULE") for module in RULE_MODULES)
    extra = ",\n".join(record(module, attribute) for module, attribute in EXTRA_RULES)
    return (
        '"""Every rule\'s codes and the keys of its hooks, so that loading the plugin imports no rule.\n\n'
        "Written by ``scripts/generate_hooked.py`` from ``RULE_MODULES``; do not edit by hand.\n"
        '"""\n\n'
        "from __future__ import annotations\n\n"
        "from typing import Final\n\n"
        "from mypy_plugin.rules import Hooked\n\n"
        f"HOOKED: Final[tuple[Hooked, ...]] = (\n{rules},\n)\n"
        f"EXTRA: Final[tuple[Hooked, ...]] = (\n{extra},\n)\n"
        '"""Rules that another entry point adds (``typed_jit.py``)."""\n'
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if the file is out of date, change nothing")
    args = parser.parse_args(argv)
    text = generated()
    if args.check:
        if not HOOKED_FILE.exists() or HOOKED_FILE.read_text() != text:
            print(f"{HOOKED_FILE.relative_to(ROOT)} is out of date: run python scripts/generate_hooked.py", file=sys.stderr)
            return 1
        return 0
    HOOKED_FILE.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
