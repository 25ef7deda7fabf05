"""Words a title takes for names that a dictionary or a phrase's shape says are not (the metadata screen).

NER gives a capitalised word or pair a name's 0.85 in a headline-case title, and the case-folded second reading
(title_reading.py) does not always take it back: "Diaphragm Atrophy", "Birth Size", "Binge Eating Disorder", and
eponyms ("Hutchinson-Gilford progeria syndrome", "Krüppel-like factor", "Epstein-Barr Virus"). Three rules, each
from data or grammar rather than a list of the titles it was tuned on; each makes a find without a cue a guess
(redacted only when something else in the document's metadata names a patient), never drops it:

- **Common words** (`_data/phi/common_words.txt.gz`: the English words Debian's SCOWL list never capitalises,
  written by voiceassist_local.evaluation.common_words): a name all of whose words are common words and none a
  Census given name or surname is no name. A word the dictionary capitalises too ("Smith", "Bill", "Jean") is not
  a common word, and a Census name stays a name whatever else it is ("Long", "Young").
- **Eponyms**: a name that ends in, or is followed by "-like" ("Krüppel-like factor") or within its next
  three words by, the head noun of an eponymous term (syndrome, disease, sign, virus, reflex, phenomenon, palsy,
  sarcoma, lymphoma, anomaly: the nouns eponyms name in medical usage) is the term's, not a person's. Nouns a
  patient's file name carries beside the name (test, report, results, letter, fracture, score) are not heads:
  "John Smith test results" keeps its name.
- **MeSH disease names** (session 17): a name that, with up to two words before it and at least one word after it,
  is a disease name of MeSH or the start of one (`query/diseases.py`: the concept layer's MeSH disease headings
  and entry terms, `_data/concepts/diseases.tsv.gz`) is the eponym of a disease written without its head noun:
  "fibroblasts from children with Hutchinson-Gilford progeria" (MeSH Progeria, entry term "hutchinson-gilford
  progeria syndrome"), "Charcot Marie Tooth neuropathy". A word after the name must continue the disease's name, so
  "Anna Berg progeria clinic letter" and a name alone that starts an eponym ("letter about Martin Bell": Martin-Bell
  syndrome) keep their name.

The cost in recall: a patient whose whole name is common words outside the Census lists, or whose name stands
two words before one of the heads, is found only with a cue or another identifier (docs/benchmarks.md,
"Metadata screen").
"""

from __future__ import annotations

import re

from voiceassist.common_words import common_words
from voiceassist.ingest.title_reading import census_name
from voiceassist.models import PhiEntity
from voiceassist.phi.detection import whole_word_span
from voiceassist.query.diseases import names_or_starts_a_disease

CUED_NAME_SCORE = 0.9  # title_reading's: a name after a cue ("Mr", "patient") is never taken back
EPONYM_HEADS = frozenset({"syndrome", "syndromes", "disease", "diseases", "sign", "signs", "virus", "viruses",
                          "reflex", "phenomenon", "palsy", "sarcoma", "lymphoma", "anomaly"})
_WORD = re.compile(r"[^\W\d_]{2,}")
_LIKE = re.compile(r"-like\b", re.IGNORECASE)
# the three words after a name, a possessive's "'s" (or a file name's " s") first allowed
_NEXT = re.compile(r"(?:['’]s\b)?((?:[\s-]+[^\W\d_]+){1,3})")


def _uncued_name_words(entity: PhiEntity, probe: str) -> tuple[int, list[str]] | None:
    if entity.entity_type != "PERSON" or entity.score >= CUED_NAME_SCORE:
        return None
    start, end = whole_word_span(probe, entity.start, entity.end)
    words = [word.lower() for word in _WORD.findall(probe[start:end])]
    return (end, words) if words else None


def common_word_name(entity: PhiEntity, probe: str) -> bool:
    """A name found without a cue whose words are all common English words and none a Census name."""
    found = _uncued_name_words(entity, probe)
    return found is not None and all(w in common_words() and not census_name(w) for w in found[1])


def eponym(entity: PhiEntity, probe: str) -> bool:
    """A name found without a cue that ends in a head noun ("Epstein-Barr Virus"), or that "-like" or, within
    three words, a head noun follows (see the module)."""
    found = _uncued_name_words(entity, probe)
    if found is None:
        return False
    end, words = found
    if len(words) > 1 and words[-1] in EPONYM_HEADS or _LIKE.match(probe, end) or _LIKE.search(probe, end - 5, end):
        return True
    after = _NEXT.match(probe, end)
    following = _WORD.findall(after.group(1).lower()) if after else []
    return following[:1] == ["like"] or any(word in EPONYM_HEADS for word in following[:3]) or _mesh_eponym(
        entity, probe, words, following)


def _mesh_eponym(entity: PhiEntity, probe: str, words: list[str], following: list[str]) -> bool:
    """The name, with up to two words before it and at least one after it, is a MeSH disease name or the start of one
    ("Hutchinson-Gilford progeria", "McCune-Albright fibrous dysplasia"): an eponym named without its head noun."""
    start = whole_word_span(probe, entity.start, entity.end)[0]
    before = _WORD.findall(probe[max(0, start - 40): start].lower())[-2:]
    return any(names_or_starts_a_disease([*before[len(before) - back:], *words, *following[:ahead]])
               for back in range(len(before) + 1) for ahead in range(1, len(following[:3]) + 1))
