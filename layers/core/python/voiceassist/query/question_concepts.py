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
from dataclasses import replace

from voiceassist.phi.word_lists import foreign_languages, stop_words
from voiceassist.query import (
    ask_lemmas,
    ask_words,
    asked_kinds,
    described_case,
    diseases,
    kidney,
    phrasal_verbs,
    plain_words,
    setting,
    synonyms,
    terminology,
    wording,
)
from voiceassist.query.attribute_owner import asked_owner as asked_owner
from voiceassist.query.attribute_owner import drug_marks as drug_marks
from voiceassist.query.attribute_owner import named_drugs as named_drugs
from voiceassist.query.concept_weights import _SERVICE_USER, RECIPIENT_WORDS, _weight
from voiceassist.query.concept_weights import GENERIC_WEIGHT as GENERIC_WEIGHT
from voiceassist.query.concept_weights import GENERIC_WORDS as GENERIC_WORDS
from voiceassist.query.concept_weights import INHERITED_WEIGHT as INHERITED_WEIGHT
from voiceassist.query.concept_weights import Concept as Concept
from voiceassist.query.concepts import ion, mentions, respelt, spelt_out, unprefixed
from voiceassist.query.described_case import _g_restored
from voiceassist.query.expansion import CLINICAL_ABBREVIATIONS, abbreviation_meanings
from voiceassist.query.siblings import qualified_terms
from voiceassist.query.spoken import filled_pause
from voiceassist.query.terms import content_terms, hyphenate, split_inherited, stem
from voiceassist.query.typed_quantities import (
    _AGE_WORD,
    _CLOCK_IN_TEXT,
    _EMPHATIC_SINGLE,
    _NUMBER,
    _ORDINAL_PREFIX,
    _QUANTITY,
    _QUANTITY_IN_TEXT,
    _SAID_QUANTITY,
    _TIME_QUANTITY,
    _said_number,
)
from voiceassist.query.typed_quantities import unit_symbols as unit_symbols
from voiceassist.query.typed_words import (
    _SURFACE_WORD,
    _completed,
    _ordinary,
    _typed_contraction,
)
from voiceassist.query.typed_words import mixed_function_words as mixed_function_words
from voiceassist.query.typed_words import phone_typo as phone_typo
from voiceassist.query.typed_words import typed_particles as typed_particles
from voiceassist.query.typed_words import unknown_particles as unknown_particles
from voiceassist.query.wording import joined_scores, negated_words, unframed

USUALITY_ADVERBS = True  # (session 20, ans20b) "normally": an adverb apart from its adjective
PHRASAL_VERBS = True  # (session 20, ans20b) a verb with its particle weighs as an ordinary word
_PHI_TAG = re.compile(r"<[A-Z_]+>")
_LABELLED_PHI = re.compile(r"[A-Za-z][\w.:#-]*[ \t]*(?=<[A-Z_]+>)")
_ABBREVIATION = re.compile(r"(?<![\w'-])([A-Za-z][A-Za-z0-9]*)(?![\w-])")


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
    # "hang around": a verb typed with its particle that says how a thing goes (query/phrasal_verbs.py)
    particled = phrasal_verbs.typed_with_particle(typed) if PHRASAL_VERBS else frozenset()
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
                                 or word.lower() in negated or word.lower() in framing or word.lower() in particled
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
             *(e for a in concept.alternatives if len(a) == 1 for e in compounds.get(next(iter(a)), ())),
             *ask_lemmas.named_forms(concept.label)]  # "metformin-associated": "metformin" (ask_lemmas.py)
    new = tuple(e for e in dict.fromkeys(extra) if e not in concept.alternatives)
    return replace(concept, forms=new) if new else concept


def _plain_or_register(word: str) -> bool:
    return (plain_words.is_plain(word) or plain_words.is_register(word)
            or (USUALITY_ADVERBS and plain_words.is_usuality_adverb(word)))


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


def _described(concepts: list[Concept], question: str) -> list[Concept]:
    """`concepts` weighed as the case tells them apart from the ask (query/described_case.py)."""
    return described_case.described(concepts, question, _concepts)


def _label_dropped(match: re.Match[str]) -> str:
    return " " if stem(match.group().strip().rstrip(".:#").lower()) in GENERIC_WORDS else match.group()


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

