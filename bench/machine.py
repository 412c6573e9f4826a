"""What the benchmark ran on: the figures mean little without it."""

from __future__ import annotations

import os
import platform
from datetime import UTC, datetime
from pathlib import Path


def _proc_field(path: str, key: str) -> str:
    try:
        for line in Path(path).read_text().splitlines():
            if line.startswith(key):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return ""


def machine_info() -> dict[str, object]:
    mem_kb = _proc_field("/proc/meminfo", "MemTotal").split()
    affinity = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return {
        "cpu_model": _proc_field("/proc/cpuinfo", "model name") or platform.processor() or "unknown",
        "cores": affinity,
        "memory_gb": round(int(mem_kb[0]) / 1024 / 1024, 1) if mem_kb else None,
        "os": f"{platform.system()} {platform.release()}",
        "python": platform.python_version(),
        "date": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
    }
