"""Pseudo-relevance feedback inside the candidates: how much a passage reads like the index's best few.

A lay question ("Why are eggs bad for you?") shares few words with the technical abstracts that answer it,
but the index's first candidates, taken together, say what the question is about in the corpus's own words
(relevance model RM3, Lavrenko and Croft 2001; the cluster hypothesis). Two features per candidate, computed
from the term ids the reranker's features already hold, with no second search and no index statistics (a
term's rarity is its document frequency among the candidates, as elsewhere in query/rerank_features.py):

- prf_share: the candidate's share of the weight of the EXPANSION terms of highest relevance-model weight
  among the first FEEDBACK candidates (each weighted by its fused score, term frequency by passage length,
  times the term's rarity);
- prf_cosine: the cosine of the candidate's tf-idf vector with the centroid of those candidates' vectors.

Cost: a few numpy sorts over the candidates' terms end to end (bench/rerank.py).
"""

from __future__ import annotations

import math

import numpy as np

FEEDBACK = 10  # the first candidates (index order) read as relevant
EXPANSION = 20  # the relevance model's terms a candidate is measured on


def prf_features(terms: np.ndarray, owner: np.ndarray, scores: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """(prf_share, prf_cosine) per candidate. `terms`: every candidate's content term ids end to end;
    `owner`: the candidate (0..n-1, in the index's order) each position belongs to; `scores`: fused scores."""
    share, cosine = np.zeros(n), np.zeros(n)
    if len(terms) == 0:
        return share, cosine
    # one sort: each (term, candidate) pair with its frequency, ordered by term; `which` numbers the terms
    pairs, tf = np.unique(terms * n + owner, return_counts=True)
    at, term_ids = pairs % n, pairs // n
    which = np.concatenate(([0], np.cumsum(term_ids[1:] != term_ids[:-1])))
    width = int(which[-1]) + 1
    df = np.bincount(which, minlength=width)
    idf = np.log((n + 1) / (df + 0.5))
    lengths = np.bincount(at, weights=tf, minlength=n)
    p = tf / lengths[at]
    top = min(FEEDBACK, n)
    weight = np.maximum(scores[:top], 0.0)
    weight = weight / weight.sum() if weight.sum() > 0 else np.full(top, 1.0 / top)
    in_top = at < top
    relevance = np.bincount(which[in_top], weights=p[in_top] * weight[at[in_top]], minlength=width) * idf
    # the EXPANSION best terms, and any tied with the last (term ids are this process's: no tie-break by id)
    cut = np.partition(relevance, width - EXPANSION)[width - EXPANSION] if width > EXPANSION else -np.inf
    chosen = np.where((relevance >= cut) & (relevance > 0), relevance, 0.0)
    total = chosen.sum()
    if total > 0:
        share = np.bincount(at, weights=chosen[which], minlength=n) / total
    value = p * idf[which]  # tf-idf, then unit length per candidate
    norms = np.sqrt(np.bincount(at, weights=value * value, minlength=n))
    value = np.divide(value, norms[at], out=np.zeros_like(value), where=norms[at] > 0)
    centroid = np.bincount(which[in_top], weights=value[in_top], minlength=width) / top
    size = math.sqrt(float(centroid @ centroid))
    if size > 0:
        cosine = np.bincount(at, weights=value * centroid[which], minlength=n) / size
    return share, cosine
