"""Who a question and its evidence are about (query/population.py)."""

from __future__ import annotations

from voiceassist.query import population


def test_population_ages_fall_in_their_mesh_group_and_durations_are_not_ages() -> None:
    assert population.asked("CAP abx dose in a 4 year old") == {"children"}
    assert population.asked("doxycycline for pneumonia in an 8 yo") == {"children"}
    assert population.asked("a 15-year-old with anaphylaxis") == {"adolescents"}
    assert population.asked("a 3 month old") == {"infants"}
    assert population.asked("metformin for 2 years") == frozenset()
    assert population.asked("bp goal for most adults") == frozenset()  # adults: no special group


def test_population_adult_evidence_does_not_cover_a_child_but_a_childrens_dose_does() -> None:
    adult = ["Community-Acquired Pneumonia in Adults\nFor adults treated as outpatients, amoxicillin 1 g."]
    both = ["Give 0.01 mg/kg, to a maximum single dose of 0.5 mg in adults and 0.3 mg in children."]
    assert population.uncovered("amoxicillin dose for pneumonia in kids", adult) == ({"children"}, {"adults"})
    assert population.uncovered("epinephrine dose for a 6 yo", both)[0] == frozenset()
    assert population.uncovered("metformin dose in pregnancy", ["Start with 500 mg once daily."])[0] == {
        "pregnancy"}


def test_population_a_follow_up_carries_the_childs_age_forward() -> None:
    from voiceassist.conversation.context import Turn, resolve

    earlier = [Turn("user", "amoxicillin dose for pneumonia in a 4 year old"),
               Turn("assistant", "Amoxicillin 1 g orally three times daily [1].")]
    carried = resolve("And the max dose?", earlier)
    asked_now = resolve("And in a child?", [Turn("user", "amoxicillin dose for community-acquired pneumonia"),
                                            Turn("assistant", "Amoxicillin 1 g orally three times daily [1].")])

    assert population.asked(carried.query) == {"children"}
    assert population.asked(asked_now.query) == {"children"} and "pneumonia" in asked_now.query


def test_population_a_gestational_condition_is_a_pregnancy() -> None:
    assert population.asked("metformin for gestational diabetes dose") == {"pregnancy"}


def test_population_a_disease_mesh_files_under_pregnancy_complications_is_a_pregnancy() -> None:
    """MeSH's Pregnancy Complications tree (C12.050.703; C13.703 before 2023) by any name or shorthand ("GDM"),
    not its branches that are no current pregnancy, nor a negated one; Lactation Disorders is a breastfeeding
    mother (blind14 drove this: development data)."""
    for pregnant in ("GDM at 28 weeks, diet not working - can I start metformin, what dose and titration?",
                     "pre-eclampsia, labetalol dose?", "hyperemesis gravidarum, which antiemetic first?",
                     "placenta praevia with bleeding, tranexamic acid?", "threatened miscarriage, progesterone?"):
        assert population.asked(pregnant) == {"pregnancy"}, pregnant
    for not_pregnant in ("no GDM, metformin dose?", "recurrent miscarriage, aspirin?", "stillbirth workup",
                         "postpartum haemorrhage, oxytocin dose", "pelvic floor disorder, pessary?",
                         "PET scan for lung cancer staging", "galactorrhea, cabergoline dose"):
        assert "pregnancy" not in population.asked(not_pregnant), not_pregnant
    assert population.asked("fetal alcohol syndrome in a child, melatonin?") == {"children"}
    assert population.asked("hypogalactia, domperidone dose?") == {"breastfeeding"}


def test_population_a_child_question_quoting_only_an_adult_reference_states_the_conflict() -> None:
    """An uncited passage about children (a distractor abstract) kept beside an adult drug reference must not
    make an answer quoted from the adult reference read as one for a child."""
    from voiceassist.models import Chunk, DocumentMetadata, QueryRequest, SearchHit, SourceType
    from voiceassist.query import abstention
    from voiceassist.query.citations import number_excerpts
    from voiceassist.query.state import QueryState

    def hit(doc_key: str, title: str, text: str) -> SearchHit:
        meta = DocumentMetadata(doc_key=doc_key, title=title, source_type=SourceType.DRUG_REFERENCE)
        return SearchHit(chunk=Chunk(chunk_id=doc_key, doc_id=doc_key, doc_key=doc_key, version=1, ordinal=0,
                                     text=text, token_count=len(text.split()), metadata=meta), score=1.0)

    adult = hit("sample-metformin", "Metformin (sample drug reference)",
                "Start with 500 mg once or twice daily with meals; the usual maximum is 2,000 mg per day.")
    abstract = hit("MED-1993", "MED-1993", "type num diabetes mellitus children adolescents emerging clinical problem")
    question = "metformin dose for a 12 year old with T2DM"
    state = QueryState(user_id="u", request=QueryRequest(query=question), hits=[adult, abstract])
    state.population_conflict = abstention.population_conflict(question, state.hits)
    quoted_adult, quoted_both = number_excerpts([adult]), number_excerpts([adult, abstract])

    assert state.population_conflict is None  # the kept hits, together, name children
    conflict = abstention.cited_population_conflict(state, quoted_adult)
    assert conflict is not None and conflict.startswith("Caution: the question is about children")
    assert abstention.cited_population_conflict(state, quoted_both) is None


CAP_COMORBIDITIES = ("For outpatients with comorbidities such as chronic heart, lung, liver or kidney disease, "
                     "diabetes, alcohol use disorder or asplenia, use amoxicillin/clavulanate 875/125 mg twice daily "
                     "plus a macrolide (azithromycin 500 mg on day 1, then 250 mg daily).")


def test_population_a_condition_in_a_list_of_comorbidities_does_not_cover_a_dialysis_question() -> None:
    missing, _ = population.uncovered("amoxicillin dose for CAP in dialysis patients", [CAP_COMORBIDITIES],
                                      ["Community-Acquired Pneumonia in Adults\nOutpatient antibiotic treatment"])
    assert missing == {"renal impairment"}
    assert population.uncovered("amoxicillin dose adjustment in CKD", [
        "Lactic acidosis is rare and occurs mainly with severe renal impairment, hypoxia or sepsis."])[0] == {
        "renal impairment"}


def test_population_a_statement_about_the_group_covers_it() -> None:
    assert population.specific("Metformin is contraindicated when eGFR is below 30 mL/min/1.73 m2.") == {
        "renal impairment"}
    assert population.specific("In renal impairment, reduce the dose, once or twice daily.") == {"renal impairment"}
    assert population.specific("Avoid in pregnancy.") == {"pregnancy"}
    assert population.specific("to a maximum single dose of 0.5 mg in adults and 0.3 mg in children.") == {
        "adults", "children"}
    # a list of contraindications states each one
    assert population.specific("It is contraindicated in severe renal impairment, metabolic acidosis or "
                               "hypoxia.") == {"renal impairment"}
    # a section about the group covers all its text, whatever the sentence says
    assert population.uncovered("metformin dose on dialysis", ["Check the eGFR before starting."],
                                ["Metformin\nRenal function"])[0] == frozenset()


def test_population_a_test_of_organ_function_without_a_value_is_no_statement_about_the_impairment() -> None:
    assert population.specific("Check electrolytes and renal function after starting a diuretic.") == frozenset()
    assert population.specific("Check the estimated glomerular filtration rate (eGFR) at least yearly.") == (
        frozenset())


def test_population_older_adults_are_a_special_group_but_an_age_after_aged_is_its_own() -> None:
    assert population.asked("metformin starting dose in the elderly") == {"older adults"}
    assert population.asked("CAP antibiotic dose in an 85 year old") == {"older adults"}
    assert population.asked("a patient aged 30 with CAP") == frozenset()
    assert population.uncovered("BP target for elderly patients",
                                ["A target below 130/80 mmHg is recommended for most adults."])[0] == {"older adults"}


def test_population_a_list_conflict_says_the_group_is_named_only_in_passing() -> None:
    from voiceassist.models import Chunk, DocumentMetadata, SearchHit, SourceType
    from voiceassist.query import abstention

    meta = DocumentMetadata(doc_key="cap", title="Community-Acquired Pneumonia in Adults (sample reference)",
                            source_type=SourceType.GUIDELINE)
    hit = SearchHit(chunk=Chunk(chunk_id="c", doc_id="cap", doc_key="cap", version=1, ordinal=0,
                                text=CAP_COMORBIDITIES, token_count=30, metadata=meta), score=1.0)

    conflict = abstention.population_conflict("augmentin dose for CAP with CKD stage 5", [hit])

    assert conflict is not None and conflict.startswith("Caution: the question is about renal impairment")
    assert "only in passing" in conflict and "about adults" in conflict


def test_population_haemodialysis_and_end_stage_renal_disease_are_renal_impairment() -> None:
    assert population.asked("amox dose for CAP in a pt on haemodialysis") == {"renal impairment"}
    assert population.asked("levofloxacin in ESRD on hemodialysis") == {"renal impairment"}


def test_population_an_age_in_words_is_an_age() -> None:
    """A dictated or spoken question gives the age in words; "a ten year old" was answered with the adult dose."""
    assert population.asked("what dose of amlodipine would I use for a ten year old") == {"children"}
    assert population.asked("can I use doxycycline for pneumonia in a seven-year-old") == {"children"}
    assert population.asked("a six week old with a fever") == {"infants"}
    assert population.asked("eighty-five years old on lisinopril") == {"older adults"}
    assert population.asked("a twenty two year old with CAP") == frozenset()
    assert population.asked("give it for seven days") == frozenset()


def test_population_creatinine_clearance_and_gfr_as_typed_are_renal_impairment() -> None:
    assert population.asked("amox dose for pneumonia if CrCl 15") == {"renal impairment"}
    assert population.asked("metformin with a GFR of 20") == {"renal impairment"}


def test_population_the_notes_shorthand_for_age_and_sex_is_an_age() -> None:
    """"4M with CAP" is a child, as "58M" is an adult: the case notes' age-and-sex shorthand, and the British
    notes' n/52, n/12 for weeks and months; a quantity, a unit or a temperature is no age."""
    assert population.asked("4M with CAP - amox dose?") == {"children"}
    assert population.asked("6yoF anaphylaxis to peanuts, IM adrenaline dose") == {"children"}
    assert population.asked("15 F on metformin, dose?") == {"adolescents"}
    assert population.asked("82F new AF, anticoagulate?") == {"older adults"}
    assert population.asked("58M CAP, CURB-65 of 1, which abx") == frozenset()
    assert population.asked("a 6/52 old baby with a fever") == {"infants"}
    assert population.asked("3/12 old with cough") == {"infants"}
    for no_age in ("0.9M saline", "benzathine penicillin 2.4M units", "5M units", "T2DM on metformin",
                   "temp 99F, still on abx", "febrile 99F", "seen on 3/12 for review", "HbA1c 7.5"):
        assert population.asked(no_age) == frozenset(), no_age


def test_population_the_notes_gestation_is_a_pregnancy_and_a_cirrhotic_has_hepatic_impairment() -> None:
    """"28/40" in the notes is 28 weeks of gestation (a pregnancy: lisinopril is no answer for her), and a
    "Child-Pugh C cirrhotic" has hepatic impairment; a blood pressure, a score out of 30 or a dilution is neither."""
    assert population.asked("28/40 G2, BP 150/100 x2, start lisinopril?") == {"pregnancy"}
    assert population.asked("36+3/40 primip, BP 160/110 - labetalol dose?") == {"pregnancy"}
    assert population.asked("Child-Pugh C cirrhotic with new T2DM - is metformin ok?") == {"hepatic impairment"}
    assert population.asked("cirrhotic pt, which antihypertensive") == {"hepatic impairment"}
    for neither in ("BP 150/40 on amlodipine", "MoCA 28/30", "1/40 dilution of the stock", "BP 128/40",
                    "Child with CAP, amoxicillin dose?"):
        assert "pregnancy" not in population.asked(neither) and "hepatic impairment" not in population.asked(
            neither), neither


def test_population_gravidity_and_parity_with_the_weeks_or_a_gravida_is_a_pregnancy() -> None:
    """The obstetric notation with the current weeks ("G3P2 at 24 weeks") and a gravida are a pregnant woman; the
    notation alone, or with weeks since a birth, is an obstetric history."""
    for pregnant in ("G3P2 at 24 weeks with CAP, is clarithromycin safe?",
                     "Patient G4 P3+1, 16 wks, fever: amoxicillin?", "G1P0 32w, BP 150/100 - labetalol?",
                     "Primigravida with anaphylaxis after cefalexin: adrenaline dose?"):
        assert population.asked(pregnant) == {"pregnancy"}, pregnant
    for history in ("G2P2 six weeks postpartum with hypertension, which drug?", "G3P3, CAP, doxycycline dose?"):
        assert "pregnancy" not in population.asked(history), history


def test_population_a_group_the_patient_has_not_is_not_the_patients_group() -> None:
    """NegEx's triggers and scope (query/population.py): "no CKD", "not pregnant", "denies pregnancy", "eGFR
    normal" say what the patient has not; a group named outside the negation's scope stays the patient's."""
    from voiceassist.query import abstention
    from voiceassist.query.citations import number_excerpts

    for negated in ("Starting losartan dose for new HTN dx, outpt, no CKD", "not pregnant, ibuprofen dose for a sprain",
                    "non-pregnant woman with cystitis, nitrofurantoin course", "non pregnant woman, trimethoprim dose",
                    "denies pregnancy, doxycycline dose for acne", "eGFR normal, no renal impairment, metformin max",
                    "not on dialysis, gabapentin start dose", "no known kidney disease, naproxen dose",
                    "isn't pregnant - isotretinoin start dose", "pregnancy unlikely, doxy for chlamydia",
                    "normal renal function, vanc loading dose"):
        assert population.asked(negated) == frozenset(), negated
    assert population.asked("CKD 4, no diabetes, which statin dose") == {"renal impairment"}
    assert population.asked("pregnant, no hypertension, low-dose aspirin dose") == {"pregnancy"}
    assert population.asked("no CKD but pregnant, labetalol dose") == {"pregnancy"}  # "but" ends the scope
    assert population.asked("eGFR 25, no liver disease, metformin?") == {"renal impairment"}  # a value: impaired
    # "not" in a question negates its verb, not the group after it
    assert population.asked("why is lisinopril not recommended in pregnancy") == {"pregnancy"}
    assert population.asked("can nitrofurantoin not be used in CKD?") == {"renal impairment"}

    adult = number_excerpts([_hit("Losartan (sample drug reference)",
                                  "Hypertension: usual starting dose 50 mg once daily for most adults.")])
    assert abstention.population_conflict("Starting losartan dose for new HTN dx, outpt, no CKD", adult) is None
    conflict = abstention.population_conflict("Starting losartan dose for new HTN dx, CKD 4", adult)
    assert conflict is not None and "renal impairment" in conflict


def _hit(title: str, text: str) -> object:
    from voiceassist.models import Chunk, DocumentMetadata, SearchHit, SourceType

    meta = DocumentMetadata(doc_key="sample-x", title=title, source_type=SourceType.DRUG_REFERENCE)
    return SearchHit(chunk=Chunk(chunk_id="c", doc_id="d", doc_key="sample-x", version=1, ordinal=0, text=text,
                                 token_count=len(text.split()), metadata=meta), score=1.0)


def test_population_an_age_said_without_years_old_is_an_age_but_a_value_after_is_is_not() -> None:
    assert population.asked("my patient's eighty five and pretty frail, apixaban dose?") == {"older adults"}
    assert population.asked("she is 85 and frail, is a statin worth it") == {"older adults"}
    assert population.asked("pt 88, frail, falls: anticoagulate?") == {"older adults"}
    assert population.asked("he's seven and has a barking cough") == {"children"}
    # a dose, a score, a lab value, a weight or a duration after "is" is no age
    assert population.asked("potassium is 5.5 on ramipril what now") == frozenset()
    assert population.asked("CURB-65 is 3, admit?") == frozenset()
    assert population.asked("she is 85 kg, enoxaparin dose") == frozenset()
    assert population.asked("he is 2 weeks post op with a fever") == frozenset()
    assert population.asked("her potassium is 6 and rising") == frozenset()
    assert population.asked("patient is 150, odd") == frozenset()  # no age above 120


def test_a_group_that_is_a_criterion_of_the_score_asked_about_is_covered_by_that_score() -> None:
    """Session 15: a 70-year-old's CURB-65 question was cautioned as "older adults" because the score's passage
    counts "age 65 years or older" among its criteria, read as a mention in passing."""
    passage = ("Stratify stroke risk with the CHA2DS2-VASc score: heart failure, hypertension, diabetes, prior stroke "
               "and age 75 years or older score points; women score one more.")
    asked = "My 78 year old man has a CHA2DS2-VASc of 4, what does that mean for anticoagulation?"

    assert population.scored_groups(asked, passage) == {population.OLDER_ADULT}
    assert population.uncovered(asked, [passage]) == (frozenset(), frozenset())
    # a question that does not name the score, or asks about a group the score does not count, still conflicts
    assert population.uncovered("apixaban dose for an 84 year old with AF?", [passage])[0] == {population.OLDER_ADULT}
    assert population.uncovered("CHA2DS2-VASc 3 in a pregnant woman with AF?", [passage])[0] == {population.PREGNANCY}


def test_population_an_age_said_as_a_person_of_a_number_or_by_its_decade_is_an_age() -> None:
    # session 17: the twelfth writer's "old boy of 89" and the ways clinicians say an age that no "years old" marks
    assert population.asked("Retired joiner of 91, new AF, what apixaban dose?") == {"older adults"}
    assert population.asked("a wee lass of three with a barking cough") == {"children"}
    assert population.asked("gent of seventy-eight who keeps falling") == {"older adults"}
    assert population.asked("little one aged four, wheezy") == {"children"}  # "aged" a number word: no MeSH "Aged"
    assert population.asked("she's in her late nineties and frail") == {"older adults"}
    assert population.asked("lad in his mid teens with acne") == {"adolescents"}
    # a count or a value, not an age: a relative's children, pack years, thousands, a decade of the calendar
    assert population.asked("mother of 3 with a chest infection") == frozenset()
    assert population.asked("smoker of 30 pack years") == frozenset()
    assert population.asked("white cell count of 18,000 with fever") == frozenset()
    assert population.asked("in the 80s we used to give digoxin") == frozenset()


def test_population_a_misspelt_population_word_is_that_population_but_a_known_word_is_never_respelt() -> None:
    assert population.asked("on haemodialisis twice a week, which antibiotic?") == {"renal impairment"}
    assert population.asked("Patient on gemodializ, hemodializ three times weekly") == {"renal impairment"}
    assert population.asked("is it safe when pregnent at 12 weeks?") == {"pregnancy"}
    assert population.asked("ok while breastfeding her 3 month old?") == {"breastfeeding", "infants"}
    assert population.asked("pedaitric dose please") == {"children"}
    assert population.asked("alcoholic cirrohsis, can I give it") == {"hepatic impairment"}
    assert population.asked("what if the eGRF is 25") == {"renal impairment"}
    assert population.asked("not pregant, any contraindication?") == frozenset()  # negated as spelt right
    # English words, a disease's name, a name and a word as near another clinical word are what they are
    assert population.asked("myasthenia gravis flare, which antibiotic is safe") == frozenset()
    assert population.asked("an old infart on the ECG") == frozenset()
    assert population.asked("the Newbron rule for caries") == frozenset()
    assert population.asked("the paediatrician asked about the dose") == frozenset()
    assert population.respelt_group("pregnant") is None
