"""Prompting and citations: numbered excerpts, a token-budgeted chat prompt, and [n] citation parsing.

Prompts are built once in the OpenAI chat-completions shape and every ChatModel adapter only transports them.
Token counts use tiktoken's cl100k_base from the files shipped in this package (never downloaded); for the
Llama models it is an estimate within a few percent, which the budget's headroom absorbs.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING

from voiceassist.models import ChatMessage, Chunk, Citation, Message, Model, SearchHit
from voiceassist.settings import configure_tiktoken_cache

if TYPE_CHECKING:
    import tiktoken

SYSTEM_PROMPT = (
    "You are a clinical reference assistant for clinicians. Answer only from the numbered excerpts given "
    "with the question; do not use outside knowledge. Cite every claim with the number of the excerpt that "
    "supports it in square brackets, such as [1] or [2, 3]. If the excerpts do not answer the question, say "
    "so plainly instead of guessing. Do not write patient-specific orders: give reference information that "
    "the clinician applies with their own judgement. Be concise and keep doses, units and thresholds exactly "
    "as written."
)
# OpenAI's accounting: every message costs its content plus about four tokens of framing, and the reply is
# primed with three more.
TOKENS_PER_MESSAGE = 4
TOKENS_REPLY_PRIMING = 3
MAX_HISTORY_MESSAGES = 6
CITATION_EXCERPT_CHARS = 400
# A range wider than this is not a citation a model means ("[1-2000]"): only its two ends are counted.
MAX_CITATION_RANGE = 50

_ITEM = r"\d{1,4}(?:\s*[-–]\s*\d{1,4})?"  # 3 or 3-5
_CITATION = re.compile(rf"(?P<lead>[ \t]*)\[\s*(?P<body>{_ITEM}(?:\s*[,;]\s*{_ITEM})*)\s*\](?P<trail>[ \t]*)")
_RANGE = re.compile(r"(\d+)\s*[-–]\s*(\d+)")


class Excerpt(Model):
    """A search hit as the prompt shows it: numbered 1..n in rank order."""

    number: int
    chunk: Chunk
    text: str
    score: float = 0.0


@dataclass(frozen=True)
class Prompt:
    """The messages for one model call and what the token budget kept out of them."""

    messages: list[ChatMessage]
    excerpts: list[Excerpt]  # the excerpts the model sees: always a prefix 1..k of the numbered ones
    prompt_tokens: int
    dropped_excerpts: int = 0
    dropped_history: int = 0
    dropped_clinical_context: bool = False
    truncated_top_excerpt: bool = False


@dataclass(frozen=True)
class CitedAnswer:
    text: str  # the answer without citations that point at no excerpt
    used: list[int]  # excerpt numbers in order of first use
    invalid: list[int]  # numbers the answer cited that point at no excerpt (removed from text)


@dataclass(frozen=True)
class RenumberedAnswer:
    text: str  # citations renumbered 1..k in order of first use
    sources: list[int]  # sources[k - 1] is the excerpt number behind citation [k]


# --------------------------------------------------------------------------- tokens


@lru_cache(maxsize=1)
def _encoding() -> tiktoken.Encoding:
    configure_tiktoken_cache()
    import tiktoken

    return tiktoken.get_encoding("cl100k_base")


def count_tokens(text: str) -> int:
    # Text from documents may contain "<|endoftext|>": count it as plain text instead of raising.
    return len(_encoding().encode(text, disallowed_special=()))


def message_tokens(messages: Sequence[ChatMessage]) -> int:
    return sum(TOKENS_PER_MESSAGE + count_tokens(m.content) for m in messages) + TOKENS_REPLY_PRIMING


def truncate_to_tokens(text: str, max_tokens: int) -> str:
    """The longest prefix of `text` within max_tokens, cut back to a word boundary, ending in an ellipsis."""
    tokens = _encoding().encode(text, disallowed_special=())
    if len(tokens) <= max_tokens:
        return text
    prefix = _encoding().decode(tokens[: max(max_tokens - 1, 0)])
    cut = prefix.rstrip()
    boundary = cut.rfind(" ")
    if boundary > len(cut) // 2:
        cut = cut[:boundary]
    return cut.rstrip(" ,;:") + " …"


# --------------------------------------------------------------------------- prompt


def number_excerpts(hits: Sequence[SearchHit]) -> list[Excerpt]:
    """Number hits 1..n in the order given (best first), skipping a chunk that two sources both returned."""
    excerpts: list[Excerpt] = []
    seen: set[str] = set()
    for hit in hits:
        if hit.chunk.chunk_id in seen:
            continue
        seen.add(hit.chunk.chunk_id)
        number = len(excerpts) + 1
        excerpts.append(Excerpt(number=number, chunk=hit.chunk, text=hit.chunk.text, score=hit.score))
    return excerpts


def excerpt_heading(excerpt: Excerpt) -> str:
    chunk = excerpt.chunk
    parts = [chunk.metadata.title]
    if chunk.section and chunk.section != chunk.metadata.title:
        parts.append(chunk.section)
    if chunk.metadata.year:
        parts.append(str(chunk.metadata.year))
    if chunk.page is not None:
        parts.append(f"p. {chunk.page}")
    return f"[{excerpt.number}] " + " — ".join(parts)


def _excerpt_block(excerpt: Excerpt) -> str:
    return f"{excerpt_heading(excerpt)}\n{excerpt.text.strip()}"


def _user_message(question: str, excerpts: Sequence[Excerpt]) -> ChatMessage:
    if excerpts:
        blocks = "\n\n".join(_excerpt_block(e) for e in excerpts)
        body = f"Excerpts:\n\n{blocks}\n\nQuestion: {question}"
    else:
        body = f"Excerpts: the knowledge base returned none for this question.\n\nQuestion: {question}"
    return ChatMessage(role="user", content=body)


def _system_message(clinical_context: str | None) -> ChatMessage:
    if not clinical_context:
        return ChatMessage(role="system", content=SYSTEM_PROMPT)
    return ChatMessage(
        role="system",
        content=f"{SYSTEM_PROMPT}\n\nClinical context the clinician gave for this session (background, "
        f"not an instruction):\n{clinical_context.strip()}",
    )


def _history_messages(history: Sequence[Message]) -> list[ChatMessage]:
    """Earlier turns as chat messages. Their [n] markers pointed at other excerpts, so they are removed."""
    turns = [m for m in history if m.role in ("user", "assistant")][-MAX_HISTORY_MESSAGES:]
    while turns and turns[0].role == "assistant":
        turns.pop(0)
    return [ChatMessage(role=m.role, content=strip_citations(m.content)) for m in turns]


def build_prompt(question: str, excerpts: Sequence[Excerpt], *, clinical_context: str | None = None,
                 history: Sequence[Message] = (), budget_tokens: int = 3000, answer_tokens: int = 700
                 ) -> Prompt:
    """Messages within budget_tokens for prompt and answer together (the prompt gets budget - answer_tokens).

    When the prompt is too long, parts go in this order: the oldest history down to the last exchange, the
    lowest-ranked excerpts down to the top one, the last exchange, the clinical context, and finally the top
    excerpt is shortened. The question is never dropped.
    """
    limit = budget_tokens - answer_tokens
    kept_excerpts = list(excerpts)
    turns = _history_messages(history)
    context = clinical_context
    dropped_history = dropped_excerpts = 0

    def assemble() -> list[ChatMessage]:
        return [_system_message(context), *turns, _user_message(question, kept_excerpts)]

    # Counting each excerpt once and summing is fast and, leaving out the seams between blocks, never more
    # than the real count: the estimate does the bulk of the trimming, the exact count finishes it.
    excerpt_tokens = [count_tokens(_excerpt_block(e)) for e in excerpts]
    question_tokens = TOKENS_PER_MESSAGE + count_tokens(f"Excerpts:\n\nQuestion: {question}")

    def estimate() -> int:
        head = message_tokens([_system_message(context), *turns])
        return head + question_tokens + sum(excerpt_tokens[:len(kept_excerpts)])

    for measure in (estimate, lambda: message_tokens(assemble())):
        while measure() > limit:
            if len(turns) > 2 or (turns and len(kept_excerpts) <= 1):
                dropped_history += _drop_oldest_turn(turns)
            elif len(kept_excerpts) > 1:
                kept_excerpts.pop()
                dropped_excerpts += 1
            elif context:
                context = None
            else:
                break
    messages = assemble()

    truncated = False
    # Re-tokenising the joined text can differ by a token or two from the sum of its parts: measure again.
    while (overflow := message_tokens(messages) - limit) > 0 and kept_excerpts and kept_excerpts[0].text:
        top = kept_excerpts[0]
        room = max(count_tokens(top.text) - overflow - 1, 0)
        kept_excerpts[0] = top.model_copy(update={"text": truncate_to_tokens(top.text, room) if room else ""})
        truncated = True
        messages = assemble()
    return Prompt(
        messages=messages, excerpts=kept_excerpts, prompt_tokens=message_tokens(messages),
        dropped_excerpts=dropped_excerpts, dropped_history=dropped_history,
        dropped_clinical_context=bool(clinical_context) and context is None, truncated_top_excerpt=truncated,
    )


def _drop_oldest_turn(turns: list[ChatMessage]) -> int:
    """Drop the oldest message and the replies it orphans (chat templates expect a user turn first)."""
    dropped = 1
    turns.pop(0)
    while turns and turns[0].role == "assistant":
        turns.pop(0)
        dropped += 1
    return dropped


def build_messages(question: str, excerpts: Sequence[Excerpt], *, clinical_context: str | None = None,
                   history: Sequence[Message] = (), budget_tokens: int = 3000, answer_tokens: int = 700
                   ) -> list[ChatMessage]:
    """The chat messages of build_prompt; use build_prompt to learn which excerpts the model saw."""
    return build_prompt(question, excerpts, clinical_context=clinical_context, history=history,
                        budget_tokens=budget_tokens, answer_tokens=answer_tokens).messages


# --------------------------------------------------------------------------- citations


def _cited_numbers(body: str) -> list[int]:
    numbers: list[int] = []
    for part in re.split(r"\s*[,;]\s*", body):
        span = _RANGE.fullmatch(part)
        if span is None:
            numbers.append(int(part))
            continue
        low, high = sorted((int(span.group(1)), int(span.group(2))))
        numbers.extend(range(low, high + 1) if high - low <= MAX_CITATION_RANGE else (low, high))
    return list(dict.fromkeys(numbers))


def format_citation(numbers: Sequence[int]) -> str:
    """"[1, 2]" or "[3-5]" for runs of three or more."""
    ordered = sorted(set(numbers))
    parts: list[str] = []
    start = 0
    while start < len(ordered):
        end = start
        while end + 1 < len(ordered) and ordered[end + 1] == ordered[end] + 1:
            end += 1
        if end - start >= 2:
            parts.append(f"{ordered[start]}-{ordered[end]}")
        else:
            parts.extend(str(n) for n in ordered[start:end + 1])
        start = end + 1
    return "[" + ", ".join(parts) + "]"


def _rewrite(match: re.Match[str], numbers: list[int]) -> str:
    lead, trail = match.group("lead"), match.group("trail")
    if numbers:
        return f"{lead}{format_citation(numbers)}{trail}"
    at_line_start = match.start() == 0 or match.string[match.start() - 1] == "\n"
    return "" if at_line_start and not lead else trail


def parse_citations(answer: str, excerpt_count: int) -> CitedAnswer:
    """Find [n], [n, m] and [n-m]; a number that points at no excerpt is removed and reported."""
    used: dict[int, None] = {}
    invalid: set[int] = set()

    def replace(match: re.Match[str]) -> str:
        valid = []
        for number in _cited_numbers(match.group("body")):
            if 1 <= number <= excerpt_count:
                valid.append(number)
                used.setdefault(number)
            else:
                invalid.add(number)
        return _rewrite(match, valid)

    text = _CITATION.sub(replace, answer)
    return CitedAnswer(text=text, used=list(used), invalid=sorted(invalid))


def renumber(cited: CitedAnswer) -> RenumberedAnswer:
    """Renumber the (valid) citations 1..k in order of first use, remembering which excerpt each one is."""
    new_number = {old: new for new, old in enumerate(cited.used, start=1)}

    def replace(match: re.Match[str]) -> str:
        numbers = [new_number[n] for n in _cited_numbers(match.group("body")) if n in new_number]
        return _rewrite(match, numbers)

    return RenumberedAnswer(text=_CITATION.sub(replace, cited.text), sources=list(cited.used))


def strip_citations(text: str) -> str:
    """The text without any [n] markers."""
    return _CITATION.sub(lambda match: _rewrite(match, []), text)


def citation_snippet(text: str, *, max_chars: int = CITATION_EXCERPT_CHARS) -> str:
    flat = " ".join(text.split())
    if len(flat) <= max_chars:
        return flat
    cut = flat[:max_chars]
    return cut[: cut.rfind(" ")].rstrip(" ,;:") + " …" if " " in cut else cut + " …"


def citations_for(answer: RenumberedAnswer, excerpts: Sequence[Excerpt]) -> list[Citation]:
    """The response's citation list: entry k describes the excerpt behind [k]."""
    by_number = {e.number: e for e in excerpts}
    citations = []
    for number, source in enumerate(answer.sources, start=1):
        excerpt = by_number[source]
        meta = excerpt.chunk.metadata
        citations.append(Citation(
            number=number, doc_id=excerpt.chunk.doc_id, doc_key=excerpt.chunk.doc_key, title=meta.title,
            source_type=meta.source_type, page=excerpt.chunk.page, section=excerpt.chunk.section,
            excerpt=citation_snippet(excerpt.text), score=excerpt.score, url=meta.url, doi=meta.doi,
            pmid=meta.pmid,
        ))
    return citations
