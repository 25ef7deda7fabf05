"""The evidence score: does a retrieved passage answer the question, on an absolute scale?

Fused search scores are min-max normalised per query, so the best hit is always near 1.0 even when nothing
in the knowledge base is about the question. The evidence score instead asks of each passage:

- topic coverage: the share of the question's concepts (query/question_concepts.py) the passage (with its
  title and section) contains. A concept is a content word, or a known abbreviation matched by itself or by
  all words of its long form ("CKD" or "chronic ... kidney disease"). Generic question words ("dose",
  "treatment", "first-line") weigh GENERIC_WEIGHT; topic words (drug and condition names, everything else)
  weigh 1. Numbers and PHI are not concepts (a patient's eGFR 38 is not in any reference text). A concept
  only another retrieved passage of the same document holds counts DOCUMENT_WEIGHT.
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
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache

from voiceassist.models import Chunk, SearchHit
from voiceassist.phi.word_lists import stop_words
from voiceassist.query import answer_kinds, asked_kinds, care_setting, diseases, kidney, routes, synonyms, terminology
from voiceassist.query import question_concepts as question_concepts_module
from voiceassist.query.asked_action import asked_actions, told_phrasal_verbs
from voiceassist.query.asked_thing import asked_things, owner_forms, owner_qualifier
from voiceassist.query.circumstances import ethnicities, situations
from voiceassist.query.concepts import MARK as CONCEPT_MARK
from voiceassist.query.concepts import marks as concept_marks
from voiceassist.query.concepts import mentions, named_class_mark, named_classes
from voiceassist.query.question_concepts import GENERIC_WEIGHT as GENERIC_WEIGHT
from voiceassist.query.question_concepts import GENERIC_WORDS as GENERIC_WORDS
from voiceassist.query.question_concepts import INHERITED_WEIGHT as INHERITED_WEIGHT
from voiceassist.query.question_concepts import Concept as Concept
from voiceassist.query.question_concepts import asked_drugs, asked_owner, drug_marks, named_drugs, question_concepts
from voiceassist.query.siblings import Qualified, qualified_terms, sibling_terms, words_before
from voiceassist.query.terminology import stem_classes
from voiceassist.query.terms import content_terms, hyphenate, is_keyword_form, split_inherited

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
# The thing whose attribute is asked ("hba1c" of "hba1c target", "MRSA" of "when to cover MRSA":
# attribute_owner.asked_owner) missing from the passage and from its document's other retrieved passages: the
# passage states that attribute of something else ("the metformin indication" for "the HbA1c target on
# metformin"), so it cannot support an answer alone either; the same factor.
@dataclass(frozen=True)
class PassageEvidence:
    score: float
    coverage: float
    cosine: float | None
    missing: tuple[str, ...]  # the topic concepts the passage does not contain
    # the parts of the score, read by the learned gate's measurement (voiceassist_local/evaluation/gate_features.py)
    own_coverage: float = 0.0  # coverage by the passage alone, without its document's other passages
    other_drug: bool = False
    keyword_form: bool = False
    unstated_quantity: bool = False
    owner_missing: bool = False
    ordinary_missing: int = 0  # missing concepts that are ordinary English words ("fast", "plain")


@dataclass(frozen=True)
class Evidence:
    score: float  # the best passage's score, 0..1
    passages: tuple[PassageEvidence, ...]  # one per hit, in the hits' order

    def supported(self, threshold: float) -> list[int]:
        """Indexes of the hits whose own score reaches `threshold`."""
        return [i for i, p in enumerate(self.passages) if p.score >= threshold]


def chunk_terms(chunk: Chunk) -> frozenset[str]:
    """The content terms of a chunk with its title and section (cached: Rank and Assemble both ask)."""
    return _terms_of(chunk.metadata.title, chunk.section or "", chunk.text)


@lru_cache(maxsize=2048)
def _terms_of(title: str, section: str, text: str) -> frozenset[str]:
    joined = f"{title}\n{section}\n{text}"
    return (content_terms(joined) | synonyms.marks(joined) | concept_marks(joined) | named_classes(joined)
            | diseases.marks(joined) | kidney.marks(joined) | asked_kinds.marks(text))


def covers(concept: Concept, terms: frozenset[str]) -> bool:
    return any(alternative and alternative <= terms for alternative in (*concept.alternatives, *concept.forms))


def assess_passage(concepts: Sequence[Concept], hit: SearchHit, document_terms: frozenset[str] = frozenset(),
                   qualified: tuple[Qualified, ...] = (), quantities: tuple[str, ...] = (),
                   owner: Concept | None = None, asked: tuple[Concept, ...] = (),
                   owner_sibling: bool = False, dosed: tuple[Concept, ...] = (),
                   asked_classes: tuple[Concept, ...] | None = None,
                   class_dosed: tuple[Concept, ...] = ()) -> PassageEvidence:
    """`document_terms`: the terms of the document's other retrieved passages (half credit: context).
    `qualified`: the question's qualified conditions ("hospital-acquired pneumonia"); a passage naming only a
    sibling ("community-acquired pneumonia") does not cover their words (query/siblings.py). `quantities`: what
    the question asks for (answer_kinds.quantities_asked); `owner`: whose attribute it asks
    (attribute_owner.asked_owner); `asked`: the concepts of the phrase the question asks about
    (query/asked_thing.py); `owner_sibling`: the passage's document writes the owner only with another word before
    it than the question does ("office blood pressure" for "home bp threshold": siblings.qualified_otherwise);
    `dosed`: the drugs a quantity is asked of when the question also names others only as the patient's treatment
    (asked_drugs, each with its class by name): the passage or its document must name one of these.
    `asked_classes`: the drug classes the asking clauses name (question_concepts.in_asked_clauses; every named class
    when None). `class_dosed`: the classes a dose is asked of when the question names no drug (_class_dosed)."""
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
    drugs = list(dosed) or named_drugs(concepts)
    other_drug = bool(drugs) and not any(covers(c, all_terms) or (bool(dosed) and covers(c, document_terms))
                                         for c in drugs)
    # a class the question names ("beta blockers") that neither the passage nor its document's other retrieved
    # passages name, by the class's name or a member's: the passage is about other drugs
    # (the classes the asking clauses name: a class only the case names, the patient's allergy or current
    # treatment, is the case's, as a drug only the case names is for `dosed`)
    classes = named_drug_classes(concepts) if asked_classes is None else list(asked_classes)
    other_drug = other_drug or (bool(classes) and not any(covers(c, all_terms) or covers(c, document_terms)
                                                          for c in classes))
    in_document = [c for c in concepts if c not in covered and covers(c, document_terms)]
    held = {id(c) for c in covered}
    total = sum(c.held_weight if id(c) in held else c.weight for c in concepts)
    coverage = (sum(c.held_weight for c in covered) + DOCUMENT_WEIGHT * sum(c.weight for c in in_document)) / total
    own_coverage = sum(c.held_weight for c in covered) / total
    # the words the passage lacks ("hospital-acquired"), not those it holds about a sibling ("pneumonia"); a
    # condition it names only as a sibling ("type 2 diabetes" for "type 1 diabetes", whose "1" is no concept)
    missing = tuple(c.label for c in concepts if not covers(c, all_terms) and c.topic)
    missing += tuple(q.written for q in qualified if q.head in sibling and q.written
                     and not any(label.lower() in q.written for label in missing))
    keyword_form = is_keyword_form(hit.chunk.text)
    unstated = bool(quantities) and not _states(quantities, hit.chunk.text, drugs, class_dosed)
    owner_missing = any(not covers(c, terms) and not covers(c, document_terms)
                        for c in ((owner,) if owner is not None else ()) + asked)
    owner_missing = owner_missing or owner_sibling
    factor = ((OTHER_DRUG_FACTOR if other_drug else 1.0) * (KEYWORD_FACTOR if keyword_form else 1.0)
              * (UNSTATED_QUANTITY_FACTOR if unstated else 1.0) * (UNSTATED_QUANTITY_FACTOR if owner_missing else 1.0))
    ordinary_missing = sum(1 for c in concepts if c.covered_weight is not None and not covers(c, all_terms))
    if cosine is None:
        score = factor * COVERAGE_ONLY_WEIGHT * coverage
    else:
        rescaled = min(max((cosine - COSINE_FLOOR) / (COSINE_CEILING - COSINE_FLOOR), 0.0), 1.0)
        score = factor * (COVERAGE_WEIGHT * coverage + (1.0 - COVERAGE_WEIGHT) * rescaled)
    return PassageEvidence(round(score, 4), round(coverage, 4), None if cosine is None else round(cosine, 4), missing,
                           round(own_coverage, 4), other_drug, keyword_form, unstated, owner_missing, ordinary_missing)


def _states(quantities: tuple[str, ...], text: str, drugs: Sequence[Concept], class_dosed: Sequence[Concept]) -> bool:
    """answer_kinds.passage_states for the named drugs, or for the classes a dose is asked of (named by the class's
    name or a member's, in the sentence itself)."""
    if class_dosed:
        return answer_kinds.passage_states(quantities, text, _class_terms(tuple(class_dosed)), _sentence_terms,
                                           named_only=True)
    return answer_kinds.passage_states(quantities, text, drug_marks(drugs), concept_marks)


@lru_cache(maxsize=256)
def _class_terms(classes: tuple[Concept, ...]) -> frozenset[str]:
    """What names one of the classes in a sentence: the class's own terms ("diuretic"), its mark, and the marks of
    its narrower classes ("thiazide diuretic": terminology.CLASSES' parents), named or by a member."""
    terms = {t for c in classes for a in c.alternatives if len(a) == 1 for t in a}
    mark = CONCEPT_MARK + "class:"
    wanted = {t[len(mark):] for t in terms if t.startswith(mark)}
    for name in wanted:
        for narrower in terminology.CLASSES:
            if name in terminology.classes_of_class(narrower.name):
                terms |= {named_class_mark(narrower.name), mark + narrower.name}
    return frozenset(terms)


def _sentence_terms(sentence: str) -> frozenset[str]:
    return _terms_of("", "", sentence)


def _class_dosed(quantities: tuple[str, ...], concepts: Sequence[Concept],
                 asked_classes: Sequence[Concept]) -> tuple[Concept, ...]:
    """"which antihistamine, and at what dose": a dose asked of a class the asking clauses name, where the question
    names no drug. A reference's dose sentence that names neither the class nor a member (terminology.stem_classes:
    an INN stem or WordNet's hyponyms) doses something else ("crystalloid 20 mL/kg" beside "Antihistamines ... are
    second-line"), so it does not state the dose asked."""
    if not any(q in ("dose", "maximum") for q in quantities) or named_drugs(concepts):
        return ()
    return tuple(asked_classes)


def named_drug_classes(concepts: Sequence[Concept]) -> list[Concept]:
    """The topic concepts that name a class of drugs whose members a passage can name ("beta blockers", "abx":
    terminology.CLASSES with an INN stem, or the wider class of one), covered by the class or a member. A class no
    stem reaches ("antihypertensive") is named by its name alone, so a passage listing its members is not about
    other drugs."""
    mark = CONCEPT_MARK + "class:"
    members = _classes_with_members()
    return [c for c in concepts if c.topic and any(len(a) == 1 and (m := next(iter(a))).startswith(mark)
                                                   and m[len(mark):] in members for a in c.alternatives)]


@lru_cache(maxsize=1)
def _classes_with_members() -> frozenset[str]:
    by_name = {c.name: c for c in terminology.CLASSES}
    found: set[str] = set()
    pending = [c.name for c in terminology.CLASSES if c.stems]
    while pending:
        name = pending.pop()
        if name not in found:
            found.add(name)
            pending.extend(by_name[name].parents)
    return frozenset(found)


def class_covers(concepts: Sequence[Concept]) -> list[Concept]:
    """The concepts with each named drug also covered by a passage that names its class by the class's name
    (terminology.stem_classes: "ACE inhibitors and angiotensin receptor blockers should not be combined" answers
    "ramipril with valsartan?"). A passage naming another member ("lisinopril") does not cover it, nor does a
    class's statement answer a quantity asked of the drug (its dose): assess applies this only without one."""
    drugs = {id(c) for c in named_drugs(concepts)}
    return [replace(c, alternatives=(*c.alternatives, *(frozenset({named_class_mark(k)})
                                                         for k in sorted(stem_classes(c.label)))))
            if id(c) in drugs and stem_classes(c.label) else c for c in concepts]


def _names(concept: Concept) -> Callable[[str], bool]:
    """Whether a sentence names the drug or class (by any of its names, or a member's)."""
    return lambda sentence: covers(concept, _terms_of("", "", sentence))


def _dosed_drugs(question: str, concepts: Sequence[Concept]) -> tuple[Concept, ...]:
    """The drugs the asking clauses name, each also covered by its class's name (class_covers), when the question
    names other drugs only in its description of the case; none otherwise (then any named drug will do)."""
    asked = asked_drugs(question, concepts)
    replaced = _replaced(question)
    kept = [c for c in asked if c.label.lower() not in replaced]
    asked = kept or asked
    # "dose of IV chlorpheniramine for anaphylaxis after the adrenaline?": the dose is the drug's the dose word is
    # written beside, not the one the question names as the time or the case
    beside = _dosed_by_wording(question)
    written = [c for c in asked if c.label.lower() in beside]
    asked = written or asked
    if len(asked) == len(named_drugs(concepts)):
        return ()
    return tuple(class_covers(asked))


# "moxifloxacin instead of levofloxacin, what's the dose?": the drug after a complex preposition of replacement
# ("instead of", "rather than", "in place of": Quirk R et al., A Comprehensive Grammar of the English Language, 1985,
# 9.10-9.11) is the one given up, not the one a dose is asked of
_REPLACEMENT = re.compile(r"\b(?:instead\s+of|rather\s+than|in\s+place\s+of)\s+(?:(?:the|a|an|his|her|their)\s+)?$",
                          re.I)


# a dose word and the drug it is of, only a route ("IV", "intramuscular"), an article or "of" between them: "dose of
# IV chlorpheniramine", "the adrenaline IM dose", "how much of the amoxicillin" (the noun's of-complement and its
# premodifier: Quirk et al. 1985, 17.37-17.38)
_DOSE_WORD = re.compile(r"\b(?:doses?|dosing|dosage|how\s+much)\b", re.I)
_DOSE_BEFORE = re.compile(r"\s*(?:of\s+)?(?:(?:the|a|an|his|her|their)\s+)?\s*", re.I)
_DOSE_AFTER = re.compile(r"[\s-]*", re.I)
_COORDINATED = re.compile(r"\s*(?:,|/|\+|&|\band\b|\bor\b|\bplus\b)\s*", re.I)


def _dosed_by_wording(question: str) -> frozenset[str]:
    """The drugs (labels, lower case) the question writes right beside a dose word (_DOSE_WORD), routes aside."""
    own = split_inherited(question)[0]
    blank = list(own)
    for start, end, _ in routes.mentioned(own):  # a route between the dose word and the drug is read through
        blank[start:end] = " " * (end - start)
    text = "".join(blank)
    doses = [(m.start(), m.end()) for m in _DOSE_WORD.finditer(text)]
    drugs = [m for m in mentions(own) if m.kind == "drug"]
    beside = [m for m in drugs if any(_DOSE_BEFORE.fullmatch(text[end:m.start]) for _, end in doses if end <= m.start)
              or any(_DOSE_AFTER.fullmatch(text[m.end:start]) for start, _ in doses if m.end <= start)]
    # a drug coordinated with one of them shares its dose word ("allopurinol and colchicine dose")
    while joined := [m for m in drugs if m not in beside and any(
            _COORDINATED.fullmatch(text[min(m.end, b.end):max(m.start, b.start)]) for b in beside)]:
        beside += joined
    return frozenset(m.label.lower() for m in beside)


def _replaced(question: str) -> frozenset[str]:
    """The drugs (labels, lower case) the question writes right after "instead of", "rather than", "in place of"."""
    own = split_inherited(question)[0]
    return frozenset(m.label.lower() for m in mentions(own) if m.kind == "drug" and _REPLACEMENT.search(own[:m.start]))


def assess(question: str, hits: Sequence[SearchHit]) -> Evidence:
    """Score each hit against the question; the evidence is the best one's score (0 without hits)."""
    quantities = answer_kinds.quantities_asked(question)
    concepts = question_concepts(question)
    if not quantities:  # a statement about a drug's class is about the drug; its dose is not (see class_covers)
        concepts = class_covers(concepts)
    concepts = [replace(c, alternatives=(*c.alternatives, *(frozenset({m}) for m in sorted(states))))
                if c.topic and (states := diseases.states_of(c.label)) else c for c in concepts]
    # a verb of the course of treatment the question asks ("when do I restart it"): the passage or its document
    # must state it or a synonym, as a thing asked about (query/asked_action.py)
    actions = {c.label: c for c in asked_actions(question, concepts)}
    # a phrasal verb of the course where the case is told ("after bumping up the amlodipine"): its kind covers it too
    told = {c.label: c for c in told_phrasal_verbs(question, concepts)}
    concepts = [actions.get(c.label, told.get(c.label, c)) for c in concepts]
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
    # a quantity asked of a drug the question adds to others the patient takes ("on amlodipine and losartan, BP
    # still high - add spironolactone? what dose?"): the passage must be about that drug, not the current ones
    dosed = _dosed_drugs(question, concepts) if quantities else ()
    asked_classes = tuple(question_concepts_module.in_asked_clauses(question, named_drug_classes(concepts),
                                                                     or_all=False))
    class_dosed = _class_dosed(quantities, concepts, asked_classes)
    stated = {key: not quantities or _states(quantities, "\n".join(h.chunk.text for h in hits
                                                                   if h.chunk.doc_key == key),
                                             list(dosed) or named_drugs(concepts), class_dosed) for key in by_document}
    owner = asked_owner(question, concepts)
    asked = tuple(c for c in asked_things(question, concepts) if c is not owner)
    asked += tuple(c for c in concepts if c.label in actions and c is not owner and c not in asked)
    # the patient's ethnicity and the situation of treatment asked ("Patient is black", "sick day rules"): a
    # passage that names neither answers for everyone, at any time (query/circumstances.py)
    asked += ethnicities(question) + situations(question)
    # the owner written with a word that says which ("home bp threshold"), against a document that writes it only
    # with others ("office blood pressure"): each of its passages states a sibling's value (query/siblings.py)
    qualifier = owner_qualifier(question, owner, concepts)
    owner_sibling = dict.fromkeys(by_document, False)
    if owner is not None and qualifier is not None:
        for key in by_document:
            before = words_before(owner_forms(owner), "\n".join(
                f"{h.chunk.metadata.title}\n{h.chunk.section or ''}\n{h.chunk.text}" for h in hits
                if h.chunk.doc_key == key), stop_words().get("en", frozenset()))
            owner_sibling[key] = bool(before) and not covers(qualifier, _terms_of("", "", " ".join(sorted(before))))
    # a drug asked by a route ("IV adrenaline infusion", "nebulised adrenaline") that the document states only by
    # another ("intramuscularly"): its passages state a sibling route's dose, as the owner's sibling above
    # (query/routes.py)
    if asked_routes := routes.asked_routes(question):
        named = [(c.label, _names(c)) for c in (*named_drugs(concepts), *named_drug_classes(concepts))]
        for key in by_document:
            said = answer_kinds.sentences("\n".join(h.chunk.text for h in hits if h.chunk.doc_key == key))
            owner_sibling[key] = owner_sibling[key] or routes.other_route(asked_routes, named, said)
    # a treatment asked for one setting of care ("IV antibiotic in hospital") that the document states only for
    # another ("Outpatient antibiotic treatment"): its passages state the other setting's regimen
    # (query/care_setting.py)
    if (setting := care_setting.asked(question)) is not None:
        treatments = [_names(c) for c in (*named_drugs(concepts), *named_drug_classes(concepts))]
        for key in by_document if treatments else ():
            owner_sibling[key] = owner_sibling[key] or care_setting.other_setting(setting, treatments, [
                f"{h.chunk.section or ''}\n{h.chunk.text}" for h in hits if h.chunk.doc_key == key])
    passages = tuple(assess_passage(concepts, hit, by_document[hit.chunk.doc_key], qualified,
                                    () if stated[hit.chunk.doc_key] else quantities, owner, asked,
                                    owner_sibling[hit.chunk.doc_key], dosed, asked_classes, class_dosed)
                     for hit in hits)
    return Evidence(score=max((p.score for p in passages), default=0.0), passages=passages)
