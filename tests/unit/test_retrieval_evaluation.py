"""Retrieval evaluation: BEIR folders in, metrics out, each text embedded once across runs."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import numpy as np
from voiceassist_local.evaluation.retrieval import CachedEmbedder, evaluate, index_corpus, load_beir

from voiceassist.adapters.local.hybrid_index import LocalHybridIndex
from voiceassist.ports import Vectors

TOPICS = ["aspirin", "warfarin", "insulin", "asthma"]


class TopicEmbedder:
    """One axis per topic word: a text's vector points at the topics it names. Counts what it embeds."""

    model_id, dimension, max_tokens, in_boundary = "topics", len(TOPICS) + 1, 512, True

    def __init__(self) -> None:
        self.embedded: list[str] = []

    def embed(self, texts: Sequence[str]) -> Vectors:
        self.embedded.extend(texts)
        rows = [[float(topic in text.lower()) for topic in TOPICS] + [0.1] for text in texts]
        return np.asarray(rows, dtype=np.float32)

    def count_tokens(self, text: str) -> int:
        return len(text.split())


def write_beir(folder: Path) -> None:
    (folder / "qrels").mkdir(parents=True)
    corpus = [{"_id": f"d{i}", "title": f"{topic} review", "text": f"Evidence on {topic} in adults."}
              for i, topic in enumerate(TOPICS)]
    (folder / "corpus.jsonl").write_text("\n".join(json.dumps(doc) for doc in corpus))
    queries = [{"_id": "q0", "text": "warfarin"}, {"_id": "q1", "text": "asthma"}]
    (folder / "queries.jsonl").write_text("\n".join(json.dumps(q) for q in queries))
    (folder / "qrels" / "test.tsv").write_text("query-id\tcorpus-id\tscore\nq0\td1\t1\nq1\td3\t1\n")


def test_cached_embedder_embeds_each_text_once_across_instances(tmp_path: Path) -> None:
    first_model = TopicEmbedder()
    first = CachedEmbedder(first_model, tmp_path / "vectors.sqlite3").embed(["aspirin", "asthma", "aspirin"])
    second_model = TopicEmbedder()
    second = CachedEmbedder(second_model, tmp_path / "vectors.sqlite3").embed(["asthma", "aspirin"])

    assert first_model.embedded == ["aspirin", "asthma"]
    assert second_model.embedded == []
    np.testing.assert_array_equal(second, first[[1, 0]])


def test_evaluate_scores_a_perfect_ranking_as_one_and_sees_post_processing(tmp_path: Path) -> None:
    write_beir(tmp_path / "beir")
    dataset = load_beir(tmp_path / "beir")
    embedder = TopicEmbedder()
    index = LocalHybridIndex(None, dimension=embedder.dimension)
    assert index_corpus(index, embedder, dataset) == 4

    plain = evaluate(index, embedder, dataset, runs={"hybrid": {}})
    emptied = evaluate(index, embedder, dataset, runs={"hybrid": {}}, postprocess=lambda _, hits: hits[1:])
    index.close()

    assert plain["hybrid"]["ndcg@10"] == 1.0
    assert plain["hybrid"]["recall@100"] == 1.0
    assert emptied["hybrid"]["ndcg@10"] < 1.0
