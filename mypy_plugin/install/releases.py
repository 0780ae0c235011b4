"""The JAX releases that stubs are made for, each with the Python it needs (its
``Requires-Python``, which the stubs' release takes too), as the package index served them.

Written by ``scripts/releases.py --write``; ``install/diagnosis.py`` reads it to tell a JAX
release that no stubs describe yet from one whose stubs are not installed.
"""

from __future__ import annotations

from typing import Final

RELEASES: Final = {
    "0.4.31": ">=3.10",
    "0.4.33": ">=3.10",
    "0.4.34": ">=3.10",
    "0.4.35": ">=3.10",
    "0.4.36": ">=3.10",
    "0.4.37": ">=3.10",
    "0.4.38": ">=3.10",
    "0.5.0": ">=3.10",
    "0.5.1": ">=3.10",
    "0.5.2": ">=3.10",
    "0.5.3": ">=3.10",
    "0.6.0": ">=3.10",
    "0.6.1": ">=3.10",
    "0.6.2": ">=3.10",
    "0.7.0": ">=3.11",
    "0.7.1": ">=3.11",
    "0.7.2": ">=3.11",
    "0.8.0": ">=3.11",
    "0.8.1": ">=3.11",
    "0.8.2": ">=3.11",
    "0.8.3": ">=3.11",
    "0.9.0": ">=3.11",
    "0.9.0.1": ">=3.11",
    "0.9.1": ">=3.11",
    "0.9.2": ">=3.11",
    "0.10.0": ">=3.11",
    "0.10.1": ">=3.11",
    "0.10.2": ">=3.11",
    "0.11.0": ">=3.12",
    "0.11.1": ">=3.12",
    "0.11.2": ">=3.12",
    "0.12.0": ">=3.12",
    "0.12.0.1": ">=3.12",
}
