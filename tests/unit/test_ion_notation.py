"""Chemical-element and lab notation (query/concepts.py `ion`, the periodic table in _data/concepts/elements.tsv):
an element's symbol typed with a charge or beside a result is the ion or analyte it names, never a bare capital K."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest
from voiceassist_local.evaluation import elements

from voiceassist.models import Chunk, DocumentMetadata, SearchHit, SourceType
from voiceassist.query import concepts, evidence, terminology
from voiceassist.query.question_concepts import question_concepts


def hit(text: str) -> SearchHit:
    meta = DocumentMetadata(doc_key="htn", title="Hypertension", source_type=SourceType.GUIDELINE)
    chunk = Chunk(chunk_id="c", doc_id="d", doc_key="htn", version=1, ordinal=0, text=text,
                  token_count=len(text.split()), metadata=meta)
    return SearchHit(chunk=chunk, score=1.0)


def test_the_periodic_table_ships_each_elements_symbol_name_and_common_charges() -> None:
    table = terminology.elements()
    assert len(table) == 118
    assert table["K"].name == "potassium" and table["K"].charges == {1}
    assert table["Cl"].name == "chlorine" and -1 in table["Cl"].charges
    assert table["O"].charges == {-2}


@pytest.mark.parametrize(("symbol", "after", "read"), [
    ("k", "+ of 6.3 on spironolactone", "potassium"),  # typed in lower case: the charge says it is the ion
    ("NA", "+ 127", "sodium"),
    ("Ca", "2+ 1.02 ionised", "calcium"),  # no abbreviation meaning names it: the element's name
    ("Ca2", "+ 1.02", "calcium"),  # the count typed inside the word the question is split into
    ("Mg", "++ replaced", "magnesium"),
    ("Cl", "- 112, acidotic", "chloride"),  # an anion: the list's meaning that names it
    ("I", "- uptake scan", "iodide"),  # an anion the list does not name: IUPAC's root and -ide
    ("O", "- blood for the transfusion", None),  # oxygen's common ion is 2-: blood group O negative
    ("ER", "+ breast cancer on tamoxifen", None),  # erbium has no 1+ ion: oestrogen receptor positive
    ("B", "+ donor", None),
])
def test_a_symbol_with_a_charge_is_the_elements_ion_when_the_charge_is_a_common_one(
        symbol: str, after: str, read: str | None) -> None:
    assert concepts.ion(symbol, after) == read


@pytest.mark.parametrize(("after", "before", "read"), [
    (" 6.4 this morning, still on spironolactone", "", "potassium"),
    (": 5.7 mmol/L", "", "potassium"),
    ("=6.0 on the gas", "", "potassium"),
    (" of 6.2", "serum ", "potassium"),
    (" level to hold enalapril at", "what ", "potassium"),
    (" 10 mg IV for the INR", "", None),  # a dose, not a result
    (" steps a day", "", None),
    (" level before surgery", "vit ", None),  # "vit K": the drug vitamin K cut short
])
def test_a_capital_k_beside_a_result_or_level_is_potassium(after: str, before: str, read: str | None) -> None:
    assert concepts.ion("K", after, before) == read
    assert concepts.ion("k", after, before) is None  # a lower-case letter only with a charge


def _readings(question: str) -> dict[str, set[frozenset[str]]]:
    return {c.label: set(c.alternatives) for c in question_concepts(question)}


def test_the_question_reads_k_notation_as_potassium_and_a_thousand_stays_a_number() -> None:
    assert frozenset({"potassium"}) in _readings("k+ at which to hold the enalapril?")["k"]
    assert frozenset({"potassium"}) in _readings("what K level makes you hold spironolactone")["K"]
    assert not any(frozenset({"potassium"}) in a for a in _readings("ran 10K after the amlodipine").values())
    # typed twice, one concept: "K 6.0 ... at what potassium" does not weigh potassium twice
    labels = [c.label for c in question_concepts("K 6.0 on enalapril, at what potassium do I hold it?")]
    assert labels.count("potassium") == 1 and "K" not in labels


def test_evidence_a_k_question_needs_a_passage_that_names_potassium() -> None:
    question = "k+ level at which to hold enalapril"
    without = evidence.assess(question, [hit("Check renal function and electrolytes after starting enalapril.")])
    with_it = evidence.assess(question, [hit("Hold enalapril if potassium rises above 6.0 mmol/L.")])
    assert "k" in without.passages[0].missing
    assert "k" not in with_it.passages[0].missing and with_it.passages[0].score > without.passages[0].score


def test_phi_boundary_a_redacted_value_after_k_is_no_result_and_a_name_does_not_change_the_reading() -> None:
    # Detect PHI replaced the value: nothing after the K says it was measured, so the letter stays unread
    assert not any(frozenset({"potassium"}) in a for a in _readings("K <PHONE_NUMBER> on enalapril").values())
    readings = _readings("Mrs <PERSON> K 6.1 on enalapril, hold it?")
    assert frozenset({"potassium"}) in readings["K"] and not any("person" in label.lower() for label in readings)


def test_the_element_table_is_read_from_periodictables_source_common_ions_only(tmp_path: Path) -> None:
    source = ("element_base: dict[int, tuple[str, str, list[int], list[int]]] = {\n"
              "    0: ('neutron', 'n', [], []),\n    19: ('Potassium', 'K', [1], [-1]),\n"
              "    17: ('Chlorine', 'Cl', [-1, 1], [2]),\n}\n")
    wheel = tmp_path / "periodictable-0-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as archive:
        archive.writestr(elements.CORE_MEMBER, source)
    assert elements.element_lines(elements.element_table(wheel)) == ["Cl\tchlorine\t-1,+1", "K\tpotassium\t+1"]
    empty = tmp_path / "other.whl"
    with zipfile.ZipFile(empty, "w") as archive:
        archive.writestr(elements.CORE_MEMBER, "elements = {}\n")
    with pytest.raises(ValueError, match="element_base"):
        elements.element_table(empty)
