"""How a question is worded, not what it is about: negated findings, function words and scores typed with a
space never make a passage that answers look off topic (query/question_concepts.py)."""

from __future__ import annotations

import pytest

from tests.support.passages import passage_hit
from voiceassist.models import SearchHit
from voiceassist.phi.word_lists import CONTRACTIONS, word_list
from voiceassist.query import described_case, evidence
from voiceassist.query.question_concepts import question_concepts
from voiceassist.query.wording import asked_clauses, joined_scores, negated_words

CAP_OUTPATIENT = ("For adults treated as outpatients without comorbidities, first-line treatment is amoxicillin "
                  "1 g orally three times daily; doxycycline 100 mg twice daily is an alternative.")
CURB_65 = ("A CURB-65 score of 0 or 1 suggests treatment at home is usually possible. One point each for "
           "confusion, urea above 7 mmol/L, respiratory rate 30 per minute or more, low blood pressure and age "
           "65 years or older.")
EPINEPHRINE = ("Give epinephrine 1 mg/mL (1:1000) at 0.01 mg/kg intramuscularly into the mid-outer thigh, to a "
               "maximum single dose of 0.5 mg in adults.")


def hit(text: str, title: str) -> SearchHit:
    return passage_hit(text, title, vector_score=0.78)


def weights(question: str) -> dict[str, float]:
    return {c.label: c.weight for c in question_concepts(question)}


def test_question_concepts_a_negated_finding_is_context_not_a_missing_topic() -> None:
    passage = hit(CAP_OUTPATIENT, "Community-Acquired Pneumonia")

    found = evidence.assess("healthy 34yo with CAP, no comorbs, what abx and dose", [passage])

    assert "comorbs" not in found.passages[0].missing  # what the patient has not: context
    assert found.score >= 0.55
    assert weights("no comorbs, what abx for CAP")["comorbs"] == evidence.GENERIC_WEIGHT
    assert weights("what abx for CAP with comorbs")["comorbs"] == 1.0  # not negated: still a topic


def test_question_concepts_a_negations_scope_ends_at_punctuation_and_after_five_words() -> None:
    assert negated_words("no other hx, thinking lisinopril") == {"other", "hx"}
    assert negated_words("without diabetes but with CKD") == {"diabetes"}
    assert "f" not in negated_words("no a b c d e f")
    assert negated_words("what if BP is not controlled") == frozenset()  # "not" negates the verb asked


def test_question_concepts_a_function_word_is_never_a_missing_topic() -> None:
    passage = hit(EPINEPHRINE, "Anaphylaxis")

    found = evidence.assess("adrenaline IM dose per kilo in anaphylaxis", [passage])

    assert "per" not in found.passages[0].missing  # spaCy's English stop word: "0.01 mg/kg" needs no "per"
    assert weights("dose per kilo")["per"] == evidence.GENERIC_WEIGHT
    assert weights("dose per kilo")["kilo"] == 1.0


def test_question_concepts_a_score_typed_with_a_space_is_the_listed_abbreviation() -> None:
    passage = hit(CURB_65, "Community-Acquired Pneumonia")

    found = evidence.assess("age cut off in the curb 65 score", [passage])

    assert "CURB-65" in weights("age cut off in the curb 65 score")
    assert found.passages[0].missing == () and found.score >= 0.55
    assert "TYPE-2" not in weights("type 2 diabetes")  # a word and a number the list does not join stay apart


def test_question_concepts_a_spoken_score_as_whisper_writes_it_is_the_listed_abbreviation() -> None:
    """Whisper writes a spoken "curb sixty-five" as "CURB -65" (the third blind writer's spoken set)."""
    passage = hit(CURB_65, "Community-Acquired Pneumonia")

    for heard in ("What's the age cut off in the CURB -65 score?", "age cut off in CURB - 65"):
        assert "CURB-65" in weights(heard)
        assert evidence.assess(heard, [passage]).passages[0].missing == ()


def test_question_concepts_a_score_said_with_its_number_in_words_is_the_listed_abbreviation() -> None:
    passage = hit(CURB_65, "Community-Acquired Pneumonia")

    for said in ("what's the blood pressure cut off in the curb sixty five score", "age in curb sixty-five"):
        assert "CURB-65" in weights(said)
        assert "curb" not in evidence.assess(said, [passage]).passages[0].missing
    assert joined_scores("a rapid three day course") == "a rapid three day course"  # a common English word
    assert joined_scores("stage two htn") == "stage two htn"  # a word and a number the list does not join
    assert joined_scores("severe CAP, CURB 4") == "severe CAP, CURB 4"  # a value after the name is no score's name


@pytest.mark.parametrize(("said", "read"), [
    ("Um, what does a CURB score of two actually mean for admitting them?",
     "Um, what does a CURB-65 score of two actually mean for admitting them?"),
    ("resp rate cutoff in curb", "resp rate cutoff in CURB-65"),
    ("pneumonia pt curb score 1, home?", "pneumonia pt CURB-65 score 1, home?"),
    ("to curb the spread of flu in the ward", "to curb the spread of flu in the ward"),  # the verb
    ("drugs that curb appetite", "drugs that curb appetite"),
    ("we must curb it. CURB 2 what now", "we must curb it. CURB 2 what now"),  # a bare value after it: measured
    ("curb sixty five is zero", "CURB-65 is zero"),
    # session 17: the number in words after the written form's hyphen
    ("Pt's CURB-sixty-five came to 3, ward or ICU?", "Pt's CURB-65 came to 3, ward or ICU?"),
    ("GAD-seven of 14, which SSRI", "GAD-7 of 14, which SSRI"),
    ("review on day-one and at forty-two days", "review on day-one and at forty-two days"),  # common words
])
def test_a_score_named_without_its_number_is_the_calculator_registrys_title(said: str, read: str) -> None:
    assert joined_scores(said) == read
    passage = hit(CURB_65, "Community-Acquired Pneumonia")
    if "CURB-65" in read:
        assert "curb" not in evidence.assess(said, [passage]).passages[0].missing


def test_evidence_a_drug_is_covered_by_its_class_named_but_not_by_another_member_nor_for_its_dose() -> None:
    classes = hit("ACE inhibitors and angiotensin receptor blockers should not be combined.", "Hypertension")
    member = hit("Lisinopril and losartan are often taken together.", "Interactions")
    steroids = hit("Antihistamines and corticosteroids are second-line and do not replace epinephrine.",
                   "Anaphylaxis")

    combined = evidence.assess("ramipril with valsartan together ok?", [classes, member])
    dose = evidence.assess("ramipril dose", [classes])

    assert combined.passages[0].missing == ()  # the classes of both are named: a statement about them
    assert combined.score >= 0.55
    assert set(combined.passages[1].missing) == {"ramipril", "valsartan"}  # other members are other drugs
    assert dose.score < 0.55  # a class's statement gives no dose of its member
    steroid = evidence.assess("is hydrocortisone enough in anaphylaxis", [steroids])
    assert "hydrocortisone" not in steroid.passages[0].missing


def test_evidence_a_passage_naming_a_disease_defined_as_a_state_of_the_asked_thing_is_about_it() -> None:
    target = hit("A target below 130/80 mmHg is recommended for most adults.", "Hypertension in Primary Care")
    metformin = hit("A target HbA1c is agreed with the patient.", "Metformin")

    found = evidence.assess("what bp goal are we aiming for in most adults", [target, metformin])

    assert found.passages[0].missing == ()  # MeSH names Hypertension "high blood pressure": it is about BP
    assert found.passages[0].score >= 0.55
    assert "blood pressure" in found.passages[1].missing


OBSERVATION = "Observe patients for at least 6 hours after symptoms resolve, because biphasic reactions can occur."


def test_question_concepts_a_unit_of_time_as_typed_is_no_topic() -> None:
    passage = hit(OBSERVATION, "Anaphylaxis")

    assert weights("exercise advice htn how many mins a wk")["wk"] == evidence.GENERIC_WEIGHT  # as "week"
    assert weights("how many hrs after iv contrast")["hrs"] == evidence.GENERIC_WEIGHT
    assert "2wks" not in weights("pt still coughing 2wks after pneumonia")  # a number with its unit: a quantity
    assert "48hrs" not in weights("review 48hrs after starting abx")
    assert weights("HR 120 after adrenaline")["HR"] == 1.0  # heart rate, not hours: still a topic
    found = evidence.assess("how many hrs do we observe after anaphylaxis", [passage])
    assert "hrs" not in found.passages[0].missing
    # a clinical word glued to a number is not a unit: still a topic the passage must hold
    assert "2ww" in weights("pneumonia on 2ww referral")  # the two-week-wait pathway


def test_question_concepts_a_number_with_its_unit_of_measure_is_a_quantity() -> None:
    for question in ("pt ~75kg, max single IM adrenaline dose", "kid 18kg, epinephrine dose per kg",
                     "nasal cannula 2L enough", "chlorthalidone 50mg too much", "500mcg IM given 2h ago",
                     "apyrexial 24h, stop abx", "SBP 180mmHg on amlodipine", "fluid bolus 20ml/kg in anaphylaxis",
                     "insulin 10units and 10IU", "pt 75 kg, adrenaline 0.5 mg IM", "K+ 5.9 mmol/L on lisinopril",
                     "gave 1st dose, 2nd dose, 3rd dose, 4th dose", "one of those 24-hour monitors to confirm it",
                     "a 5-day course of amoxicillin", "7-day vs 5-day abx for CAP", "a 10-mg tablet"):
        labels = [c.label for c in question_concepts(question)]
        assert not any(label[0].isdigit() for label in labels), (question, labels)
    assert "2-month-old" not in weights("metformin while breastfeeding her 2-month-old")  # an age, as before
    assert "2-D" in weights("what does a 2-D echo show in mitral stenosis")  # a dimension, not two days
    assert "CURB-65" in weights("CURB-65 of 2, admit?")  # a score's hyphenated number is not a quantity
    assert weights("what's 4th-line for htn")["line"] == evidence.GENERIC_WEIGHT  # as "first-line"
    # a clinical code with a digit in it is no quantity: it keeps its meaning
    for code in ("T2DM", "CKD4", "G3a", "COVID19"):
        assert weights(f"metformin in {code}")[code] == 1.0, code
    assert weights("give 2 g Mg for torsades")["Mg"] == 1.0  # magnesium after a quantity, not its unit


def test_evidence_a_quantity_in_the_question_is_no_missing_topic() -> None:
    found = evidence.assess("pt ~75kg, max single IM adrenaline dose?", [hit(EPINEPHRINE, "Anaphylaxis")])

    assert found.passages[0].missing == ()


def test_question_concepts_a_contraction_typed_without_its_apostrophe_is_a_function_word() -> None:
    question = "theyve recovered, dont cant wont ive youre isnt doesnt shouldnt whats next for anaphylaxis"
    found = weights(question)
    for word in ("theyve", "dont", "cant", "wont", "ive", "youre", "isnt", "doesnt", "shouldnt", "whats"):
        assert found[word] == evidence.GENERIC_WEIGHT, word
    assert not [c.label for c in question_concepts(question) if c.topic and c.label == "theyve"]
    # the words spaCy leaves out of its contractions keep their meaning: "ill" is a finding, "well" a stop word
    assert weights("child looks ill after amoxicillin")["ill"] == 1.0
    assert weights("feels well on amlodipine")["well"] == evidence.GENERIC_WEIGHT


def test_contractions_list_is_spacys_apostrophe_less_forms_without_real_words() -> None:
    forms = word_list(CONTRACTIONS)

    assert {"dont", "theyve", "wont", "cant", "im", "shouldnt"} <= forms
    assert not forms & {"ill", "well", "its", "were", "hell", "shell"}
    assert all(form.isalpha() and form.islower() for form in forms)


def test_question_concepts_a_cut_off_asked_is_the_value_asked_not_a_topic() -> None:
    passage = hit(CURB_65, "Community-Acquired Pneumonia")

    # "cut-off" and "threshold" name the value asked, as "level", "target" and "value" do
    assert weights("curb65 criteria urea cutoff")["cutoff"] == evidence.GENERIC_WEIGHT
    assert weights("eGFR cut-off to stop metformin")["cut-off"] == evidence.GENERIC_WEIGHT
    assert weights("bp threshold for treatment")["threshold"] == evidence.GENERIC_WEIGHT
    assert "cutoff" not in evidence.assess("curb65 urea cutoff", [passage]).passages[0].missing


def test_asked_clauses_separate_the_case_from_what_is_asked() -> None:
    assert asked_clauses("kid 18kg stung by wasp, lips swelling + wheeze. epinephrine IM dose per kg pls") == (
        "epinephrine IM dose per kg please",)  # a request: "pls", read as the word it spells (session 18)
    assert asked_clauses("T2DM + COPD pt with CAP, outpt. augmentin dose?") == ("augmentin dose",)
    assert asked_clauses("when can I stop abx in CAP, pt now apyrexial 24h") == ("when can I stop abx in CAP",)
    assert asked_clauses("no other hx. do i label HTN today") == ("do i label HTN today",)  # an auxiliary first
    assert asked_clauses("pt on ramipril still 148/92, consultant suggests losartan. thoughts") == ("thoughts",)
    assert asked_clauses("cefuroxime dose for CAP?") is None  # one clause: all of it is asked
    assert asked_clauses("max dose of amlodipine, and when to increase it?") is None  # every clause asks
    assert asked_clauses("adrenaline 0.5 mg IM in adults?") is None  # a decimal point ends no sentence


def test_question_concepts_a_word_of_the_case_weighs_less_than_a_word_of_the_ask(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # (session 18) the ask names a thing of its own, so the story's topics weigh nothing missing and are not named
    story = evidence.assess("kid 18kg stung by wasp, lips swelling + wheeze. epinephrine IM dose per kg pls",
                            [hit(EPINEPHRINE, "Anaphylaxis")])
    assert not {"wasp", "lips"} & set(story.passages[0].missing)
    assert weights("kid stung by wasp, lips swelling. epinephrine IM dose pls")["wasp"] == 0.0
    # session 11's reading, the story weighed at GENERIC_WEIGHT, where the story is not read apart
    monkeypatch.setattr(described_case, "STORY_APART", False)
    passage = hit(EPINEPHRINE, "Anaphylaxis")

    found = evidence.assess("kid 18kg stung by wasp, lips swelling + wheeze. epinephrine IM dose per kg pls", [passage])

    assert found.score >= 0.55  # the case's "wasp", "lips", "stung" are context, not the answer's topic
    assert set(found.passages[0].missing) >= {"wasp", "lips"}  # still named: a topic, only weighed less
    described = weights("kid stung by wasp, lips swelling. epinephrine IM dose pls")
    assert described["wasp"] == evidence.GENERIC_WEIGHT
    assert weights("epinephrine IM dose after a wasp sting?")["wasp"] == 1.0  # in what is asked: a full topic


def test_question_concepts_a_drug_or_condition_of_the_case_keeps_its_weight(monkeypatch: pytest.MonkeyPatch) -> None:
    assert weights("pt on bisoprolol not responding to IM adrenaline. glucagon dose?")["responding"] == 0.0  # (s18)
    monkeypatch.setattr(described_case, "STORY_APART", False)
    on_drug = weights("pt on bisoprolol not responding to IM adrenaline. glucagon dose?")
    refractory = weights("refractory anaphylaxis after 2 IM doses - how do i make up an adrenaline infusion")

    # (session 16) a drug the patient is on is the case's when the ask names another drug: the asked one keeps its
    # full weight, so a passage without glucagon still falls short (decision 0024, session 16)
    assert on_drug["bisoprolol"] == evidence.GENERIC_WEIGHT
    assert on_drug["glucagon"] == 1.0
    assert weights("pt on bisoprolol, wheezy. what is the max bisoprolol dose?")["bisoprolol"] == 1.0
    less = weights("pt on bisoprolol, anaphylaxis. is adrenaline less effective?")
    assert less["bisoprolol"] == evidence.GENERIC_WEIGHT
    assert weights("pt on bisoprolol, anaphylaxis. why is it refractory?")["bisoprolol"] == 1.0  # no drug asked
    assert refractory["anaphylaxis"] == 1.0  # the patient's condition
    assert refractory["refractory"] == 1.0  # the word that says which condition
    assert on_drug["responding"] == evidence.GENERIC_WEIGHT


def test_question_concepts_an_ask_without_a_topic_asks_about_the_whole_case() -> None:
    assert weights("pt stung by a wasp, lips swelling. is that ok?")["wasp"] == 1.0
    assert weights("consultant suggests adding losartan, thoughts")["consultant"] == 1.0


def test_evidence_a_disease_under_a_listed_category_of_comorbidity_is_covered() -> None:
    passage = hit("For outpatients with comorbidities such as chronic heart, lung, liver or kidney disease, "
                  "diabetes or asplenia, use amoxicillin/clavulanate 875/125 mg twice daily plus a macrolide.",
                  "Community-Acquired Pneumonia")

    copd = evidence.assess("augmentin dose for cap in pt with copd", [passage])
    lyme = evidence.assess("augmentin dose for cap in pt with lyme disease", [passage])

    assert copd.passages[0].missing == () and copd.score >= 0.55  # COPD is a lung disease (MeSH C08.381)
    assert "lyme disease" in lyme.passages[0].missing  # an infection, under none of the listed kinds


def test_joined_scores_never_joins_a_common_word_typed_in_lower_case_with_a_number() -> None:
    assert joined_scores("a rapid 3 day course of pred") == "a rapid 3 day course of pred"  # not RAPID3
    assert joined_scores("her 2 children have it too") == "her 2 children have it too"  # not HER2
    assert joined_scores("RAPID 3 DAY COURSE OF PRED?") == "RAPID 3 DAY COURSE OF PRED?"  # all capitals: no mark
    assert joined_scores("HER 2 positive breast cancer") == "HER2 positive breast cancer"  # capitals mark it
    assert joined_scores("CA 125 raised, next step") == "CA-125 raised, next step"
    assert joined_scores("age cut off in the curb 65 score") == "age cut off in the CURB-65 score"  # not common


def test_question_concepts_a_number_said_in_words_is_no_topic() -> None:
    passage = hit(CURB_65, "Community-Acquired Pneumonia")

    found = evidence.assess("if the curb sixty five is zero can they just go home", [passage])

    assert "zero" not in found.passages[0].missing
    assert weights("thirty or forty mg of what for CAP")["thirty"] == evidence.GENERIC_WEIGHT
    assert weights("what abx for CAP")["CAP"] == 1.0  # the topic keeps its weight


# session 16: a drug only the description of the case names is the patient's background when the ask names another
METFORMIN_DOSING = ("Start with 500 mg once or twice daily with meals, and increase by 500 mg every one to two weeks "
                    "as tolerated. The usual maximum is 2,000 mg per day in divided doses.")


@pytest.mark.parametrize(("question", "passage"), [
    ("Patient takes gliclazide and ramipril. What's the max metformin dose?", hit(METFORMIN_DOSING, "Metformin")),
    ("already on empagliflozin and atorvastatin - how high can metformin go per day", hit(METFORMIN_DOSING,
                                                                                         "Metformin")),
    ("He's on atenolol and amlodipine for years, now anaphylaxis. IM adrenaline dose for an adult?",
     hit(EPINEPHRINE, "Anaphylaxis")),
])
def test_evidence_a_drug_the_patient_takes_is_the_case_when_another_drug_is_asked(question: str,
                                                                                  passage: SearchHit) -> None:
    assert evidence.assess(question, [passage]).score >= 0.55


@pytest.mark.parametrize("question", [
    "on gliclazide, what dose of gliclazide?",  # the background drug asked about: still uncovered
    "on metformin and ramipril, what dose of gliclazide to add?",  # the asked drug is not the passage's
    "takes metformin 1 g twice a day; what's the maximum sitagliptin dose",
])
def test_evidence_an_asked_drug_the_passage_lacks_still_abstains(question: str) -> None:
    assert evidence.assess(question, [hit(METFORMIN_DOSING, "Metformin")]).score < 0.55
