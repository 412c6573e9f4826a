"""ChatGPT export: early-2025 o3-mini reasoning, stored as `tool` messages from a
non-tool author, is thinking; a real tool's output is its call's result."""

from __future__ import annotations

from convo_tui.core.sources import parse_path

from tests.paths import FIXTURES

EXPORT = FIXTURES / "chatgpt" / "o3-mini-reasoning.json"


def test_o3_mini_reasoning_is_thinking_not_a_tool():
    (session,) = parse_path(EXPORT)
    first = session.messages[1]
    assert first.role == "assistant"
    assert first.text == "Yes. 2^61 - 1 = 2305843009213693951 is a Mersenne prime (M61)."
    assert (
        first.thinking == "**Recalling Mersenne primes**\n\n2^61 - 1 is M61, one of the known Mersenne primes (Pervushin, 1883)."
    )
    assert first.tools == []


def test_a_real_tool_keeps_its_call_and_output():
    (session,) = parse_path(EXPORT)
    second = session.messages[3]
    assert [t.name for t in second.tools] == ["python"]  # the empty status line of a8km123 is no tool
    assert second.tools[0].args == {"code": "import sympy\nsympy.isprime(2**61 - 1)"}
    assert second.tools[0].result == "True"
    assert second.text == "`sympy.isprime` returns True."
