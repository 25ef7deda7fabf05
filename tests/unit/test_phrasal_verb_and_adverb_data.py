"""The scripts that write the phrasal verbs and the usuality adverbs (voiceassist_local.evaluation.phrasal_verb_data,
adverb_data): read on WordNet files written here in WordNet's format, and the shipped tables as they write them from
Debian's wordnet-base (tests/setup.sh installs it)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from voiceassist_local.evaluation import adverb_data, phrasal_verb_data, plain_word_data

from tests.support.tiny_wordnet import clear_caches, tiny_wordnet
from voiceassist.query import phrasal_verbs, plain_words

# wndb(5WN): offset lex_filenum (42 verb.stative, 29 verb.body, 35 verb.contact, 02 adv.all, 00 adj.all) ss_type
# w_cnt word lex_id ... p_cnt [pointer_symbol offset pos source/target] ... | gloss
_INDEX = {"verb": ["hang_around v 1 0 1 0 00000031", "throw_up v 1 0 1 0 00000032", "hang v 1 0 1 0 00000033",
                   "hang_up_on v 1 0 1 0 00000034"],
          "adv": ["normally r 1 0 1 0 00000041", "orally r 1 1 \\ 1 0 00000042"],
          "adj": ["oral a 1 0 1 0 00000051"], "noun": []}
_DATA = {"verb": ["00000031 42 v 01 hang_around 0 000 | stay nearby", "00000032 29 v 01 throw_up 0 000 | vomit",
                  "00000033 35 v 01 hang 0 000 | suspend", "00000034 42 v 01 hang_up_on 0 000 | end a call"],
         "adv": ["00000041 02 r 01 normally 0 000 | usually",
                 "00000042 02 r 01 orally 0 001 \\ 00000051 a 0101 | by mouth"],
         "adj": ["00000051 00 a 01 oral 0 000 | of the mouth"], "noun": []}
_DEBIAN = plain_word_data.WORDNET


@pytest.fixture
def wordnet(tmp_path: Path) -> Iterator[Path]:
    with tiny_wordnet(tmp_path, _INDEX, _DATA) as folder:
        yield folder


def test_a_verb_and_particle_of_being_is_listed_one_of_the_body_is_not(wordnet: Path) -> None:
    # "throw up" (verb.body) keeps its verb a topic; "hang up on" has two particles; "hang" alone is no pair
    assert phrasal_verb_data.phrasal_verbs(wordnet) == [("hang", "around")]


def test_an_adverb_without_a_pertainym_of_its_own_is_listed(wordnet: Path) -> None:
    # "orally" is formed from "oral" (a pertainym pointer): a route, a topic
    assert adverb_data.usuality_adverbs(wordnet) == ["normally"]


def _rows(path: Path) -> list[str]:
    return [line for line in path.read_text(encoding="utf-8").splitlines() if line and not line.startswith("#")]


def test_the_shipped_tables_are_the_scripts_output() -> None:
    assert (_DEBIAN / "index.verb").exists(), "WordNet 3.0 (Debian's wordnet-base) is needed: tests/setup.sh"
    clear_caches()
    assert _rows(phrasal_verbs.PHRASAL_VERBS_FILE) == [f"{v}\t{p}" for v, p in phrasal_verb_data.phrasal_verbs()]
    assert _rows(plain_words.USUALITY_ADVERBS_FILE) == adverb_data.usuality_adverbs()
