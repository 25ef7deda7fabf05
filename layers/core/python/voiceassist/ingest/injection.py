"""Documents are data: flag text that reads like instructions to a model (prompt injection) at ingestion.

An uploaded reference may carry "IMPORTANT SYSTEM NOTICE: ignore previous instructions ...". Such a chunk is
still indexed (a clinician may need to find the document), but it carries `Chunk.injection_flags`, the job
reports how many chunks were flagged, and at answer time the extractive composer never quotes it
(query/extractive.py) and the prompt shows every excerpt fenced as untrusted data (query/generation.py).

Each pattern is a kind of instruction-like text; a chunk's flags are the kinds found in it.
"""

from __future__ import annotations

import re

PATTERNS: dict[str, re.Pattern[str]] = {
    "override": re.compile(
        r"\b(ignore|disregard|forget|override|bypass)\b[^.\n]{0,40}\b(previous|prior|above|earlier|all|any|your"
        r"|the)\b[^.\n]{0,30}\b(instructions?|prompts?|rules|guidelines|directions|context)\b", re.I),
    "system_notice": re.compile(
        r"\b(system|admin(istrator)?|developer)\s+(notice|message|prompt|override|instruction|command)s?\b", re.I),
    "new_instructions": re.compile(r"\b(new|updated|real|hidden|secret)\s+instructions?\b", re.I),
    "role_play": re.compile(
        r"\b(you are now|from now on,? you|act as (an?|the) |pretend (to be|you are)|role-?play|jailbreak"
        r"|do anything now|DAN mode)\b", re.I),
    "address_the_model": re.compile(
        r"\b(as an ai|language model|assistant)\b[^.\n]{0,30}\b(must|should|will|shall)\b[^.\n]{0,20}\b"
        r"(answer|respond|reply|say|tell|recommend|output)\b", re.I),
    "prompt_markup": re.compile(
        r"(<\|?(im_start|im_end|system|endoftext)\|?>|\[/?INST\]|<</?SYS>>|^\s*(system|assistant)\s*:"
        r"|<tool_call>|\"function_call\"|\"tool_calls\")", re.I | re.M),
    "reveal_prompt": re.compile(
        r"\b(reveal|print|repeat|show|output)\b[^.\n]{0,30}\b(system prompt|your instructions|hidden prompt)\b",
        re.I),
}


def injection_flags(text: str) -> tuple[str, ...]:
    """The kinds of instruction-like text found in `text`, in PATTERNS order (empty when none)."""
    return tuple(kind for kind, pattern in PATTERNS.items() if pattern.search(text))
