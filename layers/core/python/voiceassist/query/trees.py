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
        """The ensemble's score of each row (the sum of its leaves, in tree order), as LightGBM's raw score.

        Every row walks every tree at once, one level per step, the deepest trees first: a tree leaves the walk
        at its own depth (a leaf is a node that leads to itself). One comparison per node and step: a node
        that sends missing values left asks "value > threshold" instead (of the negated value: false for a
        NaN), with its two children swapped. The leaves are added in the model's tree order."""
        rows = np.asarray(rows, dtype=np.float64)
        if rows.ndim != 2 or rows.shape[1] != len(self.feature_names):
            raise ValueError(f"expected rows of {len(self.feature_names)} features, got shape {rows.shape}")
        walk = self.walk
        count, width = rows.shape
        both = np.concatenate([rows.ravel(), -rows.ravel()])  # the rows, then the same rows negated
        base = (np.arange(count) * width)[:, None]
        at = walk.feature + walk.flipped * (count * width)  # where each node reads its value in `both`
        node = np.broadcast_to(walk.start, (count, walk.start.size)).copy()
        for active in walk.active:  # the trees deeper than this level (deepest first)
            step = node[:, :active]
            value = both[base + at[step]]
            went = value <= walk.threshold[step]  # left, or right where the children are swapped
            if walk.zero_missing is not None:  # MISSING_ZERO nodes: a 0.0 goes the default way too
                zero = (value == 0.0) & walk.zero_missing[step]
                went = np.where(zero, walk.zero_went[step], went)
            node[:, :active] = walk.child[2 * step + went]
        # in the model's tree order and row by row in memory: numpy then adds each row's leaves in one fixed
        # order (a column-ordered copy is added in another, which moves the last bit of some scores)
        leaves = np.ascontiguousarray(walk.value[node][:, walk.tree_order])
        return np.asarray(leaves.sum(axis=1), dtype=np.float64)


@dataclass(frozen=True)
class _Walk:
    """The ensemble as predict walks it: internal nodes first, then one node per leaf that leads to itself;
    trees ordered deepest first (`tree_order` puts them back); child[2 * node + went] is the next node, where
    `went` is "went left", or "went right" at a `flipped` node (one whose missing values go left: it reads
    the negated value against the float just below the negated threshold, and its two children are swapped)."""

    start: np.ndarray  # (trees,) each tree's first node, deepest tree first
    active: tuple[int, ...]  # per level, how many trees (a prefix of `start`) still have a step to take
    tree_order: np.ndarray  # (trees,) the position in `start` of each tree in the model's order
    feature: np.ndarray  # (nodes + leaves,)
    flipped: np.ndarray  # (nodes + leaves,) 0 or 1
    threshold: np.ndarray  # (nodes + leaves,) as compared: where flipped, the float just below -threshold
    zero_missing: np.ndarray | None  # nodes that read 0.0 as missing (None: there are none)
    zero_went: np.ndarray  # (nodes + leaves,) `went` for a 0.0 at such a node: its default way
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
        flipped = np.concatenate([nan_left, np.zeros(leaves, dtype=bool)])
        threshold = np.concatenate([trees.threshold, np.zeros(leaves)])
        # a flipped node asks "went right": value > t  <=>  -value < -t  <=>  -value <= the float just below -t
        # (exact for every number, infinities included; false for NaN, which so goes left)
        threshold = np.where(flipped, np.nextafter(-threshold, -np.inf), threshold)
        zero_missing = np.concatenate([trees.missing == MISSING_ZERO, np.zeros(leaves, dtype=bool)])
        zero_went = np.concatenate([trees.default_left, np.zeros(leaves, dtype=bool)]) ^ flipped
        depths = _tree_depths(trees.roots, trees.left, trees.right)
        order = np.argsort(-depths, kind="stable")
        return cls(
            start=walk_index(trees.roots)[order],
            active=tuple(int((depths > level).sum()) for level in range(int(depths.max(initial=0)))),
            tree_order=np.argsort(order, kind="stable"),
            feature=np.concatenate([trees.feature, np.zeros(leaves, dtype=np.int64)]),
            flipped=flipped.astype(np.int64), threshold=threshold,
            zero_missing=zero_missing if zero_missing.any() else None, zero_went=zero_went,
            child=np.stack([np.where(flipped, left, right), np.where(flipped, right, left)], axis=1).ravel(),
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
    return int(_tree_depths(roots, left, right).max(initial=0))


def _tree_depths(roots: np.ndarray, left: np.ndarray, right: np.ndarray) -> np.ndarray:
    """Each tree's longest root-to-leaf path (0: a single leaf)."""
    depths = np.zeros(len(roots), dtype=np.int64)
    for tree, root in enumerate(roots.tolist()):
        stack = [(root, 0)]
        while stack:
            node, depth = stack.pop()
            if node < 0:
                depths[tree] = max(depths[tree], depth)
                continue
            stack.extend(((int(left[node]), depth + 1), (int(right[node]), depth + 1)))
    return depths
