from datetime import UTC, datetime

from convo_tui.core.embed.bundled import bundled_model_files
from convo_tui.core.index.chunks import chunk_text
from convo_tui.core.index.points import session_points, stored_record
from convo_tui.core.model import Message, Session, ToolCall
from tokenizers import Tokenizer


def _session() -> Session:
    t0 = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)
    return Session(
        id="s1",
        title="T",
        project="p",
        source="cursor",
        path="/x/s1.txt",
        messages=[
            Message("msg-0", "user", "hello there", timestamp=t0),
            Message("msg-1", "assistant", "running it", tools=[ToolCall("Shell", {"command": "ls"}), ToolCall("Shell", {})]),
            Message("msg-2", "assistant", "virtual note", virtual=True),
            Message("msg-3", "user", "   "),
        ],
    )


def test_session_turn_and_message_points_with_payload():
    points = session_points(_session(), generation=7)
    keys = [p.key for p in points]
    assert keys == ["s1:session", "s1:turn-0", "s1:turn-1", "s1:msg-0", "s1:msg-1", "s1:msg-1:parts"]
    # A message's tool calls are one keyword-only point, on the message's turn, whose
    # spans say which stretch is which call's input.
    tools = points[5]
    assert (tools.text, tools.keyword_text, tools.payload["part"], tools.payload["turn_index"]) == (
        "",
        "Shell\nls\nShell",
        "parts",
        0,
    )
    assert tools.payload["part_spans"] == [[0, 8, "tool input"], [9, 14, "tool input"]]
    session, turn0 = points[0], points[1]
    assert session.text == "" and stored_record(session.payload)["id"] == "s1"
    assert session.payload["message_count"] == 4 and session.payload["turn_count"] == 2
    assert turn0.text == "用户: hello there\n\nAI: running it"
    assert turn0.payload["tools"] == ["Shell"] and turn0.payload["tool_keys"] == ["shell"] and turn0.payload["has_tools"] is True
    assert turn0.payload["timestamp"] == datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC).timestamp()
    assert all(p.payload["visible"] is False and p.payload["generation"] == 7 for p in points)
    msg1 = points[4].payload
    assert (msg1["role"], msg1["turn_index"], msg1["message_index"], msg1["message_ids"], msg1["text"]) == (
        "ai",
        0,
        1,
        ["msg-1"],
        "running it",
    )
    # The whitespace-only user message makes a turn without text, hence no vectors.
    assert points[2].text == ""


def test_long_message_is_chunked_with_overlap_and_keys_map_back():
    tokenizer = Tokenizer.from_file(str(bundled_model_files()[1]))
    tokenizer.no_truncation()  # as DenseEmbedder.tokenizer is
    tokenizer.no_padding()
    text = " ".join(f"word{i}" for i in range(300))
    chunks = chunk_text(text, tokenizer, max_tokens=200, overlap=32)
    assert len(chunks) > 1
    for chunk in chunks:
        assert len(tokenizer.encode(chunk, add_special_tokens=False).ids) <= 200
    assert chunks[0].split()[-1] in chunks[1]  # overlap
    assert chunks[-1].endswith("word299")
    session = Session(id="s", title="", project="", source="", path="", messages=[Message("m", "user", text)])
    keys = [p.key for p in session_points(session, 1, tokenizer) if p.payload["level"] == "message"]
    assert keys[:2] == ["s:msg-0", "s:msg-0#1"]


def test_short_text_needs_no_tokenizer():
    assert chunk_text("  short  ", None) == ["short"]
    assert chunk_text("", None) == []


def test_a_tool_output_over_its_cap_keeps_its_end_searchable():
    """A 60 KB test run ends with the failure: the cap keeps its start and its last
    KEYWORD_CHUNK_CHARS, not only its first 16,000 characters (the scale bench's
    needle at the end of a long tool output was never found)."""
    from convo_tui.core.index.keyword_parts import KEYWORD_CAPS, PART_TOOL_OUTPUT

    log = "".join(f"test_case_{i} PASSED\n" for i in range(3000)) + "FAILED test_ledger_rollover - KeyError: 'eur'\n"
    assert len(log) > 3 * KEYWORD_CAPS[PART_TOOL_OUTPUT]
    message = Message("m", "assistant", "running the suite", tools=[ToolCall("Bash", {"command": "pytest"}, result=log)])
    session = Session(id="s", title="", project="", source="", path="", messages=[Message("u", "user", "go"), message])
    parts = [p for p in session_points(session, 1, None) if p.payload.get("part") == "parts"]
    outputs = [
        p.keyword_text[start:end] for p in parts for start, end, label in p.payload["part_spans"] if label == PART_TOOL_OUTPUT
    ]
    assert sum(map(len, outputs)) <= KEYWORD_CAPS[PART_TOOL_OUTPUT]
    assert outputs[0].startswith("test_case_0 PASSED")
    assert "FAILED test_ledger_rollover - KeyError: 'eur'" in outputs[-1]
    assert len({p.key for p in parts}) == len(parts) > 1  # the end has a point of its own


def test_capped_pieces_keep_short_texts_whole_and_long_ones_head_and_tail():
    from convo_tui.core.index.keyword_parts import KEYWORD_CHUNK_CHARS, capped_pieces

    assert capped_pieces("short", 8000) == ["short"]
    text = "".join(chr(ord("a") + i % 26) for i in range(50_000))
    pieces = capped_pieces(text, 8000)
    assert all(len(p) <= KEYWORD_CHUNK_CHARS for p in pieces)
    assert "".join(pieces) == text[: 8000 - KEYWORD_CHUNK_CHARS] + text[-KEYWORD_CHUNK_CHARS:]


def test_keyword_pieces_are_cut_between_words():
    """A needle word at a piece boundary was split in two and found by neither half."""
    from convo_tui.core.index.keyword_parts import KEYWORD_CHUNK_CHARS, capped_pieces

    text = "x" * (KEYWORD_CHUNK_CHARS - 10) + " obsidianhummingbird marks the end"
    pieces = capped_pieces(text, 16_000)
    assert "".join(pieces) == text and all(len(p) <= KEYWORD_CHUNK_CHARS for p in pieces)
    assert any("obsidianhummingbird" in p for p in pieces)


def test_thinking_tool_output_and_long_tails_are_keyword_points_with_caps():
    from convo_tui.core.index.keyword_parts import KEYWORD_CAPS, KEYWORD_CHUNK_CHARS
    from convo_tui.core.index.points import MAX_DENSE_CHUNKS

    tokenizer = Tokenizer.from_file(str(bundled_model_files()[1]))
    tokenizer.no_truncation()
    tokenizer.no_padding()
    huge = " ".join(f"w{i}" for i in range(200_000))  # far past the dense chunks
    message = Message(
        "m",
        "assistant",
        huge,
        thinking="ponder " * 20_000,
        tools=[ToolCall("Bash", {"command": "pytest -x", "cwd": "/repo"}, result="E AssertionError: boom")],
    )
    session = Session(id="s", title="", project="", source="", path="", messages=[Message("u", "user", "go"), message])
    points = [
        p for p in session_points(session, 1, tokenizer) if p.payload["level"] == "message" and p.payload["message_ids"] == ["m"]
    ]
    dense = [p for p in points if p.text]
    assert len(dense) == MAX_DENSE_CHUNKS
    by_part: dict[str, list] = {}
    stretches: dict[str, list[str]] = {}
    for p in points:
        if not p.text:
            by_part.setdefault(p.payload["part"], []).append(p)
            for start, end, label in p.payload.get("part_spans", []):
                stretches.setdefault(label, []).append(p.keyword_text[start:end])
    assert sum(map(len, stretches["thinking"])) <= KEYWORD_CAPS["thinking"]
    assert all(len(p.keyword_text) <= KEYWORD_CHUNK_CHARS for ps in by_part.values() for p in ps)
    assert stretches["tool output"] == ["E AssertionError: boom"]
    assert stretches["tool input"] == ["Bash\npytest -x\n/repo"]
    # The tail past the dense chunks starts where they stop and is capped.
    tail = by_part[""]
    assert tail[0].key == "s:msg-1:rest" and len(tail) >= KEYWORD_CAPS[""] // KEYWORD_CHUNK_CHARS
    assert sum(len(p.keyword_text) for p in tail) <= KEYWORD_CAPS[""]
    last = dense[-1].text.split()[-1]  # may stop inside a word: the tail starts at the next one
    number = int(tail[0].keyword_text.split()[0][1:])
    assert f"w{number - 1}".startswith(last)


def _tokenizer():
    tokenizer = Tokenizer.from_file(str(bundled_model_files()[1]))
    tokenizer.no_truncation()
    tokenizer.no_padding()
    return tokenizer


def test_chunks_the_turn_vector_reads_get_no_vector_of_their_own():
    """Issue 25: a short turn's messages are what its turn vector already reads;
    only the part of a long turn past the model's window is embedded again."""
    long_answer = " ".join(f"step{i} of the rollout" for i in range(200))  # ~800 pieces
    session = Session(
        id="s",
        title="",
        project="",
        source="",
        path="",
        messages=[
            Message("u0", "user", "why is the deploy slow"),
            Message("a0", "assistant", "the image is rebuilt every time"),
            Message("u1", "user", "how do we roll it out"),
            Message("a1", "assistant", long_answer),
        ],
    )
    points = session_points(session, 1, _tokenizer(), window=256)
    texts = {p.key: (p.text, p.keyword_text, p.payload.get("part")) for p in points}
    assert texts["s:turn-0"][0] and texts["s:turn-1"][0]  # turns keep their vectors
    for key in ("s:msg-0", "s:msg-1", "s:msg-2"):  # wholly read by their turn's vector
        text, keyword, part = texts[key]
        assert text == "" and keyword and part is None
    tail = [key for key in texts if key.startswith("s:msg-3")]
    embedded = [key for key in tail if texts[key][0]]
    assert embedded and len(embedded) < len(tail)  # the answer's first chunk is read by the turn, the rest is not
    assert texts["s:msg-3"][0] == ""
    everything = session_points(session, 1, _tokenizer())  # no window: every chunk embedded (before issue 25)
    assert all(p.text for p in everything if p.payload.get("level") == "message" and not p.key.endswith(":rest"))


def test_with_questions_an_answered_question_keeps_a_vector_of_its_own():
    """MiniLM (DenseEmbedder.embed_questions): a short query matches a question
    better than its question-and-answer turn, so an answered question is
    embedded apart; its answer and an unanswered question stay read by the turn."""
    session = Session(
        id="s",
        title="",
        project="",
        source="",
        path="",
        messages=[
            Message("u0", "user", "why is the deploy slow"),
            Message("a0", "assistant", "the image is rebuilt every time"),
            Message("u1", "user", "and the tests?"),
        ],
    )
    plain = {p.key: p.text for p in session_points(session, 1, _tokenizer(), window=256)}
    asked = {p.key: p.text for p in session_points(session, 1, _tokenizer(), window=256, questions=True)}
    assert plain["s:msg-0"] == "" and asked["s:msg-0"] == "why is the deploy slow"
    assert plain["s:msg-1"] == asked["s:msg-1"] == ""  # the answer: read by its turn
    assert plain["s:msg-2"] == asked["s:msg-2"] == ""  # no answer: the turn's vector is the question's
    assert {k: v for k, v in asked.items() if k != "s:msg-0"} == {k: v for k, v in plain.items() if k != "s:msg-0"}


def test_text_points_carry_their_language():
    from convo_tui.core.index.text_lang import LANG_CJK, LANG_LATIN, text_lang

    assert text_lang("how do I roll back the migration") == LANG_LATIN
    assert text_lang("数据库迁移失败了怎么回滚") == LANG_CJK
    assert text_lang("用 kubectl rollout undo 回滚 deployment/checkout 到上一个版本") == LANG_CJK
    assert text_lang("fix the flaky test in the checkout service (修复)") == LANG_LATIN  # a word of Chinese in English prose
    session = Session(id="s", title="", project="", source="", path="", messages=[Message("u", "user", "猫吃什么")])
    langs = {p.key: p.payload.get("lang") for p in session_points(session, 1)}
    assert langs == {"s:session": None, "s:turn-0": LANG_CJK, "s:msg-0": LANG_CJK}


def test_a_long_tool_answer_keeps_its_end_when_a_source_is_read():
    """Sources keep RESULT_LIMIT characters of a tool's answer: its start and its last
    RESULT_TAIL, so the failure a long test run ends with is read and indexed."""
    from convo_tui.core.sources._common import RESULT_LIMIT, RESULT_TAIL, clip_result

    log = "".join(f"test_case_{i} PASSED\n" for i in range(2000)) + "FAILED test_ledger_rollover - KeyError: 'eur'"
    kept = clip_result(log)
    assert kept.startswith("test_case_0 PASSED") and kept.endswith("FAILED test_ledger_rollover - KeyError: 'eur'")
    assert f"[{len(log) - RESULT_LIMIT} characters cut]" in kept
    assert len(kept) <= RESULT_LIMIT + 40 and RESULT_TAIL < RESULT_LIMIT
    assert clip_result("  short  ") == "short"


def test_a_messages_thinking_and_tool_calls_share_a_point_and_a_hit_names_the_part_it_matched():
    """Packed: one point for what took five (at 100k messages tool calls were 189k of
    394k points); a card still says whether the words were in the thinking, a call's
    input or its output, and shows that stretch."""
    from convo_tui.core.index.keyword_parts import part_at

    message = Message(
        "m",
        "assistant",
        "checking",
        thinking="the ledger rollover looks wrong",
        tools=[
            ToolCall("Bash", {"command": "pytest tests/ledger"}, result="1 failed: KeyError 'eur'"),
            ToolCall("Read", {"path": "src/ledger.py"}, result="def rollover(book):"),
        ],
    )
    session = Session(id="s", title="", project="", source="", path="", messages=[Message("u", "user", "go"), message])
    [packed] = [p for p in session_points(session, 1, None) if p.payload.get("part")]
    assert packed.key == "s:msg-1:parts" and packed.text == ""
    payload = packed.payload
    assert [label for _, _, label in payload["part_spans"]] == ["thinking", *["tool input", "tool output"] * 2]
    assert part_at(payload, ["KEYERROR"]) == ("tool output", "1 failed: KeyError 'eur'")
    assert part_at(payload, ["nothing", "src/ledger.py"]) == ("tool input", "Read\nsrc/ledger.py")
    assert part_at(payload, ["rollover"]) == ("thinking", "the ledger rollover looks wrong")
    assert part_at(payload, ["absent"]) == ("thinking", "the ledger rollover looks wrong")  # none found: the first
    # The stretch that holds the phrase, not the first that holds a word of it (the thinking said "ledger").
    assert part_at(payload, ["tests/ledger", "tests", "ledger"]) == ("tool input", "Bash\npytest tests/ledger")
    assert part_at(payload, ["def rollover", "def", "rollover"]) == ("tool output", "def rollover(book):")
    # A point written before the packing keeps its own label and text.
    assert part_at({"part": "tool output", "text": "boom"}, ["boom"]) == ("tool output", "boom")
