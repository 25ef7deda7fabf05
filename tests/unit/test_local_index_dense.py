"""The embedded index's dense search above APPROXIMATE_FROM rows: candidates from the vectors' principal
directions, every returned score the exact cosine (as OpenSearch's cosinesimil), filters and changes kept."""

from __future__ import annotations

import numpy as np
import pytest

from voiceassist.adapters.local.rows import (
    APPROXIMATE_FROM,
    LoadedRows,
    code_int8,
    estimates,
    gather_rows,
    nearest_signs,
    sign_words,
)
from voiceassist.models import SearchFilters, SourceType
from voiceassist.query.search import cosine_to_score

DIMENSION = 384


def unit(rows: np.ndarray) -> np.ndarray:
    return (rows / np.linalg.norm(rows, axis=-1, keepdims=True)).astype(np.float32)


def stored_rows(vectors: np.ndarray, first_rowid: int, years: list[int]) -> list[tuple[object, ...]]:
    """Rows as LoadedRows.append takes them from SQL (rowid, vector, doc_key, searchable, source type,
    specialty, year, postings)."""
    return [(first_rowid + i, vector.tobytes(), f"doc-{first_rowid + i}", 1, SourceType.JOURNAL.value, None,
             years[i], b"") for i, vector in enumerate(vectors)]


def exact_best(vectors: np.ndarray, query: np.ndarray, allowed: np.ndarray, depth: int) -> dict[int, float]:
    cosines = vectors @ query
    order = [i for i in np.argsort(-cosines) if allowed[i]][:depth]
    return {int(i) + 1: cosine_to_score(float(cosines[i])) for i in order}


def test_local_index_dense_search_over_many_rows_returns_the_exact_best_with_exact_scores() -> None:
    # Given more rows than the exact limit: 60 near the query (cosine 0.5-0.95), the rest anywhere
    rng = np.random.default_rng(3)
    count = APPROXIMATE_FROM + 5_000
    query = unit(rng.standard_normal(DIMENSION))
    vectors = unit(rng.standard_normal((count, DIMENSION)))
    near = rng.choice(count, 60, replace=False)
    for rank, row in enumerate(near):
        weight = 0.95 - rank * 0.0075
        vectors[row] = unit(weight * query + np.sqrt(1 - weight**2) * unit(rng.standard_normal(DIMENSION)))
    years = [2000 + i % 30 for i in range(count)]
    rows = LoadedRows(DIMENSION)
    rows.append(stored_rows(vectors, 1, years))
    everything = np.ones(count, dtype=bool)

    # Then the 50 best are the exact 50 best, in the exact order, each scored with its exact cosine
    found = rows.dense(query, SearchFilters(), 50)
    expected = exact_best(vectors, query, everything, 50)
    assert set(found) == set(expected)
    assert [found[rowid] for rowid in expected] == pytest.approx(list(expected.values()), abs=1e-6)

    # And a filter applies before the best are taken: only allowed rows, still the exact best of them
    recent = np.asarray(years) >= 2015
    found = rows.dense(query, SearchFilters(year_min=2015), 20)
    expected = exact_best(vectors, query, recent, 20)
    assert set(found) == set(expected) and all(recent[rowid - 1] for rowid in found)

    # And a row appended afterwards (projected with the same basis) and a deleted row are taken into account
    newcomer = unit(query + 0.01 * rng.standard_normal(DIMENSION).astype(np.float32))
    rows.append(stored_rows(newcomer[None, :], count + 1, [2020]))
    best_before = max(expected, key=expected.__getitem__)
    rows.remove([best_before])
    found = rows.dense(query, SearchFilters(), 10)
    assert count + 1 in found and best_before not in found
    assert found[count + 1] == pytest.approx(cosine_to_score(float(newcomer @ query)), abs=1e-6)


def packed_signs_match(rows: LoadedRows) -> bool:
    """The packed sign copy equals a fresh packing of every loaded row (minus the centre)."""
    fresh = sign_words(rows.matrix[: rows.size] - rows.centre).T
    return rows.signs.shape[1] >= rows.size and bool(np.array_equal(rows.signs[:, : rows.size], fresh))


def test_local_index_dense_sign_shortlist_is_every_allowed_row_within_the_hamming_threshold() -> None:
    # Given packed sign words of random rows, a query and a filter that drops every third row
    rng = np.random.default_rng(5)
    vectors = rng.standard_normal((3_000, DIMENSION)).astype(np.float32)
    query = rng.standard_normal(DIMENSION).astype(np.float32)
    keep = np.arange(3_000) % 3 != 0
    signs = np.ascontiguousarray(sign_words(vectors).T)

    # When the 200 nearest allowed rows are asked for
    shortlist = nearest_signs(signs, sign_words(query[None])[0], keep, 200)

    # Then they are the allowed rows up to the least Hamming distance reaching 200, ties included, ascending
    distance = ((vectors > 0) != (query > 0)).sum(axis=1)
    allowed = np.flatnonzero(keep)
    threshold = np.sort(distance[allowed])[199]
    assert shortlist.tolist() == allowed[distance[allowed] <= threshold].tolist()
    assert len(shortlist) >= 200
    # And asking for more rows than are allowed returns every allowed row
    assert nearest_signs(signs, sign_words(query[None])[0], keep, 5_000).tolist() == allowed.tolist()
    # And so does asking for exactly as many as there are rows, or as are allowed
    assert nearest_signs(signs, sign_words(query[None])[0], keep, 3_000).tolist() == allowed.tolist()
    assert nearest_signs(signs, sign_words(query[None])[0], keep, allowed.size).tolist() == allowed.tolist()


@pytest.mark.parametrize("dtype", [np.int8, np.float32, np.uint64])
def test_local_index_dense_gathered_rows_are_the_matrix_rows_at_those_positions(dtype: type) -> None:
    # Given a matrix as the copy keeps them (C-contiguous, more rows allocated than filled)
    rng = np.random.default_rng(3)
    matrix = rng.integers(-127, 128, (500, 48)).astype(dtype)

    # When rows are gathered at unordered, repeated and no positions, from the whole buffer and from its filled part
    positions = np.array([499, 0, 17, 17, 250])
    # Then they are the same rows, values and shape, as numpy's indexing gives
    for source in (matrix, matrix[:300]):
        wanted = positions[positions < len(source)]
        gathered = gather_rows(source, wanted)
        assert gathered.dtype == matrix.dtype and gathered.shape == (len(wanted), 48)
        assert np.array_equal(gathered, source[wanted])
        assert gather_rows(source, np.array([], dtype=np.intp)).shape == (0, 48)


def test_local_index_dense_packed_signs_follow_appends_removals_activations_and_refits() -> None:
    # Given rows above the exact limit, searched once (the basis, centre and packed signs fitted)
    rng = np.random.default_rng(11)
    count = APPROXIMATE_FROM + 500
    vectors = unit(rng.standard_normal((count, DIMENSION)) + 0.3)  # off-centre, as sentence vectors are
    rows = LoadedRows(DIMENSION)
    rows.append(stored_rows(vectors, 1, [2020] * count))
    query = vectors[7]
    assert 8 in rows.dense(query, SearchFilters(), 10)
    assert packed_signs_match(rows) and rows.basis_fitted_on == count

    # When rows are appended past the buffers' capacity (they grow), the packed copy has them too
    extra = unit(rng.standard_normal((len(rows.rowids) - count + 10, DIMENSION)) + 0.3)
    rows.append(stored_rows(extra, count + 1, [2020] * len(extra)))
    assert packed_signs_match(rows) and rows.basis_fitted_on == count
    newcomer = count + len(extra)
    assert newcomer in rows.dense(extra[-1], SearchFilters(), 10)

    # And a row deactivated, then activated again, leaves and rejoins the results
    rows.set_searchable([(newcomer, 0)])
    assert newcomer not in rows.dense(extra[-1], SearchFilters(), 10)
    rows.set_searchable([(newcomer, 1)])
    found = rows.dense(extra[-1], SearchFilters(), 10)
    assert found[newcomer] == pytest.approx(cosine_to_score(float(extra[-1] @ extra[-1])), abs=1e-6)

    # And a removed row is never returned, its packed bits untouched for the rows after it
    rows.remove([8])
    assert 8 not in rows.dense(query, SearchFilters(), 10) and packed_signs_match(rows)

    # And once the rows have doubled, the refit recomputes the centre and every packed row from it
    more = unit(rng.standard_normal((rows.size, DIMENSION)) - 0.3)
    rows.append(stored_rows(more, rows.last_rowid + 1, [2020] * len(more)))
    centre_before = rows.centre.copy()
    last = rows.last_rowid
    assert last in rows.dense(more[-1], SearchFilters(), 10)
    assert rows.basis_fitted_on == rows.size and not np.allclose(rows.centre, centre_before)
    assert packed_signs_match(rows)


def test_local_index_dense_int8_codes_follow_the_projection_and_keep_the_float_estimates_candidates() -> None:
    # Given rows above the exact limit, searched once (the basis and the int8 codes of the projected rows fitted)
    rng = np.random.default_rng(17)
    count = APPROXIMATE_FROM + 300
    vectors = unit(rng.standard_normal((count, DIMENSION)) + 0.2)
    rows = LoadedRows(DIMENSION)
    rows.append(stored_rows(vectors, 1, [2020] * count))
    rows.dense(vectors[0], SearchFilters(), 10)

    def codes_match() -> bool:
        fresh = code_int8(rows.projected[: rows.size], rows.steps)
        return rows.coded.shape[0] >= rows.size and bool(np.array_equal(rows.coded[: rows.size], fresh))

    # Then each code is its coordinate in its direction's steps, within half a step, none clipped at the fit
    decoded = rows.coded[:count].astype(np.float32) * rows.steps
    assert np.all(np.abs(decoded - rows.projected[:count]) <= rows.steps / 2 + 1e-6)
    assert codes_match() and np.abs(rows.coded[:count]).max() == 127

    # And the int8 estimates rank a query's rows as the float32 ones do, to within the codes' rounding
    query = vectors[3]
    coded = estimates(rows.coded[:count], (query @ rows.basis) * rows.steps)
    exact = rows.projected[:count] @ (query @ rows.basis)
    assert np.abs(coded - exact).max() < 0.01
    assert len(set(np.argsort(-coded)[:1000]) & set(np.argsort(-exact)[:1000])) >= 980  # random rows: dense ties

    # When rows are appended past the buffers' capacity, one far outside the fitted range (clipped, not wrapped)
    extra = unit(rng.standard_normal((len(rows.rowids) - count + 10, DIMENSION)) + 0.2)
    extra[-1] = rows.basis[:, 0] / np.linalg.norm(rows.basis[:, 0])  # all its length in the first direction
    rows.append(stored_rows(extra, count + 1, [2020] * len(extra)))

    # Then they are coded with the same steps, the far one at the limit, and it is still found with its exact score
    assert codes_match() and rows.coded[rows.size - 1, 0] in (127, -127)
    found = rows.dense(extra[-1], SearchFilters(), 5)
    assert found[rows.last_rowid] == pytest.approx(cosine_to_score(1.0), abs=1e-6)

    # And once the rows have doubled, the refit recomputes the steps and every code from them
    steps_before = rows.steps.copy()
    more = unit(rng.standard_normal((rows.size, DIMENSION)) - 0.4)
    rows.append(stored_rows(more, rows.last_rowid + 1, [2020] * len(more)))
    rows.dense(more[-1], SearchFilters(), 10)
    assert rows.basis_fitted_on == rows.size and not np.array_equal(rows.steps, steps_before) and codes_match()


def test_local_index_stable_order_is_a_sort_by_score_then_document_then_rowid() -> None:
    # Given rows of a few documents (some without a key, one keyed "", which ties with none) in shuffled rowid order
    rng = np.random.default_rng(11)
    keys = [None if i % 9 == 0 else "" if i % 13 == 0 else f"doc-{int(rng.integers(0, 40)):02d}" for i in range(600)]
    rows = LoadedRows(DIMENSION)
    vectors = unit(rng.standard_normal((600, DIMENSION)))
    rows.append([(i + 1, vectors[i].tobytes(), keys[i], 1, SourceType.JOURNAL.value, None, 2000, b"")
                 for i in range(600)])
    for trial in range(300):
        # When candidates with many equal scores (or none) are ordered
        positions = rng.choice(600, int(rng.integers(1, 200)), replace=False)
        levels = int(rng.integers(1, 30))
        size = positions.size
        scores = rng.integers(0, levels + 1, size) / levels if trial % 4 else rng.standard_normal(size)
        order = rows.stable_order(positions, scores)

        # Then they are by score, equal scores by document key (None as ""), then rowid
        wanted = sorted(range(positions.size),
                        key=lambda i: (-scores[i], keys[positions[i]] or "", int(rows.rowids[positions[i]])))
        assert order.tolist() == wanted
