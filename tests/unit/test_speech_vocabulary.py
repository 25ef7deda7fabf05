"""The vocabulary that biases transcription: the knowledge base's drug and condition names and its uncommon
words, bounded, never a name or an identifier of a document (they must not reach the recognizer's prompt)."""

from __future__ import annotations

from collections.abc import Iterator

from voiceassist.models import DocumentStatus
from voiceassist.speech.vocabulary import (
    MAX_CHARACTERS,
    KnowledgeBaseVocabulary,
    indexed_passages,
    initial_prompt,
    spoken_drug_names,
    vocabulary_terms,
)

PASSAGES = [
    "Metformin is contraindicated when eGFR is below 30. Check vitamin B12 on long-term metformin.",
    "In chronic kidney disease (CKD), lisinopril or losartan slow progression; amlodipine is an alternative.",
    "Give intramuscular epinephrine 0.5 mg for anaphylaxis; repeat after 5 minutes. Metformin is not involved.",
]


def test_vocabulary_terms_names_the_drugs_and_conditions_the_passages_use_most_first() -> None:
    terms = vocabulary_terms(PASSAGES)
    assert terms[0] == "metformin"  # used by three passages
    assert {"lisinopril", "losartan", "amlodipine", "epinephrine", "eGFR", "CKD"} <= set(terms)
    assert "chronic kidney disease" in terms  # the condition the passage spells out beside its abbreviation
    assert "Metformin" not in terms  # one term per name, whatever the sentence's capitals


def test_vocabulary_terms_take_the_passages_uncommon_words_a_recognizer_mishears() -> None:
    passages = ["Anaphylaxis is likely when skin or mucosal symptoms follow an allergen; treatment is urgent.",
                "Lactic acidosis is rare. Titration of the dose is recommended for most patients."]
    terms = vocabulary_terms(passages)
    assert {"anaphylaxis", "mucosal", "allergen", "lactic", "acidosis", "titration"} <= set(terms)
    assert not {"treatment", "recommended", "patients", "symptoms", "likely"} & set(terms)  # common English
    assert "acidosis" not in vocabulary_terms(passages, words=False)  # the terminology's names only


def test_vocabulary_terms_put_every_drug_name_before_the_uncommon_words() -> None:
    passages = ["Titration of metformin: titration is slow, with titration steps and mucosal checks.",
                "Titration again, mucosal again; lisinopril once."]
    terms = vocabulary_terms(passages)
    assert terms[:2] == ["metformin", "lisinopril"]  # though "titration" and "mucosal" are used more
    assert initial_prompt(terms, max_characters=65) == "Clinical question. Terms: metformin, lisinopril, titration."


def test_knowledge_base_vocabulary_repairs_to_the_brands_clinicians_say_for_the_passages_drugs() -> None:
    passages = ["Metformin is first line; amoxicillin with clavulanate for bites.", "Metformin again."]
    vocabulary = KnowledgeBaseVocabulary(lambda: passages)

    assert vocabulary.repair("can they stay on their Glucofage") == "can they stay on their Glucophage"
    assert vocabulary.repair("is augmenten safe") == "is Augmentin safe"  # amoxicillin with clavulanate's brand
    assert vocabulary.repair("is norvask safe") == "is norvask safe"  # amlodipine's: no passage names amlodipine
    assert "Glucophage" not in (vocabulary.prompt() or "")  # the prompt holds what the passages say
    assert not {"Glucophage", "Augmentin"} & set(vocabulary_terms(passages))


def test_spoken_drug_names_skip_names_a_recognizer_writes_right_and_other_spellings() -> None:
    drugs = {"metformin": "metformin", "glucophage": "metformin", "epinephrine": "epinephrine",
             "adrenaline": "epinephrine", "epipen": "epinephrine", "epinephrin": "epinephrine"}

    assert spoken_drug_names(["metformin", "epinephrine"], drugs, frozenset()) == ["Glucophage", "adrenaline",
                                                                                    "Epipen"]
    assert spoken_drug_names(["epinephrine"], drugs, frozenset({"adrenaline"})) == ["Epipen"]


def test_vocabulary_terms_never_holds_a_name_or_an_identifier_of_a_passage() -> None:
    passage = ("Case: John Smith, MRN 4417823, of 42 Elm Street, Springfield, takes metformin 500 mg twice daily. "
               "Seen by Dr Okonkwo and Nurse Abernathy at Wexcombe clinic; ref XQZ-4471.")
    terms = vocabulary_terms([passage])
    assert "metformin" in terms
    spoken = " ".join(terms).lower()
    assert not any(value in spoken for value in ("john", "smith", "4417823", "elm", "springfield", "okonkwo",
                                                 "abernathy", "wexcombe", "xqz"))


def test_vocabulary_terms_and_prompt_are_bounded() -> None:
    many = [f"Drug {name} is used." for name in ["metformin", "lisinopril", "losartan", "amlodipine", "epinephrine",
                                                 "amoxicillin", "doxycycline", "ceftriaxone", "azithromycin"]]
    assert len(vocabulary_terms(many, max_terms=4)) == 4
    prompt = initial_prompt(vocabulary_terms(many), max_characters=60)
    assert prompt is not None and len(prompt) <= 60 and prompt.endswith(".")
    assert len(initial_prompt(["x" * 30] * 100) or "") <= MAX_CHARACTERS
    assert initial_prompt([]) is None


class _Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_knowledge_base_vocabulary_follows_the_knowledge_base_after_its_refresh_time() -> None:
    texts = [["Metformin is taken with meals."]]
    clock = _Clock()
    vocabulary = KnowledgeBaseVocabulary(lambda: texts[0], refresh_seconds=300, clock=clock)
    assert vocabulary.prompt() == "Clinical question. Terms: metformin."
    texts[0] = ["Lisinopril is taken once a day."]
    assert "metformin" in (vocabulary.prompt() or "")  # cached until the refresh time
    clock.now = 301
    assert vocabulary.prompt() == "Clinical question. Terms: lisinopril."


def test_knowledge_base_vocabulary_keeps_transcribing_when_the_store_fails() -> None:
    def broken() -> Iterator[str]:
        raise ConnectionError("store down")
        yield ""  # pragma: no cover - a generator that fails when read, as a store client does

    assert KnowledgeBaseVocabulary(broken).prompt() is None
    assert KnowledgeBaseVocabulary(lambda: PASSAGES, max_terms=0).prompt() is None  # switched off


class _Document:
    def __init__(self, doc_id: str, chunk_count: int) -> None:
        self.doc_id, self.chunk_count, self.doc_key = doc_id, chunk_count, f"key-{doc_id}"


class _Documents:
    def __init__(self, listed: tuple[str, ...] = ("d1", "d2")) -> None:
        self.listed = listed

    def list(self, *, status: DocumentStatus | None = None, limit: int = 100) -> list[_Document]:
        assert status is DocumentStatus.ACTIVE  # only what is searchable
        return [_Document(doc_id, {"d1": 2, "d2": 3}[doc_id]) for doc_id in self.listed]


class _Chunk:
    def __init__(self, text: str) -> None:
        self.text = text


class _Index:
    def chunk(self, chunk_id: str) -> _Chunk:
        return _Chunk(f"text of {chunk_id}")


def test_indexed_passages_reads_each_active_document_s_chunks_up_to_the_bound() -> None:
    read = list(indexed_passages(_Documents(), _Index(), max_passages=4))  # type: ignore[arg-type]
    assert read == ["text of d1:00000", "text of d1:00001", "text of d2:00000", "text of d2:00001"]


def test_indexed_passages_come_in_the_same_order_however_the_store_lists_the_documents() -> None:
    # the prompt's terms of equal use are ranked by first appearance: two ingestions of one corpus give one prompt
    listed = [list(indexed_passages(_Documents(order), _Index())) for order in (("d1", "d2"), ("d2", "d1"))]  # type: ignore[arg-type]
    assert listed[0] == listed[1]
