"""The chat completions' token limit on its own (no sockets): the cut is exact, never splits a character, and a
stream sends exactly the plain cut even when a token spans two streamed pieces."""

from __future__ import annotations

from voiceassist.conversation.chat_options import ContentBudget, limit_content
from voiceassist.query.generation import count_tokens, first_tokens

ANSWER = "Metformin: reduce the dose to 1,000 mg per day when eGFR is 30-44 [1]."
LISTED = "\n\nSources:\n[1] Metformin in kidney disease (p. 2)"


def test_first_tokens_keeps_exactly_that_many_tokens() -> None:
    cut = first_tokens(ANSWER, 4)
    assert ANSWER.startswith(cut) and count_tokens(cut) == 4 and len(cut) < len(ANSWER)


def test_first_tokens_never_ends_in_half_a_character() -> None:
    text = "Dose ≥ 500 mg — 日本語の文章"
    for limit in range(1, count_tokens(text)):
        cut = first_tokens(text, limit)
        assert text.startswith(cut) and "\ufffd" not in cut


def test_limit_content_says_length_only_when_it_cut() -> None:
    assert limit_content(ANSWER, None) == (ANSWER, "stop")
    assert limit_content(ANSWER, count_tokens(ANSWER)) == (ANSWER, "stop")
    assert limit_content(ANSWER, 3) == (first_tokens(ANSWER, 3), "length")


def streamed(pieces: list[str], limit: int | None) -> tuple[str, str]:
    budget = ContentBudget(limit)
    sent = "".join(budget.admit(piece) for piece in pieces)
    tail, finish = budget.finish("".join(pieces), LISTED)
    assert budget.sent == sent + tail
    return sent + tail, finish


def test_a_stream_within_the_limit_sends_the_answer_and_its_sources() -> None:
    pieces = ANSWER.split(" ")
    pieces = [p + " " for p in pieces[:-1]] + [pieces[-1]]
    assert streamed(pieces, None) == (ANSWER + LISTED, "stop")
    assert streamed(pieces, 1000) == (ANSWER + LISTED, "stop")


def test_a_stream_cut_mid_word_sends_the_plain_cut() -> None:
    # pieces that split words where tokens would not ("Metfor" + "min"): the stream still ends at the plain cut
    pieces = [ANSWER[i:i + 3] for i in range(0, len(ANSWER), 3)]
    for limit in range(1, count_tokens(ANSWER + LISTED) + 2):
        content, finish = streamed(pieces, limit)
        expected = limit_content(ANSWER + LISTED, limit)
        assert (content, finish) == expected, limit


def test_a_stop_sequence_ends_the_content_before_it_with_finish_reason_stop() -> None:
    """OpenAI's `stop`: the content ends where a stop sequence first begins, without it; finish_reason "stop"."""
    content = ANSWER + LISTED
    assert limit_content(content, None, ("eGFR",)) == ("Metformin: reduce the dose to 1,000 mg per day when ", "stop")
    assert limit_content(content, None, ("Sources:", "1,000")) == ("Metformin: reduce the dose to ", "stop")
    assert limit_content(content, None, ("not in it",)) == (content, "stop")
    assert limit_content(content, 3, ("eGFR",)) == (first_tokens(ANSWER, 3), "length")  # the limit cuts first
    assert limit_content(content, 1000, ("\n\n",)) == (ANSWER, "stop")  # the Sources list left out


def test_a_streamed_stop_sequence_sends_exactly_the_plain_content_even_split_across_pieces() -> None:
    """A stop sequence may begin in one streamed piece and end in the next ("1,0" + "00"): the stream holds back what
    could begin one and sends exactly the plain completion's content."""
    for size in (1, 2, 3, 5, 8):
        pieces = [ANSWER[i:i + size] for i in range(0, len(ANSWER), size)]
        for stops in (("1,000",), ("eGFR", "dose to 1"), ("[1].",), ("\n\nSources",), ("mg per day when eGFR",),
                      ("absent",), ("Met",)):
            for limit in (None, 6, 1000):
                budget = ContentBudget(limit, stops)
                sent = "".join(budget.admit(piece) for piece in pieces)
                tail, finish = budget.finish(ANSWER, LISTED)
                assert (sent + tail, finish) == limit_content(ANSWER + LISTED, limit, stops), (size, stops, limit)
