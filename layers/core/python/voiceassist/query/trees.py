"""A gradient-boosted tree ensemble read from a small JSON file and evaluated with numpy: the scoring half of
the learned reranker. Training happens offline with LightGBM (voiceassist_local/evaluation/rerank_training.py),
which writes the trees in this flat form; no LightGBM is needed to score, so any Lambda with numpy can rank.

Every tree's nodes are laid side by side in one array. A child index >= 0 is an internal node; a negative
one, ~leaf, points into `leaf_value`. A row goes left when its feature value <= the node's threshold; a
missing value (NaN) goes the node's `default_left` way where the node was trained with missing values
(LightGBM's missing_type "NaN"), and is read as 0.0 where it was not (missing_type "None"), exactly as
LightGBM predicts. The JSON file's format: ModelFile.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

MISSING_NONE, MISSING_ZERO, MISSING_NAN = 0, 1, 2
MISSING_TYPES = {"None": MISSING_NONE, "Zero": MISSING_ZERO, "NaN": MISSING_NAN}


@dataclass(frozen=True)
class TreeEnsemble:
    feature_names: tuple[str, ...]
    roots: np.ndarray  # (trees,) node index of each tree's root; ~leaf for a single-leaf tree
    feature: np.ndarray  # (nodes,) the feature a node splits on
    threshold: np.ndarray  # (nodes,)
    left: np.ndarray  # (nodes,) child index, ~leaf for a leaf
    right: np.ndarray
    default_left: np.ndarray  # (nodes,) bool
    missing: np.ndarray  # (nodes,) MISSING_* code
    leaf_value: np.ndarray  # (leaves,)
    depth: int  # the longest root-to-leaf path

    def predict(self, rows: np.ndarray) -> np.ndarray:
        """The ensemble's score of each row (the sum of its leaves), as LightGBM's raw score."""
        rows = np.asarray(rows, dtype=np.float64)
        if rows.ndim != 2 or rows.shape[1] != len(self.feature_names):
            raise ValueError(f"expected rows of {len(self.feature_names)} features, got shape {rows.shape}")
        node = np.broadcast_to(self.roots, (rows.shape[0], self.roots.size)).copy()
        row_index = np.arange(rows.shape[0])[:, None]
        for _ in range(self.depth):
            inner = node >= 0
            if not inner.any():
                break
            at = np.where(inner, node, 0)
            value = rows[row_index, self.feature[at]]
            nan = np.isnan(value)
            missing = self.missing[at]
            value = np.where(nan & (missing != MISSING_NAN), 0.0, value)
            is_missing = (nan & (missing == MISSING_NAN)) | ((missing == MISSING_ZERO) & (nan | (value == 0.0)))
            go_left = np.where(is_missing, self.default_left[at], value <= self.threshold[at])
            node = np.where(inner, np.where(go_left, self.left[at], self.right[at]), node)
        return np.asarray(self.leaf_value[~node].sum(axis=1), dtype=np.float64)


def from_lightgbm_dump(dump: dict[str, Any]) -> dict[str, Any]:
    """LightGBM's `Booster.dump_model()` as this module's flat JSON form (training side only)."""
    feature: list[int] = []
    threshold: list[float] = []
    left: list[int] = []
    right: list[int] = []
    default_left: list[bool] = []
    missing: list[int] = []
    leaves: list[float] = []
    roots: list[int] = []

    def visit(tree: dict[str, Any]) -> int:
        if "leaf_value" in tree:
            leaves.append(float(tree["leaf_value"]))
            return ~(len(leaves) - 1)
        if tree.get("decision_type", "<=") != "<=":
            raise ValueError("only numerical '<=' splits are supported (train without categorical features)")
        index = len(feature)
        feature.append(int(tree["split_feature"]))
        threshold.append(float(tree["threshold"]))
        default_left.append(bool(tree["default_left"]))
        missing.append(MISSING_TYPES[tree["missing_type"]])
        left.append(0)
        right.append(0)
        left[index] = visit(tree["left_child"])
        right[index] = visit(tree["right_child"])
        return index

    for info in dump["tree_info"]:
        roots.append(visit(info["tree_structure"]))
    return {"feature_names": dump["feature_names"], "roots": roots, "feature": feature, "threshold": threshold,
            "left": left, "right": right, "default_left": default_left, "missing": missing, "leaf_value": leaves}


def load(path: Path) -> tuple[TreeEnsemble, dict[str, Any]]:
    """The ensemble in a model file ({"trees": <flat form>, ...}) and the file's other keys."""
    data = json.loads(path.read_text(encoding="utf-8"))
    return from_flat(data["trees"]), {k: v for k, v in data.items() if k != "trees"}


def from_flat(trees: dict[str, Any]) -> TreeEnsemble:
    left = np.asarray(trees["left"], dtype=np.int64)
    right = np.asarray(trees["right"], dtype=np.int64)
    roots = np.asarray(trees["roots"], dtype=np.int64)
    return TreeEnsemble(
        feature_names=tuple(trees["feature_names"]), roots=roots,
        feature=np.asarray(trees["feature"], dtype=np.int64), threshold=np.asarray(trees["threshold"]),
        left=left, right=right, default_left=np.asarray(trees["default_left"], dtype=bool),
        missing=np.asarray(trees["missing"], dtype=np.int64),
        leaf_value=np.asarray(trees["leaf_value"], dtype=np.float64), depth=_depth(roots, left, right))


def _depth(roots: np.ndarray, left: np.ndarray, right: np.ndarray) -> int:
    deepest = 0
    stack = [(int(r), 0) for r in roots]
    while stack:
        node, depth = stack.pop()
        if node < 0:
            deepest = max(deepest, depth)
            continue
        stack.extend(((int(left[node]), depth + 1), (int(right[node]), depth + 1)))
    return deepest
