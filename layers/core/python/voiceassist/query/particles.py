"""A verb's particle is no verb (decision 0024, session 20, ans20a; read by query/question_concepts.py).

Some one-word verbs of changing a course of treatment (course_verbs.tsv, WordNet 3.0's verbs of raising, lowering,
returning: "up", "back", "down") are spelt as the adverb particles that complete a phrasal verb ("drawing up the
adrenaline", "see him back", "sit her up", "swell up"): there they tell how the patient is handled, not that the
course of treatment changes. Such a word is read as the verb only where it stands in a verb's place: at the head of
a clause, or after a subject pronoun, a modal or auxiliary, or the infinitive's "to" ("can I up the dose", "we
upped", "to up her amlodipine", "Up the metformin?"). The particles are the closed class of English adverb particles
of phrasal verbs (Quirk, Greenbaum, Leech and Svartvik 1985, A Comprehensive Grammar of the English Language, 16.3-16.4,
the particles table); the verb's place is read from the closed classes of subject pronouns, modal and auxiliary
verbs (ibid. 3.21-3.22, 6.3): grammar, not the words of any question.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from functools import lru_cache

from voiceassist.query import terminology
from voiceassist.query.terms import stem

# Quirk et al. 1985, 16.4: the adverb particles of phrasal verbs
PARTICLES = frozenset({
    "aboard", "about", "above", "across", "after", "ahead", "along", "alongside", "apart", "around", "aside", "away",
    "back", "before", "behind", "below", "beneath", "besides", "between", "beyond", "by", "down", "forth", "forward",
    "home", "in", "inside", "off", "on", "opposite", "out", "outside", "over", "past", "round", "through",
    "throughout", "together", "under", "underneath", "up", "without",
})
# the words after which a word stands in a verb's place: subject pronouns, the infinitive's "to", and the modal and
# auxiliary verbs (ibid. 3.21-3.22), with their typed contractions' second parts
_VERB_PLACE = frozenset({
    "i", "we", "you", "they", "he", "she", "u", "to", "can", "could", "may", "might", "must", "shall", "should",
    "will", "would", "do", "does", "did", "ll", "d", "let's", "lets", "pls", "please", "just", "not", "and", "or",
})
_WORD = re.compile(r"[^\W_]+(?:[-'/][^\W_]+)*")  # as question_concepts reads a word
_CLAUSE_BREAK = re.compile(r"[.;:!?,+\n()]|\s[-\u2013\u2014]+\s")


def verb_words(text: str, phrasal: Collection[tuple[str, str]] = ()) -> list[str]:
    """The words of `text` (lower-cased) that may be verbs: every word but an adverb particle that does not stand in
    a verb's place (after a clause break, a subject pronoun, a modal or auxiliary, or "to"). A particle completing one
    of the `phrasal` verbs (the verb's stem and its particle: "bump up", "cut back"), at most two words after the
    verb ("bump it up"), is kept: that phrasal verb is the verb."""
    found: list[str] = []
    for clause in _CLAUSE_BREAK.split(text):
        words = [w.lower() for w in _WORD.findall(clause)]
        for i, word in enumerate(words):
            previous = words[i - 1] if i else ""
            if (word not in PARTICLES or not previous or previous in _VERB_PLACE
                    or previous.split("'")[-1] in _VERB_PLACE
                    or any((stem(w), word) in phrasal for w in words[max(0, i - 3):i])):
                found.append(word)
    return found


@lru_cache(maxsize=1)
def course_phrasal_verbs() -> frozenset[tuple[str, str]]:
    """The verb stem and particle of each two-word phrasal verb of course_verbs.tsv ("bump up", "cut back"), less
    those of the kind of "start" ("start up", "kick off"), as described_case._changing_verbs leaves it."""
    pairs: set[tuple[str, str]] = set()
    beginning: set[tuple[str, str]] = set()
    for line in terminology.COURSE_VERBS_FILE.read_text(encoding="utf-8").splitlines():
        if line.startswith("#") or not line.strip():
            continue
        verb, kind = line.split("\t")
        for parts in (v.split() for v in (verb, *kind.split("|"))):
            if len(parts) == 2 and parts[1] in PARTICLES:
                (beginning if verb == "start" else pairs).add((stem(parts[0]), parts[1]))
    return frozenset(pairs - beginning)
