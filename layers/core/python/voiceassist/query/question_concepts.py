"""What a question is about: its concepts, each weighed, for the evidence score (query/evidence.py).

A concept is a content word, a drug by any of its names or a class of drugs (query/concepts.py), a named
disease (query/diseases.py), a synonym group's form (query/synonyms.py), or a known abbreviation matched by
itself or by all words of its long form ("CKD" or "chronic ... kidney disease"); a kidney condition is also
matched by a GFR cut-off in its KDIGO category (query/kidney.py). Generic question words ("dose",
"treatment", "first-line") weigh GENERIC_WEIGHT; topic words (drug and condition names, everything else)
weigh 1. Numbers and PHI are not concepts (a patient's eGFR 38 is not in any reference text).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import lru_cache

from voiceassist.common_words import common_words
from voiceassist.phi.word_lists import (
    CONTRACTIONS,
    MIN_FOREIGN_STOP_WORDS,
    foreign_languages,
    stop_words,
    word_list,
)
from voiceassist.query import (
    ask_words,
    asked_kinds,
    care_setting,
    case_words,
    diseases,
    kidney,
    plain_words,
    population,
    setting,
    story_places,
    synonyms,
    terminology,
    wording,
)
from voiceassist.query.concepts import MARK as CONCEPT_MARK
from voiceassist.query.concepts import (
    clinical_words,
    completions,
    drug_mark,
    ion,
    is_clinical,
    mentions,
    respelt,
    spelt_out,
    unprefixed,
)
from voiceassist.query.expansion import CLINICAL_ABBREVIATIONS, abbreviation_meanings
from voiceassist.query.population import CARDINAL_WORDS, NUMBER_WORDS
from voiceassist.query.siblings import qualified_terms
from voiceassist.query.spoken import filled_pause
from voiceassist.query.terms import content_terms, hyphenate, split_inherited, stem
from voiceassist.query.wording import ATTRIBUTE, joined_scores, negated_words, unframed

GENERIC_WEIGHT = 0.25
# The recipient of care named as nursing and social care name them: "client" is NCSBN's word for the person cared for
# in the NCLEX test plans (NCLEX-RN Test Plan, 2023: "the client" is the individual, family or group receiving care),
# as "patient" is the medical word (a stop word, query/terms.py); "service user" is the NHS's and NICE's. Who is asked
# about, not what: weighed as an ordinary word (little when a passage lacks it, fully when one holds it).
RECIPIENT_WORDS = frozenset({"client", "clients"})
_SERVICE_USER = re.compile(r"\bservice[ -]users?\b", re.I)  # its "user" is a plain word already
# Words a clinical question uses whatever its topic: they say what is asked, not what it is about.
GENERIC_WORDS = frozenset(stem(w) for w in (  # noqa: SIM905 - a word list reads better as text
    "dose doses dosage dosing daily maximum max minimum starting start started initial loading usual "
    "treatment treat treated treating therapy management manage managed first-line second-line line drug "
    "drugs medication medicine agent agents option options choice adult adults child children elderly "
    "indication indicated side effect effects adverse risk risks monitor monitoring check checked "
    "recommend recommended advised should can continue continued keep taking take stop stopped when how "
    "long often much many which what used define defined defines mean means level levels target value "
    "values cutoff cutoffs cut-off cut-offs threshold thresholds criteria diagnosis diagnose diagnosed prevent "
    "prevention acute chronic severe mild moderate "
    "safe safety lower raise reduce reduced increase increased best preferred alternative alternatives "
    "need needed needs person people year years day days week weeks month months time times "
    # verbs and nouns that say what is asked of the topic: "should it be taken", "does X cause Y", "which form"
    "taken took give given giving form forms cause causes caused help helps work works change changes "
    "useful helpful effective necessary required appropriate afterwards aim aiming goal goals "
    # who the patient is, as a case is told ("a 72-year-old woman with CKD stage 4"): the condition is the topic
    "woman women man men male female boy girl lady gentleman stage grade "
    # words around a patient's details: who is asked about, not what
    "mr mrs ms dr miss email phone ssn mrn dob born aged age old year-old "
    # the units of time above as typed: UCUM's codes ("min", "wk", "mo"; the Unified Code for Units of Measure,
    # Regenstrief Institute) with a plural s, and "hrs", "yr", "mth"; "hr" alone is left out (heart rate)
    "min mins hrs wk wks mth mths mos yr yrs"
).split())
_NUMBER = re.compile(r"^\d[\d.,/-]*$")
# a number typed with its unit of time ("2wks", "48hrs", "5mins"), read as the stemmed term: a quantity, like a number
_TIME_QUANTITY = re.compile(r"^\d+(?:\.\d+)?(?:min|minut|hr|hour|day|wk|week|mth|month|mo|yr|year)s?$")
# A number typed with its unit of measure ("75kg", "2L", "500mcg", "24h", "140mmHg", "20ml/kg", "10units"), read as
# the surface word in lower case: a quantity, like a number. The units are UCUM's common codes (the Unified Code for
# Units of Measure, Regenstrief Institute) as typed: mass g, mg, ug and its clinical spelling mcg, ng, kg, [lb_av]
# as lb; volume l, ml, dl, ul; length m, cm, mm; amount mol, mmol, umol, nmol, meq; pressure mm[Hg] and cm[H2O] as
# mmhg and cmh2o, kPa; [iU] as iu, U as u or unit; time s is left out ("1990s"), h, d, min, wk, mo and the forms of
# _TIME_QUANTITY; a ratio of them ("1mg/kg/day"). A per cent ("25%") is a number already (% is no word character).
# An ordinal ("1st", "2nd", "4th") is a number too. A word that starts with a letter is never one ("T2DM", "CKD4").
_UNIT = (r"(?:mcg|ug|ng|mg|g|kg|lbs?|ml|dl|ul|l|mm|cm|m|mmol|umol|nmol|mol|meq|mmhg|cmh2o|kpa|iu|units?|u"
         r"|h|d|mins?|minutes?|hrs?|hours?|days?|wks?|weeks?|mths?|months?|mos?|yrs?|years?)")
_ORDINAL_PREFIX = re.compile(r"\d+(?:st|nd|rd|th)-(?=[^\W\d_])", re.I)
_QUANTITY = re.compile(rf"\d+(?:[.,]\d+)?{_UNIT}(?:/\d*(?:[.,]\d+)?{_UNIT}|/dose)*|\d+(?:st|nd|rd|th)")
# the same in running text, glued, spaced or hyphenated as a modifier ("75 kg", "0.01 mg/kg", "24-hour monitor",
# "5-day course": how Whisper writes a spoken "twenty four hour"): its unit is the number's, not an abbreviation.
# A hyphenated "D" is a dimension ("2-D echo", "3-D"), not days.
_QUANTITY_IN_TEXT = re.compile(rf"(?<![\w/.&-])\d+(?:[.,]\d+)?(?:[ \t]?|-(?!d\b)){_UNIT}"
                               rf"(?:/\d*(?:[.,]\d+)?{_UNIT}|/dose)*"
                               rf"(?![\w/&-])", re.I)
# a time of day on the twelve-hour clock ("bleeped at 2am", "11 pm", "2.30pm", "10:15 a.m."): a number, like a quantity
_CLOCK_IN_TEXT = re.compile(r"(?<![\w/.:&-])(?:1[0-2]|0?\d)(?:[:.][0-5]\d)?[ \t]?[ap]\.?m\b\.?", re.I)
INHERITED_WEIGHT = 0.5
# "72-year-old", "58yo", "6mo", and the notes' age and sex "70F", "6yoM" (query/population.py): an age, like a number
_AGE_WORD = re.compile(r"^\d+(?:-(?:year|month|week|day)s?-old|(?:yo|yr|yrs|mo|mos))$|^\d{1,2}(?:yo|y)?[mf]$")
_PHI_TAG = re.compile(r"<[A-Z_]+>")
_LABELLED_PHI = re.compile(r"[A-Za-z][\w.:#-]*[ \t]*(?=<[A-Z_]+>)")
_SURFACE_WORD = re.compile(r"[^\W_]+(?:[-'/][^\W_]+)*")  # any alphabet's letters: "máxima" stays whole
_ABBREVIATION = re.compile(r"(?<![\w'-])([A-Za-z][A-Za-z0-9]*)(?![\w-])")



@dataclass(frozen=True)
class Concept:
    """One thing the question is about: any of `alternatives` (each a set of terms, all needed) matches."""

    label: str
    alternatives: tuple[frozenset[str], ...]
    weight: float
    # what it counts when a passage holds it: an ordinary word ("fast", "together") weighs GENERIC_WEIGHT when
    # missing and 1 when present, so it never lowers a passage's coverage below what it was when it weighed 1
    covered_weight: float | None = None
    inherited: bool = False  # a follow-up's topic taken from the conversation
    # named only where the question describes the case, not where it asks (wording.asked_clauses): a topic that
    # weighs less when a passage lacks it
    scenario: bool = False
    # (session 20) the same terms as a reference writes them ("renal" for "kidney", "high-flow" for "high flow":
    # query/ask_words.py): they cover the concept (evidence.covers) but are not its own alternatives, which tell
    # concepts apart (a compound shared by two adjacent words would make them one)
    forms: tuple[frozenset[str], ...] = ()

    @property
    def topic(self) -> bool:
        """Whether it says what the question is about (a drug, a condition), not how it is asked."""
        return (self.weight >= 1.0 or self.scenario) and not self.inherited

    @property
    def held_weight(self) -> float:
        return self.weight if self.covered_weight is None else self.covered_weight


def question_concepts(question: str) -> list[Concept]:
    """The concepts of a (redacted) question, abbreviations resolved to either form. A follow-up's topic taken
    from the conversation (the part in parentheses its rewrite appended: conversation/context.py) weighs
    INHERITED_WEIGHT of what the question itself names: a passage must answer the question, in that topic."""
    # an exam item's marks closing it in parentheses ("(3 marks)") are no follow-up's topic (query/wording.py)
    own, inherited = split_inherited(unframed(question))
    concepts = _described([_g_restored(c) for c in _concepts(own)], own)
    for concept in _concepts(inherited):
        if concept.label.lower() not in {c.label.lower() for c in concepts}:
            concepts.append(Concept(concept.label, concept.alternatives, concept.weight * INHERITED_WEIGHT,
                                    inherited=True))
    return concepts


def _concepts(question: str) -> list[Concept]:
    # A redacted value and the label before it ("SSN <US_SSN>", "Mrs. <PERSON>") say who, not what about.
    # Only a label word goes ("SSN", "Mrs."), not a topic a name detector's guess follows ("otitis <PERSON>").
    # a letter's salutation, an exam item's number and marks say how it is framed, not what about (query/wording.py)
    text = joined_scores(unframed(_PHI_TAG.sub(" ", _LABELLED_PHI.sub(_label_dropped, question))))
    # who asks and where ("nurse here -", "in clinic"): context, weighed as ordinary words (query/setting.py)
    framing = setting.context_words(text)
    typed = text  # as typed, before the concepts found are written as spaces
    # the words of a qualified condition ("type 1 diabetes") tell it from its siblings: never ordinary words
    qualifying = frozenset().union(*(q.terms() for q in qualified_terms(hyphenate(text.lower()))))
    found: dict[str, Concept] = {}
    # drugs by any name, classes, shorthand (query/concepts.py); from the end, so earlier spans stay put
    for mention in sorted(mentions(text), key=lambda m: -m.start):
        if mention.kind == "shorthand":  # "htn", "high bp": read as the words it stands for, where it stands
            # an abbreviation with one dominant meaning stays one (its long form or itself covers it)
            spelt = mention.label if mention.label in CLINICAL_ABBREVIATIONS else spelt_out(mention.label)
            text = text[:mention.start] + spelt + text[mention.end:]
            continue
        text = text[:mention.start] + " " * (mention.end - mention.start) + text[mention.end:]
        written = content_terms(mention.label)
        alternatives = (*(frozenset({m}) for m in sorted(mention.marks)), written)
        found.setdefault(mention.label.lower(), Concept(mention.label, alternatives, 1.0))
    # a named disease is one concept ("lyme disease", "covid"), covered by a passage naming it or a narrower
    # disease (query/diseases.py), by all its own words, or by a lay or British form of the whole name (synonyms):
    # never by a part ("disease" of "lyme disease", "pneumonia" of "aspiration pneumonia"). It weighs what its
    # topic words weighed, one each, so only that partial credit goes.
    lay_spans = [(f.start, f.end) for f in synonyms.find(text) if " " in f.form.strip()]
    for disease in sorted(diseases.mentions(text), key=lambda d: -d.start):
        written = content_terms(disease.written)
        topic_words = written - GENERIC_WORDS
        inside_lay_form = any(s <= disease.start and disease.end <= e and e - s > disease.end - disease.start
                              for s, e in lay_spans)  # "severe allergic reaction": anaphylaxis, a synonym group
        if not topic_words or inside_lay_form or disease.written.lower() in found:
            continue
        text = text[:disease.start] + " " * (disease.end - disease.start) + text[disease.end:]
        lay = tuple(frozenset({synonyms.mark(f.group)}) for f in synonyms.find(disease.written)
                    if f.start == 0 and f.end == len(disease.written))
        categories = tuple(frozenset({c}) for c in sorted(diseases.categories_above(disease.mark)))
        found[disease.written.lower()] = Concept(disease.written,
                                                 (frozenset({disease.mark}), written, *lay, *categories),
                                                 float(len(topic_words)))
    for quantity in (_CLOCK_IN_TEXT, _QUANTITY_IN_TEXT, _SAID_QUANTITY, _EMPHATIC_SINGLE):
        text = quantity.sub(lambda m: " " * len(m.group()), text)
    abbreviation_words: set[str] = set()
    for match in _ABBREVIATION.finditer(text):
        word = match.group(1)
        if word.islower() and word in stop_words().get("en", frozenset()):
            continue  # "am I aiming": a function word typed in lower case, not "AM" (a clock's "8 am" went above)
        charged = ion(word, text[match.end():], text[:match.start()])  # "K+", "K 5.9": potassium, a topic
        meanings = (charged,) if charged else abbreviation_meanings(word) or numbered_meanings(word)
        if not meanings or word in found or (charged and charged.lower() in found):
            continue  # "K 5.9 ... at what potassium": the ion is the drug named, one concept
        long_forms = tuple(content_terms(m) | synonyms.marks(m) for m in meanings)
        abbreviation_words.add(word.lower())
        alternatives = (frozenset({word.lower()}), *(f for f in long_forms if f), *_group_marks(meanings))
        weight = _weight(long_forms[0]) if long_forms[0] else 1.0
        framed = weight == 1.0 and word.lower() in framing  # "in GP": where, not what
        found[word] = Concept(word, alternatives, GENERIC_WEIGHT if framed else weight, 1.0 if framed else None)
    for found_form in synonyms.find(text):  # "high blood pressure": one concept, any form of it covers it
        written = content_terms(found_form.form)
        if written and any(written <= alternative for c in found.values() for alternative in c.alternatives[1:]):
            # "kidney disease" beside "CKD" is the abbreviation's long form: one concept, not two
            text = text[:found_form.start] + " " * (found_form.end - found_form.start) + text[found_form.end:]
            continue
        if not written or written <= abbreviation_words or found_form.form.lower() in found:
            continue
        # its own words, or any form of its group written as a phrase in the passage (synonyms.marks)
        group_mark = frozenset({synonyms.mark(found_form.group)})
        found[found_form.form.lower()] = Concept(found_form.form, (written, group_mark), _weight(written))
        text = text[:found_form.start] + " " * (found_form.end - found_form.start) + text[found_form.end:]
    words = _SURFACE_WORD.findall(hyphenate(text))
    negated = negated_words(hyphenate(text))
    # a question in Spanish, French, German, ...: its function words ("es", "la", "von") are not topics
    languages = foreign_languages(w.lower() for w in words)
    function_words = frozenset().union(*(stop_words()[language] for language in languages))
    # a question in English with another language's function words mixed in ("admit karna hai ya ghar bhejna?"); a
    # question read above as written in a language is read by that list only ("maximale" is in stopwords-iso's French)
    mixed = (mixed_function_words(words, besides=languages) | typed_particles(hyphenate(text))
             | unknown_particles(hyphenate(typed)))
    for word in words:
        if (word.lower() in abbreviation_words or word.lower() in function_words or word.lower() in mixed
                or _QUANTITY.fullmatch(word.lower())):
            continue
        if _said_number(word) or _typed_contraction(word):  # "twenty-four", "won't": a number, a function word
            continue
        if filled_pause(word):  # "um", "er", "hmm": a speaker's pause, said whatever the topic
            continue
        ordinal = _ORDINAL_PREFIX.match(word)  # "4th-line": the ordinal is a number, "line" says what is asked
        word = word[ordinal.end():] if ordinal else word
        # "hypertention": the English clinical word one edit away; in another language's question a word one edit
        # from an English one is that language's spelling ("maximale"), not a slip
        if not function_words and stem(word.lower()) not in GENERIC_WORDS:
            word = respelt(word) or phone_typo(word) or word
        # "resp", "obs", "adren": a clinical word cut short, covered by any word or drug it begins (concepts.py)
        completed = _completed(word) if not function_words else ()
        # "uptitration": also covered by the word after the prefix of orientation ("titration": concepts.py)
        if not function_words and (bare := unprefixed(word)) and (bare_terms := content_terms(bare)):
            completed = (*completed, bare_terms)
        # "per kilo": WordNet's one sense of the word is the synset of a listed abbreviation ("kilogram, kg, kilo"),
        # so a passage writing the abbreviation or its meaning covers it ("20 mL/kg": terminology.abbreviation_synonyms)
        if (short := terminology.abbreviation_synonyms().get(word.lower())) is not None:
            completed = (*completed, frozenset({short.lower()}), *(m for m in map(content_terms,
                                                                                   abbreviation_meanings(short)) if m))
        # "per kilogram", "how many millilitres": a unit said in words, covered by its symbol ("0.01 mg/kg")
        completed = (*completed, *(frozenset({symbol}) for symbol in unit_symbols(word)))
        for term in content_terms(word):
            if not _NUMBER.match(term) and not _AGE_WORD.match(term) and not _TIME_QUANTITY.match(term) \
                    and term not in found:
                weight = _weight(frozenset({term}))
                # an ordinary, plain or register English word ("fast", "ladies", "rationale": query/plain_words.py),
                # a negated or a framing word says how the question is asked or who asks, not what it is about
                ordinary = (weight == 1.0 and term not in qualifying
                            and (term in _ordinary() or (_plain_or_register(word) and not completed)
                                 or word.lower() in negated or word.lower() in framing
                                 or word.lower() in RECIPIENT_WORDS
                                 or (word.lower() == "service" and _SERVICE_USER.search(text) is not None)))
                # "concentration", "course", "shortest": also held by a passage stating a value of that kind
                # ("1 mg/mL", "5 days": query/asked_kinds.py)
                kinds = tuple(frozenset({asked_kinds.mark(k)}) for k in asked_kinds.asked(word))
                found[term] = Concept(word, (frozenset({term}), *completed, *kinds),
                                      GENERIC_WEIGHT if ordinary else weight, 1.0 if ordinary else None)
    # a kidney condition ("CKD stage 4", "on dialysis") is also covered by a GFR cut-off in its KDIGO category
    stages = tuple(frozenset({m}) for m in sorted(kidney.asked(question)))
    # the ask's words as a reference writes them: "renal" for "kidney", "extended-release" for "slow release",
    # "high-flow" for "high flow" (query/ask_words.py)
    compounds = ask_words.compound_alternatives(typed)
    return [_in_other_forms(Concept(c.label, (*c.alternatives, *stages), c.weight, c.covered_weight)
                            if stages and c.topic and kidney.names_condition(c.label) else c, compounds)
            for c in found.values()]


def _in_other_forms(concept: Concept, compounds: dict[str, tuple[frozenset[str], ...]]) -> Concept:
    """`concept` also covered by its terms' equivalents and compounds (query/ask_words.py)."""
    extra = [*(e for a in concept.alternatives for e in ask_words.equivalent_alternatives(a)),
             *(e for a in concept.alternatives if len(a) == 1 for e in compounds.get(next(iter(a)), ()))]
    new = tuple(e for e in dict.fromkeys(extra) if e not in concept.alternatives)
    return replace(concept, forms=new) if new else concept


# A unit of measure said or typed in words ("dose per kilogram", "how many millilitres", "500 milligrams"), as a speech
# recogniser writes a spoken unit: covered by its symbol, which a reference writes ("0.01 mg/kg", "20 mL/kg"). The
# names and symbols are UCUM's (the Unified Code for Units of Measure, Regenstrief Institute: the SI prefixes kilo k,
# deci d, centi c, milli m, micro u, nano n before gram g, litre l, mole mol, metre m, equivalent eq, pascal Pa), in
# British and American spelling, with "mcg", the clinical spelling of ug; a plural s is the same unit. A unit without
# a prefix ("gram": g) is left out, a one-letter term being no term here; the symbols are _UNIT's.
_UNIT_NAME = (r"(?:kilo|deci|centi|milli|micro|nano)(?:grammes?|grams?|litres?|liters?|moles?|metres?|meters?"
              r"|equivalents?|pascals?)|kilos?")
# a number typed or said with a unit named in words ("110 kilos", "thirty five kilograms", "2.5 milligrams"): a
# quantity, like "110 kg" (_QUANTITY_IN_TEXT), as a speech recogniser writes a spoken weight or dose
# "every single time": "single" after "every" is an intensive (Merriam-Webster, "single", adjective: "used as an
# intensive", every single one), said for emphasis; "a single dose", "any single agent" keep their word
_EMPHATIC_SINGLE = re.compile(r"(?<=\bevery )single\b", re.I)
_SAID_QUANTITY = re.compile(rf"(?<![\w/.-])(?:\d+(?:[.,]\d+)?|{NUMBER_WORDS})[ \t-]+(?:{_UNIT_NAME})(?![\w/-])", re.I)
_UNIT_PREFIXES = {"kilo": "k", "deci": "d", "centi": "c", "milli": "m", "micro": "u", "nano": "n"}
_UNIT_BASES = {"gram": "g", "gramme": "g", "litre": "l", "liter": "l", "mole": "mol", "metre": "m", "meter": "m",
               "equivalent": "eq", "pascal": "pa"}


def _plain_or_register(word: str) -> bool:
    return plain_words.is_plain(word) or plain_words.is_register(word)


def unit_symbols(word: str) -> tuple[str, ...]:
    """The symbols (lower case) of a unit of measure named in words ("kilograms": "kg"; "micrograms": "ug", "mcg")."""
    lower = word.lower()
    base = lower[:-1] if lower.endswith("s") else lower
    for prefix, letter in _UNIT_PREFIXES.items():
        if base.startswith(prefix) and (unit := _UNIT_BASES.get(base[len(prefix):])) is not None:
            symbol = letter + unit
            return (symbol, "mcg") if symbol == "ug" else (symbol,)
    return ()


# An abbreviation with its type or stage typed after it ("DM2", "CKD4"), as a clinician writes "DM type 2" or "CKD
# stage 4" short: read as the abbreviation when the list of one dominant clinical meaning holds it
# (expansion.CLINICAL_ABBREVIATIONS: "DM" is diabetes mellitus there, not dermatomyositis), the number being no topic,
# as a number elsewhere is not. The formal list's other meanings are not taken (an "ABC1" is no ABC).
_NUMBERED = re.compile(r"([A-Z][A-Za-z]*[A-Z])(\d)")


def numbered_meanings(word: str) -> tuple[str, ...]:
    """The meaning of an abbreviation typed with its type or stage after it ("DM2": diabetes mellitus), else ()."""
    numbered = _NUMBERED.fullmatch(word)
    if numbered is None or numbered.group(1) not in CLINICAL_ABBREVIATIONS:
        return ()
    return (CLINICAL_ABBREVIATIONS[numbered.group(1)],)


def _group_marks(meanings: Sequence[str]) -> tuple[frozenset[str], ...]:
    """The synonym groups (query/synonyms.py) that a meaning of an abbreviation names whole ("DM": "diabetes mellitus",
    whose group holds "diabetes"), each an alternative: a passage naming the group by any of its forms covers that
    meaning, as it covers the group's own form in a question. A meaning only part of which a group names ("type 2
    diabetes mellitus") is not that group."""
    found = []
    for meaning in meanings:
        whole = [m for m in synonyms.find(meaning) if m.start == 0 and m.end == len(meaning)]
        found += [frozenset({synonyms.mark(m.group)}) for m in whole]
    return tuple(dict.fromkeys(found))


def _completed(word: str) -> tuple[frozenset[str], ...]:
    """The alternatives a truncated clinical word stands for: each clinical word it begins (as its stemmed terms)
    and each drug (its mark); none for a word known as typed (concepts.completions)."""
    completion = completions(word)
    if completion is None:
        return ()
    words = (content_terms(w) for w in completion.words)
    return (*(w for w in words if w), *(frozenset({drug_mark(g)}) for g in completion.drugs))


# A concept only the description of the case names ("wasp", "lips" of "kid stung by wasp, lips swelling. epinephrine
# IM dose per kg pls": wording.asked_clauses) is context, weighed as an ordinary word (GENERIC_WEIGHT of its weight
# when a passage lacks it, fully when it holds it; still a topic, named when missing), unless it can change the
# answer: a drug or a class of drugs the patient is on, or a disease (the patient's condition, which the document
# may not be about). When what is asked names no topic of its own ("thoughts?", "is that OK?") it asks about
# the case, and the whole question is its topic.
# GENERIC_WEIGHT, as for negated and framing words, not fitted; what keeps full weight was chosen leaving one writer
# out (`python -m voiceassist_local.evaluation.gate_scenario D.pkl`, decision 0024, session 11): a weight of 0 chosen
# on blind5-8 lost an uncovered and a population question on blind10.
SCENARIO_WEIGHT = GENERIC_WEIGHT
_KEPT_IN_SCENARIO: tuple[str, ...] = (CONCEPT_MARK + "drug:", CONCEPT_MARK + "class:",
                                      CONCEPT_MARK + "named-class:", CONCEPT_MARK + "disease:")


def _described(concepts: list[Concept], question: str) -> list[Concept]:
    asked = wording.asked_clauses(question)
    if asked is None:
        return concepts
    asked_concepts = _concepts(". ".join(asked))
    focus = [c for c in asked_concepts if c.topic]
    if not focus:  # the whole question is the topic, but for where it happens and how the patient travels
        asked_words = {c.label.lower() for c in asked_concepts}
        return [replace(c, weight=0.0, covered_weight=c.held_weight, scenario=False)
                if c.label.lower() not in asked_words and (_circumstance(c, food=False) or _place(c, question))
                else c for c in concepts]
    labels = {c.label.lower() for c in focus} | _disease_modifiers(question)
    alternatives = {a for c in focus for a in c.alternatives}
    asked_labels = labels | {c.label.lower() for c in asked_concepts}
    background = _background_reach(focus)
    apart = _ask_apart(focus, asked)
    acting = setting.actors(question)  # a carer who acts in the case ("by the NP"): the story's, where told
    described = []
    for c in concepts:
        other = not alternatives.intersection(c.alternatives)
        told = other and not _kept_in_scenario(c)
        c = _with_derived(c) if told and DERIVED_TOLD else c
        story = told and c.label.lower() not in asked_labels and (_story(c) or _carer_or_place(c, question)
                                                                  or _circumstance(c) or _place(c, question))
        # (session 18) a topic of the story, where the ask stands apart from it (_ask_apart)
        story = story or (told and apart and (c.topic or c.label.lower() in acting) and c.label.lower() not in labels
                          and not _qualifier(c))
        if story:
            described.append(replace(c, weight=0.0, covered_weight=c.held_weight, scenario=False))
        elif told and c.topic and c.label.lower() not in labels:
            described.append(replace(c, weight=SCENARIO_WEIGHT * c.weight, covered_weight=c.weight, scenario=True))
        elif (other and c.topic and c.label.lower() not in labels
              and ((background and _drug_or_class(c) and not _disease(c))
                   or ((SYMPTOMS_TOLD or (SYMPTOMS_APART and apart)) and _symptom(c)))):
            described.append(replace(c, weight=BACKGROUND_DRUG_WEIGHT * c.weight, covered_weight=c.weight,
                                     scenario=True))
        else:
            described.append(c)
    return described


# (session 18) The story apart from the ask. Where the clauses that ask name a thing of their own (a drug, class,
# disease or abbreviation: _names_a_thing) and neither refer back to the case (a pronoun or demonstrative: "is that OK",
# "fine to keep both", "it") nor act on its course of treatment (a verb of continuing, stopping, switching, converting,
# raising or lowering one: WordNet 3.0's kinds in course_verbs.tsv, the beginning kind aside: "switch to an ARB",
# "hold metformin"), a topic only the description names weighs nothing when a passage lacks it (fully when one
# holds it; never named as missing), as the story's no-clinical-sense words already do (an ordinary word that may be
# the clinical point, "drinks", "fit", keeps GENERIC_WEIGHT, session 15's reading): the
# case tells who and what happened ("lips swelling + wheeze", "on the ward", "prescribed by doctor in Poland"), the
# ask what must be answered. Never so: a drug, class or disease of the case (_KEPT_IN_SCENARIO; the background drug
# keeps BACKGROUND_DRUG_WEIGHT), and a population or setting of care (population.groups, care_setting.stated: "ICU",
# "on HD", "eighty nine"), left to their readers. Chosen leaving one writer out over blind5-17 with their spoken
# sets (`python -m voiceassist_local.evaluation.gate_scenario --story D.pkl`; decision 0024, session 18).
STORY_APART = True
_REFERS_BACK = re.compile(r"\b(?:it|its|that|this|these|those|them|both|either|same)\b", re.I)


def _ask_apart(focus: Sequence[Concept], asked: Sequence[str]) -> bool:
    text = " ".join(asked)
    return (STORY_APART and any(_names_a_thing(c) for c in focus) and not _REFERS_BACK.search(text)
            and not any(stem(w.lower()) in _changing_verbs() for w in _SURFACE_WORD.findall(text)))


def _names_a_thing(concept: Concept) -> bool:
    """A drug, class, disease or abbreviation (_named less a word marked only with the kind of value it asks:
    "frequency", "concentration": query/asked_kinds.py)."""
    return _drug_or_class(concept) or _disease(concept) or bool(abbreviation_meanings(concept.label))


@lru_cache(maxsize=1)
def _changing_verbs() -> frozenset[str]:
    """The stems of the one-word verbs of course_verbs.tsv (as asked_action.course_verbs reads them) less those of
    the kind of "start" ("begin", "commence", "introduce")."""
    table: dict[str, set[str]] = {}
    for line in terminology.COURSE_VERBS_FILE.read_text(encoding="utf-8").splitlines():
        if line.startswith("#") or not line.strip():
            continue
        verb, kind = line.split("\t")
        if " " not in verb:
            table.setdefault(stem(verb), set()).update(stem(v) for v in kind.split("|") if " " not in v)
    return frozenset(table) - table.get(stem("start"), set())


def _qualifier(concept: Concept) -> bool:
    """A population or a setting of care, by its label or an abbreviation's meanings ("HD": hemodialysis)."""
    forms = (concept.label, *abbreviation_meanings(concept.label))
    return any(population.groups(f) or care_setting.stated(f) for f in forms)


# A drug or class only the description of the case names is the patient's background when what is asked is about
# another drug: the treatment the patient takes ("on gliclazide and indapamide, what's the max metformin"), a drug
# given before ("after rocuronium", "took cetirizine"). It weighs BACKGROUND_DRUG_WEIGHT of its weight when a
# passage lacks it (fully when it holds it; still a topic, named as missing), as any other word of the case. The
# asked drug keeps its full weight, so a passage must name it; a drug the ask names too ("on gliclazide, what dose
# of gliclazide") is the asked one. BACKGROUND_REACH: "drug ask" (the asking clauses name a drug or class of their
# own), "any ask" (they name any topic), "none". Chosen leaving one writer out (`python -m
# voiceassist_local.evaluation.gate_scenario --drugs D.pkl`; decision 0024, session 16).
BACKGROUND_REACH = "drug ask"
# A sign or symptom only the description names (a disease heading filed under MeSH's C23.888, Signs and Symptoms:
# "flushing", "fever", "cough") is the case's presentation, weighed as the background drug is, when the ask names a
# topic of its own
SYMPTOMS_TOLD = False
# (session 20) where the ask stands apart from the story (_ask_apart: it names a thing of its own, neither refers back
# nor changes a course), a sign or symptom told is the case's presentation: weighed as the background drug is
SYMPTOMS_APART = True
BACKGROUND_DRUG_WEIGHT = SCENARIO_WEIGHT
_DRUG_MARKS = (CONCEPT_MARK + "drug:", CONCEPT_MARK + "class:", CONCEPT_MARK + "named-class:")


def _background_reach(focus: Sequence[Concept]) -> bool:
    if BACKGROUND_REACH == "drug ask":
        return any(_drug_or_class(c) for c in focus)
    return BACKGROUND_REACH == "any ask"


def _drug_or_class(concept: Concept) -> bool:
    return any(len(a) == 1 and next(iter(a)).startswith(_DRUG_MARKS) for a in concept.alternatives)


def _symptom(concept: Concept) -> bool:
    marks = [next(iter(a)) for a in concept.alternatives if len(a) == 1]
    return any(n.startswith(_SIGNS_AND_SYMPTOMS) for m in marks if m.startswith(diseases.MARK)
               for n in diseases.tree_numbers(m))


_SIGNS_AND_SYMPTOMS = "C23.888"


def _disease(concept: Concept) -> bool:
    return any(len(a) == 1 and next(iter(a)).startswith(CONCEPT_MARK + "disease:") for a in concept.alternatives)


def _story(concept: Concept) -> bool:
    """An ordinary word only the description of the case names ("otherwise healthy", "family asking", "sorry",
    "thirty kilos") that no sense of can be its clinical point (plain_words.is_story: not "drinks", "fit", "back") is
    the story told: it counts fully when a passage holds it, nothing when a passage lacks it, and is never named as
    missing. An age said in words is read by the population reader (query/population.py), not as a topic. Chosen
    leaving one writer out over blind5-14, whatever the ask names (`python -m
    voiceassist_local.evaluation.gate_scenario --context D.pkl`; decision 0024, session 15)."""
    return concept.covered_weight is not None and not concept.topic and plain_words.is_story(concept.label)


# (session 19) A health professional or a place of care told in the story weighs nothing missing, and a story's
# adjective is also covered by the sign it is formed from: query/case_words.py (decision 0024, session 19).
CARERS_TOLD = True
DERIVED_TOLD = True


def _carer_or_place(concept: Concept, question: str) -> bool:
    return CARERS_TOLD and case_words.told_carer_or_place(concept.label, question) and not _qualifier(concept)


# (session 20) A person, place, food or conveyance told in the story weighs nothing missing (WordNet's files: query/
# case_words.py; a place or people spaCy's recognizer names: query/story_places.py); where the ask names no topic,
# so the whole question is its topic, only a place, a person or a conveyance (not a food: what was eaten may be the
# point). A g-dropped word ("wheezin") is read as its "-ing" form too (decision 0024, session 20).
CIRCUMSTANCES_TOLD = True
PLACES_TOLD = True
G_RESTORED = True


def _circumstance(concept: Concept, *, food: bool = True) -> bool:
    return (CIRCUMSTANCES_TOLD and plain_words.is_circumstance(concept.label, food=food) and _unmarked(concept))


def _place(concept: Concept, question: str) -> bool:
    words = concept.label.lower().split()
    return (PLACES_TOLD and _unmarked(concept) and not abbreviation_meanings(concept.label)
            and set(words) <= story_places.place_words(question))


def _unmarked(concept: Concept) -> bool:
    """No drug, class, disease or other concept mark, and no population or setting of care."""
    return (not any(len(a) == 1 and next(iter(a)).startswith(CONCEPT_MARK) for a in concept.alternatives)
            and not _qualifier(concept))


def _g_restored(concept: Concept) -> Concept:
    restored = case_words.restored_terms(concept.label) if G_RESTORED else ()
    return replace(concept, alternatives=(*concept.alternatives, *restored)) if restored else concept


def _with_derived(concept: Concept) -> Concept:
    derived = case_words.derived_terms(concept.label)
    if not derived or any(len(a) == 1 and next(iter(a)).startswith(CONCEPT_MARK) for a in concept.alternatives):
        return concept  # a drug, class or disease is read by its own names
    return replace(concept, alternatives=(*concept.alternatives, *derived))


_LAST_WORD = re.compile(r"([^\W_]+(?:[-'/][^\W_]+)*)[ \t]+$")


def _disease_modifiers(question: str) -> set[str]:
    """The word written right before each named disease ("refractory anaphylaxis", "severe CAP"): it says which
    condition, so it changes the answer as the disease does."""
    found = set()
    for disease in diseases.mentions(question):
        if word := _LAST_WORD.search(question[:disease.start]):
            found.add(word.group(1).lower())
    return found


def _kept_in_scenario(concept: Concept) -> bool:
    return any(len(a) == 1 and next(iter(a)).startswith(_KEPT_IN_SCENARIO) for a in concept.alternatives)


def _label_dropped(match: re.Match[str]) -> str:
    return " " if stem(match.group().strip().rstrip(".:#").lower()) in GENERIC_WORDS else match.group()


# What a question asks an attribute of: the noun phrase around the attribute ("hba1c target", "dose of amlodipine",
# "infusion rate"), or, for a "when" question, the first named thing it asks about ("when to cover MRSA"). The
# attributes are the heads of the NUMERIC answer types (wording.ATTRIBUTE; query/answer_kinds.py: Li and Roth 2002)
# as clinical questions word them; the words skipped beside them say which value, not whose.
_VALUE_WORDS = frozenset({
    "max", "maximum", "maximal", "min", "minimum", "minimal", "usual", "starting", "start", "initial", "loading",
    "daily", "total", "single", "weekly", "recommended", "normal", "safe", "average", "mean", "the", "a", "an", "its",
    "their", "his", "her", "my", "your", "this", "that"})
_WHEN = re.compile(r"^\s*(?:and\s+)?when\b", re.I)


def asked_owner(question: str, found: Sequence[Concept]) -> Concept | None:
    """The topic concept whose attribute the question asks for (None when it asks none, or of no topic): read in
    the clauses a question mark closes first ("refractory anaphylaxis after 2 im doses - iv adrenaline infusion
    rate?" asks the infusion's rate, not the IM dose's), then in those that ask (wording.asked_clauses), then in the
    whole question."""
    own = joined_scores(split_inherited(question)[0])  # "H B A one C target": HbA1c's
    asked = wording.asked_clauses(own)
    for text in (*wording.questioned_clauses(own), *(asked or ()), own):
        if (owner := _owner_in(text, found)) is not None:
            return owner
    return None


def _owner_in(own: str, found: Sequence[Concept]) -> Concept | None:
    words = [w.lower() for w in _SURFACE_WORD.findall(own)]
    candidates: list[tuple[int, bool]] = []  # (word index, whether a plain word may own it)
    for i, word in enumerate(words):
        if not ATTRIBUTE.fullmatch(word):
            continue
        before = i - 1
        while before >= 0 and words[before] in _VALUE_WORDS:
            before -= 1
        if before >= 0:
            candidates.append((before, True))
        if i + 1 < len(words) and words[i + 1] in ("of", "for"):
            after = i + 2
            while after < len(words) and words[after] in _VALUE_WORDS:
                after += 1
            if after < len(words):
                candidates.append((after, True))
        elif i + 1 < len(words):  # "target bp", "target HbA1c": a named thing right after
            candidates.append((i + 1, False))
    if _WHEN.match(own):  # "when to cover MRSA": a named thing only, not the verb
        candidates.extend((i, False) for i in range(1, len(words)))
    for index, plain in candidates:
        concept = _concept_of(words[index], found)
        if concept is not None and concept.topic and (plain or _named(concept)):
            return concept
    return None


def _concept_of(word: str, found: Sequence[Concept]) -> Concept | None:
    names = {word, *(m.label.lower() for m in mentions(word)), *(spelt_out(m.label).lower() for m in mentions(word))}
    terms = content_terms(word)
    for concept in found:
        if concept.label.lower() in names or any(terms and terms <= a for a in concept.alternatives if len(a) == 1):
            return concept
    # the head of a compound name, its last word ("pressure" of "blood pressure average")
    return next((c for c in found if " " in c.label and c.label.lower().rsplit(" ", 1)[1] == word), None)


def _named(concept: Concept) -> bool:
    """A drug, class, disease or abbreviation: a thing with a name, not a plain word (nor a synonym group's
    form: "review" is one of "reassess")."""
    label = concept.label
    return (any(len(a) == 1 and next(iter(a)).startswith(CONCEPT_MARK) for a in concept.alternatives)
            or bool(abbreviation_meanings(label))
            or (label.isalpha() and label.islower() and label not in terminology.ordinary_words()
                and bool(abbreviation_meanings(label.upper()))))


def named_drugs(found: Sequence[Concept]) -> list[Concept]:
    """The concepts that name a drug ("glipizide", "Glucophage"), not a class of drugs."""
    drug = CONCEPT_MARK + "drug:"
    return [c for c in found if any(len(a) == 1 and next(iter(a)).startswith(drug) for a in c.alternatives)]


def asked_drugs(question: str, found: Sequence[Concept]) -> list[Concept]:
    """The named drugs of `found` that the clauses asking name (wording.asked_clauses: "add spironolactone? what
    dose?" after "on amlodipine and losartan, BP still high"), not those only the description of the case names (the
    patient's current treatment); every named drug when the question has no separate description or asks of none."""
    return in_asked_clauses(question, named_drugs(found))


def in_asked_clauses(question: str, chosen: Sequence[Concept], *, or_all: bool = True) -> list[Concept]:
    """The concepts of `chosen` that the clauses asking name; all of them when the question has no separate
    description of the case, or (`or_all`) when its asking clauses name none of them."""
    chosen = list(chosen)
    asked = wording.asked_clauses(split_inherited(question)[0])
    if asked is None or not chosen:
        return chosen
    focus = _concepts(". ".join(asked))
    labels = {c.label.lower() for c in focus}
    alternatives = {a for c in focus for a in c.alternatives}
    named = [c for c in chosen if c.label.lower() in labels or alternatives.intersection(c.alternatives)]
    return named or (chosen if or_all else [])


def drug_marks(drugs: Sequence[Concept]) -> frozenset[str]:
    """The marks of the drugs a question names (any one in a sentence names the drug)."""
    return frozenset(m for c in drugs for a in c.alternatives if len(a) == 1 for m in a if m.startswith(CONCEPT_MARK))


def _weight(terms: frozenset[str]) -> float:
    return GENERIC_WEIGHT if terms and terms <= GENERIC_WORDS else 1.0


# The English cardinals said in words: population.CARDINAL_WORDS ("one" to "ninety") and the multipliers ("one in a
# thousand", "two hundred"; Quirk et al. 1985, 6.63), a number as much as digits are
_NUMERALS = CARDINAL_WORDS | frozenset({"hundred", "hundreds", "thousand", "thousands", "million", "millions"})


def _said_number(word: str) -> bool:
    """A compound numeral said in words ("twenty-four", "thirty-eight": English hyphenates the tens and units, Quirk
    R et al., A Comprehensive Grammar of the English Language, 1985, 6.63), read as a number typed in digits is: no
    topic, and no modifier of a condition (query/siblings.py)."""
    parts = word.lower().split("-")
    return len(parts) > 1 and all(part in _NUMERALS for part in parts)


# Another language's function words mixed into an English question ("CURB-65 score 2 wala patient - admit karna hai ya
# ghar bhejna?", "metformin start kaise karein"): the stop words of the Latin-script lists of stopwords-iso (MIT) and of
# Hindi as typed in the Latin script (hinglishswd), less every word SCOWL's English lists hold in lower case
# (terminology.mixed_stop_words). A word counts only when the concept layer does not know it (a drug, an
# abbreviation as typed or in lower case, a disease, a clinical word) and it is not typed in capitals (an acronym);
# and only in a language whose list holds at least MIN_FOREIGN_STOP_WORDS of the question's such words, as
# foreign_function_words reads a question written wholly in another language: one stray word ("pred" is a Czech
# preposition, "od" a Polish one, "bd" in no language's list but the English one) is shorthand, not another language.
def mixed_function_words(words: Sequence[str], besides: frozenset[str] = frozenset()) -> frozenset[str]:
    """The words of a question (as typed) that are another language's function words mixed into it, lower case;
    the lists of the languages `besides` left out."""
    unknown = {w.lower() for w in words if w.isalpha() and not (len(w) > 1 and w.isupper())}
    unknown = {w for w in unknown if not _clinical_vocabulary(w)}
    found: set[str] = set()
    for language, stops in terminology.mixed_stop_words().items():
        if language in besides:
            continue
        held = unknown & stops
        if len(held) >= MIN_FOREIGN_STOP_WORDS:
            found |= held
    return frozenset(found)


# A particle or interjection typed into an English question ("how fast uptitrate metformin ah, every week ok?", "soy
# sauce, wah, what daily sodium limit", "yeah nah, can I start two drugs", "ja so quick one"): a word some language's
# stop-word list holds (stopwords-iso, MIT, English's list included) that WordNet 3.0 knows in no part of speech
# (terminology.particles), typed in lower case where a particle stands outside the clause's syntax (an interjection
# enters into no syntactic relation: Quirk et al. 1985, on interjections): the question's first word, or the word
# right before a clause's end (a comma, semicolon, colon, question or exclamation mark, full stop, spaced dash) or
# the question's end. Never a word the concept layer knows (a drug, an abbreviation as typed or in lower case, a
# disease, a clinical word) or one cut short ("pred": shorthand stands where a noun does); never an English function
# word ("since", "else", "whats": weighed as one already, _ordinary). One stray word of another language inside a
# clause ("od", "pred") is not read here (mixed_function_words needs two).
_PARTICLE_PLACE = re.compile(r"(?:^|(?<=[\s,;(]))([a-z]+)(?=[ \t]*(?:[,;:?!.]|[ \t][-\u2013\u2014][ \t]|$))"
                             r"|^([a-z]+)\b")


def typed_particles(text: str) -> frozenset[str]:
    """The words of `text` typed as a particle or interjection where one stands (lower case)."""
    found = {m.group(1) or m.group(2) for m in _PARTICLE_PLACE.finditer(text.strip())}
    return frozenset(w for w in found if w in terminology.particles() and stem(w) not in _ordinary()
                     and not _clinical_vocabulary(w) and not _completed(w))


# A short word that no English list and no vocabulary of the concept layer holds, typed where a particle or a term of
# address stands: a pidgin's, a creole's or another language's word inside an English question ("Wat is the IM
# adrenaline dose per kg abeg?", "still wheezing leh", "Max dose metformin per doba?", "Oga, good evening sir",
# "Bwoy, big man", "Duw, how often"). Where it stands is typed_particles' place (the question's first word, or right
# before a clause's end), or the question's first word capitalised before a comma (a term of address or a greeting:
# an interjection or vocative enters into no syntactic relation, Quirk et al. 1985). Unknown means: not in wordfreq's
# English words (Zipf >= 3), SCOWL's size-50 list or the ordinary and plain words; no drug, class, shorthand,
# abbreviation in any case, disease or clinical word, nor a clinical word or drug it begins. At most
# MAX_UNKNOWN_PARTICLE letters, with a vowel: an unknown brand ("Piriton") is a longer word, and one the drug
# dictionary lacks stays a topic, as does any longer unknown word ("Pacjent"; MIRAGE's "anterior nares.", and its
# OCR's "pubey?", "funga." for puberty and fungal, are five letters); a lower-case abbreviation has no vowel ("wave of
# jvp."). A word with another alphabet's letters is not read here ("Ciśnienie": the other language's content word).
# Read as typed, before the concepts found are written as spaces ("post paum hemorrhage?" puts no "paum" at an end).
MAX_UNKNOWN_PARTICLE = 4
_VOWEL = re.compile(r"[aeiouy]")
_ADDRESS_PLACE = re.compile(r"^\s*([A-Z][a-z]+)(?=[ \t]*,)")


def unknown_particles(text: str) -> frozenset[str]:
    """The words of `text` (lower case) that no vocabulary here knows, typed as a particle or a term of address."""
    found = {m.group(1) or m.group(2) for m in _PARTICLE_PLACE.finditer(text.strip())}
    if (address := _ADDRESS_PLACE.match(text)) is not None:
        found.add(address.group(1).lower())
    return frozenset(w for w in found if 2 <= len(w) <= MAX_UNKNOWN_PARTICLE and w.isascii() and _VOWEL.search(w)
                     and _unknown(w))


def _unknown(word: str) -> bool:
    return not (word in terminology.english_words() or word in common_words() or plain_words.is_plain(word)
                or stem(word) in _ordinary() or _clinical_vocabulary(word)
                or word in terminology.folded_abbreviations() or _completed(word))


# A phone typo of a word that says what is asked ("strated", "strting", "chnage"): a lower-case word of MIN_TYPO
# letters or more that no vocabulary here knows (_unknown_long: no English list, no clinical word, drug, abbreviation
# or completion, not SCOWL's size-70 words near a term) one swap of two neighbouring letters or one left-out letter
# (the commonest slips on a phone's keyboard, beside a neighbouring key) from exactly one generic question word
# (GENERIC_WORDS) of wordfreq Zipf TYPO_ZIPF or more is that word. Only generic words: read against every frequent
# English word, MIRAGE's anatomy "articular" and "costal" became "particular" and "coastal" (clinical words the
# vocabulary here lacks). Decision 0024, session 18.
MIN_TYPO = 6
TYPO_ZIPF = 4.0
_LETTERS = "abcdefghijklmnopqrstuvwxyz"


def phone_typo(word: str) -> str | None:
    """The generic question word one swap of two neighbouring letters or one left-out letter from an unknown word."""
    lower = word.lower()
    if len(lower) < MIN_TYPO or not lower.isalpha() or not lower.isascii() or not word.islower() \
            or not _unknown_long(lower):
        return None
    english = terminology.english_words()
    swaps = {lower[:i] + lower[i + 1] + lower[i] + lower[i + 2:] for i in range(len(lower) - 1)}
    inserts = {lower[:i] + c + lower[i:] for i in range(len(lower) + 1) for c in _LETTERS}
    found = {w for w in swaps | inserts if english.get(w, 0.0) >= TYPO_ZIPF and stem(w) in GENERIC_WORDS}
    return found.pop() if len(found) == 1 else None


def _unknown_long(word: str) -> bool:
    return not (word in terminology.english_words() or word in common_words() or plain_words.is_plain(word)
                or _clinical_vocabulary(word) or word in terminology.folded_abbreviations() or _completed(word)
                or word in terminology.english_near_terms())


def _clinical_vocabulary(word: str) -> bool:
    """Whether the concept layer knows a lower-case word: a drug, class, shorthand, abbreviation (as typed, or typed
    in lower case), disease or a word of the clinical vocabulary."""
    return is_clinical(word) or word in clinical_words() or word in terminology.SHORTHAND


def _typed_contraction(word: str) -> bool:
    """A contraction typed with its apostrophe ("won't", "she'll", "they've"): spaCy's contractions list holds it
    without one ("wont"), and a function word it is either way."""
    return "'" in word and word.lower().replace("'", "") in word_list(CONTRACTIONS)


@lru_cache(maxsize=1)
def _ordinary() -> frozenset[str]:
    """The stems of frequent English words that no clinical vocabulary uses ("fast", "together", "enough"):
    they say how a question is asked, like GENERIC_WORDS (query/terminology.py, ordinary_words)."""
    return frozenset(stem(w) for w in terminology.ordinary_words()) | _function_words()


@lru_cache(maxsize=1)
def _function_words() -> frozenset[str]:
    """spaCy's English stop words (MIT; shipped in _data/phi/stop_words.tsv): function words ("per", "without",
    "whereas") and numerals, said whatever the topic, so never a topic of their own; the same weight as an
    ordinary word ("per kilo": the passage's "0.01 mg/kg" needs no "per"). With them spaCy's contractions typed
    without the apostrophe ("theyve", "dont", "wont"; its English tokenizer exceptions, in
    _data/phi/contractions.txt), which leave out the words of their own ("ill", "well", "its"). And the English
    cardinal numbers said in words (population.CARDINAL_WORDS: spaCy's list has "one" and "forty" but not "zero",
    "seven" or "thirty"; and the multipliers, _NUMERALS), a number typed in digits being no topic either."""
    return frozenset(stem(w) for w in stop_words().get("en", frozenset()) | word_list(CONTRACTIONS) | _NUMERALS
                     if w.isalpha())
