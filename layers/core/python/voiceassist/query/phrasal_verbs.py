"""Everyday verbs with a particle that say how a thing goes, not what it is ("how long will the cough hang around":
the reference writes how long it lasts; decision 0024, session 20, ans20b). WordNet 3.0 writes such a verb and its
particle as one verb lemma ("hang_around") filed with verbs of being, motion, social life or thinking
(`_data/concepts/phrasal_verbs.tsv`, written by voiceassist_local.evaluation.phrasal_verb_data, WordNet's licence in
its header). The verb alone may have a clinical sense ("hang": the body, contact) and keeps its weight elsewhere;
typed with its particle, the evidence score weighs it as an ordinary word (query/question_concepts.py): GENERIC_WEIGHT
when a passage lacks it, fully when it holds it, never named as missing. A pair whose lemma has a sense of the body,
change, consumption or contact is not listed ("throw up", "pass out", "go up", "cut down")."""

from __future__ import annotations

import re
from functools import lru_cache

from voiceassist.query.terms import stem
from voiceassist.settings import PACKAGE_DIR

PHRASAL_VERBS_FILE = PACKAGE_DIR / "_data" / "concepts" / "phrasal_verbs.tsv"
_WORD = re.compile(r"[A-Za-z]+(?:['-][A-Za-z]+)*")
_SPACE = re.compile(r"[ \t]+")


@lru_cache(maxsize=1)
def _pairs() -> frozenset[tuple[str, str]]:
    """(the verb's stem, its particle), as terms.stem reads an inflected verb ("hanging": "hang")."""
    rows = (line.split("\t") for line in PHRASAL_VERBS_FILE.read_text(encoding="utf-8").splitlines()
            if line.strip() and not line.startswith("#"))
    return frozenset((stem(verb), particle) for verb, particle in rows)


def typed_with_particle(text: str) -> frozenset[str]:
    """The words of `text` (lower case) typed as the verb of a listed verb and its particle, a space apart ("hanging
    around"; not "hang about": WordNet has no "hang_about")."""
    pairs = _pairs()
    words = list(_WORD.finditer(text))
    return frozenset(verb.group().lower() for verb, particle in zip(words, words[1:], strict=False)
                     if _SPACE.fullmatch(text[verb.end():particle.start()])
                     and (stem(verb.group().lower()), particle.group().lower()) in pairs)
