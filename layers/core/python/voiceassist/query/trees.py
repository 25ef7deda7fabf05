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
from dataclasses import dataclass, field
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
    walk: _Walk = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "walk", _Walk.of(self))

    def predict(self, rows: np.ndarray) -> np.ndarray:
        """The ensemble's score of each row (the sum of its leaves), as LightGBM's raw score.

        Every row walks every tree at once, one level per step (a leaf is a node that leads to itself, so a
        tree that ends early waits there); a NaN goes where the node sends missing values."""
        rows = np.asarray(rows, dtype=np.float64)
        if rows.ndim != 2 or rows.shape[1] != len(self.feature_names):
            raise ValueError(f"expected rows of {len(self.feature_names)} features, got shape {rows.shape}")
        walk = self.walk
        flat = rows.ravel()
        base = (np.arange(rows.shape[0]) * rows.shape[1])[:, None]
        node = np.broadcast_to(walk.start, (rows.shape[0], walk.start.size)).copy()
        any_nan = bool(np.isnan(flat).any())
        for _ in range(self.depth):
            value = flat[base + walk.feature[node]]
            go_left = value <= walk.threshold[node]
            if any_nan:
                nan = np.isnan(value)
                go_left = np.where(nan, walk.nan_left[node], go_left)
            if walk.zero_missing is not None:  # MISSING_ZERO nodes: a 0.0 goes the default way too
                zero = (value == 0.0) & walk.zero_missing[node]
                go_left = np.where(zero, walk.nan_left[node], go_left)
            node = walk.child[2 * node + go_left]
        return np.asarray(walk.value[node].sum(axis=1), dtype=np.float64)


@dataclass(frozen=True)
class _Walk:
    """The ensemble as predict walks it: internal nodes first, then one node per leaf that leads to itself;
    child[2 * node + went_left] is the next node."""

    start: np.ndarray  # (trees,) each tree's first node
    feature: np.ndarray  # (nodes + leaves,)
    threshold: np.ndarray
    nan_left: np.ndarray  # where a missing value goes: default_left, or as 0.0 where NaN was never seen
    zero_missing: np.ndarray | None  # nodes that read 0.0 as missing (None: there are none)
    child: np.ndarray  # (2 * (nodes + leaves),)
    value: np.ndarray  # (nodes + leaves,) a leaf's value; 0 for internal nodes

    @classmethod
    def of(cls, trees: TreeEnsemble) -> _Walk:
        inner, leaves = trees.feature.size, trees.leaf_value.size

        def walk_index(child: np.ndarray) -> np.ndarray:
            return np.where(child >= 0, child, inner + ~child)

        own = np.arange(inner, inner + leaves)
        left = np.concatenate([walk_index(trees.left), own])
        right = np.concatenate([walk_index(trees.right), own])
        as_zero = trees.missing == MISSING_NONE  # NaN read as 0.0: left when 0.0 <= threshold
        nan_left = np.where(as_zero, trees.threshold >= 0.0, trees.default_left)
        zero_missing = trees.missing == MISSING_ZERO
        return cls(
            start=walk_index(trees.roots),
            feature=np.concatenate([trees.feature, np.zeros(leaves, dtype=np.int64)]),
            threshold=np.concatenate([trees.threshold, np.zeros(leaves)]),
            nan_left=np.concatenate([nan_left, np.zeros(leaves, dtype=bool)]),
            zero_missing=np.concatenate([zero_missing, np.zeros(leaves, dtype=bool)]) if zero_missing.any()
            else None,
            child=np.stack([right, left], axis=1).ravel(),
            value=np.concatenate([np.zeros(inner), trees.leaf_value]))


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
