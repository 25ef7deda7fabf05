"""Whether a text's person is someone in care: named as a patient ("patient", "resident", "service user"), placed in a
care setting ("in a care home", "on the ward"), or named with a disease (MeSH's disease headings and entry terms,
query/diseases.py: "Kuia with advanced dementia", "my resident with Parkinson's").

care_frames.covert_administration_as_law reads it: covert administration of medicines is a practice NICE names for a
person who lacks capacity and refuses (NICE NG67 1.15; the Mental Capacity Act 2005, the Adults with Incapacity
(Scotland) Act 2000), and the person a clinician asks it of is as often named by the condition that takes their
capacity, or by where they live, as by the word "patient" (blind20, session 20: a person with dementia whose family
ask about hiding her medicines in food, and a care home resident, both asked as the legal process). The disease is
read from the shipped MeSH table, not a list of conditions: MeSH's entry terms do not always repeat the heading
("Dementia" lists "dementias", not "dementia"), so the heading is read as a name too.
"""

from __future__ import annotations

import gzip
import re
from functools import lru_cache

from voiceassist.query.diseases import is_disease
from voiceassist.query.terminology import DISEASES_FILE

_NAMED_AS_PATIENT = re.compile(r"\b(?:patients?|pts?|residents?|service users?|inpatients?)\b", re.I)
# the settings of care a person lives or is treated in (NICE SC1 "Managing medicines in care homes"; NG67 for adults
# receiving social care in the community): the setting names its resident
_IN_A_CARE_SETTING = re.compile(r"\b(?:in|at|on)\s+(?:a|an|the|our|my|her|his|their)?\s*(?:care|nursing|residential)"
                                r"\s+homes?\b|\bon\s+(?:the|our|my)\s+ward\b|\bin\s+(?:a|the)\s+hospice\b", re.I)
_WORD = re.compile(r"[a-z0-9]+(?:['-][a-z0-9]+)*")


@lru_cache(maxsize=1)
def _headings() -> frozenset[str]:
    """MeSH's disease headings written as names (lower case; "Dementia, Vascular" is not a name as written)."""
    found: set[str] = set()
    with gzip.open(DISEASES_FILE, "rt", encoding="utf-8") as lines:
        for line in lines:
            if line.startswith("#") or line.count("\t") != 3:
                continue
            heading = line.split("\t")[1]
            if "," not in heading:
                found.add(heading.lower().replace("-", " "))
    return frozenset(found)


def names_a_disease(text: str) -> bool:
    """Whether `text` names a MeSH disease (one to three words, heading or entry term)."""
    words = _WORD.findall(text.lower().replace("\u2019", "'"))
    # an eponym's possessive names its disease or syndrome ("Alzheimer's": MeSH "Alzheimer Disease")
    eponyms = (f"{word[:-2]} {noun}" for word in words if word.endswith("'s") for noun in ("disease", "syndrome"))
    phrases = (" ".join(words[i:i + n]) for n in (1, 2, 3) for i in range(len(words) - n + 1))
    return any(phrase.replace("-", " ") in _headings() or is_disease(phrase) for phrase in (*eponyms, *phrases))


def person_in_care(text: str) -> bool:
    """Whether the text's person is a patient, a resident of a care setting, or named with a disease."""
    return bool(_NAMED_AS_PATIENT.search(text) or _IN_A_CARE_SETTING.search(text)) or names_a_disease(text)
