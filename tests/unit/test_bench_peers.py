"""bench/peers.py's scoring and table on hand-made runs: no peer is installed or imported, nothing is timed."""

from __future__ import annotations

import math
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from tests.support.bench_module import load_bench


@pytest.fixture(scope="module")
def peers() -> ModuleType:
    return load_bench("peers")


def run(rankings: dict[str, list[list[str]]], *, build_s: float, p95_ms: float, update: float | None) -> dict[str, Any]:
    """One repetition as bench/peer_engines/worker.py writes it (20 timed queries per mode)."""
    timings = [1.0] * 18 + [p95_ms, 2 * p95_ms]  # nearest rank: the 19th of 20 is the p95
    return {"chunks": 3, "build_s": build_s, "build_cpu_s": build_s / 2, "first_query_cpu_s": build_s / 10,
            "rss_before_mb": 100.0,
            "peak_rss_mb": 140.0, "disk_mb": 2.0, "throughput_qps": 50.0,
            "modes": {mode: {"rankings": ranked, "wall_ms": timings, "cpu_ms": timings}
                      for mode, ranked in rankings.items()},
            "update": None if update is None else {"ms_per_doc": update},
            "delete": None if update is None else {"ms_per_doc": update / 2}}


QRELS = {"q1": {"a": 2, "b": 1, "c": 1}, "q2": {"d": 1, "e": 0}}


def test_peers_ndcg_is_beirs_graded_ndcg(peers: ModuleType) -> None:
    # Given a ranking with the grade-2 document first and a grade-1 one third, of three judged documents
    expected = (2 + 1 / math.log2(4)) / (2 + 1 / math.log2(3) + 1 / math.log2(4))
    assert peers.ndcg_at_k(["a", "x", "b"], QRELS["q1"]) == pytest.approx(expected)
    # a document returned twice counts once, and nothing past the tenth place counts
    assert peers.ndcg_at_k(["a", "a", "b"], QRELS["q1"]) == pytest.approx(expected)
    assert peers.ndcg_at_k(["x"] * 10 + ["a"], QRELS["q1"]) == 0.0


def test_peers_recall_counts_only_relevant_judgements(peers: ModuleType) -> None:
    assert peers.recall_at_k(["d", "e"], QRELS["q2"]) == 1.0  # "e" is judged 0: not relevant
    assert peers.recall_at_k(["b", "z"], QRELS["q1"]) == pytest.approx(1 / 3)
    assert peers.recall_at_k(["x"] * 100 + ["a"], QRELS["q1"]) == 0.0


def test_peers_scores_skip_unjudged_queries(peers: ModuleType) -> None:
    scores = peers.score_rankings(["q1", "q2", "q9"], [["a", "b", "c"], [], ["a"]], QRELS)
    assert scores["ndcg@10"] == pytest.approx(0.5)  # q1 perfect, q2 nothing found, q9 not judged
    assert scores["recall@100"] == pytest.approx(0.5)


def test_peers_summary_takes_each_engines_best_mode_and_the_median(peers: ModuleType) -> None:
    good, poor = [["a", "b", "c"], ["d"]], [["x"], ["y"]]
    runs = [run({"dense": poor, "hybrid": good}, build_s=b, p95_ms=p, update=u)
            for b, p, u in ((10.0, 8.0, 2.0), (30.0, 4.0, 4.0), (20.0, 6.0, 3.0))]
    summary = peers.summarise(runs, QRELS, ["q1", "q2"])
    assert summary["best_mode"] == "hybrid"
    assert summary["quality"]["hybrid"]["ndcg@10"] == pytest.approx(1.0)
    assert summary["build_s"] == {"median": 20.0, "min": 10.0, "max": 30.0, "n": 3}
    assert summary["first_query_cpu_s"]["median"] == 2.0  # the first answer's share of the build, reported apart
    assert summary["p95_ms"]["median"] == 6.0
    assert summary["build_rss_mb"]["median"] == 40.0
    assert summary["update_ms_per_doc"]["median"] == 3.0


def test_peers_summary_scores_quality_on_the_repetition_that_ranked_every_query(peers: ModuleType) -> None:
    # Given a first repetition that ranked both queries, then two that asked only the first (--timed-only)
    first = run({"hybrid": [["a", "b", "c"], ["d"]]}, build_s=10.0, p95_ms=8.0, update=2.0)
    later = [run({"hybrid": [["a", "b", "c"]]}, build_s=b, p95_ms=p, update=2.0) for b, p in ((30.0, 4.0), (20.0, 6.0))]
    summary = peers.summarise([first, *later], QRELS, ["q1", "q2"])
    # Then nDCG is the full repetition's (a later one's missing q2 is not scored as a miss), timings all three's
    assert summary["quality"]["hybrid"]["ndcg@10"] == pytest.approx(1.0)
    assert summary["build_s"] == {"median": 20.0, "min": 10.0, "max": 30.0, "n": 3}
    assert summary["p95_ms"]["median"] == 6.0


def test_peers_table_and_ratios_compare_us_with_the_fastest_peer(peers: ModuleType) -> None:
    ours = peers.summarise([run({"hybrid": [["a", "b", "c"], ["d"]]}, build_s=12.0, p95_ms=3.0, update=1.0)],
                           QRELS, ["q1", "q2"])
    static = peers.summarise([run({"bm25": [["b"], ["d"]]}, build_s=4.0, p95_ms=2.0, update=None)],
                             QRELS, ["q1", "q2"])
    summaries = {"scifact": {"voiceassist": ours, "bm25s": static}}
    rows = peers.table(summaries).splitlines()
    assert rows[0].count("|") == rows[2].count("|") == 16
    assert rows[2].startswith("| scifact (3) | voiceassist | hybrid | 1.000 | 1.000 | 12.0 |")
    assert rows[3].endswith("| - | - |")  # bm25s cannot update or delete
    ratio = peers.ratios(summaries)["scifact"]
    assert ratio["p95_ms"] == {"ours_over_fastest": 1.5, "fastest": "bm25s"}
    assert ratio["build_s"]["ours_over_fastest"] == pytest.approx(3.0)
    assert ratio["ndcg@10"]["best"] == "bm25s" and ratio["ndcg@10"]["ours_minus_best"] > 0


def test_peers_compare_each_of_our_modes_with_the_same_kind_of_search(peers: ModuleType) -> None:
    # Given our three modes, a dense-only peer and a lexical peer whose mode is named "fts"
    ours = peers.summarise([run({"hybrid": [["a"], ["d"]], "bm25": [["a"], ["d"]], "dense": [["a"], ["d"]]},
                                build_s=12.0, p95_ms=3.0, update=1.0)], QRELS, ["q1", "q2"])
    dense = peers.summarise([run({"dense": [["b"], ["d"]]}, build_s=4.0, p95_ms=2.0, update=1.0)],
                            QRELS, ["q1", "q2"])
    lexical = peers.summarise([run({"fts": [["b"], ["d"]]}, build_s=4.0, p95_ms=6.0, update=1.0)],
                              QRELS, ["q1", "q2"])
    summaries = {"scifact": {"voiceassist": ours, "chroma": dense, "lancedb": lexical}}
    ratio = peers.ratios(summaries)["scifact"]
    # Then our dense mode meets the dense peer, our BM25 the lexical one, and a hybrid meets nobody
    assert ratio["dense p95_ms"] == {"ours_over_fastest": 1.5, "fastest": "chroma dense"}
    assert ratio["bm25 p95_ms"] == {"ours_over_fastest": 0.5, "fastest": "lancedb fts"}
    assert "hybrid p95_ms" not in ratio
    assert "| scifact | lancedb | fts | lexical | 1.00 | 6.00 |" in peers.mode_table(summaries)


def test_bench_peers_eval_folder_from_the_variable_beside_the_checkout_or_its_parent(
    peers: ModuleType, tmp_path: Path
) -> None:
    # Given a checkout at work/main and a worktree at work/wt/mine, with the data at work/shared/eval
    checkout, worktree = tmp_path / "main", tmp_path / "wt" / "mine"
    checkout.mkdir()
    worktree.mkdir(parents=True)
    shared = tmp_path / "shared" / "eval"

    # When nothing holds the data, the place named is the one beside the checkout
    assert peers.eval_folder({}, checkout) == shared
    shared.mkdir(parents=True)

    # Then both the checkout and the worktree find it, and the variable wins over both
    assert peers.eval_folder({}, checkout) == shared
    assert peers.eval_folder({}, worktree) == shared
    assert peers.eval_folder({"VOICEASSIST_EVAL": "/data/beir"}, worktree) == Path("/data/beir")


def test_bench_peers_without_the_data_sets_it_says_where_it_looked(
    peers: ModuleType, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Given a peers' environment but no SciFact under the folder named
    (tmp_path / "venv" / "bin").mkdir(parents=True)
    (tmp_path / "venv" / "bin" / "python").touch()
    (tmp_path / "eval" / "nfcorpus").mkdir(parents=True)

    # When the bench is asked for SciFact
    code = peers.main(["--venv", str(tmp_path / "venv"), "--eval", str(tmp_path / "eval"), "--datasets", "scifact"])

    # Then it skips, naming what is missing and where
    assert code == 0
    assert f"no scifact under {tmp_path / 'eval'}" in capsys.readouterr().out


@pytest.fixture(scope="module")
def worker() -> ModuleType:
    return load_bench("peer_engines/worker")


class Ticks:
    """A clock that moves one second each time it is read (no real time involved)."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        self.now += 1.0
        return self.now


def test_peers_throughput_asks_every_query_within_the_time(worker: ModuleType) -> None:
    asked: list[int] = []
    count, _ = worker.throughput(asked.append, list(range(30)), clients=8, seconds=1e9)
    assert count == 30 and sorted(asked) == list(range(30))


def test_peers_throughput_stops_taking_queries_once_the_time_is_spent(worker: ModuleType) -> None:
    # Given a clock that passes the budget at once: each client still asks one query, then stops
    asked: list[int] = []
    count, wall = worker.throughput(asked.append, list(range(200)), clients=8, seconds=0.5, clock=Ticks())
    assert count == len(asked) == 8 and sorted(asked) == list(range(8))
    assert wall > 0
    # And one client alone stops after its budget: the clock is read once per query taken
    asked.clear()
    count, _ = worker.throughput(asked.append, list(range(200)), clients=1, seconds=3.5, clock=Ticks())
    assert asked == list(range(count)) and 1 < count < 200
