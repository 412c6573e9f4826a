"""An environment variable set for a block of code, then put back as it was.

For settings a native library reads once, when it loads (OpenMP's thread
count, the temp folder): the processes started afterwards keep the user's."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def environment_variable(name: str, value: str) -> Iterator[None]:
    before = os.environ.get(name)
    os.environ[name] = value
    try:
        yield
    finally:
        if before is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = before
