"""Who a question is about, and who the evidence is about: age groups, pregnancy, breastfeeding, renal and
hepatic impairment.

The groups and their names are MeSH's (the Medical Subject Headings' age groups, with their entry terms:
"Infant, Newborn" birth to 1 month, "Infant" 1 to 23 months, "Child" 2 to 12 years, "Adolescent" 13 to 18,
"Adult" 19 to 64, "Aged" 65 and over; "Pregnancy", "Breast Feeding", "Renal Insufficiency", "Hepatic
Insufficiency"); an age in digits or words ("a 4 year old", "8 yo", "a ten year old"), or in the notes'
shorthand ("58M", "4yoF", "a 6/52 old"), falls in its group by those bounds.

A question about a special group (a neonate, an infant, a child, an adolescent, an older adult, a pregnancy, a
breastfeeding mother, renal or hepatic impairment) is answered only from evidence that says something about that
group: its document's title or its section names it, or a sentence of the passage does, other than in passing.
In passing (`specific`): one item of a list of three or more ("comorbidities such as chronic heart, lung, liver
or kidney disease, diabetes ..."; "occurs mainly with severe renal impairment, hypoxia or sepsis"), unless the
list is of contraindications; or a measure of organ function without a value ("check electrolytes and renal
function": MeSH files eGFR, creatinine clearance and liver function tests as tests, not as the impairment,
which "eGFR below 30" states). Evidence that does not is for another population (a guideline "in Adults", a
dose for "most adults", or a reference silent on children), and the answer says so first
(`AnswerStatus.ANSWERED_OTHER_POPULATION`, query/abstention.py).
"""

from __future__ import annotations

import gzip
import os
import re
from collections.abc import Iterable
from functools import lru_cache

from voiceassist.common_words import common_words
from voiceassist.query import clinical_spelling, diseases, terminology
from voiceassist.query.population_terms import (  # noqa: F401 - the groups are read as population.X
    ADOLESCENT,
    ADULT,
    BREASTFEEDING,
    CHILD,
    HEPATIC,
    INFANT,
    NEONATE,
    OLDER_ADULT,
    PREGNANCY,
    RENAL,
    TERMS,
)
from voiceassist.settings import PACKAGE_DIR

# Tests of organ function (MeSH "Glomerular Filtration Rate", "Kidney Function Tests", "Liver Function Tests"):
# a question naming one is about the impairment ("metformin if eGFR is 25", "dose for kidney function"); a passage
# names the impaired group with one only when it gives a value ("when eGFR is below 30").
MEASURES = frozenset({"egfr", "creatinine clearance", "renal function", "kidney function", "hepatic function",
                      "liver function", "crcl", "gfr", "glomerular filtration rate",
                      "estimated glomerular filtration rate"})
SPECIAL = (NEONATE, INFANT, CHILD, ADOLESCENT, OLDER_ADULT, PREGNANCY, BREASTFEEDING, RENAL, HEPATIC)
# Evidence about a wider group covers a narrower one: "children" in a reference covers an adolescent or an
# infant (MeSH "Child" is the paediatric heading's usual reading), not a neonate.
COVERED_BY: dict[str, frozenset[str]] = {
    NEONATE: frozenset({NEONATE}), INFANT: frozenset({INFANT, CHILD}), CHILD: frozenset({CHILD}),
    ADOLESCENT: frozenset({ADOLESCENT, CHILD}), OLDER_ADULT: frozenset({OLDER_ADULT}),
    PREGNANCY: frozenset({PREGNANCY}), BREASTFEEDING: frozenset({BREASTFEEDING}), RENAL: frozenset({RENAL}),
    HEPATIC: frozenset({HEPATIC}),
}
# An age's number in digits or in English words, as a dictation or a spoken question gives it ("a ten year old",
# "a six-week-old", "eighty five years old"): English's cardinal numbers, not a clinical list
_UNITS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve",
          "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen")
_TENS = {"twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80,
         "ninety": 90}
NUMBER_WORDS = (r"(?:(?:" + "|".join(_TENS) + r")(?:[\s-](?:" + "|".join(_UNITS[1:10]) + r"))?|"
                 + "|".join(sorted(_UNITS, key=len, reverse=True)) + r")")
CARDINAL_WORDS = frozenset((*_UNITS, *_TENS))  # the words the cardinals above are said with
_AGE = re.compile(r"\b(\d{1,3}|" + NUMBER_WORDS + r")[\s-]*(?:(yo|y/o|(?:years?|yrs?|y)[\s-]*(?:old|of age))|"
                  r"(months?|mo)[\s-]*old|(weeks?|days?)[\s-]*old)(?![\w/])", re.I)
_AGED = re.compile(r"\baged?\s+(\d{1,3}|" + NUMBER_WORDS + r")\b", re.I)
# An age said without "years old", where the grammar gives a person's age: a person or a pronoun, "is" or "'s", then
# a bare number ("my patient's eighty five and pretty frail", "she is 85 and frail", "he's 70."), or a patient and
# the number set off by a comma ("pt 88, frail"). Nothing may follow the number but the clause's end or "and": a
# unit, a decimal or a duration makes it a value ("she is 85 kg", "he is 2 weeks post op", "potassium is 5.5").
_PERSON = (r"(?<![\w'\u2019-])(?:patient|pt|man|woman|lady|gentleman|gent|guy|chap|boy|girl|child|kid|son|daughter"
           r"|mum|mom|mother|dad|father|husband|wife|grandmother|grandfather|grandma|grandpa|gran|nan|she|he)")
_SAID_END = r"(?=\s*(?:$|[,;:!?)]|\.(?!\d)|\s+and\b))"
_AGE_SAID = re.compile(
    _PERSON + r"(?:\s+is|['\u2019]s)\s+(?:now\s+)?(\d{1,3}|" + NUMBER_WORDS + r")(?![\w.]\d)" + _SAID_END
    + r"|(?<![\w'\u2019-])(?:patient|pt)\s+(\d{1,3}|" + NUMBER_WORDS + r")(?=\s*,)", re.I)
MAX_SAID_AGE = 120
# An age said as a noun phrase: a person and "of" a number ("frail old boy of 89", "a lad of 4", "a gentleman of
# eighty-five"), the number followed by nothing but "years old", the clause's end or a word that opens the rest of the
# sentence ("with", "who", "on"): a unit or a noun after it makes it a count ("a smoker of 40 pack years"), and a
# thousands separator or a decimal point a value ("count of 18,000"). The person
# is any English noun that names one (WordNet 3.0's noun.person, less relatives: "a mother of 3" counts her
# children; `_data/concepts/person_nouns.txt.gz`, voiceassist_local.evaluation.person_noun_data; decision 0024,
# session 17), or "pt".
PERSON_NOUNS_FILE = PACKAGE_DIR / "_data" / "concepts" / "person_nouns.txt.gz"
_OF_AGE = re.compile(r"(?<![\w'\u2019-])([a-z]+)\s+of\s+(\d{1,3}(?![.,]\d)|" + NUMBER_WORDS + r")"
                     r"(?:[\s-]*(?:years?|yrs?)[\s-]*old)?"
                     r"(?=\s*(?:$|[,;:!?)]|\.(?!\d)|\s+(?:and|with|who|on|in|has|had|is|was|presenting|here)\b))",
                     re.I)
# An age said by its decade: "in her 90s", "in his late eighties", "in their mid-70s", "in her teens" (a possessive
# before it: "in the 90s" is a decade of the calendar). Early, mid and late place it in the decade (0, 5, 8 years on).
_DECADE_WORDS = {"twenties": 20, "thirties": 30, "forties": 40, "fifties": 50, "sixties": 60, "seventies": 70,
                 "eighties": 80, "nineties": 90, "teens": 13}
_DECADE = re.compile(r"\bin\s+(?:his|her|their|my|your)\s+(?:(early|mid|late)[\s-]*)?(?:([1-9])0['\u2019]?s|("
                     + "|".join(_DECADE_WORDS) + r"))\b", re.I)
_DECADE_PLACE = {"early": 0, "mid": 5, "late": 8}
# The case-note shorthand for age and sex ("58M", "70 F", "4yoM", "6 y/o F": years, then the sex in capitals), not
# a quantity: no decimal point or digit before it ("0.9M" saline, "2.4M units") and no unit after it ("5M units").
_AGE_SEX = re.compile(r"(?<![\w.,/])(\d{1,2})\s?(?:yo|y/o|y)?\s?[MF](?![\w/])(?!\s*(?:units?|IU|iu)\b)")
# "99F" after a temperature's word is degrees Fahrenheit, not a woman of 99
_TEMPERATURE = re.compile(r"(?:temp\w*|fever\w*|febrile|pyrexi\w*|T)\W{0,3}$", re.I)
# The British notes' fraction for a young child's age: weeks as n/52, months as n/12, days as n/7, followed by
# "old" ("a 6/52 old baby", "3/12 old"); without "old" it is a date or a fraction.
_AGE_FRACTION = re.compile(r"(?<![\w/])(\d{1,2})/(52|12|7)[\s-]*old\b", re.I)
# The same notes' fraction for a pregnancy's gestation: weeks of 40 ("28/40", "36+3/40"), 4 to 42 weeks; a blood
# pressure's diastolic 40 follows a systolic of three digits ("150/40") and a score out of 40 names its scale
_GESTATION = re.compile(r"(?<![\w/.+])([4-9]|[1-3]\d|4[0-2])(?:\+[0-6])?/40(?![\w/])")
# The obstetric notation of gravidity and parity ("G2P1", "G3 P2+1", "G1P0") followed by the weeks of the current
# pregnancy ("at 20 weeks", "20w", "20+3 wks", "28/40"): a pregnant woman. The notation alone is an obstetric history
# (a G2P2 six weeks postpartum is not pregnant), so it needs the weeks.
_GRAVIDA_WEEKS = re.compile(
    r"\bG\d{1,2}\s?P\d{1,2}(?:\s?\+\s?\d{1,2})?\b[^.?!\n]{0,20}?\b([4-9]|[1-3]\d|4[0-2])(?:\+[0-6])?\s?"
    r"(?:weeks?|wks?|w|/40)(?![\w/])", re.I)
# a list's separators: a comma (with or without a conjunction after it), or "or"/"and" between two items
_SEPARATOR = re.compile(r",\s*(?:(?:or|and)\s+)?|\s+(?:or|and)\s+", re.I)
# a sentence ends at its full stop, a blank line or a line that starts a bullet or a heading (a line wrapped
# inside a sentence, as a PDF's are, does not end it)
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z(])|\n\s*\n|\n(?=\s*(?:[-*\u2022#]|\d+[.)]\s))")
_SEGMENT = re.compile(r"[;:()\[\]]")  # a list does not run across these
ITEM_WORDS = 4  # an item of a list is a short noun phrase ("alcohol use disorder", "severe hepatic impairment")
_VALUE = re.compile(r"\d")  # a test of organ function given with a value: "eGFR below 30"
_CONTRAINDICATION = re.compile(r"contraindicat", re.I)  # a list of contraindications states each one
# a sentence's opening prepositional phrase is its setting, not a list's first item (closed-class words)
_INTRODUCTORY = re.compile(r"\s*(?:in|for|with|among|during|if|when|after|before)\b", re.I)


# A condition of pregnancy is a pregnancy: a disease MeSH files under Pregnancy Complications (C12.050.703 in the
# shipped MeSH, C13.703 before MeSH 2023: "GDM at 28 weeks", pre-eclampsia, hyperemesis gravidarum, placenta
# praevia, ectopic pregnancy), by any of its names or a clinician's shorthand for one (terminology.SHORTHAND: "gdm").
# Not its branches that are no current pregnancy: the pregnancy lost (Abortion, Spontaneous .039; Fetal Death .223;
# Perinatal Death .572), the fetus's or newborn's own disease (Fetal Diseases .277; Prenatal Injuries .824; Premature
# Birth .420.491.500, the infant born preterm), a woman's disorder of any age (Pelvic Floor Disorders .565), a
# tumour after pregnancy (Neoplastic .720) and the puerperium, after the birth (Puerperal Disorders .844), of which
# Lactation Disorders (.844.506: hypogalactia) is a breastfeeding mother's; its narrower galactorrhoea is not.
# blind14 drove this (development figures: decision 0024).
PREGNANCY_TREE = "C12.050.703"
_NOT_A_PREGNANCY = tuple(PREGNANCY_TREE + "." + branch for branch in (
    "039", "223", "572", "277", "824", "420.491.500", "565", "720", "844"))
LACTATION_TREE = "C12.050.703.844.506"


def _condition_group(mark: str) -> str | None:
    """The special group a disease (its mark) puts its patient in by MeSH's tree, or None."""
    numbers = diseases.tree_numbers(mark)
    if LACTATION_TREE in numbers:
        return BREASTFEEDING
    pregnant = [n for n in numbers if n.startswith(PREGNANCY_TREE + ".") or n == PREGNANCY_TREE]
    if pregnant and not all(n.startswith(_NOT_A_PREGNANCY) for n in pregnant):
        return PREGNANCY
    return None


_WORD_OR_SHORTHAND = re.compile(r"(?<![\w/-])[a-z0-9]+(?![\w/-])", re.I)


def _conditions(text: str) -> list[tuple[int, int, str]]:
    """(start, end, group) of each condition `text` names that puts its patient in a special group."""
    found = [(d.start, d.end, group) for d in diseases.mentions(text)
             if (group := _condition_group(d.mark)) is not None]
    for match in _WORD_OR_SHORTHAND.finditer(text):
        meaning = terminology.SHORTHAND.get(match.group().lower())
        named = diseases.mentions(meaning) if meaning else ()
        group = _condition_group(named[0].mark) if len(named) == 1 and named[0].written == meaning else None
        if group is not None:
            found.append((match.start(), match.end(), group))
    return found


@lru_cache(maxsize=1)
def _pattern() -> re.Pattern[str]:
    forms = sorted({form for forms in TERMS.values() for form in forms}, key=len, reverse=True)
    # "aged" followed by a number is an age (_AGED), not the MeSH "Aged" group: "patients aged 30", "aged two"
    alternatives = [re.escape(f) + (r"(?!\s+(?:\d|" + NUMBER_WORDS + r"\b))" if f == "aged" else "") for f in forms]
    return re.compile(r"(?<![\w-])(" + "|".join(alternatives) + r")(?![\w-])", re.I)


@lru_cache(maxsize=1)
def _group_of() -> dict[str, str]:
    return {form: group for group, forms in TERMS.items() for form in forms}


def _age_group(years: float) -> str:
    if years < 1 / 12:
        return NEONATE
    if years < 2:
        return INFANT
    if years < 13:
        return CHILD
    if years < 19:
        return ADOLESCENT
    return ADULT if years < 65 else OLDER_ADULT


@lru_cache(maxsize=65536)
def groups(text: str) -> frozenset[str]:
    """The population groups `text` names, by a MeSH term or by an age."""
    return frozenset({_group_of()[m.group(1).lower()] for m in _pattern().finditer(text)} | _ages(text))


# A group the question names as what the patient has not ("no CKD", "not pregnant", "denies pregnancy", "eGFR
# normal") is not the patient's group. NegEx (Chapman WW et al., J Biomed Inform 2001;34:301-10): its triggers
# (_data/concepts/negation_triggers.tsv, as negspacy ships them, MIT; voiceassist_local.evaluation.negation_data)
# and its scope, the next (a following trigger's: the previous) NEGATION_SCOPE words up to a clause mark or a
# termination phrase ("but", "however"). A preceding trigger that negates a verb ("not", "isn't", "cannot") negates
# the group only when nothing but closed-class words stand between ("not on dialysis", "isn't pregnant"): in a
# question it negates its verb ("why is it not recommended in pregnancy?", "can't be used in CKD?"). "non-" joined
# to the term is read by the pattern's boundary ("non-pregnant"); written apart ("non pregnant") it is such a
# trigger. A test of organ function said to be normal ("eGFR normal", "normal renal function") is no impairment.
NEGATION_FILE = PACKAGE_DIR / "_data" / "concepts" / "negation_triggers.tsv"
NEGATION_SCOPE = 5
_BETWEEN_VERB_AND_GROUP = frozenset({"be", "been", "being", "have", "has", "had", "on", "a", "an", "any",
                                     "currently", "known", "to"})
_CLAUSE_MARK = re.compile(r"[,.;:!?()\n\u2013]|\s-\s")
_NORMAL = re.compile(r"\b(?:normal|preserved|intact)\b", re.I)
_WORD = re.compile(r"[\w'/-]+")


@lru_cache(maxsize=1)
def _triggers() -> dict[str, re.Pattern[str]]:
    kinds: dict[str, list[str]] = {}
    for line in NEGATION_FILE.read_text().splitlines():
        if line and not line.startswith("#"):
            kind, phrase = line.split("\t")
            kinds.setdefault(kind, []).append(phrase)
    kinds["preceding"].append("non")
    return {kind: re.compile(r"(?<![\w'])(?:" + "|".join(re.escape(p) for p in sorted(phrases, key=len, reverse=True))
                             + r")(?![\w'])", re.I) for kind, phrases in kinds.items()}


def _negates_a_verb(trigger: str) -> bool:
    last = trigger.lower().split()[-1]
    return last in {"not", "cannot", "non"} or last.endswith(("n't", "nt")) and len(last) <= 7


def _negated(text: str, start: int, end: int) -> bool:
    """Whether text[start:end], a group's term, is inside a negation's scope (NegEx, above)."""
    triggers = _triggers()
    masked = triggers["pseudo"].sub(lambda m: " " * len(m.group(0)), text)  # "no further", "not only"
    clause_start = max([0, *(m.end() for m in _CLAUSE_MARK.finditer(masked, 0, start))])
    stop = _CLAUSE_MARK.search(masked, end)
    clause_end = stop.start() if stop else len(masked)
    for trigger in triggers["preceding"].finditer(masked, clause_start, start):
        between = masked[trigger.end():start]
        if triggers["termination"].search(between):
            continue
        words = _WORD.findall(between)
        if _negates_a_verb(trigger.group(0)):
            if all(w.lower() in _BETWEEN_VERB_AND_GROUP for w in words):
                return True
        elif len(words) < NEGATION_SCOPE:
            return True
    for trigger in triggers["following"].finditer(masked, end, clause_end):
        between = masked[end:trigger.start()]
        if not triggers["termination"].search(between) and len(_WORD.findall(between)) < NEGATION_SCOPE:
            return True
    if text[start:end].lower() in MEASURES:
        near = " ".join(_WORD.findall(masked[clause_start:start])[-2:] + _WORD.findall(masked[end:clause_end])[:2])
        return bool(_NORMAL.search(near))
    return False


# A population word typed misspelt or spelt as another language writes it ("hemodializ", "pregant", "breastfeding",
# "pediatirc", "cirrosis", "eGRF"): a word no vocabulary here knows, a few edits from one
# single-word form of TERMS of MIN_EDITED letters or more (Damerau's edits: a letter left out, added, changed, or two
# neighbours swapped: one, two for a form of TWO_EDITS letters or more; a form of four letters, an abbreviation, only
# by a swap; or another language's ending: _foreign_ending), nearer to forms of one group than of any other. A
# known word is never respelt: an English word (the shipped English lists: SCOWL, wordfreq's Zipf 3 and over, the
# ordinary words, the English words one edit from a term), a drug, a disease, an abbreviation, or a word one edit
# from another clinical word or drug name ("infart": infarct as much as infant), a word of a disease's name
# ("myasthenia gravis") or a name (capitalised inside a sentence: "Newburn"). Decision 0024, session 17.
MIN_RESPELT = 4
MIN_EDITED = 7  # a form of 5-6 letters ("gravid", "infant", "adult") is one edit from too many words ("gravis")
TWO_EDITS = 10  # a form of 10 letters or more ("breastfeeding") may be typed two edits off


def _foreign_ending(word: str, form: str) -> bool:
    """Whether `word` is `form` with another language's ending: they share a start of FOREIGN_STEM letters or more
    and differ in the last FOREIGN_TAIL letters at most ("hemodializ", hemodialysis: Russian гемодиализ); a word that
    only adds to the form is a derivation ("paediatrician"), not the form."""
    shared = len(os.path.commonprefix([word, form]))
    return (FOREIGN_STEM <= shared < len(form) and len(form) - shared <= FOREIGN_TAIL
            and len(word) - shared <= FOREIGN_TAIL)


FOREIGN_STEM, FOREIGN_TAIL = 8, 4
_LETTERS = re.compile(r"(?<![\w'\u2019/-])[A-Za-z]{" + str(MIN_RESPELT) + r",}(?![\w'\u2019/-])")


@lru_cache(maxsize=1)
def _single_forms() -> dict[str, str]:
    return {form: group for group, forms in TERMS.items() for form in forms if form.isalpha()
            and len(form) >= MIN_RESPELT}


def _edits(a: str, b: str, limit: int) -> int:
    """Damerau's optimal-string-alignment distance between `a` and `b`, or limit + 1 when it is larger."""
    if abs(len(a) - len(b)) > limit:
        return limit + 1
    previous, current = list(range(len(b) + 1)), [0] * (len(b) + 1)
    before: list[int] = []
    for i in range(1, len(a) + 1):
        current = [i] + [0] * len(b)
        for j in range(1, len(b) + 1):
            current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] != b[j - 1]))
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                current[j] = min(current[j], before[j - 2] + 1)
        if min(current) > limit:
            return limit + 1
        before, previous = previous, current
    return previous[len(b)]


def _known_word(lower: str) -> bool:
    if (lower in common_words() or lower in terminology.english_words() or lower in terminology.ordinary_words()
            or lower in terminology.english_near_terms() or lower in terminology.drug_names()
            or lower in terminology.folded_abbreviations() or diseases.is_disease(lower)):
        return True
    if clinical_spelling.one_edit_drug(lower) is not None:
        return True
    index = clinical_spelling.word_deletions()  # clinical words by their one-letter deletions ("" when shared)
    near = {index.get(key) for key in (lower, *(lower[:i] + lower[i + 1:] for i in range(len(lower))))}
    return any(word == "" or word is not None and word not in _single_forms() and _edits(lower, word, 1) <= 1
               for word in near)


@lru_cache(maxsize=65536)
def respelt_group(word: str) -> str | None:
    """The group of the population word `word` is a misspelling of (see MIN_EDITED), else None."""
    lower = word.lower()
    forms = _single_forms()
    if lower in forms or len(lower) < MIN_RESPELT:
        return None
    best: dict[str, int] = {}
    for form, group in forms.items():
        if len(form) == MIN_RESPELT:  # a four-letter form ("egfr", "crcl", "teen") only by two neighbours swapped
            if sorted(lower) != sorted(form) or _edits(lower, form, 1) != 1:
                continue
            distance = 1
        elif len(form) < MIN_EDITED:
            continue
        else:
            limit = 2 if len(form) >= TWO_EDITS else 1
            distance = _edits(lower, form, limit)
            if distance > limit and not _foreign_ending(lower, form):
                continue
        best[group] = min(distance, best.get(group, distance))
    if not best:
        return None
    nearest = min(best.values())
    groups_ = [group for group, distance in best.items() if distance == nearest]
    if len(groups_) != 1 or _known_word(lower):
        return None
    return groups_[0]


def _respelt(text: str) -> list[tuple[int, int, str]]:
    """(start, end, group) of each misspelt population word of `text` (respelt_group)."""
    named = [(d.start, d.end) for d in diseases.mentions(text)]
    return [(m.start(), m.end(), group) for m in _LETTERS.finditer(text)
            if not any(s <= m.start() < e for s, e in named) and not _a_name(text, m.start(), m.group())
            and (group := respelt_group(m.group()))]


def _a_name(text: str, start: int, word: str) -> bool:
    """Whether `word` is capitalised inside a sentence (a name, not a misspelt word; all capitals are shorthand)."""
    before = text[:start].rstrip()
    return word[:1].isupper() and not word.isupper() and before != "" and before[-1] not in ".!?:;-\n"


def asked(question: str) -> frozenset[str]:
    """The special groups a question is about ("a 4 year old" -> children; "adults" is no special group), less
    those it names as what the patient has not ("no CKD", "not pregnant": NegEx, above)."""
    named = {_group_of()[m.group(1).lower()] for m in _pattern().finditer(question)
             if not _negated(question, m.start(1), m.end(1))}
    named |= {group for start, end, group in _conditions(question) if not _negated(question, start, end)}
    named |= {group for start, end, group in _respelt(question) if not _negated(question, start, end)}
    return frozenset(named | _ages(question)) & frozenset(SPECIAL)


def _in_a_list(segment: str, start: int, end: int) -> bool:
    """Whether segment[start:end] is one item of a list of three or more short items ("heart, lung, liver or
    kidney disease, diabetes"), the first of which may share its piece with the words leading into the list
    ("occurs mainly with severe renal impairment, hypoxia or sepsis")."""
    bounds = [0]
    for separator in _SEPARATOR.finditer(segment):
        bounds += [separator.start(), separator.end()]
    bounds.append(len(segment))
    pieces = [segment[bounds[i]:bounds[i + 1]] for i in range(0, len(bounds), 2)]
    here = next((i for i in range(len(pieces)) if bounds[2 * i] <= start < bounds[2 * i + 1]), None)
    if here is None:
        return False
    offset = bounds[2 * here]
    if end > offset + len(pieces[here]):
        return False  # a separator inside the term ("renal or hepatic impairment" reads whole)

    def short(i: int) -> bool:
        return 0 <= i < len(pieces) and 0 < len(pieces[i].split()) <= ITEM_WORDS

    after = 0
    while short(here + 1 + after):
        after += 1
    if not short(here):  # the lead-in's piece: the term must end it and items must follow
        return not pieces[here][end - offset:].strip() and after >= 2
    if here == 0 and _INTRODUCTORY.match(pieces[here]):
        return False  # "In renal impairment, reduce the dose ...": the sentence's setting, not an item
    before = 0
    while short(here - 1 - before):
        before += 1
    lead = 1 if here - 1 - before >= 0 else 0  # the lead-in's piece ends with the first item
    return before + lead + 1 + after >= 3


def cardinal(text: str) -> int:
    """A cardinal number in digits or in English words ("12", "twelve", "eighty-five")."""
    if text.isdigit():
        return int(text)
    words = re.split(r"[\s-]+", text.lower())
    return _TENS.get(words[0], 0) + (_UNITS.index(words[-1]) if words[-1] in _UNITS else 0)


@lru_cache(maxsize=1)
def person_nouns() -> frozenset[str]:
    """The nouns that name a person (PERSON_NOUNS_FILE; a missing file is an install error: it raises)."""
    with gzip.open(PERSON_NOUNS_FILE, "rt", encoding="utf-8") as lines:
        return frozenset(line.strip() for line in lines if line.strip() and not line.startswith("#"))


def _is_person(word: str) -> bool:
    lower = word.lower()
    return lower == "pt" or lower in person_nouns()  # "pt": the notes' patient


def _ages(text: str) -> set[str]:
    found = set()
    for match in _AGE.finditer(text):
        number = cardinal(match.group(1))
        years = number if match.group(2) else number / 12 if match.group(3) else number / 365 if match.group(
            4) and match.group(4).lower().startswith("d") else number / 52
        found.add(_age_group(years))
    found |= {_age_group(cardinal(m.group(1))) for m in _AGED.finditer(text)}
    found |= {_age_group(years) for m in _AGE_SAID.finditer(text)
              if (years := cardinal(m.group(1) or m.group(2))) <= MAX_SAID_AGE}
    found |= {_age_group(int(m.group(1))) for m in _AGE_SEX.finditer(text)
              if not _TEMPERATURE.search(text, max(0, m.start() - 14), m.start())}
    per_year = {"52": 52, "12": 12, "7": 365}
    found |= {_age_group(int(m.group(1)) / per_year[m.group(2)]) for m in _AGE_FRACTION.finditer(text)}
    found |= {_age_group(years) for m in _OF_AGE.finditer(text)
              if _is_person(m.group(1)) and (years := cardinal(m.group(2))) <= MAX_SAID_AGE}
    for m in _DECADE.finditer(text):
        start = int(m.group(2)) * 10 if m.group(2) else _DECADE_WORDS[m.group(3).lower()]
        place = _DECADE_PLACE.get((m.group(1) or "").lower(), 0)
        found.add(_age_group(start + (min(place, 6) if start == 13 else place)))
    return found | ({PREGNANCY} if _GESTATION.search(text) or _GRAVIDA_WEEKS.search(text) else set())


@lru_cache(maxsize=65536)
def specific(text: str) -> frozenset[str]:
    """The groups a passage's sentences say something about: those they name other than in passing (an item of
    a list of three or more that is not of contraindications, or a test of organ function without a value),
    and ages typed as numbers."""
    found: set[str] = set()
    for sentence in _SENTENCE.split(text):
        named = [(m, _group_of()[m.group(1).lower()]) for m in _pattern().finditer(sentence)]
        named += [(m, group) for m in (*_AGE.finditer(sentence), *_AGED.finditer(sentence),
                                       *_AGE_SEX.finditer(sentence), *_AGE_FRACTION.finditer(sentence))
                  for group in _ages(m.group(0))]
        for match, group in named:
            if match.group(1).lower() in MEASURES and not _VALUE.search(sentence, match.end()):
                continue
            cut = max([0, *(m.end() for m in _SEGMENT.finditer(sentence, 0, match.start()))])
            stop = _SEGMENT.search(sentence, match.end())
            segment = sentence[cut:stop.start() if stop else len(sentence)]
            if (_in_a_list(segment, match.start() - cut, match.end() - cut)
                    and not _CONTRAINDICATION.search(sentence, 0, match.start())):
                continue
            found.add(group)
    return frozenset(found)


def uncovered(question: str, evidence_texts: Iterable[str], headings: Iterable[str] = ()
              ) -> tuple[frozenset[str], frozenset[str]]:
    """(the question's special groups that neither a heading nor an evidence text says something about, the
    groups the evidence is about instead). `headings`: the documents' titles and sections, which name the group
    of all their text."""
    texts = list(evidence_texts)
    named = frozenset().union(*(specific(text) for text in texts), *(groups(heading) for heading in headings))
    scored = frozenset().union(*(scored_groups(question, text) for text in texts))
    missing = frozenset(g for g in asked(question) if not COVERED_BY[g] & (named | scored))
    return missing, named - asked(question)


# A score's criteria listed after its name ("the CURB-65 score: confusion, urea above 7 mmol/L, ... and age 65
# years or older"): a group that is one of them is one the score's advice was made for, by construction
_SCORE_CRITERIA = re.compile(r"\b([A-Za-z][\w-]*\d[\w-]*|[A-Z]{2,}[\w-]*)(?:\s+(?:score|rule|criteria|tool))?\s*"
                             r"(?:criteria|items|score|rule)?\s*(?::|\bcriteria\b|\bitems\b|\bpoints? (?:each|for)\b)")


MIN_SCORE_NAME = 4  # letters and digits: "CURB65", "CHADS2"; not a two-letter abbreviation ("BP:")


def scored_groups(question: str, text: str) -> frozenset[str]:
    """The groups a passage names as a criterion of a score the question names too: a 70-year-old's CURB-65
    question is answered by the score whose criteria count "age 65 years or older", which is about that age group,
    not advice for younger adults that names older ones in passing (session 15)."""
    found: set[str] = set()
    asked_in = re.sub(r"[\W_]", "", question).lower()  # "curb65", "CURB 65" and "CURB-65" are one name
    for sentence in _SENTENCE.split(text):
        for match in _SCORE_CRITERIA.finditer(sentence):
            name = re.sub(r"[\W_]", "", match.group(1)).lower()
            if len(name) >= MIN_SCORE_NAME and name in asked_in:
                found |= groups(sentence[match.end():])
    return frozenset(found)


def in_passing(groups_: Iterable[str], evidence_texts: Iterable[str]) -> frozenset[str]:
    """Of `groups_`, those the evidence names only in passing (in a list, or a test without a value)."""
    mentioned = frozenset().union(*(groups(text) for text in evidence_texts))
    return frozenset(groups_) & mentioned
