"""JSON as the commands print it: readable in every language, inert in a terminal.

`ensure_ascii=False` keeps Chinese and emoji as they are (an agent or a person
reading `--json` sees the text, not `\\u6570`); JSON escapes the C0 controls
(ESC among them) but leaves DEL and the C1 controls U+0080-U+009F as they are,
and a terminal may act on those (U+009B is CSI in 8-bit terminals). They are
escaped here: the same JSON to a parser, nothing a terminal acts on.
"""

from __future__ import annotations

import json
import re
from typing import Any

_LEFT_RAW = re.compile("[\x7f-\x9f]")


def dumps(value: Any, **options: Any) -> str:
    """json.dumps(value, ensure_ascii=False, **options), DEL and C1 escaped."""
    text = json.dumps(value, ensure_ascii=False, **options)
    return _LEFT_RAW.sub(lambda m: f"\\u{ord(m.group()):04x}", text)
