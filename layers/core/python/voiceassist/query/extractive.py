"""The extractive composer: when no language model is available, answer with the excerpts' own sentences.

It never paraphrases, so it cannot misstate a dose: every sentence is quoted whole from an excerpt and
followed by that excerpt's [n]. Sentences are scored by the question's content terms they share (lightly
stemmed, weighted by how rare the term is among the candidate sentences), the kind of fact the question asks
for (query/answer_kinds.py: in the sentence or named by its section heading) and the excerpt's rank.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial

from voiceassist.abbreviations import abbreviation_kind
from voiceassist.phi.word_lists import stop_words
from voiceassist.query import answer_kinds, asked_kinds, concepts, discourse, synonyms, terminology, wording
from voiceassist.query.citations import strip_citations
from voiceassist.query.generation import Excerpt
from voiceassist.query.terms import STOPWORDS, WORD, content_terms, stem
from voiceassist.query.wording import joined_scores

EXTRACTIVE_LABEL = "Extractive answer (no language model was used): "
NO_ANSWER = (
    "The knowledge base has no passage that answers this question. Try rephrasing it, or name the condition "
    "or drug more specifically."
)
RANK_WEIGHT = 0.3  # the top excerpt's bonus; one matched term weighs at least log(2) = 0.69
DOSE_BONUS = 0.5  # a sentence with a number and a unit, for a question about dosing
MAX_SENTENCE_CHARS = 500  # longer "sentences" are tables or run-on lists, not answers
MIN_SENTENCE_WORDS = 4  # shorter ones are headings and fragments
MIN_SHARE_OF_BEST = 0.5  # a sentence scoring below half the best one is off the question's point
NEAR_DUPLICATE = 0.8  # term-set overlap above which two sentences say the same thing

CONTEXT_WEIGHT = 0.5  # a question term in the excerpt's title or other sentences, not in the sentence itself
# A question term in the excerpt's section heading says which aspect the section is about ("dose" ->
# "Dosing", "renal" -> "Renal function"); the title names the whole document, so it tells sentences apart less.
SECTION_WEIGHT = 1.0
ANSWER_TYPE_BONUS = 1.0  # "how long" -> a duration, "how fast" -> a step and its interval (query/answer_kinds.py)
# A section whose heading names the asked kind ("Recognition" for "how do I recognise ...", "Dosing" for "how fast
# can I titrate ...") answers it even where its sentence does not repeat the cue: weighs like the cue in the sentence.
# Not varied: the same weight as ANSWER_TYPE_BONUS. Measured on the tune halves (docs/answers.md, "Evaluation"):
# .venv/bin/voiceassist --data-dir D eval answers --questions tests/fixtures/answers/meaning.tune.jsonl (and the others)
HEADING_KIND_BONUS = 1.0
RANGE_BONUS = 2.0  # a sentence whose range holds the question's number is the rule that applies to the case
_NUM = r"\d+(?:,\d{3})*(?:\.\d+)?"
_QUESTION_NUMBER = re.compile(rf"(?<![\w.-])({_NUM})(?![\w.]*\d)(?!\s*(?:mg|mcg|g|ml|%))", re.I)
_RANGE = re.compile(rf"(?:between\s+)?(?P<low>{_NUM})\s*(?:-|–|to|and)\s*(?P<high>{_NUM})", re.I)
_BELOW_WORDS = frozenset({"below", "under", "less than", "fewer than", "<", "≤", "or less", "or lower", "or fewer"})
_BOUND = re.compile(
    rf"(?:(?P<before>below|under|less than|fewer than|above|over|more than|at least|<|>|≥|≤)\s*(?P<limit>{_NUM})"
    rf"|(?P<limit2>{_NUM})\s*(?P<after>or more|or above|or older|or less|or lower|or fewer))", re.I)
# A scale's points stated one by one ("a score of 2 suggests ...", "a CURB-65 score of 0 or 1", "grade 3"): the rule
# for exactly those values, as a range is for the values inside it
_SCALE_POINTS = re.compile(rf"\b(?:score|grade|stage|class|category)\s+(?:of\s+)?(?P<point>{_NUM})"
                           rf"(?:\s*(?:,|or|and)\s*(?P<other>{_NUM})(?![\w.]))?", re.I)
# The marginal modals (Quirk R et al., A Comprehensive Grammar of the English Language, 1985, 3.40-3.42: need, dare,
# ought to, used to; the last two are stop words already) say the question's mood, not its topic: "do I need a chest
# x-ray?" asks about the radiograph, and a sentence "needing hospital care" does not answer it for its "need".
MARGINAL_MODALS = frozenset({stem("need"), stem("dare")})
_DOSE_QUESTION = re.compile(r"\b(dos(e|es|age|ing)|how much|mg|mcg|units?|\w*titrat\w*|maximum|max)\b", re.I)
# "45 mL/min/1.73 m2" is a filtration rate, not a dose
_DOSE_SENTENCE = re.compile(r"\d\s*(mg|mcg|µg|g|ml|units?|iu|mmol|meq|%)\b(?!\s*/\s*min)", re.I)
_BOUNDARY = re.compile(r"(?<=[.!?])[\"')\]]*\s+(?=[\"'(\[]?[A-Z0-9])")
_BLOCK_BREAK = re.compile(r"\n[ \t]*\n")
_LIST_ITEM = re.compile(r"^[ \t]*(?:[-*•]|\d+[.)])[ \t]+", re.M)
_MARKDOWN_HEADING = re.compile(r"^[ \t]*#{1,6}[ \t].*$", re.M)
_QUOTE_MARKER = re.compile(r"^[ \t]*>[ \t]?", re.M)
# A short line without closing punctuation before a new line is a heading (chunk text keeps line breaks only
# between blocks, so this never cuts a sentence).
_HEADING_LINE = re.compile(r"^[ \t]*(?![-*•]|\d+[.)])(?:\S+[ \t]+){0,7}\S*[^\s.,;:!?][ \t]*\n", re.M)


@dataclass(frozen=True)
class _Candidate:
    excerpt_number: int
    position: int
    text: str
    terms: frozenset[str]
    context: frozenset[str] = frozenset()  # its document title's terms, not in the sentence
    section: frozenset[str] = frozenset()  # its section heading's terms, not in the sentence
    heading: str = ""  # its section heading as written


def split_sentences(text: str) -> list[str]:
    """Sentences of an excerpt; a period after "b.i.d.", "e.g." or inside "0.5 mg" does not end one."""
    sentences: list[str] = []
    prose = _QUOTE_MARKER.sub("", _MARKDOWN_HEADING.sub("\n", text))  # headings are not sentences
    prose = _HEADING_LINE.sub("\n\n", prose)
    prose = _LIST_ITEM.sub("\n\n", prose)  # each list item stands alone, even without a final period
    for block in _BLOCK_BREAK.split(prose):
        flat = " ".join(block.split())
        start = 0
        for boundary in _BOUNDARY.finditer(flat):
            last_word = flat[start:boundary.start()].rsplit(" ", 1)[-1]
            if abbreviation_kind(last_word.strip("\"')]")) == "never":
                continue
            sentences.append(flat[start:boundary.start()].strip())
            start = boundary.end()
        sentences.append(flat[start:].strip())
    return [s for s in sentences if s]


def _candidates(excerpts: Sequence[Excerpt]) -> list[_Candidate]:
    """Every quotable sentence; flagged excerpts (instruction-like text, ingest/injection.py) give none.

    Passages about another drug or condition never get here: Rank Results keeps only the hits that reach the
    evidence threshold (query/abstention.py)."""
    found = []
    for excerpt in excerpts:
        if is_flagged(excerpt):
            continue
        chunk = excerpt.chunk
        title = _terms(chunk.metadata.title)
        section = _terms(chunk.section or "")
        # disclaimers, copyright lines and footers are never quoted (query/discourse.py)
        sentences = [s for s in split_sentences(strip_citations(excerpt.text)) if not discourse.is_furniture(s)]
        # The passage's other sentences are the sentence's context too: "Measure after 5 minutes ..." is about
        # the blood pressure its neighbour names.
        passage = frozenset().union(*(_terms(s) for s in sentences))
        for position, sentence in enumerate(sentences):
            if len(sentence) > MAX_SENTENCE_CHARS or len(sentence.split()) < MIN_SENTENCE_WORDS:
                continue
            terms = _terms(sentence)
            if terms:
                found.append(_Candidate(excerpt.number, position, sentence, terms,
                                        (title | passage) - section - terms, section - terms, chunk.section or ""))
    return found


def _terms(text: str) -> frozenset[str]:
    """Content terms, one per synonym group, the marks of the drugs and classes named (query/concepts.py) and
    of the classes named by a class's own name ("corticosteroids")."""
    return synonyms.concept_terms(text) | concepts.marks(text) | concepts.named_classes(text)


def question_marks(question: str, candidates: Sequence[_Candidate] = ()) -> frozenset[str]:
    """The concept marks of a question's drugs and classes. A drug named by brand or salt ("Solu-Medrol": the
    generic methylprednisolone) that no candidate sentence names also matches a sentence naming its class by the
    class's own name ("Antihistamines and corticosteroids are second-line"): the reference states the class's
    role once for all its members. Not when a sentence names the drug itself (that one is about it), and never a
    sentence about another member of the class (it names the member, not the class)."""
    named = frozenset().union(*(c.terms for c in candidates))
    found: set[str] = set()
    for mention in concepts.mentions(question):
        found |= mention.marks
        if mention.kind == "drug" and not mention.marks & named:
            found |= {concepts.named_class_mark(c) for c in terminology.classes_of(mention.label)}
    return frozenset(found)


def is_flagged(excerpt: Excerpt) -> bool:
    return bool(excerpt.chunk.injection_flags)


def _cited(sentence: str, number: int) -> str:
    """The sentence with its citation before the final punctuation: "… first-line therapy [1]."."""
    body = sentence.rstrip()
    end = body[-1] if body[-1] in ".!?" else "."
    return f"{body.rstrip('.!?').rstrip()} [{number}]{end}"


def compose_extractive(question: str, excerpts: Sequence[Excerpt], *, max_sentences: int = 4) -> str:
    """Up to max_sentences whole sentences from the excerpts, the one that answers best first."""
    chosen = select_sentences(question, excerpts, max_sentences=max_sentences)
    if not chosen:
        return EXTRACTIVE_LABEL + NO_ANSWER
    return EXTRACTIVE_LABEL + " ".join(_cited(c.text, c.excerpt_number) for c in chosen)


def select_sentences(question: str, excerpts: Sequence[Excerpt], *, max_sentences: int = 4) -> list[_Candidate]:
    """The sentences that answer, best first: question terms covered (rarer ones weigh more), a range that
    holds the question's number ("eGFR 38" -> "between 30 and 45"), a dose for a dose question, and rank. Where
    the question asks for a kind of value (a duration, a time, an interval, a dose: `answers_kind`), the sentences
    that state one come before those that do not, however many of the question's words those share."""
    candidates = _candidates(excerpts)
    scored = score_sentences(question, candidates)
    if not scored:
        return []
    normalised = concepts.normalise(joined_scores(question))
    states = answers_kind(normalised)
    if states is None and (thing := asked_object(normalised)):
        states = partial(_names_all, thing)
    return _choose(scored, candidates, max_sentences, states)


# The thing a yes/no question asks whether to get or do ("do I need a chest x-ray?", "should I check B12?"), whether
# it is needed ("is a chest x-ray needed?"), or whether one exists ("is there a vitamin I should check?"): the noun
# phrase after the asker's verb, before the passive's "needed", or after "is there" (Quirk et al. 1985, 11.4-11.5:
# the yes/no question asks of its predication; 18.44-18.49, existential "there"), up to a function word. Where the
# question asks for no kind of value, the sentences naming that thing answer it: "Confirm it with a chest radiograph
# when the diagnosis is uncertain", not the CURB-65 sentence beside it.
_THING = r"(?:(?:a|an|the|any|some|his|her|their)\s+)?[\w-]+(?:\s+[\w-]+){0,3}"
_GET_VERBS = r"(?:need|require|get|order|send|request|arrange|check|test|measure|do)"
_ASKED_OBJECT = re.compile(
    rf"\b(?:do|does|did|should|would|will|can|must)\s+(?:i|we|you|he|she|they)\s+(?:\w+ly\s+)?(?:be\s+)?"
    rf"{_GET_VERBS}\w*\s+(?:to\s+{_GET_VERBS}\s+)?(?P<object>{_THING})"
    rf"|\b(?:is|are)\s+(?P<subject>{_THING}?)\s+(?:needed|necessary|required|indicated)\b"
    rf"|\b(?:is|are)\s+there\s+(?P<existent>{_THING})", re.I)
_THING_DETERMINERS = frozenset("a an the any some his her their".split())  # noqa: SIM905


def asked_object(question: str) -> frozenset[str]:
    """The content terms of the thing a yes/no or existential question asks about (empty when none is read)."""
    match = _ASKED_OBJECT.search(question)
    if match is None:
        return frozenset()
    words = (match.group("object") or match.group("subject") or match.group("existent") or "").split()
    while words and words[0].lower() in _THING_DETERMINERS:
        words = words[1:]
    function_words = stop_words().get("en", frozenset())
    kept = []
    for word in words:
        if word.lower() in function_words:
            break
        if not word.lower().endswith("ly"):  # "is strongly indicated": the adverb, not the thing
            kept.append(word)
    return _terms(" ".join(kept)) - MARGINAL_MODALS


def _names_all(thing: frozenset[str], sentence: str) -> bool:
    """Whether the sentence names each term of the thing, as a concept or as a word ("vitamin" in "vitamin B12", a
    synonym group's form whole)."""
    return thing <= _terms(sentence) | content_terms(sentence)


# The kinds of value a question asks for, each with what states one in a sentence: a duration, a time or the
# condition that marks it, a frequency, a step's interval (query/answer_kinds.py, the interrogative phrase); the value
# an ask word names (query/asked_kinds.py: "concentration", "shortest course", "route"); a dose or its upper limit
# (answer_kinds.quantities_asked: a number with a unit of mass, volume or amount, not a filtration rate).
_VALUE_KINDS = frozenset({"duration", "frequency", "time", "rate"})
# "repeat" asks a frequency of the repeated dose ("how soon can it be repeated"), not of the thing a question asks
# about ("repeat CXR after pneumonia - who needs one?": a follow-up film, not a dosing frequency)
_ASKS_FREQUENCY = re.compile(r"\b(?:how often|how frequently|frequency)\b", re.I)


# The treatment given first asked ("first line tx?", "what's the very first thing I give", "adrenaline or Piriton
# first?"): the line of treatment, answered by the sentence naming the first line ("... is the first-line treatment"),
# however many of the question's other words (the second-line options it names) another sentence shares. "first"
# as an occurrence ("after the first dose", "his first BP meds", "a first episode") asks no line: the first line
# is asked with "line" or "choice" after it, with a noun of what is given after "the first" ("the first thing I
# give", "the first choice antibiotic"), or as the order of two named options ("A or B first", "A first or B").
_ASKS_FIRST_LINE = re.compile(
    r"\b(?:first|1st)[\s-]*(?:line|choice)\b"
    r"|\b(?:the|is)\s+(?:\w+\s+)?first\s+(?:\w+\s+)?(?:thing|drugs?|meds?|medications?|medicines?|treatments?|tx|"
    r"therapy|agents?|options?|antibiotics?|abx)\b"
    r"|\bor\s+(?:the\s+)?[\w-]+(?:\s+[\w-]+)?\s+first\b|\b[\w-]+\s+first\s+or\b|\bfirst,?\s+then\b", re.I)
_STATES_FIRST_LINE = re.compile(r"\bfirst[\s-](?:line|choice)\b|\bof choice\b", re.I)


def answers_kind(question: str) -> Callable[[str], bool] | None:
    """Whether a sentence states a value of a kind the question asks for; None when it asks for none."""
    # the interrogative read at the start of the question and of each clause that asks, after the case it describes
    # ("outpt pneumonia started on amox - when should i see them back": the time of the review)
    clauses = wording.asked_clauses(question) or ()
    asked = dict.fromkeys([*answer_kinds.asked(question), *(k for c in clauses for k in answer_kinds.asked(c))])
    tests: list[Callable[[str], bool]] = [
        partial(answer_kinds.states, kind) for kind in asked if kind.name in _VALUE_KINDS
        and (kind.name != "frequency" or _ASKS_FREQUENCY.search(question))]
    tests += [partial(asked_kinds.states, kind) for kind in sorted(asked_kinds.question_kinds(question))]
    quantities = answer_kinds.quantities_asked(question)
    if "dose" in quantities:
        tests.append(lambda sentence: bool(_DOSE_SENTENCE.search(sentence)))
    if "maximum" in quantities:
        tests.append(partial(answer_kinds.states_quantity, "maximum"))
    if _ASKS_FIRST_LINE.search(question):
        tests.append(lambda sentence: bool(_STATES_FIRST_LINE.search(sentence)))
    if not tests:
        return None
    return lambda sentence: any(test(sentence) for test in tests)


def score_sentences(question: str, candidates: Sequence[_Candidate]) -> list[tuple[float, _Candidate]]:
    """Each candidate sentence that shares a question term, with its score."""
    # shorthand spelt out ("O2" -> "oxygen", "lytes" -> "electrolytes") and a score typed with a space joined as the
    # evidence gate reads it ("curb 65" -> "CURB-65": query/wording.py), so that the sentence the gate judged
    # covering is the one found, and the score's number is not read as the case's value ("age 65 or older")
    question = concepts.normalise(joined_scores(question))
    question_terms = (synonyms.concept_terms(question) - MARGINAL_MODALS) | question_marks(question, candidates)
    if not question_terms or not candidates:
        return []
    # Rarer terms weigh more: a term in every candidate sentence tells them apart least.
    document_frequency = {t: sum(t in c.terms or t in c.context or t in c.section for c in candidates)
                          for t in question_terms}
    weight = {t: math.log(1 + len(candidates) / df) for t, df in document_frequency.items() if df}
    wants_dose = bool(_DOSE_QUESTION.search(question))
    values = question_values(question)
    # Where a sentence states the case's value as a scale's point, that is the rule for it, not a bound on another
    # measure that the number happens to meet ("CURB-65 score 1": "a score of 0 or 1", not "diastolic 60 or less").
    points = bool(values) and any(states_point(c.text, values) for c in candidates)

    scored: list[tuple[float, _Candidate]] = []
    kinds = answer_kinds.asked(question)
    values_asked = asked_kinds.question_kinds(question)  # "which concentration", "shortest course" (asked_kinds)
    procedure = procedure_focus(question) if answer_kinds.wants_instruction(kinds) else None
    for candidate in candidates:
        overlap = sum(weight.get(t, 0.0) for t in candidate.terms & question_terms)
        overlap += CONTEXT_WEIGHT * sum(weight.get(t, 0.0) for t in candidate.context & question_terms)
        overlap += SECTION_WEIGHT * sum(weight.get(t, 0.0) for t in candidate.section & question_terms)
        if overlap == 0:
            continue
        rank_bonus = RANK_WEIGHT / candidate.excerpt_number
        dose_bonus = DOSE_BONUS if wants_dose and _DOSE_SENTENCE.search(candidate.text) else 0.0
        type_bonus = ANSWER_TYPE_BONUS if any(answer_kinds.states(k, candidate.text) for k in kinds) \
            or any(asked_kinds.states(k, candidate.text) for k in values_asked) else 0.0
        if any(answer_kinds.heads(k, candidate.heading) for k in kinds) \
                or any(asked_kinds.heads(k, candidate.heading) for k in values_asked):
            type_bonus += HEADING_KIND_BONUS
        if procedure is not None and is_instruction(candidate.text, procedure):
            # "How should it be measured?" -> "Measure after 5 minutes ...": the question's own verb as the
            # instruction weighs like a range that holds the case's number.
            type_bonus += RANGE_BONUS if starts_with_focus(candidate.text, procedure) else ANSWER_TYPE_BONUS
        holds = states_point(candidate.text, values) if points else applies_to(candidate.text, values)
        range_bonus = RANGE_BONUS if values and holds else 0.0
        scored.append((overlap + rank_bonus + dose_bonus + type_bonus + range_bonus, candidate))
    return scored


def _choose(scored: list[tuple[float, _Candidate]], candidates: Sequence[_Candidate],
            max_sentences: int, states: Callable[[str], bool] | None = None) -> list[_Candidate]:
    scored.sort(key=lambda pair: (-pair[0], pair[1].excerpt_number, pair[1].position))
    # the sentences stating the asked kind of value first, each group cut at half its own best score
    stating = [states is not None and states(candidate.text) for _, candidate in scored]
    answering = [pair for pair, said in zip(scored, stating, strict=True) if said]
    rest = [pair for pair, said in zip(scored, stating, strict=True) if not said]
    chosen: list[_Candidate] = []
    for group in (answering, rest):
        if not group:
            continue
        best = group[0][0] if group is answering else scored[0][0]
        for score, candidate in group:
            if score < MIN_SHARE_OF_BEST * best or len(chosen) == max_sentences:
                break
            if any(_same_statement(candidate, other) for other in chosen):
                continue
            chosen.append(candidate)
    # "Repeat every 5 to 15 minutes ..." comes right after the sentence it continues (query/discourse.py)
    by_place = {(c.excerpt_number, c.position): c for c in candidates}

    def antecedent(candidate: _Candidate) -> _Candidate | None:
        if not discourse.refers_back(candidate.text):
            return None
        return by_place.get((candidate.excerpt_number, candidate.position - 1))

    return discourse.with_antecedents(chosen, antecedent, max_sentences)


def question_values(question: str) -> list[float]:
    """The numbers a question gives about its case ("eGFR 38", "a CURB-65 score of 3"), not list markers."""
    return [float(n.replace(",", "")) for n in _QUESTION_NUMBER.findall(question)]


def applies_to(sentence: str, values: Sequence[float]) -> bool:
    """Whether a range or bound in the sentence holds one of the values: "between 30 and 45", "30-45",
    "below 45", "at least 65", "a score of 3 or more", "a score of 0 or 1"."""
    if states_point(sentence, values):
        return True
    for match in _RANGE.finditer(sentence):
        low, high = float(match.group("low").replace(",", "")), float(match.group("high").replace(",", ""))
        if any(low <= v <= high for v in values):
            return True
    for match in _BOUND.finditer(sentence):
        limit = float((match.group("limit") or match.group("limit2")).replace(",", ""))
        below = (match.group("before") or match.group("after")).lower() in _BELOW_WORDS
        if any((v < limit if below else v >= limit) for v in values):
            return True
    return False


def states_point(sentence: str, values: Sequence[float]) -> bool:
    """Whether the sentence states one of the values as a scale's point: "a score of 2", "a score of 0 or 1"."""
    for match in _SCALE_POINTS.finditer(sentence):
        points = {float(p.replace(",", "")) for p in match.group("point", "other") if p}
        if points.intersection(values):
            return True
    return False


def _same_statement(left: _Candidate, right: _Candidate) -> bool:
    if left.text.casefold() == right.text.casefold():
        return True
    shared = len(left.terms & right.terms)
    return shared / len(left.terms | right.terms) >= NEAR_DUPLICATE


# "How should blood pressure be measured?", "How is the dose titrated?", "How to give ...": the answer is an
# instruction. Not "how long / often / much / many" (a duration, frequency or amount: query/answer_kinds.py).
_PROCEDURE_QUESTION = re.compile(
    r"\bhow\s+(?!long\b|often\b|much\b|many\b|frequently\b)(?:to|should|is|are|do|does|can|would|must|"
    r"shall|will)\b", re.I)
_INSTRUCTION_VERBS = frozenset((  # noqa: SIM905 - a word list reads better as text
    "start begin initiate give administer inject infuse take measure check monitor repeat increase decrease "
    "reduce titrate adjust stop withhold discontinue hold continue switch add avoid use treat assess "
    "reassess confirm review observe lay place position apply prescribe offer refer admit perform obtain "
    "order test record document average limit restrict keep maintain ensure consider seek call instruct "
    "advise educate counsel taper wean delay defer resume dilute mix"
).split())


def procedure_focus(question: str) -> str | None:
    """For a how-to question, the stem of its main verb ("measured" -> "measur"; "" when none is clear);
    None for any other question."""
    if not _PROCEDURE_QUESTION.search(question):
        return None
    words = WORD.findall(question.lower())
    participles = [w for w in words if w.endswith(("ed", "en")) and w not in STOPWORDS]
    return stem(participles[-1]) if participles else ""


def is_instruction(sentence: str, focus: str) -> bool:
    """Whether a sentence is an instruction: it starts with a verb in its base form ("Measure after 5
    minutes", "Start with 500 mg"), the question's own verb or a common clinical one."""
    first = WORD.match(sentence.lower().lstrip("\"'(["))
    if first is None:
        return False
    word = first.group()
    return word in _INSTRUCTION_VERBS or starts_with_focus(sentence, focus)


def starts_with_focus(sentence: str, focus: str) -> bool:
    """Whether the sentence starts with the question's own verb in its base form ("Measure", not "Measurement"
    or "Starting")."""
    first = WORD.match(sentence.lower().lstrip("\"'(["))
    if not focus or first is None or first.group().endswith(("ing", "ed", "ment", "ion", "s")):
        return False
    return stem(first.group()) == focus
