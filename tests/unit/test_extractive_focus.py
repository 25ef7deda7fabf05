"""The composer prefers the sentence that answers over one that only shares more of the question's words:
an instruction for a how-to question, the section the question's aspect names, and a passage's context."""

from __future__ import annotations

from voiceassist.models import Chunk, DocumentMetadata, SearchHit, SourceType
from voiceassist.query.extractive import is_instruction, procedure_focus, select_sentences, starts_with_focus
from voiceassist.query.generation import Excerpt, number_excerpts

BP_MEASUREMENT = (
    "Hypertension is diagnosed when office blood pressure is repeatedly at or above 130/80 mmHg, confirmed with "
    "out-of-office measurement where possible. Measure after 5 minutes of seated rest, with the arm supported "
    "at heart level, and average at least two readings."
)
DOSING = ("Start with 500 mg once or twice daily with meals, and increase by 500 mg every one to two weeks as "
          "tolerated. The usual maximum is 2,000 mg per day in divided doses.")
ADVERSE = ("Gastrointestinal effects are common at the start and are reduced by slow titration and taking the "
           "drug with food.")
RENAL = ("Starting it is not recommended when eGFR is between 30 and 45 mL/min/1.73 m2; if eGFR falls below 45 "
         "during treatment, consider a reduced dose.")


def excerpts(*sections: tuple[str, str]) -> list[Excerpt]:
    meta = DocumentMetadata(doc_key="metformin", title="Metformin", source_type=SourceType.DRUG_REFERENCE)
    return number_excerpts([
        SearchHit(chunk=Chunk(chunk_id=f"c{i}", doc_id="d", doc_key="metformin", version=1, ordinal=i, text=text,
                              token_count=len(text.split()), metadata=meta, section=section), score=1.0 - i / 10)
        for i, (section, text) in enumerate(sections)])


def first_sentence(question: str, *sections: tuple[str, str]) -> str:
    return select_sentences(question, excerpts(*sections))[0].text


def test_a_how_to_question_is_answered_by_the_instruction_with_its_own_verb() -> None:
    # The diagnosis sentence shares "office", "blood pressure" and "measurement"; the instruction answers.
    assert first_sentence("How should blood pressure be measured in the office?",
                          ("Definition and measurement", BP_MEASUREMENT)).startswith("Measure after 5 minutes")
    assert first_sentence("How should metformin be started?", ("Renal function", RENAL),
                          ("Adverse effects", ADVERSE), ("Dosing", DOSING)).startswith("Start with 500 mg")


def test_the_section_the_question_names_outweighs_a_rare_word_elsewhere() -> None:
    # "titration" is only in the adverse-effects sentence; the dosing section's instruction answers.
    assert first_sentence("How is the metformin dose titrated?", ("Adverse effects", ADVERSE),
                          ("Renal function", RENAL), ("Dosing", DOSING)).startswith("Start with 500 mg")


def test_a_filtration_rate_is_not_a_dose() -> None:
    chosen = select_sentences("What is the usual metformin dose?", excerpts(("Renal function", RENAL),
                                                                          ("Dosing", DOSING)))
    assert "mg" in chosen[0].text and "mL/min" not in chosen[0].text


def test_procedure_focus_is_the_main_verb_of_a_how_to_question_only() -> None:
    assert procedure_focus("How should blood pressure be measured in the office?") == "measur"
    assert procedure_focus("How is community-acquired pneumonia treated?") == "treat"
    assert procedure_focus("How to give intramuscular epinephrine?") == ""
    assert procedure_focus("How long should pneumonia be treated?") is None
    assert procedure_focus("What is the dose of amoxicillin?") is None


def test_an_instruction_starts_with_a_verb_in_its_base_form() -> None:
    assert is_instruction("Measure after 5 minutes of rest.", "measur")
    assert is_instruction("Give epinephrine 0.01 mg/kg.", "")
    assert not is_instruction("Starting it is not recommended.", "start")
    assert not is_instruction("Measurement is confirmed at home.", "measur")
    assert not is_instruction("Metformin is first-line.", "")
    assert starts_with_focus("Titrate slowly.", "titrat") and not starts_with_focus("Titration is slow.", "titrat")
