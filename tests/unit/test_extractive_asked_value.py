"""The composer quotes first the sentences that state the kind of value the question asks for (a starting dose, a
titration interval, how long or until when to treat, when to review), however many of the question's other words
the sentences around it share: the regimen sentence names the antibiotics of "when do I stop the antibiotics", the
renal sentence the "starting" of "starting dose", but neither states a time or a dose."""

from __future__ import annotations

from voiceassist.models import Chunk, DocumentMetadata, SearchHit, SourceType
from voiceassist.query import answer_kinds
from voiceassist.query.extractive import answers_kind, select_sentences
from voiceassist.query.generation import Excerpt, number_excerpts

# the sample references' passages (samples/corpus), in the order a search can return them
INDICATION = ("Metformin is the usual first-line oral agent for type 2 diabetes mellitus, together with lifestyle "
              "changes.")
DOSING = ("Start with 500 mg once or twice daily with meals, and increase by 500 mg every one to two weeks as "
          "tolerated. The usual maximum is 2,000 mg per day in divided doses (extended-release: once daily with the "
          "evening meal).")
RENAL = ("Check the estimated glomerular filtration rate (eGFR) before starting and at least yearly. Metformin is "
         "contraindicated when eGFR is below 30 mL/min/1.73 m2. Starting it is not recommended when eGFR is between "
         "30 and 45 mL/min/1.73 m2; if eGFR falls below 45 during treatment, reassess the benefit and consider a "
         "reduced dose. Withhold it before iodinated contrast in patients with an eGFR between 30 and 60.")
ADVERSE = ("Gastrointestinal effects (nausea, diarrhoea, abdominal discomfort) are common at the start and are "
           "reduced by slow titration and taking the drug with food. Long-term use can lower vitamin B12 levels; "
           "check B12 periodically. Lactic acidosis is rare and occurs mainly with severe renal impairment, hypoxia "
           "or sepsis.")
OUTPATIENT = ("For adults treated as outpatients without comorbidities, first-line treatment is amoxicillin 1 g orally "
              "three times daily. Doxycycline 100 mg orally twice daily is an alternative, for example in penicillin "
              "allergy.\n\nFor outpatients with comorbidities such as chronic heart, lung, liver or kidney disease, "
              "diabetes, alcohol use disorder or asplenia, use amoxicillin/clavulanate 875/125 mg twice daily plus a "
              "macrolide (azithromycin 500 mg on day 1, then 250 mg daily), or a respiratory fluoroquinolone alone "
              "(levofloxacin 750 mg once daily).")
DURATION = ("Treat for a minimum of 5 days, and continue until the patient has been afebrile for 48 to 72 hours and "
            "is clinically stable. Review the patient within 48 hours, or sooner if symptoms worsen.\n\nFever usually "
            "settles within 3 days, cough within 2 to 3 weeks, and fatigue may last a month.")
METFORMIN = "Metformin (sample drug reference)"
CAP = "Community-Acquired Pneumonia in Adults (sample reference)"


def excerpts(title: str, *sections: tuple[str, str]) -> list[Excerpt]:
    meta = DocumentMetadata(doc_key="doc", title=title, source_type=SourceType.GUIDELINE)
    return number_excerpts([
        SearchHit(chunk=Chunk(chunk_id=f"c{i}", doc_id="d", doc_key="doc", version=1, ordinal=i, text=text,
                              token_count=len(text.split()), metadata=meta, section=section), score=1.0 - i / 10)
        for i, (section, text) in enumerate(sections)])


def quoted(question: str, title: str, *sections: tuple[str, str]) -> list[str]:
    return [c.text for c in select_sentences(question, excerpts(title, *sections))]


def test_a_starting_dose_is_answered_by_the_sentence_stating_the_dose_not_one_saying_starting() -> None:
    for question in ("Glucophage starting dose for newly diagnosed T2DM?", "what dose of metformin do I start with",
                     "initial metformin dose"):
        first = quoted(question, METFORMIN, ("Renal function", RENAL), ("Indication", INDICATION),
                       ("Dosing", DOSING))[0]
        assert first.startswith("Start with 500 mg"), question


def test_a_titration_interval_asked_in_shorthand_is_answered_by_the_step_and_its_period() -> None:
    for question in ("metformin uptitrate q? wks", "metformin titrate q how many wks", "how do I titrate metformin"):
        first = quoted(question, METFORMIN, ("Adverse effects", ADVERSE), ("Renal function", RENAL),
                       ("Indication", INDICATION), ("Dosing", DOSING))[0]
        assert "every one to two weeks" in first, question


def test_when_to_stop_treatment_quotes_the_stop_criterion_over_the_regimen_naming_the_drugs() -> None:
    for question in ("When do I stop the antibiotics for pneumonia, how long must the patient be without fever "
                     "first?", "when can i stop abx for CAP", "how long do I continue amoxicillin for pneumonia"):
        chosen = quoted(question, CAP, ("Outpatient antibiotic treatment", OUTPATIENT),
                        ("Duration and follow-up", DURATION))
        assert any("afebrile for 48 to 72 hours" in s for s in chosen), question
        assert not chosen[0].startswith("For outpatients"), question


def test_when_to_review_quotes_the_review_time_over_the_regimen_of_the_case() -> None:
    for question in ("When should a CAP patient sent home on oral antibiotics be seen again?",
                     "when do I review a pneumonia patient on doxycycline at home"):
        chosen = quoted(question, CAP, ("Outpatient antibiotic treatment", OUTPATIENT),
                        ("Duration and follow-up", DURATION))
        assert any("within 48 hours" in s for s in chosen[:2]), question


def test_once_daily_is_a_frequency_not_a_time() -> None:
    time = next(kind for kind in answer_kinds.KINDS if kind.name == "time")
    assert not answer_kinds.states(time, "or a respiratory fluoroquinolone alone (levofloxacin 750 mg once daily).")
    assert not answer_kinds.states(time, "Start with 500 mg once or twice daily with meals.")
    assert answer_kinds.states(time, "Stop once the patient has been afebrile and is clinically stable.")
    assert answer_kinds.states(time, "Review the patient within 48 hours.")


def test_no_kind_asked_keeps_the_order_by_shared_words() -> None:
    assert answers_kind("is metformin safe in pregnancy") is None
    # "repeat" of a test is no dosing frequency asked: the regimens' "twice daily" does not answer it
    assert answers_kind("repeat CXR after pneumonia - who needs one and when?") is None
    states = answers_kind("metformin starting dose")
    assert states is not None and states("Start with 500 mg once daily.")
    assert not states("Metformin is contraindicated when eGFR is below 30 mL/min/1.73 m2.")
    first = quoted("which patients get a follow-up chest radiograph after pneumonia", CAP,
                   ("Outpatient antibiotic treatment", OUTPATIENT), ("Duration and follow-up", DURATION
                                                                     + " A follow-up chest radiograph at 6 weeks is "
                                                                       "advised for smokers and patients over 50 "
                                                                       "years with persisting symptoms."))[0]
    assert first.startswith("A follow-up chest radiograph")
