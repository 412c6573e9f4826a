"""How much of an index folder this process holds resident (Linux: /proc/self/smaps)."""

from __future__ import annotations

from pathlib import Path


def resident_kb(folder: Path) -> int:
    """Resident KB of this process' mappings of files under `folder` (from /proc/self/smaps)."""
    prefix = str(folder.resolve()) + "/"
    total, inside = 0, False
    for line in Path("/proc/self/smaps").read_text(errors="replace").splitlines():
        fields = line.split()
        if fields and "-" in fields[0] and len(fields) >= 5 and ":" in fields[3]:
            inside = len(fields) >= 6 and fields[5].startswith(prefix)
        elif inside and fields[:1] == ["Rss:"]:
            total += int(fields[1])
    return total
