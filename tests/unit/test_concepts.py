"""The concept layer (query/concepts.py): drugs by any name, classes by their members, shorthand; and the
evidence score reading questions through it."""

from __future__ import annotations

from tests.support.passages import passage_hit
from voiceassist.models import PhiEntity, PhiResult, SearchHit
from voiceassist.query import concepts, evidence, terminology
from voiceassist.query.abstention import clinical_words_restored

LISINOPRIL = "ACE inhibitors (for example lisinopril 10 mg once daily) are first-line for hypertension."
CAP = "For adults treated as outpatients, first-line treatment is amoxicillin 1 g orally three times daily."


def hit(text: str, title: str = "Hypertension") -> SearchHit:
    return passage_hit(text, title)


def test_concepts_brand_and_misspelt_names_resolve_to_the_generic() -> None:
    for typed in ("Glucophage", "fortamet", "metfromin", "Riomet"):
        assert [m.label for m in concepts.mentions(f"max dose of {typed}?")] == ["metformin"], typed
    assert [m.label for m in concepts.mentions("where do you inject IM adrenaline") if m.kind == "drug"] == [
        "epinephrine"]


def test_concepts_a_class_is_covered_by_its_members() -> None:
    assert concepts.concept_overlap("can you combine an ACEi with an ARB?", LISINOPRIL + " Losartan 50 mg.") == 1.0
    assert concepts.concept_overlap("abx for pneumonia", CAP) == 1.0
    assert concepts.concept_overlap("glipizide max dose", "Metformin: the usual maximum is 2,000 mg.") == 0.0
    assert concepts.concept_overlap("what is the usual dose?", CAP) == 1.0  # no drug asked about


def test_concepts_a_salt_or_ester_belongs_to_its_ingredients_class() -> None:
    # the drug dictionary names Solumedrol's generic "methylprednisolone hemisuccinate": the INN stem "-olone"
    # is the first word's, not the ester's
    adjuncts = ("Antihistamines and corticosteroids are adjuncts only: they do not relieve airway obstruction or "
                "shock and must never delay or replace epinephrine.")
    found = evidence.assess("role of solumedrol in anaphylaxis", [hit(adjuncts, "Anaphylaxis")]).passages[0]
    assert found.missing == () and found.score >= 0.55
    assert "corticosteroid" in terminology.classes_of("methylprednisolone hemisuccinate")
    assert "ACE inhibitor" in terminology.classes_of("enalapril and hydrochlorothiazide")
    assert not terminology.classes_of("sodium chloride")  # a salt word alone names no class


def test_concepts_search_text_names_the_generic_beside_the_brand() -> None:
    assert concepts.expand("prinivil dose") == "prinivil (lisinopril) dose"
    assert concepts.expand("lisinopril dose") == "lisinopril dose"


def test_evidence_a_brand_question_is_covered_by_the_generic_passage() -> None:
    brand = evidence.assess("Prinivil dose for hypertension", [hit(LISINOPRIL)]).passages[0]
    other = evidence.assess("Glipizide dose for hypertension", [hit(LISINOPRIL)]).passages[0]
    assert brand.missing == () and brand.score >= 0.75
    assert other.missing == ("glipizide",) and other.score < brand.score / 2


def test_evidence_fillers_and_contractions_are_not_topics() -> None:
    labels = {c.label for c in evidence.question_concepts("ok what's the dose they're on, thanks")}
    assert labels == {"dose"}


def test_evidence_an_unhyphenated_compound_matches_the_hyphenated_one() -> None:
    passage = hit("Community-acquired pneumonia (CAP) is an acute infection of the lung.", "Pneumonia")
    assert evidence.assess("community acquired pneumonia", [passage]).passages[0].missing == ()


def test_phi_boundary_a_name_detectors_guess_on_a_drug_is_read_but_a_patient_name_stays_redacted() -> None:
    query = "glipizide max dose for Allegra Jones"
    phi = PhiResult(contains_phi=True, redacted_text="<PERSON> dose for <PERSON>", entities=[
        PhiEntity(entity_type="PERSON", start=0, end=13), PhiEntity(entity_type="PERSON", start=27, end=40)])
    restored = clinical_words_restored(query, phi)
    assert "glipizide" in restored and "Allegra" not in restored and "Jones" not in restored


def test_phi_boundary_an_abbreviation_typed_in_lower_case_is_read_back_from_a_name_detectors_guess() -> None:
    # "pcos" (the abbreviation list writes PCOS) was taken for a name: the question was answered with the general
    # metformin dose, as if it did not say for whom; a lower-case common English word or a name stays redacted
    query = "metformin dose for pcos, ada or cat"
    phi = PhiResult(contains_phi=True, redacted_text="metformin dose for <PERSON>, <PERSON> or <PERSON>", entities=[
        PhiEntity(entity_type="PERSON", start=19, end=23), PhiEntity(entity_type="PERSON", start=25, end=28),
        PhiEntity(entity_type="PERSON", start=32, end=35)])
    restored = clinical_words_restored(query, phi)
    assert "PCOS" in restored and "ada" not in restored and "cat" not in restored
    assert concepts.is_clinical("nstemi") and not concepts.is_clinical("all")
    # read back as the list writes it, so its meaning is known ("PNA": pneumonia); a word already read in lower
    # case keeps its reading ("egfr" is eGFR, not the list's EGFR, the growth factor receptor)
    assert concepts.as_listed("pna") == "PNA" and concepts.as_listed("egfr") == "egfr"


def test_evidence_a_topic_before_a_name_detectors_guess_is_still_a_topic() -> None:
    assert {c.label for c in evidence.question_concepts("amoxicillin dose for otitis <PERSON>")} >= {"otitis"}
    assert {c.label for c in evidence.question_concepts("Mrs. <PERSON> on metformin")} == {"metformin"}


def test_phi_boundary_an_address_or_identifier_span_is_never_read_back() -> None:
    query = "Mrs. Maria Garcia of 42 Elm Street, SSN 078-05-1120: epinephrine dose?"
    redacted = "Mrs. <PERSON> of <STREET_ADDRESS>, SSN <US_SSN>: epinephrine dose?"
    phi = PhiResult(contains_phi=True, redacted_text=redacted,
                    entities=[PhiEntity(entity_type="PERSON", start=5, end=17),
                              PhiEntity(entity_type="STREET_ADDRESS", start=21, end=34),
                              PhiEntity(entity_type="US_SSN", start=40, end=51)])
    restored = clinical_words_restored(query, phi)
    assert "Elm" not in restored and "Street" not in restored and "078-05-1120" not in restored
    assert "<STREET_ADDRESS>" in restored and "epinephrine" in restored


def test_an_element_symbol_with_a_charge_is_the_ion_and_without_one_stays_ambiguous() -> None:
    assert concepts.ion("K", "+ level") == "potassium"  # "K": keratometry, potassium or thousand
    assert concepts.ion("Na", "+ of 128") == "sodium"
    assert concepts.ion("Mg", "2+ low") == "magnesium"
    assert concepts.ion("K", " steps") is None  # a bare K: no charge, no result after it


def test_a_misspelt_condition_is_read_as_the_clinical_word_one_edit_away() -> None:
    assert concepts.respelt("pnuemonia") == "pneumonia"  # two letters swapped
    assert concepts.respelt("anaphylaxsis") == "anaphylaxis"  # one added
    assert concepts.respelt("recommended") is None  # ordinary English: never respelt
    assert concepts.respelt("contrast") is None  # a clinical word itself
    assert concepts.respelt("uptitrate") is None  # nothing one edit away


def test_a_misspelt_condition_is_covered_by_the_passage_that_spells_it() -> None:
    cap = hit("Community-acquired pneumonia: amoxicillin 1 g three times daily.", title="Pneumonia")

    found = evidence.assess("penicillin allergic pt with pnuemonia, which oral antibiotic", [cap])

    assert "pnuemonia" not in found.passages[0].missing and "pneumonia" not in found.passages[0].missing


def test_a_word_two_edits_from_a_clinical_word_is_left_as_typed() -> None:
    # "treated" and "related" share the deletion "reated" (one letter out of each), but are two edits apart
    assert concepts.respelt("treated") is None


def test_concepts_an_english_word_one_edit_from_a_drug_is_never_that_drug() -> None:
    # verbs and nouns of SCOWL's English list: "titrate" is not the drug "nitrate", "caution" not "cations"
    for sentence in ("how fast to titrate it", "use with caution in the elderly", "creating a plan",
                     "aspiring to a lower dose", "the captain asked", "cycling after a meal"):
        assert [m for m in concepts.mentions(sentence) if m.kind == "drug"] == [], sentence
    # a misspelt drug name still is one, beside an English word one edit from another drug
    assert [m.label for m in concepts.mentions("how fast to titrate metfromin")] == ["metformin"]
    assert [m.label for m in concepts.mentions("amoxicilin in caution")] == ["amoxicillin"]


def test_an_english_word_one_edit_from_a_clinical_word_is_left_as_typed() -> None:
    assert concepts.respelt("aphasia") is None  # a condition itself, not a misspelt "aplasia"
    assert concepts.respelt("arteritis") is None  # not "arthritis"
    assert concepts.respelt("hypertention") == "hypertension"  # no English word: respelt


def test_evidence_a_question_with_an_english_verb_near_a_drug_name_is_covered_by_its_passage() -> None:
    dosing = hit("Start with 500 mg once daily and increase by 500 mg every one to two weeks; slow titration "
                 "reduces gastrointestinal effects.", title="Metformin")

    found = evidence.assess("how fast to titrate metfromin", [dosing])

    assert found.passages[0].missing == ()


def test_evidence_an_age_typed_as_shorthand_is_no_topic() -> None:
    for question in ("bp target for a 58yo man", "bp target for a 58-year-old man", "fever in a 6mo"):
        labels = [c.label.lower() for c in evidence.question_concepts(question)]
        assert not any(label[0].isdigit() for label in labels), (question, labels)


def test_a_truncated_clinical_word_stands_for_the_words_and_drugs_it_begins() -> None:
    resp = concepts.completions("resp")
    assert resp is not None and "respiratory" in resp.words
    hydro = concepts.completions("hydrocort")
    assert hydro is not None and "hydrocortisone" in hydro.drugs and not hydro.words
    adren = concepts.completions("adren")  # the British name "adrenaline" is the drug epinephrine
    assert adren is not None and "epinephrine" in adren.drugs
    # known as typed, too short, an acronym in capitals, or the start of nothing: never a truncation
    for word in ("observe", "rate", "ob", "OPD", "kindly", "sir", "amox", "zzqx"):
        assert concepts.completions(word) is None, word


def test_a_truncated_clinical_word_is_covered_by_the_passage_that_spells_it_out() -> None:
    curb = hit("Assess severity with the CURB-65 score: confusion, urea above 7 mmol/L, respiratory rate of 30 per "
               "minute or more.", title="Pneumonia")
    observe = hit("Observe for at least 6 hours after symptoms resolve, as biphasic reactions can occur.",
                  title="Anaphylaxis")

    assert "resp" not in evidence.assess("which resp rate counts on curb-65", [curb]).passages[0].missing
    assert "obs" not in evidence.assess("how long obs after anaphylaxis", [observe]).passages[0].missing
    # a passage that spells out neither still lacks it
    assert "resp" in evidence.assess("which resp rate counts on curb-65", [observe]).passages[0].missing


def test_concepts_a_brand_that_begins_with_a_function_word_is_that_brand_only_as_the_brand_is_written() -> None:
    def drugs(question: str) -> list[str]:
        return [m.label for m in concepts.mentions(question) if m.kind == "drug"]

    # "AT 10" (dihydrotachysterol), "No Doz" (caffeine), "IS 5-MN": the dictionary holds them in lower case
    assert drugs("seen at 10 am, pt 80 with pneumonia") == []
    assert drugs("At 10 days post op is a drain still needed") == []
    assert drugs("no doz taken, what now") == []
    assert not concepts.marks("review at 10 days")
    assert drugs("AT 10 dose for hypoparathyroidism") == ["dihydrotachysterol"]
    assert drugs("AT-10 dose") == ["dihydrotachysterol"]
    assert drugs("overdose of No Doz tablets") == ["caffeine"]
    assert drugs("first generation cephalosporin for a uti") == ["first generation cephalosporins"]
