"""History-aware questions: a follow-up becomes a standalone question before the pipeline searches for it.

Rule-based (no model, so it runs inside the PHI boundary at no cost), from the previous turn's topic and drugs:

- A reply to a clarifying question ("type 2" after "Which diabetes do you mean ...?") is joined to the pending
  question: "What is the first-line treatment for diabetes? type 2".
- "the alternative" / "instead" / "the other option" becomes the drug the previous answer offers as the
  alternative (a drug of the previous answer that the previous question did not name).
- "it", "its", "this drug", "the medication" becomes the previous answer's (or question's) first drug.
- A follow-up ("how long?", "and in penicillin allergy?", "what about the calcium channel blocker?", "can he keep
  taking metformin?") gets the previous question's topic (its condition and qualifiers) appended.

Only the user's own turns and the answers they were given feed the rewrite; the pipeline then checks the
rewritten question for PHI as it checks any question.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from voiceassist.query import concepts
from voiceassist.query.terms import INHERITED_TOPIC


def _vocabulary(text: str) -> frozenset[str]:
    return frozenset(text.split())


WORD = re.compile(r"[A-Za-z][A-Za-z0-9-]*|\d+(?:\.\d+)?")
CITATION = re.compile(r"\[\d+\]")
PLACEHOLDER = re.compile(r"<[A-Z_]+>")
STOPWORDS = _vocabulary("""
a about above after again against all also am an and any are as at be because been before being below between
both but by can could did do does doing down during each few for from further had has have having he her here
hers him his how i if in into is it its itself just me more most my no nor not now of off on once only or
other our out over own same she should so some such than that the their them then there these they this those
through to too under until up very was we were what when where which while who whom why will with would you
your yes ok okay please thanks thank tell give keep taking take still instead alternative alternatives option
options else patient patients case one ones more aim aiming mrn dob ssn phone email address name id born aged
""")
GENERIC = _vocabulary("""
treatment treat treated treating therapy management manage first-line first line second-line second
recommended recommendation recommendations dose doses dosing dosage long often duration much many mg daily
side effects effect adverse use used using given safe safety best choice drug drugs medication medications
medicine medicines regimen agent agents what which usual usually typical start starting stop stopping
guideline guidelines maximum max minimum options preferred prefer need needs needed adult adults
""")
# Words that ask about an aspect of a topic rather than name one: a question made only of these is a follow-up.
ASPECTS = _vocabulary("""
contraindications contraindicated contraindication cautions caution precautions warnings interactions
interaction monitoring monitor labs pregnancy pregnant trimester breastfeeding lactation children child kids
pediatric paediatric infants neonates adolescents elderly older renal hepatic impairment weight kg age women
men route iv oral im intravenous intramuscular frequency course days weeks switch restart taper missed
overdose toxicity mechanism action half-life efficacy evidence risk risks benefits complications prognosis
next step steps escalate target targets goal goals length alternatives surgery perioperative allergy allergic
""")
ALTERNATIVE = re.compile(r"\b(the\s+)?(alternative|other\s+(option|drug|one|agent|choice)|second\s+option)s?\b"
                         r"|\binstead\b", re.I)
THING = re.compile(r"\b(it|its|this\s+(drug|medication|medicine|one|agent)|that\s+(drug|medication|medicine|one)"
                   r"|the\s+(drug|medication|medicine|agent|same))\b", re.I)
PERSON = re.compile(r"\b(he|she|him|her|his|they|them|their)\b", re.I)
OPENER = re.compile(r"^\s*(and|but|or|also|what about|how about|what if|and if|same|then)\b", re.I)
# Drug words the session facts add to the PHI detector's list (conversation/facts.py); the rewriter itself
# reads drugs from the shipped drug dictionary (is_drug).
DRUG_WORDS = _vocabulary("""
aspirin warfarin insulin lithium heparin epinephrine adrenaline digoxin morphine paracetamol acetaminophen
ibuprofen naproxen metformin amoxicillin doxycycline azithromycin clarithromycin cefuroxime ceftriaxone
levofloxacin moxifloxacin nitrofurantoin trimethoprim vancomycin clindamycin gentamicin chlorthalidone
hydrochlorothiazide amlodipine lisinopril losartan levothyroxine prednisone prednisolone furosemide
spironolactone atorvastatin simvastatin sitagliptin empagliflozin semaglutide glipizide gliclazide codeine
tramadol oxycodone fentanyl naloxone glucagon clopidogrel ticagrelor nitroglycerin isosorbide hydralazine
diltiazem verapamil allopurinol colchicine methotrexate sertraline citalopram haloperidol gabapentin
pregabalin levetiracetam phenytoin valproate carbamazepine rifampicin isoniazid ethambutol finasteride
co-amoxiclav cotrimoxazole salbutamol albuterol diazepam lorazepam penicillin macrolide macrolides
""")
NOT_DRUGS = _vocabulary("""
line online disease medicine routine baseline guideline vaccine urine creatinine protein infection option
pregnancy children adults within begin then when often one done none alone bone tone phone zone time
gastrointestinal intestine fine machine decline combine determine examine
""")
INHERITED = INHERITED_TOPIC  # "<follow-up> (<the topic it inherited>)", the form the evidence score reads
DRUG_ASPECT = re.compile(r"\b(dos(e|es|ing|age)|maximum|max|how long|duration|how often|frequency|side[- ]effects?"
                         r"|adverse|interactions?|contraindicat\w*|monitor\w*|taper\w*|renal|hepatic)\b", re.I)
ALTERNATIVE_SENTENCE = re.compile(r"\balternativ|\binstead\b|\ballerg|\botherwise\b|\bor\b|\bif\b", re.I)
REPLY_WORDS = 6


@dataclass(frozen=True)
class Turn:
    role: str  # "user" or "assistant"
    text: str
    evidence: str = ""  # an answer's cited excerpts (knowledge-base text), where the session kept them
    named: tuple[str, ...] = ()  # the drugs the answer named, in order, where the session kept them (the stored
    # answer is redacted, and the PHI detector sometimes takes a drug at a sentence's start for a name)


@dataclass(frozen=True)
class Resolution:
    query: str  # what the pipeline searches and answers
    original: str
    joined_clarification: bool = False
    rewritten: bool = False
    added: list[str] = field(default_factory=list)  # the history's terms the rewrite used

    def describe(self) -> dict[str, object]:
        return {"standalone_query": self.query, "rewritten": self.rewritten,
                "joined_clarification": self.joined_clarification, "from_history": self.added}


def words(text: str) -> list[str]:
    """The words of a text, without citation markers and redaction placeholders (<PERSON>)."""
    return WORD.findall(PLACEHOLDER.sub(" ", CITATION.sub(" ", text)))


def topic_terms(text: str) -> list[str]:
    """The words that say what a question is about: not stop words, not generic clinical words."""
    seen: dict[str, str] = {}
    for word in words(text):
        key = word.lower()
        if key not in STOPWORDS and key not in GENERIC and (len(key) > 1 or key.isdigit()) and key not in seen:
            seen[key] = word
    return list(seen.values())


def is_drug(word: str) -> bool:
    """A drug or drug class by any of its names, from the shipped drug dictionary (query/concepts.py)."""
    key = word.lower()
    if "-" in key and not concepts.is_drug_word(key):  # amoxicillin-clavulanate
        return any(is_drug(part) for part in key.split("-"))
    return key not in NOT_DRUGS and key not in STOPWORDS and key not in GENERIC and not word.isupper() and \
        concepts.is_drug_word(key)


def drugs(text: str) -> list[str]:
    found: dict[str, str] = {}
    for word in words(text):
        if is_drug(word):
            found.setdefault(word.lower(), word.lower())
    return list(found.values())


def is_clarifying(answer: str) -> bool:
    """An assistant turn that asked instead of answering: a question with no citation."""
    return answer.rstrip().endswith("?") and not CITATION.search(answer)


def is_follow_up(question: str) -> bool:
    """Refers back (the alternative, it, he), opens as a continuation (and, what about), or names no topic of
    its own (only aspects: "how long?", "contraindications?", "in pregnancy?")."""
    return bool(ALTERNATIVE.search(question) or THING.search(question) or PERSON.search(question)
                or OPENER.search(question)
                or all(t.lower() in ASPECTS or t.isdigit() for t in topic_terms(question)))


def resolve(question: str, history: list[Turn]) -> Resolution:
    """The standalone form of `question` given the earlier turns (oldest first; user turns already resolved)."""
    last_user = next((t.text for t in reversed(history) if t.role == "user"), None)
    if last_user is None:
        return Resolution(query=question, original=question)
    after_user = history[max(i for i, t in enumerate(history) if t.role == "user") + 1:]
    last_answer = " ".join(t.text for t in after_user if t.role == "assistant")
    evidence = " ".join(t.evidence for t in after_user if t.role == "assistant")
    named = [d for t in after_user if t.role == "assistant" for d in t.named]
    answer_drugs = named or drugs(last_answer)
    if last_answer and is_clarifying(last_answer) and len(words(question)) <= REPLY_WORDS:
        return Resolution(query=f"{last_user.rstrip()} {question.strip()}", original=question,
                          joined_clarification=True, rewritten=True, added=[last_user])
    if not is_follow_up(question):
        return Resolution(query=question, original=question)
    own = {w.lower() for w in words(question)}
    added: list[str] = []
    query = question
    if ALTERNATIVE.search(question) and not drugs(question):  # "amoxicillin instead?" names its own
        alternative = _alternative(last_answer, evidence, answer_drugs, exclude=set(drugs(last_user)) | own)
        if alternative:
            query = ALTERNATIVE.sub(alternative, query, count=1)
            added.append(alternative)
    elif THING.search(question) and not drugs(question):
        subject = next(iter(drugs(last_user) or answer_drugs), None)
        if subject:
            query = THING.sub(subject, query, count=1)
            added.append(subject)
    if not added and not drugs(question) and not drugs(last_user) and DRUG_ASPECT.search(question) \
            and not _substantive(topic_terms(question)):
        chosen = answer_drugs[:1]  # "what is the maximum dose?" of the drug the answer chose
    else:
        chosen = []
    inherited = _inherited(history, last_user, question)
    topic = chosen + [t for t in inherited if t.lower() not in own and t.lower() not in added + chosen]
    if (ALTERNATIVE.search(question) and added) or drugs(question):
        topic = [t for t in topic if not is_drug(t)]  # the question moved on from the earlier drug
    if any(w.lower() in ASPECTS for w in words(question)):
        topic = [t for t in topic if t.lower() not in ASPECTS]  # and from the earlier aspect
    added.extend(topic)
    if topic:
        query = f"{query.rstrip()} ({_join(topic, [t.text for t in history if t.role == 'user'])})"
    return Resolution(query=query, original=question, rewritten=query != question, added=added)


def _join(terms: list[str], sources: list[str]) -> str:
    """The topic terms as phrases: two terms are joined by a space only where an earlier question wrote them
    side by side ("community-acquired pneumonia"), or when the second is a number (the value of the first: "eGFR
    of 40" -> "eGFR 40"), else by a comma, so that "CURB-65" and "pneumonia" from "use CURB-65 in pneumonia" do
    not read as one condition ("CURB-65 pneumonia")."""
    said = [" ".join(words(text)).lower() for text in sources]
    joined = terms[0]
    for before, term in zip(terms, terms[1:], strict=False):
        pair = f"{before} {term}".lower()
        beside = term[0].isdigit() or any(f" {pair} " in f" {text} " for text in said)  # "eGFR (of) 40"
        joined += (" " if beside else ", ") + term
    return joined


def _substantive(terms: list[str]) -> bool:
    return any(t.lower() not in ASPECTS and not t.isdigit() for t in terms)


def _inherited(history: list[Turn], last_user: str, question: str) -> list[str]:
    """What the follow-up takes from the previous question. One that asks something of its own ("what target?",
    "the side effects?") takes the previous question's drug and the topic it inherited itself (the part in
    parentheses), not the previous follow-up's own subject; one that asks nothing of its own ("how long?",
    "why?") takes all of it."""
    match = INHERITED.match(last_user)
    if match and (topic_terms(question) or DRUG_ASPECT.search(question)):
        merged: dict[str, str] = {}
        for term in [*drugs(match.group(1)), *topic_terms(match.group(2))]:
            merged.setdefault(term.lower(), term)
        return list(merged.values())
    return _topic(history)


def _topic(history: list[Turn]) -> list[str]:
    """The topic of the latest user turn that has one: a turn of only aspects ("what target?") adds its
    aspects and the topic of the turn before."""
    collected: list[str] = []
    for turn in reversed(history):
        if turn.role != "user":
            continue
        terms = topic_terms(turn.text)
        collected.extend(t for t in terms if t.lower() not in {c.lower() for c in collected})
        if _substantive(terms):
            break
    return collected


def resolve_conversation(turns: list[Turn]) -> Resolution:
    """Resolve every user turn in order against the ones before it; the last one's resolution."""
    resolved: list[Turn] = []
    resolution: Resolution | None = None
    for turn in turns:
        if turn.role == "user":
            resolution = resolve(turn.text, resolved)
            resolved.append(Turn("user", resolution.query))
        else:
            resolved.append(turn)
    if resolution is None:
        raise ValueError("a conversation needs a user turn")
    return resolution


def _alternative(answer: str, evidence: str, answer_drugs: list[str], *, exclude: set[str]) -> str | None:
    """The drug the answer offers as the alternative: the first new drug of a sentence that says so (an
    alternative, instead, in allergy, otherwise, or), in the answer, then in its cited excerpts; else the
    answer's second drug (its first is the choice)."""
    chosen = answer_drugs[:1]  # the answer's choice is what the alternative replaces
    for text in (answer, evidence):
        for sentence in re.split(r"(?<=[.!?;])\s+", CITATION.sub("", text)):
            if ALTERNATIVE_SENTENCE.search(sentence):
                for drug in drugs(sentence):
                    if drug not in exclude and drug not in chosen:
                        return drug
    offered = [d for d in answer_drugs if d not in exclude]
    return offered[1] if len(offered) > 1 else None


def pending_question(turns: list[Turn]) -> str | None:
    """The question a clarifying reply would join: set when the last turn asked the user to clarify."""
    if len(turns) >= 2 and turns[-1].role == "assistant" and is_clarifying(turns[-1].text) \
            and turns[-2].role == "user":
        return turns[-2].text
    return None
