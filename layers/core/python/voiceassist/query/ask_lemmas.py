"""A drug or disease joined to a participle by a hyphen ("metformin-associated", "steroid-induced", "statin-related")
is also covered by the drug or disease it names (decision 0024, session 20, ans20b; read by query/question_concepts.py
as a form, `Concept.forms`, that covers the concept as its alternatives do, never a new topic). The participle says
how the condition that follows relates to the drug, which a reference writes as a sentence ("lactic acidosis ... with
metformin"), not as the compound; the condition it qualifies stays a topic of its own. The participle is a word of the
shipped English list (SCOWL 50) ending in -ed; the first part a drug or a class (query/concepts.py) or a named disease
(query/diseases.py), the whole of it. "community-acquired" is neither and keeps its reading (a named disease's words).

Measured and not adopted: an acid's anion covered by its acid ("lactate" by "lactic", IUPAC's -ic acid / -ate
naming): three uncovered questions asking a lactate level were answered from a passage naming lactic acidosis.
"""

from __future__ import annotations

from voiceassist.common_words import common_words
from voiceassist.query import diseases
from voiceassist.query.concepts import mentions
from voiceassist.query.terms import content_terms

NAMED_PARTICIPLES = True  # "metformin-associated": "metformin"


def named_forms(label: str) -> tuple[frozenset[str], ...]:
    """The other forms a reference writes the concept `label` in (the module's doc)."""
    found: list[frozenset[str]] = []
    word = label.lower()
    parts = word.split("-")
    if NAMED_PARTICIPLES and len(parts) == 2 and parts[1].endswith("ed") and parts[1] in common_words():
        whole = (0, len(parts[0]))
        named = [m for m in mentions(parts[0]) if m.kind in ("drug", "class") and (m.start, m.end) == whole]
        if named:
            found.extend(frozenset({mark}) for m in named for mark in sorted(m.marks))
        elif any((d.start, d.end) == whole for d in diseases.mentions(parts[0])):
            found.append(content_terms(parts[0]))
    return tuple(found)
