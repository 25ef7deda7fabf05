"""The kind of value an ask word names ("which dilution?", "shortest course?") is held by a passage that states a
value of that kind, not only by the word (query/asked_kinds.py)."""

from __future__ import annotations

from tests.support.passages import passage_hit
from voiceassist.models import SearchHit
from voiceassist.query import asked_kinds, concepts, evidence, extractive
from voiceassist.query.citations import Excerpt

# fresh sentences, in no answers file
LIDOCAINE = ("Infiltrate lidocaine 10 mg/mL (1%) around the wound edges, up to 3 mg/kg. Wait 2 to 3 minutes before "
             "suturing.")
CELLULITIS = ("Cellulitis of the lower limb is treated with flucloxacillin 500 mg four times daily. Treat cellulitis "
              "for 5 to 7 days in total.")
GOUT = "Start allopurinol at 100 mg once daily and increase by 100 mg every 2 to 4 weeks until urate is controlled."


hit = passage_hit


def test_ask_words_name_the_kind_of_value_asked() -> None:
    assert asked_kinds.asked("Concentration") == ("concentration",)
    assert asked_kinds.asked("dilutions") == ("concentration",)
    assert asked_kinds.asked("shortest") == ("duration",)
    assert asked_kinds.asked("intervals") == ("interval",)
    assert asked_kinds.asked("frequency") == ("frequency",)
    assert asked_kinds.asked("ceiling") == ("limit",)
    assert asked_kinds.asked("lidocaine") == ()
    assert asked_kinds.question_kinds("shortest course for cellulitis?") == {"duration"}


def test_a_passage_states_the_kinds_its_values_are_of() -> None:
    assert asked_kinds.marks(LIDOCAINE) >= {asked_kinds.mark("concentration"), asked_kinds.mark("dose"),
                                            asked_kinds.mark("range"), asked_kinds.mark("limit")}
    assert asked_kinds.mark("frequency") in asked_kinds.marks(GOUT)
    assert asked_kinds.mark("duration") in asked_kinds.marks(CELLULITIS)
    assert asked_kinds.marks("Ratio strength 1 in 10,000 for the slow intravenous route.") >= {
        asked_kinds.mark("concentration"), asked_kinds.mark("route")}
    # how many times a day is a frequency, not the interval between steps; an age is no duration
    assert asked_kinds.marks("Take it twice daily.") & {asked_kinds.mark("frequency"), asked_kinds.mark("interval")} \
        == {asked_kinds.mark("frequency")}
    assert asked_kinds.mark("duration") not in asked_kinds.marks("Refer adults aged 40 years or older for screening.")
    # a category's number or a score is no concentration, no duration
    assert not asked_kinds.marks("Stage 2 gout is managed in primary care.") & {
        asked_kinds.mark("concentration"), asked_kinds.mark("duration"), asked_kinds.mark("frequency")}


def test_a_passage_stating_the_asked_kind_holds_the_ask_word() -> None:
    found = evidence.assess("which lidocaine dilution for wound infiltration?", [hit(LIDOCAINE, "Lidocaine")])
    assert "dilution" not in found.passages[0].missing
    found = evidence.assess("allopurinol uptitration interval?", [hit(GOUT, "Gout")])
    assert "interval" not in found.passages[0].missing


def test_a_passage_stating_no_value_of_the_kind_still_lacks_it() -> None:
    found = evidence.assess("which lidocaine dilution for wound infiltration?",
                            [hit("Lidocaine is an amide local anaesthetic used for wound infiltration.", "Lidocaine")])
    assert "dilution" in found.passages[0].missing


def test_the_composer_puts_the_sentence_stating_the_asked_kind_first() -> None:
    chunk_hit = hit(CELLULITIS, "Cellulitis")
    excerpts = [Excerpt(number=1, chunk=chunk_hit.chunk, text=CELLULITIS)]
    chosen = extractive.select_sentences("shortest flucloxacillin course for cellulitis?", excerpts)
    assert chosen and "5 to 7 days" in chosen[0].text


def test_a_word_with_a_prefix_of_orientation_is_covered_by_the_word_after_it() -> None:
    assert concepts.unprefixed("uptitrating") == "titrating"
    assert concepts.unprefixed("down-titrate") == "titrate"
    assert concepts.unprefixed("upset") is None and concepts.unprefixed("update") is None
    carvedilol = "Carvedilol is started at 3.125 mg twice daily, with titration every 2 weeks as tolerated."
    found = evidence.assess("carvedilol uptitration?", [hit(carvedilol, "Carvedilol")])
    assert found.passages[0].missing == ()


def test_a_section_headed_with_the_asked_kind_answers_it() -> None:
    assessment = hit("Cellulitis of the leg is assessed for spreading erythema and fever.", "Cellulitis")
    duration = hit("Cellulitis is treated until the erythema has stopped spreading.", "Cellulitis")
    duration = SearchHit(chunk=duration.chunk.model_copy(update={"section": "Duration of treatment"}), score=1.0)
    excerpts = [Excerpt(number=1, chunk=assessment.chunk, text=assessment.chunk.text),
                Excerpt(number=2, chunk=duration.chunk, text=duration.chunk.text)]
    chosen = extractive.select_sentences("shortest course for cellulitis?", excerpts)
    assert chosen and chosen[0].excerpt_number == 2
