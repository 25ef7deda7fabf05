"""A drug's INN typed in another language is the English INN the drug dictionary lists (clinical_spelling.inn_spelling,
read by the concept layer; _data/concepts/inn_endings.tsv; decision 0024, session 18)."""

from __future__ import annotations

from voiceassist_local.evaluation.inn_ending_data import ENDINGS, OUT, attested

from tests.support.passages import passage_hit
from voiceassist.models import SearchHit
from voiceassist.query import concepts, evidence
from voiceassist.query.clinical_spelling import inn_endings, inn_spelling

ANAPHYLAXIS = "Give intramuscular epinephrine 0.5 mg into the anterolateral thigh for adult anaphylaxis."


def hit(text: str, title: str = "Anaphylaxis") -> SearchHit:
    return passage_hit(text, title)


def drugs(question: str) -> list[str]:
    return [m.label for m in concepts.mentions(question) if m.kind == "drug"]


def test_inn_spelling_reads_spanish_italian_portuguese_and_german_forms() -> None:
    assert drugs("quanta adrenalina im nello shock anafilattico di un adulto?") == ["epinephrine"]  # it/es/pt -ina
    assert drugs("paracetamolo 1 g ogni 6 ore va bene?") == ["acetaminophen"]  # Italian -olo
    assert drugs("nebulised salbutamolo for wheeze in the ED") == ["albuterol"]
    assert drugs("switch bisoprololo to atenololo after the MI?") == ["bisoprolol", "atenolol"]
    assert drugs("dosis de noradrenalina en shock septico") == ["norepinephrine"]  # Spanish -ina
    assert drugs("Spironolacton bei Herzinsuffizienz, welche Dosis?") == ["spironolactone"]  # German, no final e
    assert drugs("Amiodaron loading dose for AF") == ["amiodarone"]
    assert drugs("tetraciclina for acne in a teenager") == ["tetracycline"]  # -ciclina -> -cycline


def test_inn_spelling_needs_the_english_form_in_the_dictionary_and_no_english_or_clinical_word() -> None:
    assert inn_spelling("adrenalina") == ("drug", "epinephrine")
    assert inn_spelling("medicina") is None  # no drug "medicine"/"medicin"
    assert inn_spelling("oncogene") is None  # a clinical word, not the French of the dictionary's "oncogen"
    assert inn_spelling("adrenalin") is None  # an English word (SCOWL), left to the dictionary
    assert inn_spelling("gasolina") is None and inn_spelling("mina") is None
    assert inn_spelling("metformin") is None  # a name of the dictionary itself: read before
    assert drugs("ossitocina after delivery") == []  # -ina -> "ossitocine"/"ossitocin": no such English INN


def test_inn_endings_are_read_from_the_sourced_table_longest_first() -> None:
    endings = inn_endings()
    assert ("cilina", "cillin") in endings and ("olo", "ol") in endings and ("in", "ine") in endings
    lengths = [len(foreign) for foreign, _ in endings]
    assert lengths == sorted(lengths, reverse=True)


def test_evidence_a_foreign_inn_question_is_covered_by_the_english_passage() -> None:
    typed = evidence.assess("adrenalina IM dose in adult anaphylaxis", [hit(ANAPHYLAXIS)]).passages[0]
    assert typed.missing == ()
    assert "adrenalina" not in " ".join(typed.missing)


def test_the_shipped_endings_are_the_ones_the_dictionary_attests() -> None:
    rows = [line.split("\t") for line in OUT.read_text(encoding="utf-8").splitlines() if not line.startswith("#")]
    assert [(f, e, langs, int(n)) for f, e, langs, n in rows] == attested()
    assert len(rows) == len(ENDINGS) and all(int(n) >= 3 for *_, n in rows)  # every correspondence attested


def test_a_french_spelling_with_accents_is_read_without_them() -> None:
    assert drugs("adrénaline en IM: quelle dose chez l'adulte?") == ["epinephrine"]
    assert drugs("Épinéphrine 0.5 mg IM, repeat?") == ["epinephrine"]
    assert drugs("paracétamol et métformine le même jour") == ["acetaminophen", "metformin"]
    mention = concepts.mentions("une dose: adrénaline")[0]
    assert "une dose: adrénaline"[mention.start:mention.end] == "adrénaline"  # the span as typed
    assert drugs("Komorbiditäten und β-Blocker") == []  # a folded word is no drug; Greek letters stay
    typed = evidence.assess("adrénaline IM dose in adult anaphylaxis", [hit(ANAPHYLAXIS)]).passages[0]
    assert typed.missing == ()


def test_a_drug_after_an_elided_article_is_the_drug() -> None:
    assert drugs("quelle dose d'adrénaline chez l'adulte?") == ["epinephrine"]  # spaCy's French "d'", "l'"
    assert drugs("posso dare l'amoxicillina a un bambino?") == ["amoxicillin"]  # Italian "l'"
    mention = concepts.mentions("dose d'adrénaline")[0]
    assert "dose d'adrénaline"[mention.start:mention.end] == "adrénaline"
    assert drugs("c'mon, it's five o'clock") == []  # no elided article before a name
    typed = evidence.assess("IM dose of l'adrénaline in adult anaphylaxis", [hit(ANAPHYLAXIS)]).passages[0]
    assert typed.missing == ()
