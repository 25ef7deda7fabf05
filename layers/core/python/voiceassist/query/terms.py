"""Content terms: the lightly stemmed words of a text without stop words, shared by the extractive composer,
the evidence score, the synonyms and the grounding check; and the drug names those recognise."""

from __future__ import annotations

import re
from functools import lru_cache

from voiceassist.phi.word_lists import DRUG_WORDS, stop_words, word_list

STOPWORDS = frozenset(
    " ".join((
        "a about above after again against all am an and any are as at be because been before being below",
        "between both but by can could did do does doing down during each few for from further had has",
        "have having he her here hers him his how i if in into is it its itself just me more most my no",
        "nor not now of off on once only or other our out over own same she should so some such than that",
        "the their them then there these they this those through to too under until up very was we were",
        "what when where which while who whom why will with would you your patient patients use used",
        "using give given recommend recommended someone somebody anyone anybody",
        # conversation, not content: greetings, politeness, hedges (no terminology lists chat fillers)
        "ok okay hi hello hey thanks thank please pls plz just quick question wondering really actually",
        "basically guys sure yes yeah right like kind sort anything something",
    )).split()
)
# "what's", "they're", "doesn't": the word before the contraction is what counts ("what", a stop word)
_CONTRACTION = re.compile(r"(?:'s|'re|'ve|'ll|'d|'m|n't)$")
WORD = re.compile(r"[^\W_]+(?:[-'][^\W_]+)*")  # letters of any alphabet: "máxima" is one word, not "m" and "xima"
_DIGRAPH = re.compile(r"(?:(?<=[a-z])|^)[ao]e(?=[a-z])")  # "haem", "oesophagus", "diarrhoea"; not "toe"
_GREEK_X = ("xis", "ctic", "ctics")
SUFFIXES = ("ations", "ation", "ings", "ing", "ies", "ied", "ness", "ments", "ment", "ers", "er", "ed", "es",
             "ly", "s")


@lru_cache(maxsize=65536)  # words repeat across passages: the evidence score stems ~2,000 a question
def stem(word: str) -> str:
    """A light suffix stripper: enough to match "dosing" with "dose", "infections" with "infection" and
    "titration" with "titrated" (-ation keeps its "at"). Porter's step 4 endings -ive, and -ion after s or t,
    go too, so an adjective meets its noun ("hypertensive", "hypertension"); British spelling's classical
    digraphs ae and oe are read as e, so "diarrhoea" meets "diarrhea" and "paediatric" "pediatric" (Porter M,
    "An algorithm for suffix stripping", Program 14(3), 1980). A Greek noun in -xis and its adjective in -ctic
    ("anaphylaxis", "anaphylactic"; "prophylaxis", "prophylactic") share the stem in -ct."""
    word = _DIGRAPH.sub("e", word)
    if len(word) > 6 and word.endswith(_GREEK_X):  # "anaphylaxis", "anaphylactic": "anaphylact"
        return word[:word.rindex("xis")] + "ct" if word.endswith("xis") else word[:word.rindex("ctic")] + "ct"
    for suffix in SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 3 and not (suffix == "s" and word.endswith("ss")):
            word = word[: -len(suffix)] + ("at" if suffix.startswith("ation") else "")
            break
    for suffix in ("ive", "iv", "ion"):  # "iv": "-ives" after its "es" went
        if word.endswith(suffix) and len(word) - len(suffix) >= 4 and (suffix != "ion" or word[-4] in "st"):
            word = word[: -len(suffix)]
            break
    return word.rstrip("e") if len(word) > 3 else word


# Compound modifiers are written with or without their hyphen ("community acquired pneumonia", "first line
# treatment", "extended release"); both sides are read hyphenated. The second words that form such compounds
# in clinical English (participles and a few nouns of fixed compounds):
# A contraction's ending ("pressure's like", "she's like") is no first word of a compound: the apostrophe before it
# closes the word (its "'s" is "is", "has" or a possessive), so nothing after it is hyphenated.
_COMPOUND = re.compile(r"(?<!['\u2019])\b([a-z0-9]+) (acquired|associated|induced|related|dependent|resistant|"
                       r"sensitive|line|release|term|onset|like|based|limiting|threatening|sparing|lowering)\b", re.I)


_NEXT_WORD = re.compile(r"\s*([^\W_]+(?:'[^\W_]+)?)")


def hyphenate(text: str) -> str:
    """`text` with its compound modifiers hyphenated: "community acquired" -> "community-acquired"."""
    return _COMPOUND.sub(_compound, text)


def _compound(match: re.Match[str]) -> str:
    """The compound, or the two words as written where "like" is not the suffix. The suffix -like forms adjectives
    from nouns ("thiazide-like", "flu-like"); after a function word ("go like", "they like it", "something like") or
    before one ("a score like that", "like which muscle", "like by how much": the preposition or the discourse
    marker of speech, which a transcript writes without its commas) "like" is a word of its own. Function words:
    spaCy's English stop words (_data/phi/stop_words.tsv, MIT)."""
    first, second = match.group(1), match.group(2)
    if second.lower() == "like":
        function = stop_words().get("en", frozenset())
        after = _NEXT_WORD.match(match.string, match.end())
        if first.lower() in function or (after is not None and after.group(1).lower() in function):
            return match.group()
    return f"{first}-{second}"


def content_terms(text: str) -> frozenset[str]:
    lowered = hyphenate(text.lower().replace("\u2019", "'"))
    words = (_CONTRACTION.sub("", w) for w in WORD.findall(lowered))
    return frozenset(stem(w) for w in words if w not in STOPWORDS and len(w) > 1)


# Running English text is largely function words (the hundred most frequent English words, nearly all function
# words, make up about half of the Oxford English Corpus); the sample references hold 25-50 % of STOPWORDS per
# passage and the NFCorpus abstracts as distributed (stop words removed) 0-9 % (459 passages retrieved for the tune
# questions). Text with under MIN_PROSE_SHARE of them and no digit is a run of index terms (keywords, subject
# headings, an abstract stripped of its stop words): it names topics and states nothing. A dose table ("Metformin
# 500 mg twice daily") has digits, and a list ("Contraindications: severe renal impairment, metabolic acidosis",
# one item a line) has its punctuation or line breaks: neither is one.
MIN_PROSE_SHARE = 0.15
_DIGIT = re.compile(r"\d")
_STRUCTURE = re.compile(r"[.;:!?](?=\s|$)|\n|\u2022")  # a sentence end, a label's colon, a line, a bullet


@lru_cache(maxsize=2048)  # Rank and the ladder judge the same passages
def is_keyword_form(text: str) -> bool:
    """Whether `text` is a run of index terms rather than statements (see MIN_PROSE_SHARE)."""
    if _DIGIT.search(text) or _STRUCTURE.search(text):
        return False
    words = WORD.findall(text.lower())
    return len(words) >= 3 and sum(w in STOPWORDS for w in words) < MIN_PROSE_SHARE * len(words)


def drug_words() -> frozenset[str]:
    """One-word drug names, brand and generic: the list the PHI detector uses to tell drugs from names."""
    return word_list(DRUG_WORDS)


# A follow-up rewritten with the topic it inherited, "<follow-up> (<topic>)": conversation/context.py writes
# it, the evidence score weighs the two parts apart (query/evidence.py).
INHERITED_TOPIC = re.compile(r"^(.*)\(([^()]*)\)\s*$", re.S)


def split_inherited(text: str) -> tuple[str, str]:
    """(the question itself, the topic it inherited), or (text, "") when it inherited none."""
    match = INHERITED_TOPIC.match(text)
    return (match.group(1), match.group(2)) if match else (text, "")
