"""What quantity a question asks for, and whether a sentence states it (query/answer_kinds.py)."""

from __future__ import annotations

from voiceassist.query import answer_kinds


def test_the_interrogative_phrase_says_which_quantity_is_asked() -> None:
    assert answer_kinds.quantities_asked("how many EpiPens should a pt carry") == ("count",)
    assert answer_kinds.quantities_asked("how many days of abx for CAP") == ("duration",)  # a count of time
    assert answer_kinds.quantities_asked("how much salt a day for high BP") == ("amount",)
    assert answer_kinds.quantities_asked("max dose of glucophage?") == ("dose", "maximum")
    assert answer_kinds.quantities_asked("glucophage dose?") == ("dose",)
    assert answer_kinds.quantities_asked("how long to observe after anaphylaxis") == ("duration",)
    assert answer_kinds.quantities_asked("first-line treatment for CAP") == ()


def test_answer_kinds_how_many_of_a_unit_of_measure_asks_an_amount_not_a_count() -> None:
    asked = answer_kinds.quantities_asked("70 kg adult with anaphylaxis, how many mg of IM adrenaline do I draw up")

    assert asked == ("amount",)  # "0.5 mg" answers it; a count ("two readings") would not be asked for
    assert answer_kinds.passage_states(asked, "to a maximum single dose of 0.5 mg in adults")
    assert answer_kinds.quantities_asked("how many mL of amoxicillin suspension") == ("amount",)
    assert answer_kinds.quantities_asked("how many readings to average") == ("count",)


def test_answer_kinds_how_many_of_anything_per_unit_of_weight_asks_an_amount() -> None:
    # a rate per kilogram is an amount whatever its numerator is called; a count per anything else stays a count
    assert answer_kinds.quantities_asked("saline bolus for a child in shock, how many ccs per kilo") == ("amount",)
    assert answer_kinds.quantities_asked("how many drops/kg of the syrup") == ("amount",)
    assert answer_kinds.quantities_asked("how many beds per ward") == ("count",)
    assert answer_kinds.quantities_asked("how many sachets a day of the laxative") == ("count",)


def test_a_count_is_a_whole_number_of_things_not_a_dose_a_time_a_ratio_or_a_category() -> None:
    assert answer_kinds.states_quantity("count", "average at least two readings")
    assert answer_kinds.states_quantity("count", "carry 2 auto-injectors at all times")
    assert not answer_kinds.states_quantity("count", "Give epinephrine 1 mg/mL (1:1000) at 0.01 mg/kg.")
    assert not answer_kinds.states_quantity("count", "Repeat every 5 to 15 minutes if symptoms persist.")
    assert not answer_kinds.states_quantity("count", "Metformin is first-line for type 2 diabetes.")
    assert not answer_kinds.states_quantity("count", "A CURB-65 score of 0 suggests treatment at home.")
    assert answer_kinds.states_quantity("count", "Prescribe a maximum of two auto-injectors.")


def test_a_dose_is_a_number_with_a_unit_of_mass_volume_or_substance() -> None:
    assert answer_kinds.states_quantity("dose", "Start with 500 mg once or twice daily")
    assert answer_kinds.states_quantity("dose", "amoxicillin/clavulanate 875/125 mg twice daily")
    assert not answer_kinds.states_quantity("dose", "Observe for at least 6 hours.")
    assert answer_kinds.states_quantity("amount", "at least 150 minutes of moderate aerobic activity per week")
    assert answer_kinds.states_quantity("duration", "Observe for at least 6 hours.")


def test_a_dose_must_be_stated_for_the_asked_drug_or_for_no_named_drug() -> None:
    text = "Antihistamines such as cetirizine relieve itching. Give epinephrine 0.5 mg intramuscularly."
    drugs_in = {"Give epinephrine 0.5 mg intramuscularly.": frozenset({"epi"})}.get

    def named(sentence: str) -> frozenset[str]:
        return drugs_in(sentence) or frozenset({"cet"} if "cetirizine" in sentence else set())

    assert not answer_kinds.passage_states(("dose",), text, frozenset({"cet"}), named)
    assert answer_kinds.passage_states(("dose",), text, frozenset({"epi"}), named)
    assert answer_kinds.passage_states(("dose",), "Start with 500 mg daily.", frozenset({"met"}), named)


def test_a_maximum_is_stated_as_a_limit_not_as_a_usual_dose() -> None:
    assert answer_kinds.states_quantity("maximum", "The usual maximum is 2,000 mg per day in divided doses.")
    assert answer_kinds.states_quantity("maximum", "to a maximum single dose of 0.5 mg in adults")
    assert answer_kinds.states_quantity("maximum", "Do not exceed 4 g in 24 hours.")
    assert not answer_kinds.states_quantity("maximum", "amlodipine 5 mg once daily")  # a dose, no limit
    assert not answer_kinds.states_quantity("maximum", "Titrate to the maximum tolerated dose.")  # a limit, no value


def test_a_unit_of_time_as_typed_asks_a_duration_not_a_count() -> None:
    # "hrs", "mins", "wks" (UCUM's codes with a plural s): a count of time, which only a stated duration answers
    assert answer_kinds.quantities_asked("how many hrs after iv contrast can metformin be restarted") == ("duration",)
    assert answer_kinds.quantities_asked("how many mins a wk of exercise") == ("duration",)
    assert answer_kinds.quantities_asked("how many wks of abx") == ("duration",)
    assert answer_kinds.quantities_asked("how many epipens") == ("count",)
    assert not answer_kinds.states_quantity("duration", "Withhold metformin before iodinated contrast.")
