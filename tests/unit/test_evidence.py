"""The evidence score and abstention: absolute, per passage, and an honest no-evidence reply."""

from __future__ import annotations

from voiceassist.models import AnswerStatus, Chunk, DocumentMetadata, PhiResult, QueryRequest, SearchHit, SourceType
from voiceassist.query import abstention, evidence
from voiceassist.query.state import QueryState, response_of

METFORMIN_RENAL = (
    "Metformin is contraindicated when eGFR is below 30 mL/min/1.73 m2. Starting it is not recommended when eGFR "
    "is between 30 and 45 mL/min/1.73 m2; if eGFR falls below 45 during treatment, reassess the benefit."
)
CAP_OUTPATIENT = (
    "For outpatients with comorbidities such as chronic heart, lung, liver or kidney disease, use "
    "amoxicillin/clavulanate plus a macrolide."
)


def hit(text: str, *, title: str = "Metformin", vector_score: float | None = None, score: float = 1.0) -> SearchHit:
    meta = DocumentMetadata(doc_key=title.lower(), title=title, source_type=SourceType.DRUG_REFERENCE)
    chunk = Chunk(chunk_id=f"c-{title}-{len(text)}", doc_id="d", doc_key=title.lower(), version=1, ordinal=0,
                  text=text, token_count=len(text.split()), metadata=meta)
    return SearchHit(chunk=chunk, score=score, vector_score=vector_score)


def test_a_passage_that_covers_the_question_scores_high_whatever_the_other_hits() -> None:
    found = evidence.assess("Can metformin be continued at an eGFR of 38?", [hit(METFORMIN_RENAL)])

    assert found.score >= 0.8


def test_the_top_hit_of_an_unrelated_question_scores_low_on_an_absolute_scale() -> None:
    # Min-max fusion gave this hit 1.0; the evidence score does not depend on the other hits.
    found = evidence.assess("What is the dose of apixaban for stroke prevention in atrial fibrillation?",
                            [hit(METFORMIN_RENAL, score=1.0)])

    assert found.score < 0.2
    assert {"apixaban", "stroke", "atrial fibrillation"} <= set(found.passages[0].missing) | {"atrial fibrillation"}


def test_an_abbreviation_is_covered_by_its_long_form_and_counted_once() -> None:
    concepts = evidence.question_concepts("Treatment of PE in a patient with CKD?")

    labels = [c.label for c in concepts]
    assert "PE" in labels and "CKD" in labels and "kidney" not in labels
    found = evidence.assess("Treatment of PE in a patient with CKD?", [hit(CAP_OUTPATIENT, title="Pneumonia")])
    assert found.passages[0].missing == ("PE",)
    assert found.score < 0.55


def test_generic_question_words_weigh_less_than_the_topic() -> None:
    weights = {c.label: c.weight for c in evidence.question_concepts("What is the maximum dose of metformin?")}

    assert weights["metformin"] == 1.0
    assert weights["dose"] == evidence.GENERIC_WEIGHT


def test_numbers_and_redacted_phi_are_not_concepts() -> None:
    labels = [c.label for c in evidence.question_concepts("<PERSON> has an eGFR of 38: keep metformin?")]

    assert "38" not in labels and "PERSON" not in labels and "person" not in labels


def test_a_low_cosine_lowers_the_score_of_a_covering_passage() -> None:
    high = evidence.assess("metformin contraindicated", [hit(METFORMIN_RENAL, vector_score=0.9)]).score
    low = evidence.assess("metformin contraindicated", [hit(METFORMIN_RENAL, vector_score=0.6)]).score

    assert high > low


def state_for(question: str, hits: list[SearchHit], *, phi: bool = False) -> QueryState:
    return QueryState(
        user_id="u", request=QueryRequest(query=question), hits=hits, sources_searched=["knowledge_base"],
        phi=PhiResult(contains_phi=phi, entities=[], redacted_text=question))


def test_without_a_supporting_passage_the_reply_abstains_without_citations_and_says_what_was_missing() -> None:
    state = abstention.keep_supported_hits(
        state_for("How is digoxin toxicity treated?", [hit(METFORMIN_RENAL)]), threshold=0.55)
    response = response_of(state)

    assert response.metadata.answer_status is AnswerStatus.NO_EVIDENCE
    assert response.citations == []
    assert response.answer.startswith(abstention.NO_EVIDENCE_REPLY)
    assert '"digoxin"' in response.answer and "Searched: knowledge_base" in response.answer
    assert "PubMed" in response.answer
    assert response.metadata.evidence_score is not None and response.metadata.evidence_score < 0.55


def test_a_question_with_phi_is_not_pointed_at_pubmed() -> None:
    state = abstention.keep_supported_hits(
        state_for("How is digoxin toxicity treated?", [hit(METFORMIN_RENAL)], phi=True), threshold=0.55)

    assert "PubMed" not in (state.answer or "")


def test_unsupported_hits_are_dropped_and_supported_ones_kept_in_order() -> None:
    state = abstention.keep_supported_hits(
        state_for("Metformin eGFR 38: reassess?", [hit(CAP_OUTPATIENT, title="Pneumonia"), hit(METFORMIN_RENAL)]),
        threshold=0.55)

    assert [h.chunk.doc_key for h in state.hits] == ["metformin"]
    assert state.answer is None and response_of(state).metadata.answer_status is AnswerStatus.ANSWERED


def test_a_follow_up_keeps_only_passages_on_the_previous_questions_topic() -> None:
    epinephrine = hit("The maximum single dose of epinephrine is 0.5 mg in adults.", title="Anaphylaxis")
    metformin = hit("The usual maximum dose is 2,000 mg per day.", title="Metformin")

    state = abstention.keep_supported_hits(state_for("And the maximum dose?", [epinephrine, metformin]),
                                           threshold=0.55, previous_question="Is metformin safe in <PERSON>?")
    unanchored = abstention.keep_supported_hits(state_for("And the maximum dose?", [epinephrine, metformin]),
                                                threshold=0.55, previous_question="<PERSON> asked <DATE_TIME>")

    assert [h.chunk.doc_key for h in state.hits] == ["metformin"]
    assert {h.chunk.doc_key for h in unanchored.hits} == {"anaphylaxis", "metformin"}  # tags are not topics


def test_the_no_evidence_reply_echoes_only_the_redacted_question_and_nothing_of_an_unchecked_one() -> None:
    from voiceassist.models import PhiEntity

    question = "John Smith has digoxin toxicity: how is it treated?"
    checked = state_for(question, [hit(METFORMIN_RENAL)], phi=True)
    checked.phi = PhiResult(contains_phi=True, redacted_text="<PERSON> has digoxin toxicity: how is it treated?",
                            entities=[PhiEntity(entity_type="PERSON", start=0, end=10, score=0.9)])
    unchecked = state_for(question, [hit(METFORMIN_RENAL)], phi=True)
    unchecked.phi = PhiResult(contains_phi=True, redacted_text="<REDACTED>", error="detector down")

    replies = [abstention.keep_supported_hits(s, threshold=0.55).answer or "" for s in (checked, unchecked)]

    assert '"digoxin"' in replies[0] and "John" not in replies[0] and "Smith" not in replies[0]
    assert "mentions" not in replies[1] and "John" not in replies[1] and "digoxin" not in replies[1]
    assert all(reply.startswith(abstention.NO_EVIDENCE_REPLY) and "PubMed" not in reply for reply in replies)


def test_without_a_cosine_coverage_alone_needs_a_little_more() -> None:
    half = hit("Metformin tablets.")  # covers "metformin", not "apixaban"

    found = evidence.assess("metformin apixaban", [half])

    assert found.passages[0].coverage == 0.5 and found.score == evidence.COVERAGE_ONLY_WEIGHT * 0.5


def test_a_concept_held_by_another_passage_of_the_same_document_counts_half() -> None:
    # a title naming hypertension would cover "blood pressure" by itself (MeSH: "high blood pressure")
    targets = hit("A target below 130/80 mmHg is recommended for most adults.", title="Primary care")
    definition = hit("Hypertension is diagnosed when office blood pressure is at or above 130/80 mmHg.",
                     title="Primary care")

    alone = evidence.assess("blood pressure target", [targets]).passages[0].coverage
    in_context = evidence.assess("blood pressure target", [targets, definition]).passages[0].coverage

    assert in_context > alone  # "blood pressure" is one concept (query/synonyms.py), "target" a generic word
    assert in_context == round((0.25 + evidence.DOCUMENT_WEIGHT * 1) / 1.25, 4)


def test_a_case_as_it_is_told_names_its_topic_not_its_patient() -> None:
    """"A 72-year-old woman with CKD stage 4": the age and sex say who, CKD what; "kidney disease" beside "CKD"
    is the abbreviation's long form (one concept), not a second topic."""
    concepts = {c.label: c.weight for c in evidence.question_concepts(
        "My patient is a 72-year-old woman with CKD stage 4 (chronic kidney disease) who takes metformin.")}
    assert concepts["CKD"] == 1.0 and concepts["metformin"] == 1.0
    assert "72-year-old" not in concepts and concepts["woman"] == concepts["stage"] == evidence.GENERIC_WEIGHT
    assert not {"kidney disease", "kidney", "disease"} & set(concepts)


def test_a_follow_ups_inherited_topic_weighs_less_than_what_it_asks() -> None:
    concepts = {c.label: c.weight for c in evidence.question_concepts(
        "Can she keep taking metformin? (CKD stage 4, eGFR 25)")}
    assert concepts["metformin"] == 1.0
    assert concepts["CKD"] == concepts["eGFR"] == evidence.INHERITED_WEIGHT
    # a question that only ends in a parenthesis of its own is not a follow-up
    assert {c.label: c.weight for c in evidence.question_concepts("What is the dose (oral) of amoxicillin?")}[
        "oral"] == 1.0


def test_an_adjective_or_a_british_spelling_covers_the_passages_noun() -> None:
    salt = hit("Hypertension: sodium intake below 1,500 to 2,300 mg per day.", title="Hypertension")
    stomach = hit("Gastrointestinal effects (nausea, diarrhoea) are common at the start.")

    assert evidence.assess("how much salt for hypertensive pts", [salt]).passages[0].missing == ()
    assert "diarrhea" not in evidence.assess("nausea and diarrhea on metformin", [stomach]).passages[0].missing


def test_an_ordinary_english_word_is_not_a_missing_topic_but_counts_when_the_passage_holds_it() -> None:
    combined = hit("ACE inhibitors (lisinopril) and angiotensin receptor blockers (losartan) should not be combined.",
                   title="Hypertension")
    held = hit("Metformin and lisinopril are often taken together.", title="Interactions")
    question = "lisinopril plus losartan together ok?"

    found = evidence.assess(question, [combined, held])

    assert "together" not in found.passages[0].missing  # a frequent English word, not a clinical topic
    assert found.passages[0].score >= 0.55
    weights = {c.label: c.weight for c in evidence.question_concepts(question)}
    assert weights["lisinopril"] == weights["losartan"] == 1.0
    assert weights["together"] == evidence.GENERIC_WEIGHT
    # held, it counts fully (1 of its own 1 + lisinopril's 1), so holding more of the question never lowers
    # a passage's coverage: missing only losartan (1) and "plus" (generic), 2 / 3.25
    assert found.passages[1].missing == ("losartan",)
    assert found.passages[1].coverage == round(2 / (3 + evidence.GENERIC_WEIGHT), 4)


def test_a_clinical_word_stays_a_topic_however_common_in_english() -> None:
    weights = {c.label: c.weight for c in evidence.question_concepts("heart pain on lisinopril, fast")}

    assert weights["heart"] == weights["pain"] == 1.0  # Zipf 5.3 and 5.0, but clinical vocabulary
    assert weights["fast"] == evidence.GENERIC_WEIGHT


def test_a_charged_ion_is_a_topic_the_passage_must_hold() -> None:
    first_line = hit("ACE inhibitors (for example lisinopril 10 mg once daily) are first-line.", title="Hypertension")

    found = evidence.assess("K+ level at which to stop lisinopril", [first_line])

    assert found.passages[0].missing == ("K",)
    assert found.score < 0.55


def test_a_qualified_conditions_modifier_is_never_an_ordinary_word() -> None:
    weights = {c.label: c.weight for c in evidence.question_concepts("metformin dose in type 1 diabetes")}
    # "type" is frequent English, but it tells type 1 from type 2 diabetes: the named disease weighs its two
    # topic words, "type" one of them
    assert weights["type 1 diabetes"] == 2.0
    weights = {c.label: c.weight for c in evidence.question_concepts("metformin dose in type one diabetic")}
    assert weights["type"] == 1.0


def test_a_keyword_form_passage_names_the_topics_but_cannot_support_an_answer() -> None:
    # an abstract as NFCorpus distributes it: its stop words and numbers removed, every question word present
    keywords = hit("metformin titration cohort adherence patients discontinued gastrointestinal intolerance months "
                   "pharmacy records titration schedule dose increase associated persistence", title="MED-9")
    reference = hit("Start with 500 mg once or twice daily with meals, and increase by 500 mg every one to two "
                    "weeks as tolerated.", title="Metformin")
    question = "how quickly can I increase the metformin dose"

    found = evidence.assess(question, [keywords, reference])

    assert found.passages[0].coverage >= found.passages[1].coverage  # it holds the words...
    assert found.passages[0].score < 0.55 <= found.passages[1].score  # ...but only the sentence supports
    # (a dose question, and the abstract states no dose: that rule halves it too)
    assert found.passages[0].score == round(evidence.KEYWORD_FACTOR * evidence.UNSTATED_QUANTITY_FACTOR
                                            * evidence.COVERAGE_ONLY_WEIGHT * found.passages[0].coverage, 4)


def test_a_dose_table_row_is_not_keyword_form() -> None:
    row = hit("Metformin 500 mg twice daily maximum 2000 mg daily divided doses", title="Metformin")

    found = evidence.assess("metformin maximum daily dose", [row])

    assert found.score >= 0.55


def test_an_adjective_meets_its_greek_noun() -> None:
    # "anaphylactic" is the adjective of "anaphylaxis" (as "prophylactic" of "prophylaxis")
    positioning = hit("Lay the patient flat with the legs raised (or sitting up if breathing is difficult).",
                      title="Anaphylaxis: emergency treatment")

    found = evidence.assess("how should an anaphylactic patient be positioned", [positioning])

    assert "anaphylactic" not in found.passages[0].missing
    assert evidence.question_concepts("DVT prophylaxis")[-1].alternatives == (frozenset({"prophylact"}),)


def test_a_condition_named_only_as_its_sibling_is_missing_from_the_passage() -> None:
    # "1" is no concept, so without this the passage would hold every topic and pass the ladder's relaxed step
    indication = hit("Metformin is the usual first-line oral agent for type 2 diabetes mellitus.", title="Metformin")

    found = evidence.assess("metformin dose in type 1 diabetes", [indication])

    assert found.passages[0].missing == ("type 1 diabetes",)
    assert evidence.assess("metformin for type 2 diabetes", [indication]).passages[0].missing == ()


def test_a_list_of_statements_is_not_keyword_form() -> None:
    from voiceassist.query.terms import is_keyword_form

    assert not is_keyword_form("Contraindications: severe renal impairment, metabolic acidosis, hypersensitivity")
    assert not is_keyword_form("- severe renal impairment\n- metabolic acidosis\n- hypersensitivity")
    assert is_keyword_form("risk lifestyle intervention effective metformin")  # an abstract's stripped tail


EPINEPHRINE_DOSING = (
    "Give epinephrine 1 mg/mL (1:1000) at 0.01 mg/kg intramuscularly into the anterolateral thigh, to a maximum "
    "single dose of 0.5 mg in adults and 0.3 mg in children. Repeat every 5 to 15 minutes if symptoms persist."
)


def test_a_named_disease_is_one_concept_that_no_part_of_its_name_covers() -> None:
    # "disease" of "lyme disease" is in the passage ("kidney disease"), "pneumonia" of "covid pneumonia" too
    doxycycline = hit(CAP_OUTPATIENT + " Doxycycline 100 mg orally twice daily is an alternative.",
                      title="Community-acquired pneumonia")

    lyme = evidence.assess("doxycycline for lyme disease", [doxycycline])
    covid = evidence.assess("covid pneumonia treatment", [doxycycline])

    assert lyme.passages[0].missing == ("lyme disease",) and lyme.score < 0.55
    assert covid.passages[0].missing == ("covid",) and covid.score < 0.55
    assert evidence.assess("doxycycline for community-acquired pneumonia", [doxycycline]).score >= 0.55


def test_a_passage_on_a_narrower_disease_covers_the_broader_one_never_the_reverse() -> None:
    # MeSH's tree: aspiration pneumonia is a pneumonia; a pneumonia reference is not about aspiration pneumonia
    aspiration = hit("Aspiration pneumonia is treated with amoxicillin/clavulanate.", title="Aspiration")
    general = hit("Pneumonia is treated with amoxicillin.", title="Pneumonia")

    assert "pneumonia" not in evidence.assess("pneumonia antibiotics", [aspiration]).passages[0].missing
    assert evidence.assess("aspiration pneumonia antibiotics", [general]).passages[0].missing == (
        "aspiration pneumonia",)


def test_a_question_asking_for_a_quantity_needs_a_sentence_that_states_one() -> None:
    dosing = hit(EPINEPHRINE_DOSING, title="Anaphylaxis")
    measurement = hit("Measure after 5 minutes of seated rest and average at least two readings.",
                      title="Hypertension")

    carry = evidence.assess("how many EpiPens should a pt carry", [dosing])  # every number is a dose or a time
    readings = evidence.assess("how many blood pressure readings to average", [measurement])

    assert carry.passages[0].missing == () and carry.score < 0.55  # on topic, but no count
    assert readings.score >= 0.55
    assert evidence.assess("epinephrine dose in anaphylaxis", [dosing]).score >= 0.55


def test_a_dose_stated_for_another_drug_does_not_answer_a_dose_question() -> None:
    both = hit("Antihistamines such as cetirizine relieve itching. " + EPINEPHRINE_DOSING, title="Anaphylaxis")
    cetirizine = evidence.question_concepts("cetirizine dose in anaphylaxis")

    dose = evidence.assess_passage(cetirizine, both, quantities=("dose",))
    unasked = evidence.assess_passage(cetirizine, both)

    assert dose.score == round(evidence.UNSTATED_QUANTITY_FACTOR * unasked.score, 4)  # every dose is epinephrine's
    epinephrine = evidence.question_concepts("epinephrine dose in anaphylaxis")
    assert evidence.assess_passage(epinephrine, both, quantities=("dose",)).score == \
        evidence.assess_passage(epinephrine, both).score


def test_a_staged_kidney_condition_meets_a_gfr_cut_off_in_its_kdigo_category() -> None:
    renal = hit(METFORMIN_RENAL)

    assert evidence.assess("metformin in CKD stage 4", [renal]).passages[0].missing == ()  # G4: eGFR 15-29
    assert evidence.assess("is metformin ok on dialysis", [renal]).passages[0].missing == ()  # G5: under 15
    # G2 (60-89) is beyond every cut-off the passage states (below 30, 30-45, below 45)
    assert evidence.assess("metformin in CKD stage 2", [renal]).passages[0].missing == ("CKD",)
    assert evidence.assess("metformin on dialysis", [hit("Check renal function yearly.")]).passages[0].missing == (
        "dialysis",)


def test_a_lay_form_of_several_words_is_its_own_concept_not_a_drug_inside_it() -> None:
    labels = {c.label for c in evidence.question_concepts("bloods after starting a water pill for hypertension")}

    assert "water pill" in labels and "water" not in labels


def test_a_quantity_stated_by_another_passage_of_the_same_document_counts_for_the_document() -> None:
    # "How long?" after "first-line antibiotic for outpatient CAP": the document's Duration section states it
    empirical = hit("Healthy adults with community-acquired pneumonia treated as outpatients receive amoxicillin.",
                    title="CAP outpatient")
    duration = hit("Antibiotics for community-acquired pneumonia are given for a minimum of 5 days.",
                   title="CAP outpatient")
    question = "How long? (amoxicillin, antibiotic, outpatient community-acquired pneumonia)"

    alone = evidence.assess(question, [empirical])
    together = evidence.assess(question, [empirical, duration])

    assert together.passages[0].score == round(alone.passages[0].score / evidence.UNSTATED_QUANTITY_FACTOR, 4)


FIRST_LINE = ("First-line drug classes are thiazide diuretics (for example chlorthalidone 12.5 to 25 mg once daily) "
              "and calcium channel blockers (for example amlodipine 5 mg once daily).")
METFORMIN_INDICATION = "Metformin is the usual first-line oral agent for type 2 diabetes mellitus."
CAP_SEVERITY = "A CURB-65 score of 0 or 1 suggests treatment of community-acquired pneumonia at home is possible."


def test_a_maximum_dose_question_needs_a_limit_stated_for_that_drug() -> None:
    first_line = hit(FIRST_LINE, title="Hypertension")
    metformin = hit("Start with 500 mg once daily. The usual maximum is 2,000 mg per day.")

    assert evidence.assess("amlodipine dose", [first_line]).score >= 0.55
    assert evidence.assess("max dose of amlodipine", [first_line]).score < 0.55  # a usual dose is no maximum
    assert evidence.assess("max dose of metformin", [metformin]).score >= 0.55
    assert evidence.assess("max dose of amlodipine", [metformin]).score < 0.55


def test_the_thing_whose_attribute_is_asked_must_be_in_the_passage() -> None:
    indication, cap = hit(METFORMIN_INDICATION), hit(CAP_SEVERITY, title="Pneumonia")
    hba1c = "hba1c target for a type 2 diabetic on metformin"
    mrsa = "when to cover MRSA in community acquired pneumonia"

    for question, passage in ((hba1c, indication), (mrsa, cap)):
        concepts = evidence.question_concepts(question)
        owner = evidence.asked_owner(question, concepts)
        without = evidence.assess_passage(concepts, passage)
        assert owner is not None and owner.label in without.missing, question
        owned = evidence.assess_passage(concepts, passage, owner=owner)
        assert abs(owned.score - evidence.UNSTATED_QUANTITY_FACTOR * without.score) < 1e-3
        assert evidence.assess(question, [passage]).score < 0.55, question


def test_an_asked_attribute_of_a_thing_the_passage_names_is_not_penalised() -> None:
    dosing = hit("Start with 500 mg once or twice daily with meals, and increase by 500 mg every one to two weeks.")
    question = "metformin starting dose"
    concepts = evidence.question_concepts(question)

    owner = evidence.asked_owner(question, concepts)

    assert owner is not None and owner.label == "metformin"
    assert evidence.assess_passage(concepts, dosing, owner=owner) == evidence.assess_passage(concepts, dosing)
    assert evidence.asked_owner("when should i review an outpatient with pneumonia", evidence.question_concepts(
        "when should i review an outpatient with pneumonia")).label == "pneumonia"  # a named thing, not the verb


def test_a_dose_asked_of_an_added_drug_is_not_answered_by_a_passage_on_the_patients_current_one() -> None:
    # Given questions naming the patient's current treatment in the case and another drug in what they ask
    allopurinol = hit("Allopurinol is started at 100 mg daily and raised by 100 mg every four weeks until serum "
                      "urate is below 360 micromol/L.", title="Gout")
    colchicine = hit("For an acute gout flare, colchicine 500 micrograms is taken two to four times a day until "
                     "the pain settles.", title="Gout")
    reliever = hit("Salbutamol relieves wheeze: two puffs of 100 micrograms as needed, up to four times a day.",
                   title="Asthma")

    # When each is scored against a passage on the current drug and one on the asked drug
    flare = "on allopurinol 300 mg, gout flare now - colchicine dose?"
    wheeze = "using salbutamol most nights, still wheezy - montelukast dose?"

    # Then only the passage on the drug asked about can support the answer
    assert evidence.assess(flare, [allopurinol]).passages[0].other_drug
    assert evidence.assess(flare, [allopurinol]).score < 0.55
    assert not evidence.assess(flare, [colchicine]).passages[0].other_drug
    assert evidence.assess(flare, [colchicine]).score >= 0.55
    assert evidence.assess(wheeze, [reliever]).passages[0].other_drug
    # a question naming no current treatment keeps any named drug (each is asked)
    assert not evidence.assess("allopurinol and colchicine dose in gout", [allopurinol]).passages[0].other_drug


def test_the_drug_asked_about_is_read_in_either_direction_of_the_case() -> None:
    amlodipine = hit("To lower blood pressure, amlodipine is started at 5 mg once daily and may be increased to "
                     "10 mg once daily.", title="Hypertension", vector_score=0.82)  # a cosine of 0.64

    asked = evidence.assess("on ramipril, BP high - amlodipine dose?", [amlodipine])
    current = evidence.assess("on amlodipine, BP high - ramipril dose?", [amlodipine])

    assert not asked.passages[0].other_drug and asked.score >= 0.55
    assert current.passages[0].other_drug and current.score < 0.55


def test_a_drug_class_only_the_case_names_is_the_patients_not_another_drug_asked() -> None:
    # Given a passage on the drug the question asks about, and a question whose case names a class of drugs (the
    # patient's allergy) that the passage does not
    colchicine = hit("For an acute gout flare, colchicine 500 micrograms is taken two to four times a day until "
                     "the pain settles.", title="Gout")

    # When the class stands in the case, and when it is what is asked
    case = evidence.assess("gout flare, allergic to penicillins. Is colchicine right for the flare?", [colchicine])
    asked = evidence.assess("are penicillins right for a gout flare?", [colchicine])

    # Then only the class asked about makes the passage one about other drugs
    assert not case.passages[0].other_drug
    assert asked.passages[0].other_drug


def test_a_passage_that_answers_by_itself_is_kept_whatever_its_search_rank() -> None:
    about = hit("Cellulitis is a bacterial infection of the skin, treated with flucloxacillin.", title="Cellulitis")
    duration = hit("Treat cellulitis with flucloxacillin for 5 to 7 days in total.", title="Cellulitis", score=0.2)

    state = abstention.keep_supported_hits(state_for("shortest flucloxacillin course for cellulitis?",
                                                     [about, duration]), threshold=0.55)

    assert duration in state.hits


def test_a_passage_that_states_the_dose_asked_stays_though_searched_below_the_setting() -> None:
    """Session 15: "Glucophage starting dose for newly diagnosed T2DM?" lost its dosing passage, searched far below
    the indication passage that shares the question's condition words."""
    indication = hit("Lisinopril is a first-line agent for hypertension in adults with diabetes mellitus.",
                     title="Lisinopril", score=1.0, vector_score=0.85)
    dosing = hit("Begin with 10 mg once daily; adjust every two weeks to the blood pressure.", title="Lisinopril",
                 score=0.3, vector_score=0.65)
    monitoring = hit("Check potassium and renal function within two weeks of any change.", title="Lisinopril",
                     score=0.3, vector_score=0.65)

    state = abstention.keep_supported_hits(
        state_for("Lisinopril initial dose for hypertension with diabetes?", [indication, dosing, monitoring]),
        threshold=0.55)

    assert [h.chunk.text for h in state.hits] == [indication.chunk.text, dosing.chunk.text]


VF_AMIODARONE = hit("Give amiodarone 300 mg intravenously as a bolus for ventricular fibrillation that persists after "
                    "three shocks, then flush with 20 mL of saline.", title="Cardiac arrest", vector_score=0.8)


def test_a_dose_asked_of_a_drug_the_passage_does_not_name_is_not_the_named_other_drugs_dose() -> None:
    # issue 24, session 17: "Dose of IV chlorpheniramine for anaphylaxis after the adrenaline?" was answered with
    # the adrenaline dose; the dose word is written beside the drug it is of
    asked_other = evidence.assess("Dose of IV lidocaine for shockable VF after the amiodarone?", [VF_AMIODARONE])
    asked_this = evidence.assess("Dose of IV amiodarone for shockable VF after the lidocaine?", [VF_AMIODARONE])

    assert asked_other.score < 0.55 <= asked_this.score
    assert asked_other.passages[0].other_drug and asked_other.passages[0].unstated_quantity


def test_the_drug_a_dose_is_of_is_the_one_written_beside_the_dose_word_routes_aside() -> None:
    assert evidence._dosed_by_wording("Dose of IV lidocaine for VF after the amiodarone?") == {"lidocaine"}
    assert evidence._dosed_by_wording("the amiodarone IV dose, after lidocaine failed") == {"amiodarone"}
    assert evidence._dosed_by_wording("how much of the furosemide for a patient on digoxin") == {"furosemide"}
    assert evidence._dosed_by_wording("lidocaine for VF after amiodarone, what dose?") == frozenset()


def test_hypo_is_a_hypoglycaemic_episode_not_any_meaning_of_the_abbreviation() -> None:
    # issue 24, session 17: "can metformin on its own make someone go hypo" was answered from a passage naming hypoxia
    oxygen = hit("Sulfonylureas such as gliclazide are taken with breakfast; a patient with hypoxia needs oxygen "
                 "before anything else.", title="Gliclazide")
    sugar = hit("Gliclazide can cause hypoglycaemia, most often in older adults who skip meals.", title="Gliclazide")

    assert "hypoglycaemia" in evidence.assess("does gliclazide make people go hypo?", [oxygen]).passages[0].missing
    assert evidence.assess("does gliclazide make people go hypo?", [sugar]).passages[0].missing == ()
    assert evidence.assess("gliclazide hypos in the elderly", [sugar]).passages[0].missing == ()


# Session 18 (unc18): a member asked where the passage names only its class; the patient's ethnicity and the
# situation of treatment as qualifiers the evidence must state (query/circumstances.py). Fresh sentences.
URTICARIA_CARE = ("Cool the skin and avoid the trigger; give oral fluids 500 mL over an hour if dehydrated. "
                  "Antihistamines relieve the itch but do not shorten the episode.")
GOUT_DIURETIC = ("Loop or thiazide-type diuretics raise serum urate: where possible, use another agent. When "
                 "fluid overload needs one, bendroflumethiazide 2.5 mg once daily is the usual choice.")
WARFARIN_DOSING = ("Start warfarin at 5 mg daily and adjust to an INR of 2 to 3. Check the INR twice weekly "
                   "until stable, then every 4 to 12 weeks.")


def test_a_class_member_without_an_inn_stem_is_read_as_the_class_from_wordnet() -> None:
    from voiceassist.query import terminology

    assert "antihistamine" in terminology.classes_of("diphenhydramine")
    assert terminology.drug_names()["chlorphenamine"] == "chlorpheniramine"
    assert "antihistamine" in terminology.classes_of("chlorpheniramine")
    # a statement about the class answers a question about the member, its dose does not
    asked = evidence.assess("is promethazine useful for hives", [hit(URTICARIA_CARE, title="Urticaria")])
    dosed = evidence.assess("promethazine oral dose for hives", [hit(URTICARIA_CARE, title="Urticaria")])
    assert not asked.passages[0].other_drug
    assert dosed.passages[0].unstated_quantity or dosed.passages[0].other_drug


def test_a_dose_asked_of_a_class_is_stated_only_where_a_sentence_names_the_class_or_a_member() -> None:
    # "500 mL" is in a sentence that names neither antihistamines nor a member: no antihistamine dose is stated
    found = evidence.assess("which antihistamine and at what dose for urticaria?", [hit(URTICARIA_CARE, title="U")])
    assert found.passages[0].unstated_quantity
    # a narrower class by name ("thiazide-type diuretics") or a member with its dose states the class's dose
    stated = evidence.assess("Which diuretic and what dose in gout?", [hit(GOUT_DIURETIC, title="Gout")])
    assert not stated.passages[0].unstated_quantity


def test_an_ethnicity_the_passage_does_not_state_is_a_missing_qualifier() -> None:
    from voiceassist.query import circumstances

    assert [c.label for c in circumstances.ethnicities("Afro-Caribbean lady, which statin?")] == ["Black"]
    assert [c.label for c in circumstances.ethnicities("pt is of South Asian descent")] == ["Asian"]
    for text in ("white coat hypertension on warfarin", "black tarry stools on warfarin", "white cell count low",
                 "black foot after arsenic"):
        assert circumstances.ethnicities(text) == ()
    plain = evidence.assess("What INR should warfarin aim for?", [hit(WARFARIN_DOSING, title="Warfarin")])
    asked = evidence.assess("Patient is Black, what INR should warfarin aim for?",
                            [hit(WARFARIN_DOSING, title="Warfarin")])
    assert not plain.passages[0].owner_missing and asked.passages[0].owner_missing
    stated = evidence.assess("Patient is Black, what INR should warfarin aim for?", [hit(
        WARFARIN_DOSING + " In patients of African ancestry the same INR range applies.", title="Warfarin")])
    assert not stated.passages[0].owner_missing


def test_a_situation_of_treatment_the_passage_does_not_state_is_a_missing_qualifier() -> None:
    from voiceassist.query import circumstances

    assert [c.label for c in circumstances.situations("Sick day rules - hold warfarin with D&V?")] == ["sick day"]
    assert [c.label for c in circumstances.situations("warfarin during Ramadan?")] == ["fasting"]
    assert [c.label for c in circumstances.situations("Peri-op: bridge the warfarin?")] == ["surgery"]
    # a general practice called "the surgery" is a place
    assert circumstances.situations("collapsed in my surgery after warfarin was started") == ()
    assert circumstances.situations("fasting glucose of 7 on warfarin") == ()  # a test's condition
    found = evidence.assess("Sick day rules - should warfarin be held with D&V?", [hit(WARFARIN_DOSING, title="W")])
    assert found.passages[0].owner_missing
    said = evidence.assess("Sick day rules - should warfarin be held with D&V?", [hit(
        WARFARIN_DOSING + " On sick days with vomiting, hold warfarin and check the INR.", title="W")])
    assert not said.passages[0].owner_missing


def test_a_rate_per_kilo_asked_in_other_words_is_stated_by_a_volume_per_kg_and_not_by_a_fluid_named_alone() -> None:
    # issue 24, session 20: "how many mils per kilo" was read as a count, so "10 mL/kg" did not state it
    states = hit("Septic shock in children\nGive an isotonic fluid bolus of 10 mL/kg over 15 minutes, then reassess.",
                 title="Paediatric sepsis", vector_score=0.8)
    names = hit("Septic shock in children\nGive an isotonic fluid bolus early, then reassess perfusion.",
                title="Paediatric sepsis", vector_score=0.8)
    question = "child in septic shock, the fluid bolus, how many mils per kilo"
    assert not evidence.assess(question, [states]).passages[0].unstated_quantity
    assert evidence.assess(question, [names]).passages[0].unstated_quantity  # the document does not say it
