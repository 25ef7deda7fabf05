"""Words of register, stance and discourse ("rationale", "technique", "prefer", "proposes": WordNet's cognition and
communication files, none under medicine) weigh as plain words: never a missing topic, fully when a passage holds
them; a word under medicine, an act, a state or an adjective stays a topic (decision 0024, session 19)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from voiceassist_local.evaluation import register_word_data

from tests.support.passages import passage_hit
from tests.support.tiny_wordnet import tiny_wordnet
from voiceassist.query import evidence, plain_words

SITTING = ("Before a blood pressure reading the patient sits quietly for five minutes, back supported and the arm "
           "resting at heart level.")


hit = passage_hit


def weights(question: str) -> dict[str, float]:
    return {c.label: c.weight for c in evidence.question_concepts(question)}


def test_the_shipped_list_holds_words_of_thinking_and_saying_not_medicine_acts_or_states() -> None:
    assert {"rationale", "technique", "prefer", "proposes", "counseling"} <= plain_words.register_words()
    # under medicine or medical science in WordNet's hypernymy or topic domain: a specialty, a regimen
    assert not {"hematology", "urology", "regimen", "indication"} & plain_words.register_words()
    # derivationally related to a clinical word: "refer" to "referral", "respond" to "response"
    assert not {"refer", "referred", "respond"} & plain_words.register_words()
    # a sense that is an act, an event, a state or an adjective: may be the clinical point
    assert not {"commencement", "possibility", "danger", "obese", "wheezy", "proper"} & plain_words.register_words()
    # WordNet writes a sense with a capital letter (an initialism: "med" is "MEd"): typed lower case, clinical shorthand
    assert not {"med", "ftp"} & plain_words.register_words()
    # the plain words are listed there, not here
    assert not plain_words.plain_words() & plain_words.register_words()


def test_a_register_word_is_no_missing_topic_but_counts_when_the_passage_holds_it() -> None:
    question = "what is the rationale and technique for how long the patient sits before a blood pressure reading"

    found = evidence.assess(question, [hit(SITTING, "Hypertension")])

    assert weights(question)["rationale"] == weights(question)["technique"] == evidence.GENERIC_WEIGHT
    assert not {"rationale", "technique"} & set(found.passages[0].missing)
    held = evidence.assess(question, [hit(SITTING + " The rationale of this technique is a resting value.", "Bp")])
    assert held.passages[0].coverage > found.passages[0].coverage  # held, they count fully


def test_an_uncovered_topic_beside_a_register_word_is_still_missing() -> None:
    question = "I prefer to know the technique for an arterial blood gas sample"

    found = evidence.assess(question, [hit(SITTING, "Hypertension")])

    assert weights(question)["prefer"] == evidence.GENERIC_WEIGHT
    assert {"arterial", "gas"} <= {m.lower() for m in found.passages[0].missing}
    assert "prefer" not in found.passages[0].missing


# WordNet's files in their format (wndb(5WN)); data.<pos>: offset lex_filenum ss_type w_cnt (hex) word lex_id ...
# p_cnt [pointer_symbol offset pos source/target] ... | gloss
_INDEX = {"noun": ["medicine n 1 0 1 0 06043075", "hematology n 1 1 @ 1 0 00000011", "rationale n 1 0 1 0 00000012",
                   "commencement n 1 0 1 0 00000013", "med n 1 0 1 0 00000015"],
          "verb": ["prefer v 1 0 1 0 00000021", "refer v 1 1 + 1 0 00000022"], "adj": [], "adv": []}
_DATA = {"noun": ["06043075 09 n 01 medicine 0 000 | the science of treating disease",
                  "00000011 09 n 01 hematology 0 001 @ 06043075 n 0000 | the study of the blood",
                  "00000012 09 n 01 rationale 0 000 | an explanation of the reasons",
                  "00000013 04 n 01 commencement 0 000 | the act of starting",
                  "00000014 04 n 01 referral 0 001 + 00000022 v 0101 | the act of sending a case on",
                  "00000015 10 n 01 MEd 0 000 | a degree"],
         "verb": ["00000021 31 v 01 prefer 0 000 | like better",
                  "00000022 32 v 01 refer 0 001 + 00000014 n 0101 | send a case on"], "adj": [], "adv": []}


@pytest.fixture
def wordnet(tmp_path: Path) -> Iterator[Path]:
    with tiny_wordnet(tmp_path, _INDEX, _DATA) as folder:
        yield folder


def test_register_word_data_reads_files_and_the_medical_hypernym(wordnet: Path) -> None:
    # 09 noun.cognition and 31 verb.cognition are register files; hematology's hypernym is medicine (06043075)
    assert register_word_data.is_register("rationale", wordnet)
    assert register_word_data.is_register("prefers", wordnet)
    assert register_word_data.is_medical("noun", "00000011", wordnet)
    assert not register_word_data.is_register("hematology", wordnet)
    assert not register_word_data.is_register("commencement", wordnet)  # 04 noun.act
    assert not register_word_data.is_register("zorbazol", wordnet)  # WordNet lacks it
    # 32 verb.communication: a register file, but its derived noun "referral" may be of the clinical vocabulary
    assert register_word_data.is_register("refer", wordnet)
    assert register_word_data.derived_words("refers", wordnet) == {"referral"}
    assert register_word_data.derived_words("prefer", wordnet) == set()
    # 10 noun.communication, but written "MEd": an initialism, which a typed "med" may not mean
    assert register_word_data.written_with_capitals("med", wordnet)
    assert not register_word_data.is_register("med", wordnet)
