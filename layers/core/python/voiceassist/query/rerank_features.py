"""The learned reranker's features: numbers about one search's candidates, computed from what every index
returns (the hit's text, title, section, position and scores), so the same code ranks the embedded index's
hits and OpenSearch's.

One row per candidate, in FEATURES order. Sub-query scores (BM25, cosine) are only known where the index
returns them (the embedded index, for every hybrid candidate; an OpenSearch hybrid query returns the fused
score alone): without them their features are NaN, which the model was trained to read (half its training
queries come without them: voiceassist_local/evaluation/rerank_training.py). The opening's cosine comes from
both indexes alike (SearchHit.opening_cosine, from the vector stored once per document version at ingestion);
a document ingested before openings were stored has none, NaN, also a value the model was trained with.

Lexical features read words with the tokenizer the model was trained with, frozen here (the word pattern,
stop words and light stemmer of query/terms.py as of 2026-11-28): query/terms.py serves the evidence score
and changes with it, and a model's inputs must not move unless it is retrained. A term's rarity is measured
among the candidates themselves (their document frequency), since no index statistics travel with the hits.
Everything here is arithmetic on text already inside the boundary.

Cost: a word becomes its term's id through one process-wide table (a dict lookup in C), a passage's ids are
cached, and the features are numpy reductions over all the candidates' ids laid end to end; what is left is
the regular expression and the lookups of a passage read for the first time (bench/rerank.py).
"""

from __future__ import annotations

import itertools
import math
import re
import threading
from collections.abc import Sequence
from functools import lru_cache

import numpy as np

from voiceassist.models import SearchHit
from voiceassist.query.rerank_prf import prf_features

FEATURES = (
    "fused_score",  # the index's (fused) score
    "fused_rank",  # 0-based position in the index's order
    "fused_share",  # score / best score of the candidates
    "bm25_share",  # BM25 / best BM25 of the candidates (0: no BM25 match; NaN: not returned)
    "bm25_rank",  # position by BM25 among the candidates (NaN: not returned)
    "cosine",  # the question-passage cosine (NaN: not returned)
    "cosine_gap",  # cosine - best cosine of the candidates
    "dense_rank",  # position by cosine among the candidates
    "coverage",  # share of the question's terms in the passage, its title and section
    "idf_coverage",  # the same, each term weighted by its rarity among the candidates
    "title_coverage",  # share of the question's terms in the title
    "section_coverage",  # share of the question's terms in the section heading
    "bigram_share",  # share of the question's adjacent term pairs found adjacent in the passage
    "rarest_term",  # 1 when the passage holds the question's rarest term (among the candidates)
    "first_match",  # position of the first question term / passage length (1: none)
    "term_density",  # question-term occurrences / passage length
    "log_length",  # log(1 + passage terms)
    "ordinal",  # the chunk's position in its document
    "query_terms",  # the question's term count
    "sentence_coverage",  # the largest share of the question's terms one sentence holds, with title and section
    "sentence_idf_coverage",  # the same, each term weighted by its rarity among the candidates
    "prf_share",  # share of the first candidates' relevance-model terms the passage holds (query/rerank_prf.py)
    "prf_cosine",  # tf-idf cosine of the passage with the first candidates' centroid (query/rerank_prf.py)
    "opening_cosine",  # the question's cosine with the passage's document opening (NaN: the index holds none)
)
INDEX = {name: i for i, name in enumerate(FEATURES)}

# The model's tokenizer (see the module docstring): change it only with a retrained model (make rerank-model).
WORD = re.compile(r"[a-z0-9]+(?:[-'][a-z0-9]+)*")
# The words and, in the same pass, the sentence ends (. ! ? ; before white space, or a line end), read as the
# term id SENTENCE_END; a break is white space, which no word holds, so the words are WORD's.
# Possessive quantifiers: the same matches as WORD's greedy ones (a word's letters are never given back, since
# what follows them is a hyphen or an apostrophe), with no backtracking states kept: ~10% less time.
TOKEN = re.compile(r"[a-z0-9]++(?:[-'][a-z0-9]++)*+|(?<=[.!?;])\s|\n")
SENTENCE_END = -2
STOPWORDS = frozenset((  # noqa: SIM905 - a word list reads better as text
    "a about above after again against all am an and any are as at be because been before being below "
    "between both but by can could did do does doing down during each few for from further had has "
    "have having he her here hers him his how i if in into is it its itself just me more most my no "
    "nor not now of off on once only or other our out over own same she should so some such than that "
    "the their them then there these they this those through to too under until up very was we were "
    "what when where which while who whom why will with would you your patient patients use used "
    "using give given recommend recommended someone somebody anyone anybody").split())
SUFFIXES = ("ations", "ation", "ings", "ing", "ies", "ied", "ness", "ments", "ment", "ers", "er", "ed", "es",
            "ly", "s")


MAX_WORDS = 1 << 20  # the word -> id table is emptied past this many distinct words (a bound on memory)


class _TermIds(dict[str, int]):
    """word -> the id of its term (-1: a stop word or a single character), filled on first sight: a passage's
    words become ids in one C-level `map` over this dict. Ids are this process's; `terms` reads them back."""

    def __init__(self) -> None:
        super().__init__()
        self.terms: list[str] = []
        self._of_term: dict[str, int] = {}
        self._lock = threading.Lock()

    def __missing__(self, word: str) -> int:
        term = "" if word.isspace() else _term(word)
        with self._lock:  # two threads meeting a new term must not give it two ids
            if len(self) >= MAX_WORDS:  # a long-lived process reading ever new words: forget the words (a
                self.clear()  # term keeps its id: cached passages hold it)
            if word.isspace():
                ident = SENTENCE_END
            elif not term:
                ident = -1
            elif (ident := self._of_term.get(term, -1)) < 0:
                ident = self._of_term[term] = len(self.terms)
                self.terms.append(term)
            self[word] = ident
        return ident


_IDS = _TermIds()


@lru_cache(maxsize=8192)  # a passage reached by several questions in one process is read once
def word_ids(text: str) -> list[int]:
    """The term id of each word of a text, in order (-1: a stop word, SENTENCE_END: a sentence's end); treat as
    read-only (it is cached)."""
    return list(map(_IDS.__getitem__, TOKEN.findall(text.lower())))


def forget_passages() -> None:
    """Empty the per-passage caches (bench/rerank.py reads every candidate cold, as a new Lambda would)."""
    word_ids.cache_clear()


def passage_term_ids(text: str) -> np.ndarray:
    """The ids of a text's content terms in order (stemmed, stop words dropped)."""
    ids = np.array(word_ids(text), dtype=np.int64)
    return ids[ids >= 0]


def passage_terms(text: str) -> tuple[str, ...]:
    """The content terms of a text in order (stemmed, stop words dropped)."""
    terms = _IDS.terms
    return tuple(terms[i] for i in word_ids(text) if i >= 0)


@lru_cache(maxsize=65536)
def _term(word: str) -> str:
    """A word's stem, or "" for a stop word or a single character."""
    if word in STOPWORDS or len(word) < 2:
        return ""
    for suffix in SUFFIXES:  # light suffix stripping: "dosing" ~ "dose", "titration" ~ "titrated"
        if word.endswith(suffix) and len(word) - len(suffix) >= 3 and not (suffix == "s" and word.endswith("ss")):
            word = word[: -len(suffix)] + ("at" if suffix.startswith("ation") else "")
            break
    return word.rstrip("e") if len(word) > 3 else word


def features(query: str, hits: Sequence[SearchHit]) -> np.ndarray:
    """A (len(hits), len(FEATURES)) float64 matrix; `hits` in the index's order, best first.

    The passages are read together: their term ids laid end to end in one array, each position marked with
    the question term it holds (or -1), so every lexical feature is a numpy reduction over that array."""
    n = len(hits)
    out = np.full((n, len(FEATURES)), np.nan)
    if n == 0:
        return out
    query_ids = passage_term_ids(query)
    q_ids = np.array(list(dict.fromkeys(query_ids.tolist())), dtype=np.int64)  # distinct, in question order
    q_count = len(q_ids)

    scores = np.array([h.score for h in hits], dtype=np.float64)
    out[:, INDEX["fused_score"]] = scores
    out[:, INDEX["fused_rank"]] = np.arange(n)
    best = scores.max()
    share = scores / best if best > 0 else np.ones(n)
    out[:, INDEX["fused_share"]] = share
    _sub_scores(out, [h.bm25_score for h in hits], "bm25")
    _sub_scores(out, [h.vector_score for h in hits], "dense")
    out[:, INDEX["ordinal"]] = [h.chunk.ordinal for h in hits]
    out[:, INDEX["query_terms"]] = q_count
    out[:, INDEX["opening_cosine"]] = [np.nan if h.opening_cosine is None else h.opening_cosine for h in hits]

    words = [word_ids(h.chunk.text) for h in hits]
    ids = np.fromiter(itertools.chain.from_iterable(words), dtype=np.int64, count=sum(map(len, words)))
    kept = ids >= 0
    terms = ids[kept]  # every candidate's content terms, end to end
    owner = np.repeat(np.arange(n), [len(w) for w in words])[kept]  # the candidate each position belongs to
    lengths = np.bincount(owner, minlength=n)
    out[:, INDEX["log_length"]] = [math.log1p(length) for length in lengths.tolist()]  # as trained (not np.log1p)
    which = _question_term(terms, q_ids)  # the question term at each position (index into q_ids), or -1
    matched = np.flatnonzero(which >= 0)
    at = owner[matched]
    counts = np.bincount(at, minlength=n)
    first = np.ones(n)
    holders, first_index = np.unique(at, return_index=True)  # positions run in order within each candidate
    starts = np.cumsum(lengths) - lengths
    first[holders] = (matched[first_index] - starts[holders]) / lengths[holders]
    out[:, INDEX["first_match"]] = first
    out[:, INDEX["term_density"]] = np.divide(counts, lengths, out=np.zeros(n), where=lengths > 0)
    out[:, INDEX["bigram_share"]] = _bigram_share(query_ids, q_ids, which, owner, n)
    out[:, INDEX["prf_share"]], out[:, INDEX["prf_cosine"]] = prf_features(terms, owner, scores, n)
    if not q_count:
        return out

    in_body = np.zeros((n, q_count), dtype=bool)
    in_body[at, which[matched]] = True
    in_title = _held(q_ids, [h.chunk.metadata.title for h in hits])
    in_section = _held(q_ids, [h.chunk.section or "" for h in hits])
    in_field = in_body | in_title | in_section
    df = in_field.sum(axis=0)
    idf = [math.log((n + 1) / (d + 0.5)) for d in df.tolist()]
    idf_total = sum(idf) or 1.0
    idf_held = np.zeros(n)
    for j, weight in enumerate(idf):  # term by term, in the question's order: the sum as Python adds it
        idf_held += np.where(in_field[:, j], weight, 0.0)
    q_terms = [_IDS.terms[i] for i in q_ids.tolist()]
    rarest = min(range(q_count), key=lambda j: (int(df[j]), q_terms[j]))
    out[:, INDEX["coverage"]] = in_field.sum(axis=1) / q_count
    out[:, INDEX["idf_coverage"]] = idf_held / idf_total
    out[:, INDEX["title_coverage"]] = in_title.sum(axis=1) / q_count
    out[:, INDEX["section_coverage"]] = in_section.sum(axis=1) / q_count
    out[:, INDEX["rarest_term"]] = in_field[:, rarest]
    starts_all = np.cumsum([len(w) for w in words]) - [len(w) for w in words]
    opens = ids == SENTENCE_END  # a new sentence after each end and at each candidate's start
    opens[starts_all[starts_all < len(ids)]] = True
    sentence = np.cumsum(opens)[kept][matched]  # each matched position's sentence, numbered across candidates
    fields = in_title | in_section
    out[:, INDEX["sentence_coverage"]] = _best_sentence(sentence, at, which[matched], fields, np.ones(q_count)) \
        / q_count
    out[:, INDEX["sentence_idf_coverage"]] = _best_sentence(sentence, at, which[matched], fields,
                                                            np.array(idf)) / idf_total
    return out


def _best_sentence(sentence: np.ndarray, at: np.ndarray, term: np.ndarray, fields: np.ndarray,
                   weight: np.ndarray) -> np.ndarray:
    """Per candidate, the largest weight of the question's terms that one of its sentences holds together
    with its title and section (`fields`: candidate x question term); matched positions in `sentence`
    (global sentence number), `at` (candidate) and `term` (index of the question term)."""
    n, q_count = fields.shape
    in_fields = (fields * weight).sum(axis=1)
    extra = ~fields[at, term]  # a sentence's terms that the title and section do not already hold
    pairs, first = np.unique(sentence[extra] * q_count + term[extra], return_index=True)  # each term once
    owners = at[extra][first]
    held = np.zeros(n)
    if len(pairs):
        per_sentence = np.bincount(pairs // q_count, weights=weight[pairs % q_count])
        np.maximum.at(held, owners, per_sentence[pairs // q_count])
    return in_fields + held


def _question_term(terms: np.ndarray, q_ids: np.ndarray) -> np.ndarray:
    """For each position of `terms`, the index in `q_ids` of the term it holds, or -1."""
    which = np.full(len(terms), -1, dtype=np.int64)
    if len(q_ids) == 0 or len(terms) == 0:
        return which
    order = np.argsort(q_ids)
    slot = np.minimum(np.searchsorted(q_ids[order], terms), len(q_ids) - 1)
    hit = q_ids[order][slot] == terms
    which[hit] = order[slot[hit]]
    return which


def _bigram_share(query_ids: np.ndarray, q_ids: np.ndarray, which: np.ndarray, owner: np.ndarray,
                  n: int) -> np.ndarray:
    """Each candidate's share of the question's distinct adjacent term pairs (two different terms) that it
    holds adjacent, in that order."""
    q_count = len(q_ids)
    in_question = _question_term(query_ids, q_ids)
    pairs = {int(a) * q_count + int(b) for a, b in zip(in_question[:-1], in_question[1:], strict=True) if a != b}
    share = np.zeros(n)
    if not pairs or len(which) < 2:
        return share
    joined = (which[:-1] >= 0) & (which[1:] >= 0) & (owner[:-1] == owner[1:])
    codes = which[:-1] * q_count + which[1:]
    found = joined & np.isin(codes, np.fromiter(pairs, dtype=np.int64))
    held = np.unique(owner[:-1][found] * (q_count * q_count) + codes[found])  # each pair once per candidate
    share += np.bincount(held // (q_count * q_count), minlength=n) / len(pairs)
    return share


def _held(q_ids: np.ndarray, texts: list[str]) -> np.ndarray:
    """(len(texts), len(q_ids)) bool: whether each text (a title or a section heading) holds each asked term;
    the texts read together, as the passages are."""
    words = [word_ids(text) for text in texts]
    ids = np.fromiter(itertools.chain.from_iterable(words), dtype=np.int64, count=sum(map(len, words)))
    which = _question_term(ids, q_ids)
    found = which >= 0
    held = np.zeros((len(texts), len(q_ids)), dtype=bool)
    held[np.repeat(np.arange(len(texts)), list(map(len, words)))[found], which[found]] = True
    return held


def _sub_scores(out: np.ndarray, values: list[float | None], kind: str) -> None:
    """BM25 or cosine features; all NaN when the index returned none of them (an OpenSearch hybrid query).
    A candidate without one (found by the other sub-query alone) scored below the sub-query's depth."""
    if all(v is None for v in values):
        return
    present = np.array([np.nan if v is None else v for v in values], dtype=np.float64)
    order = np.argsort(np.where(np.isnan(present), np.inf, -present), kind="stable")  # missing: last
    ranks = np.empty(len(values))
    ranks[order] = np.arange(len(values))
    if kind == "bm25":
        best = np.nanmax(present)
        out[:, INDEX["bm25_share"]] = np.nan_to_num(present / best if best > 0 else present, nan=0.0)
        out[:, INDEX["bm25_rank"]] = ranks
    else:
        cosine = 2.0 * present - 1.0  # the index's cosine score (1 + cos) / 2, back to a cosine
        floor = np.nanmin(cosine)
        cosine = np.where(np.isnan(cosine), floor, cosine)
        out[:, INDEX["cosine"]] = cosine
        out[:, INDEX["cosine_gap"]] = cosine - cosine.max()
        out[:, INDEX["dense_rank"]] = ranks
