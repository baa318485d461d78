"""Reading the platform images' Python locks (``images/<name>/*.lock``): which version of a package an image installs.

Standard library only. The charts read locks through this module; ``tools/images/lock.py`` (the command that
compiles and checks them, a developer tool above the app) imports the same parser from here.
"""

from __future__ import annotations

import re

_PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)(\[[^\]]*\])?==([^\s;\\]+)")


def normalize(name: str) -> str:
    """A package name as PEP 503 normalizes it (``Flash_Attn`` -> ``flash-attn``)."""
    return re.sub(r"[-_.]+", "-", name).lower()


def pins(text: str) -> dict[str, str]:
    """``name==version`` requirements of a requirements file, by normalized name."""
    found: dict[str, str] = {}
    for line in text.splitlines():
        match = _PIN.match(line.strip())
        if match:
            found[normalize(match.group(1))] = match.group(3)
    return found


def locked_entries(text: str) -> dict[str, tuple[str, int]]:
    """name -> (version, number of hashes) of a ``--generate-hashes`` lock."""
    entries: dict[str, tuple[str, int]] = {}
    current: str | None = None
    for line in text.splitlines():
        stripped = line.strip()
        match = _PIN.match(stripped) if not line.startswith((" ", "\t", "#")) else None
        if match:
            current = normalize(match.group(1))
            entries[current] = (match.group(3), 0)
        elif current and stripped.startswith("--hash=sha256:"):
            version, count = entries[current]
            entries[current] = (version, count + 1)
    return entries


def locked_version(text: str, package: str, where: str) -> str:
    """The version of ``package`` in the lock ``text`` (read from ``where``), or a ValueError naming both."""
    entries = locked_entries(text)
    if normalize(package) not in entries:
        raise ValueError(f"{package} is not in {where}")
    return entries[normalize(package)][0]
