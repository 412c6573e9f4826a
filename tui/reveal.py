"""What the app shows of secrets: masked by default, revealed one at a time on demand."""

from __future__ import annotations

from convo_tui.core.redact import find_secrets, redact


class Redactor:
    def __init__(self, enabled: bool = True) -> None:
        self.enabled = enabled
        self.revealed: set[str] = set()

    def __call__(self, text: str) -> str:
        if not self.enabled or not text:
            return text
        return redact(text, reveal=self.revealed)

    def masked_count(self, texts: list[str]) -> int:
        """How many distinct secrets in `texts` are still shown masked."""
        if not self.enabled:
            return 0
        return len({secret.id for text in texts for secret in find_secrets(text)} - self.revealed)

    def reveal_next(self, texts: list[str]) -> str | None:
        """Reveal the first still-masked secret in `texts`; its kind, or None if none is left."""
        if not self.enabled:
            return None
        for text in texts:
            for secret in find_secrets(text):
                if secret.id not in self.revealed:
                    self.revealed.add(secret.id)
                    return secret.kind
        return None
