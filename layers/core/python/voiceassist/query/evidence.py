"""The evidence score: does a retrieved passage answer the question, on an absolute scale?

Fused search scores are min-max normalised per query, so the best hit is always near 1.0 even when nothing
in the knowledge base is about the question. The evidence score instead asks of each passage:

- topic coverage: the share of the question's concepts the passage (with its title and section) contains.
  A concept is a content word, or a known abbreviation matched by itself or by all words of its long form
  ("CKD" or "chronic ... kidney disease"). Generic question words ("dose", "treatment", "first-line") weigh
  GENERIC_WEIGHT; topic words (drug and condition names, everything else) weigh 1. Numbers and PHI are not
  concepts (a patient's eGFR 38 is not in any reference text). A concept only another retrieved passage of
  the same document holds counts DOCUMENT_WEIGHT.
- cosine: the MiniLM cosine between question and passage, when the index returned it (the embedded index
  does for every hybrid candidate; an OpenSearch hybrid query does not, then coverage decides alone).

score = COVERAGE_WEIGHT * coverage + (1 - COVERAGE_WEIGHT) * rescaled cosine, in [0, 1] (without a cosine,
COVERAGE_ONLY_WEIGHT * coverage); the question's
evidence is its best passage's score. Below `Settings.evidence_threshold` the system abstains
(answer_status "no_evidence"). Everything here is arithmetic on text already inside the boundary.
Measured in docs/benchmarks.md, "Answers that know their limits".
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from voiceassist.models import Chunk, SearchHit
from voiceassist.phi.word_lists import foreign_function_words
from voiceassist.query import answer_kinds, diseases, kidney, synonyms, terminology
from voiceassist.query.concepts import MARK as CONCEPT_MARK
from voiceassist.query.concepts import ion, mentions, respelt, spelt_out
from voiceassist.query.concepts import marks as concept_marks
from voiceassist.query.expansion import CLINICAL_ABBREVIATIONS, abbreviation_meanings
from voiceassist.query.siblings import Qualified, qualified_terms, sibling_terms
from voiceassist.query.terms import content_terms, hyphenate, is_keyword_form, split_inherited, stem

GENERIC_WEIGHT = 0.25
COVERAGE_WEIGHT = 0.75
# Without a cosine (an OpenSearch hybrid hit, a PubMed abstract) coverage alone cannot see a synonym or a
# passage that only shares words, so it counts for a little less: on the dev questions, covered answers had
# coverage >= 0.71 and uncovered topics <= 0.56, and 0.9 puts the threshold 0.55 at coverage 0.61.
COVERAGE_ONLY_WEIGHT = 0.9
# A concept the passage lacks but another retrieved passage of its document holds ("blood pressure" in the
# section before "A target below 130/80 mmHg") counts half: the passage is read in its document's context.
DOCUMENT_WEIGHT = 0.5
# MiniLM cosines between a question and an unrelated clinical passage sit around 0.3-0.45; a passage that
# answers reaches 0.55-0.75. The rescaled cosine is 0 at COSINE_FLOOR and 1 at COSINE_CEILING.
COSINE_FLOOR = 0.35
COSINE_CEILING = 0.75
# Words a clinical question uses whatever its topic: they say what is asked, not what it is about.
GENERIC_WORDS = frozenset(stem(w) for w in (  # noqa: SIM905 - a word list reads better as text
    "dose doses dosage dosing daily maximum max minimum starting start started initial loading usual "
    "treatment treat treated treating therapy management manage managed first-line second-line line drug "
    "drugs medication medicine agent agents option options choice adult adults child children elderly "
    "indication indicated side effect effects adverse risk risks monitor monitoring check checked "
    "recommend recommended advised should can continue continued keep taking take stop stopped when how "
    "long often much many which what used define defined defines mean means level levels target value "
    "values criteria diagnosis diagnose diagnosed prevent prevention acute chronic severe mild moderate "
    "safe safety lower raise reduce reduced increase increased best preferred alternative alternatives "
    "need needed needs person people year years day days week weeks month months time times "
    # verbs and nouns that say what is asked of the topic: "should it be taken", "does X cause Y", "which form"
    "taken took give given giving form forms cause causes caused help helps work works change changes "
    "useful helpful effective necessary required appropriate afterwards aim aiming goal goals "
    # who the patient is, as a case is told ("a 72-year-old woman with CKD stage 4"): the condition is the topic
    "woman women man men male female boy girl lady gentleman stage grade "
    # words around a patient's details: who is asked about, not what
    "mr mrs ms dr miss email phone ssn mrn dob born aged age old year-old"
).split())
# A passage that names none of the drugs a question names cannot answer it ("the dose of glipizide" from the
# metformin reference): its score is multiplied by this. Drugs are those of the shipped drug dictionary, by
# any of their names (query/concepts.py); a class ("antibiotic") is covered by any of its members.
OTHER_DRUG_FACTOR = 0.5
# A passage in keyword form (terms.is_keyword_form: index terms, not statements, such as NFCorpus's preprocessed
# abstracts) names the question's topics without saying anything about them: it cannot support an answer on its
# own, so its score is multiplied by this (0.9 at most becomes 0.45, below the threshold).
KEYWORD_FACTOR = 0.5
# A question asking for a quantity ("how many", "how much", a dose, "how long": query/answer_kinds.py) against a
# passage with no sentence stating one (for a dose: in a sentence naming the asked drug or no drug), nor any other
# retrieved passage of its document, is about the topic, not the answer: it cannot support an answer alone, as
# OTHER_DRUG_FACTOR.
UNSTATED_QUANTITY_FACTOR = 0.5
_NUMBER = re.compile(r"^\d[\d.,/-]*$")
INHERITED_WEIGHT = 0.5
_AGE_WORD = re.compile(r"^\d+-(?:year|month|week|day)s?-old$")  # "72-year-old": an age, like a number
_PHI_TAG = re.compile(r"<[A-Z_]+>")
_LABELLED_PHI = re.compile(r"[A-Za-z][\w.:#-]*[ \t]*(?=<[A-Z_]+>)")
_SURFACE_WORD = re.compile(r"[^\W_]+(?:[-'/][^\W_]+)*")  # any alphabet's letters: "máxima" stays whole
_ABBREVIATION = re.compile(r"(?<![\w-])([A-Za-z][A-Za-z0-9]*)(?![\w-])")


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

    @property
    def topic(self) -> bool:
        """Whether it says what the question is about (a drug, a condition), not how it is asked."""
        return self.weight >= 1.0 and not self.inherited

    @property
    def held_weight(self) -> float:
        return self.weight if self.covered_weight is None else self.covered_weight


@dataclass(frozen=True)
class PassageEvidence:
    score: float
    coverage: float
    cosine: float | None
    missing: tuple[str, ...]  # the topic concepts the passage does not contain


@dataclass(frozen=True)
class Evidence:
    score: float  # the best passage's score, 0..1
    passages: tuple[PassageEvidence, ...]  # one per hit, in the hits' order

    def supported(self, threshold: float) -> list[int]:
        """Indexes of the hits whose own score reaches `threshold`."""
        return [i for i, p in enumerate(self.passages) if p.score >= threshold]


def question_concepts(question: str) -> list[Concept]:
    """The concepts of a (redacted) question, abbreviations resolved to either form. A follow-up's topic taken
    from the conversation (the part in parentheses its rewrite appended: conversation/context.py) weighs
    INHERITED_WEIGHT of what the question itself names: a passage must answer the question, in that topic."""
    own, inherited = split_inherited(question)
    concepts = _concepts(own)
    for concept in _concepts(inherited):
        if concept.label.lower() not in {c.label.lower() for c in concepts}:
            concepts.append(Concept(concept.label, concept.alternatives, concept.weight * INHERITED_WEIGHT,
                                    inherited=True))
    return concepts


def _concepts(question: str) -> list[Concept]:
    # A redacted value and the label before it ("SSN <US_SSN>", "Mrs. <PERSON>") say who, not what about.
    # Only a label word goes ("SSN", "Mrs."), not a topic a name detector's guess follows ("otitis <PERSON>").
    text = _PHI_TAG.sub(" ", _LABELLED_PHI.sub(_label_dropped, question))
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
        found[disease.written.lower()] = Concept(disease.written, (frozenset({disease.mark}), written, *lay),
                                                 float(len(topic_words)))
    abbreviation_words: set[str] = set()
    for match in _ABBREVIATION.finditer(text):
        word = match.group(1)
        charged = ion(word, text[match.end():])  # "K+": potassium, a topic, not a letter
        meanings = (charged,) if charged else abbreviation_meanings(word)
        if not meanings or word in found:
            continue
        long_forms = tuple(content_terms(m) | synonyms.marks(m) for m in meanings)
        abbreviation_words.add(word.lower())
        alternatives = (frozenset({word.lower()}), *(f for f in long_forms if f))
        weight = _weight(long_forms[0]) if long_forms[0] else 1.0
        found[word] = Concept(word, alternatives, weight)
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
    # a question in Spanish, French, German, ...: its function words ("es", "la", "von") are not topics
    function_words = foreign_function_words(w.lower() for w in words)
    for word in words:
        if word.lower() in abbreviation_words or word.lower() in function_words:
            continue
        # "hypertention": the English clinical word one edit away; in another language's question a word one edit
        # from an English one is that language's spelling ("maximale"), not a slip
        if not function_words and stem(word.lower()) not in GENERIC_WORDS:
            word = respelt(word) or word
        for term in content_terms(word):
            if not _NUMBER.match(term) and not _AGE_WORD.match(term) and term not in found:
                weight = _weight(frozenset({term}))
                ordinary = weight == 1.0 and term in _ordinary() and term not in qualifying
                found[term] = Concept(word, (frozenset({term}),), GENERIC_WEIGHT if ordinary else weight,
                                      1.0 if ordinary else None)
    # a kidney condition ("CKD stage 4", "on dialysis") is also covered by a GFR cut-off in its KDIGO category
    stages = tuple(frozenset({m}) for m in sorted(kidney.asked(question)))
    return [Concept(c.label, (*c.alternatives, *stages), c.weight, c.covered_weight)
            if stages and c.topic and kidney.names_condition(c.label) else c for c in found.values()]


def _label_dropped(match: re.Match[str]) -> str:
    return " " if stem(match.group().strip().rstrip(".:#").lower()) in GENERIC_WORDS else match.group()


def named_drugs(found: Sequence[Concept]) -> list[Concept]:
    """The concepts that name a drug ("glipizide", "Glucophage"), not a class of drugs."""
    drug = CONCEPT_MARK + "drug:"
    return [c for c in found if any(len(a) == 1 and next(iter(a)).startswith(drug) for a in c.alternatives)]


def _drug_marks(drugs: Sequence[Concept]) -> frozenset[str]:
    """The marks of the drugs a question names (any one in a sentence names the drug)."""
    return frozenset(m for c in drugs for a in c.alternatives if len(a) == 1 for m in a if m.startswith(CONCEPT_MARK))


def _weight(terms: frozenset[str]) -> float:
    return GENERIC_WEIGHT if terms and terms <= GENERIC_WORDS else 1.0


@lru_cache(maxsize=1)
def _ordinary() -> frozenset[str]:
    """The stems of frequent English words that no clinical vocabulary uses ("fast", "together", "enough"):
    they say how a question is asked, like GENERIC_WORDS (query/terminology.py, ordinary_words)."""
    return frozenset(stem(w) for w in terminology.ordinary_words())


def chunk_terms(chunk: Chunk) -> frozenset[str]:
    """The content terms of a chunk with its title and section (cached: Rank and Assemble both ask)."""
    return _terms_of(chunk.metadata.title, chunk.section or "", chunk.text)


@lru_cache(maxsize=2048)
def _terms_of(title: str, section: str, text: str) -> frozenset[str]:
    joined = f"{title}\n{section}\n{text}"
    return (content_terms(joined) | synonyms.marks(joined) | concept_marks(joined) | diseases.marks(joined)
            | kidney.marks(joined))


def covers(concept: Concept, terms: frozenset[str]) -> bool:
    return any(alternative and alternative <= terms for alternative in concept.alternatives)


def assess_passage(concepts: Sequence[Concept], hit: SearchHit, document_terms: frozenset[str] = frozenset(),
                   qualified: tuple[Qualified, ...] = (), quantities: tuple[str, ...] = ()) -> PassageEvidence:
    """`document_terms`: the terms of the document's other retrieved passages (half credit: context).
    `qualified`: the question's qualified conditions ("hospital-acquired pneumonia"); a passage naming only a
    sibling ("community-acquired pneumonia") does not cover their words (query/siblings.py). `quantities`: what
    the question asks for (answer_kinds.quantities_asked)."""
    cosine = None if hit.vector_score is None else 2.0 * hit.vector_score - 1.0  # cosinesimil score -> cosine
    if not concepts:
        return PassageEvidence(0.0, 0.0, cosine, ())
    terms = all_terms = chunk_terms(hit.chunk)
    sibling: frozenset[str] = frozenset()
    if any(q.head in terms for q in qualified):  # only a passage holding the head can name a sibling
        chunk = hit.chunk
        sibling = sibling_terms(qualified, f"{chunk.metadata.title}\n{chunk.section or ''}\n{chunk.text}")
        sibling |= synonyms.marks_for(sibling)
        terms, document_terms = terms - sibling, document_terms - sibling
    covered = [c for c in concepts if covers(c, terms)]
    drugs = named_drugs(concepts)
    other_drug = bool(drugs) and not any(covers(c, all_terms) for c in drugs)
    in_document = [c for c in concepts if c not in covered and covers(c, document_terms)]
    held = {id(c) for c in covered}
    total = sum(c.held_weight if id(c) in held else c.weight for c in concepts)
    coverage = (sum(c.held_weight for c in covered) + DOCUMENT_WEIGHT * sum(c.weight for c in in_document)) / total
    # the words the passage lacks ("hospital-acquired"), not those it holds about a sibling ("pneumonia"); a
    # condition it names only as a sibling ("type 2 diabetes" for "type 1 diabetes", whose "1" is no concept)
    missing = tuple(c.label for c in concepts if not covers(c, all_terms) and c.topic)
    missing += tuple(q.written for q in qualified if q.head in sibling and q.written
                     and not any(label.lower() in q.written for label in missing))
    factor = (OTHER_DRUG_FACTOR if other_drug else 1.0) * (KEYWORD_FACTOR if is_keyword_form(hit.chunk.text) else 1.0)
    if quantities and not answer_kinds.passage_states(quantities, hit.chunk.text, _drug_marks(drugs), concept_marks):
        factor *= UNSTATED_QUANTITY_FACTOR
    if cosine is None:
        return PassageEvidence(round(factor * COVERAGE_ONLY_WEIGHT * coverage, 4), round(coverage, 4), None, missing)
    rescaled = min(max((cosine - COSINE_FLOOR) / (COSINE_CEILING - COSINE_FLOOR), 0.0), 1.0)
    score = factor * (COVERAGE_WEIGHT * coverage + (1.0 - COVERAGE_WEIGHT) * rescaled)
    return PassageEvidence(round(score, 4), round(coverage, 4), round(cosine, 4), missing)


def assess(question: str, hits: Sequence[SearchHit]) -> Evidence:
    """Score each hit against the question; the evidence is the best one's score (0 without hits)."""
    concepts = question_concepts(question)
    by_document: dict[str, frozenset[str]] = {}
    for hit in hits:
        by_document[hit.chunk.doc_key] = by_document.get(hit.chunk.doc_key, frozenset()) | chunk_terms(hit.chunk)
    qualified = tuple(q for q in qualified_terms(hyphenate(question.lower())) if q.head not in GENERIC_WORDS)
    if qualified:  # a document that names a sibling ("type 2 diabetes") lends its passages none of its words
        for key in by_document:
            texts = "\n".join(f"{h.chunk.metadata.title}\n{h.chunk.section or ''}\n{h.chunk.text}" for h in hits
                              if h.chunk.doc_key == key)
            sibling = sibling_terms(qualified, texts)
            by_document[key] -= sibling | synonyms.marks_for(sibling)
    # the quantity asked may be stated by another retrieved passage of the passage's document (a "Duration"
    # section beside the "Empirical antibiotic" one): the document answers, and the composer reads both
    quantities = answer_kinds.quantities_asked(question)
    stated = {key: not quantities or answer_kinds.passage_states(
        quantities, "\n".join(h.chunk.text for h in hits if h.chunk.doc_key == key),
        _drug_marks(named_drugs(concepts)), concept_marks) for key in by_document}
    passages = tuple(assess_passage(concepts, hit, by_document[hit.chunk.doc_key], qualified,
                                    () if stated[hit.chunk.doc_key] else quantities) for hit in hits)
    return Evidence(score=max((p.score for p in passages), default=0.0), passages=passages)
