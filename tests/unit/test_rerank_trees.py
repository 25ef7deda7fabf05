"""The numpy tree scorer against LightGBM itself: the same scores, missing values included."""

from __future__ import annotations

import lightgbm as lgb  # a dev dependency (the training side); the scorer never imports it
import numpy as np
import pytest

from voiceassist.query.trees import from_flat, from_lightgbm_dump


def _booster(rows: np.ndarray, labels: np.ndarray, groups: list[int]) -> object:
    params = {"objective": "lambdarank", "num_leaves": 7, "min_data_in_leaf": 5, "learning_rate": 0.2,
              "seed": 3, "deterministic": True, "force_row_wise": True, "num_threads": 1, "verbosity": -1}
    return lgb.train(params, lgb.Dataset(rows, label=labels, group=groups), num_boost_round=25)


def test_trees_score_as_lightgbm_predicts_with_and_without_missing_values() -> None:
    generator = np.random.default_rng(0)
    rows = generator.normal(size=(600, 5))
    rows[generator.random(rows.shape) < 0.15] = np.nan  # missing values seen in training: NaN splits
    rows[:, 4] = np.round(rows[:, 4])  # a feature with many exact zeros
    labels = (np.nan_to_num(rows[:, 0]) + np.nan_to_num(rows[:, 1]) > 0.5).astype(float)
    booster = _booster(rows, labels, [20] * 30)
    trees = from_flat(from_lightgbm_dump(booster.dump_model()))

    probe = generator.normal(size=(200, 5))
    probe[generator.random(probe.shape) < 0.3] = np.nan
    probe[:, 4] = 0.0
    for batch in (rows, probe):
        np.testing.assert_allclose(trees.predict(batch), booster.predict(batch), rtol=0, atol=1e-10)


def test_trees_score_a_feature_never_missing_in_training_as_zero_when_missing() -> None:
    generator = np.random.default_rng(1)
    rows = generator.normal(size=(400, 3))  # no NaN at all: LightGBM reads a later NaN as 0.0
    labels = (rows[:, 0] > 0).astype(float)
    booster = _booster(rows, labels, [20] * 20)
    trees = from_flat(from_lightgbm_dump(booster.dump_model()))
    probe = np.array([[np.nan, 0.5, -0.5], [0.0, 0.5, -0.5]])
    np.testing.assert_allclose(trees.predict(probe), booster.predict(probe), atol=1e-10)
    assert trees.predict(probe)[0] == trees.predict(probe)[1]


def test_trees_score_values_on_each_threshold_and_beside_it_as_lightgbm_does() -> None:
    # a node that sends missing values left is read as "value > threshold" of the negated value: exact only if
    # a value equal to the threshold, one float either side, and the infinities still go LightGBM's way
    generator = np.random.default_rng(4)
    rows = generator.normal(size=(600, 4))
    rows[generator.random(rows.shape) < 0.2] = np.nan
    labels = (np.nan_to_num(rows[:, 0], nan=1.0) + np.nan_to_num(rows[:, 2]) > 0.3).astype(float)
    booster = _booster(rows, labels, [20] * 30)
    flat = from_lightgbm_dump(booster.dump_model())
    trees = from_flat(flat)
    probe = np.repeat(generator.normal(size=(1, 4)), 0, axis=0)
    for feature, threshold in zip(flat["feature"], flat["threshold"], strict=True):
        if abs(threshold) < 1e-30:  # LightGBM's split at zero (kZeroThreshold, 1e-35) reads values that near
            continue  # zero its own way (the scorer before this one differed there alike)
        for value in (threshold, np.nextafter(threshold, -np.inf), np.nextafter(threshold, np.inf)):
            row = generator.normal(size=(1, 4))
            row[generator.random(row.shape) < 0.3] = np.nan
            row[0, feature] = value
            probe = np.vstack([probe, row])
    probe = np.vstack([probe, np.full((1, 4), np.inf), np.full((1, 4), -np.inf), np.full((1, 4), np.nan)])
    assert len(probe) > 50
    np.testing.assert_allclose(trees.predict(probe), booster.predict(probe), rtol=0, atol=1e-10)


def test_trees_refuse_rows_of_the_wrong_width() -> None:
    generator = np.random.default_rng(2)
    rows = generator.normal(size=(100, 3))
    booster = _booster(rows, (rows[:, 0] > 0).astype(float), [10] * 10)
    trees = from_flat(from_lightgbm_dump(booster.dump_model()))
    with pytest.raises(ValueError, match="3 features"):
        trees.predict(np.zeros((4, 2)))
