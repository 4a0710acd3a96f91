"""The move-scoring agent: a learned policy that scores every whole move from the move's own features.

    ice-envs compare tip_of_the_diceberg moves:checkpoints/tip_of_the_diceberg_moves/model.npz heuristic@v1 \\
        --suite v1 --opponents heuristic@v1 --games 2000

A DouZero-style policy (Zha et al., "DouZero: Mastering DouDizhu with Self-Play Deep Reinforcement
Learning", ICML 2021): instead of one output per AEC action, a network scores each legal **whole move**
(:mod:`ice_envs.agents.whole_moves`: a meld laid and committed with its power's choice, a pass with the
die it takes, a draft pick, a roll's moves) from that move's features, and the policy is the softmax of the
scores over the moves. Moves that differ in one card are told apart by what they do, not by an output unit
each, so what is learned about one meld carries over to the others.

**Features of a move** (:class:`MoveFeaturizer`), all read from the deciding seat's view (the view's
state is a re-deal of what the seat cannot see, so nothing hidden leaks):

* the seat's observation vector before the move, and its change over the move (the observation of the
  state after it, minus the one before);
* the game's greedy value after the move (``GameSpec.greedy``) and the move's length;
* the game's own move features, where its spec names them (``GameSpec.move_features``): what a player at
  the table reads at a glance (in Tip of the Diceberg, the cost of the hand left by the cheapest split into
  melds, the power of the card a meld goes to; see ``ice_envs/<game>/move_features.py``).

A move that ends with a chance draw (a card drawn, a re-roll) is valued on one sample of the draw, drawn
from the re-dealt state: a guess, as a player would make it.

**Acting.** At the first decision of a whole move the agent lists the moves, scores them, and plays the
best (``sample=yes``: draws one from the softmax with its own seeded generator); the move's other actions are
played at the seat's next decisions while they stay legal. Scores are compared on a grid of
:data:`~ice_envs.agents.ppo_agent.LOGIT_QUANTUM` (ties to the first move listed, the lowest actions), so a
decision does not hinge on the last bits of a float sum.

**The model file** (``.npz``, read with ``allow_pickle=False``; nothing is unpickled): the feature
normalisation, the layers and a JSON ``meta`` (game, players, options, feature names and sizes, training
record). :func:`load_move_scorer` checks it against the table it is asked to play.
"""

from __future__ import annotations

import io
import json
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from ice_envs.agents.ppo_agent import LOGIT_QUANTUM, sample_index
from ice_envs.agents.search import Simulator, simulator_for
from ice_envs.agents.whole_moves import whole_moves
from ice_envs.core.agent import PlayerView, SeededAgent
from ice_envs.core.errors import AgentSpecError
from ice_envs.core.files import FileFormatError, read_bytes, regular_file
from ice_envs.core.registry import get_spec, load_attribute

__all__ = ["FORMAT", "MoveFeaturizer", "MoveScorerAgent", "MoveScorerNet", "load_move_scorer"]

#: The largest model file read (a scorer is tens of kilobytes).
MAX_MODEL_BYTES = 64 * 2**20
#: The model file's format tag.
FORMAT = "ice-envs-move-scorer/1"
#: The generic features after the two observation blocks.
GENERIC_NAMES = ("greedy_value_after", "move_length")
#: The feature blocks, in row order.
BLOCKS = ("observation", "change", "generic", "game")


class MoveFeaturizer:
    """The candidate whole moves of a seat and their feature rows, for one game and player count.

    ``blocks`` picks the feature blocks, in this order: ``observation`` (the seat's observation vector before
    the move), ``change`` (its change over the move), ``generic`` (:data:`GENERIC_NAMES`) and ``game`` (the
    game's ``move_features``, where its spec names them).
    """

    def __init__(self, game: str, num_players: int, blocks: tuple[str, ...] = BLOCKS) -> None:
        spec = get_spec(game)
        self.game = spec.name
        self.num_players = int(num_players)
        unknown = [b for b in blocks if b not in BLOCKS]
        if unknown or not blocks or len(set(blocks)) != len(blocks):
            raise AgentSpecError(f"move features: blocks must be distinct names of {list(BLOCKS)}, got {list(blocks)}")
        self.blocks = tuple(b for b in BLOCKS if b in blocks)
        self.sim: Simulator = simulator_for(spec.name, self.num_players)
        self._hook = (
            None if spec.move_features is None or "game" not in self.blocks else load_attribute(spec.move_features)
        )
        if "game" in self.blocks and self._hook is None:
            raise AgentSpecError(f"move features: {self.game} has no game features (its spec names no move_features)")
        self.game_names: tuple[str, ...] = () if self._hook is None else tuple(getattr(self._hook, "NAMES", ()))
        #: The game's own end of a move (``move_features.ends_move(action, state after)``), if it has one.
        self.ends_move = (
            None if spec.move_features is None else getattr(load_attribute(spec.move_features), "ends_move", None)
        )
        self.obs_size = int(self.sim.observation(self.sim._env.game_state, 0).size)
        widths = {
            "observation": self.obs_size,
            "change": self.obs_size,
            "generic": len(GENERIC_NAMES),
            "game": len(self.game_names),
        }
        self._slices: dict[str, slice] = {}
        start = 0
        for b in self.blocks:
            self._slices[b] = slice(start, start + widths[b])
            start += widths[b]
        self.size = start

    def describe(self) -> dict[str, Any]:
        """What the rows hold, for the model's ``meta``."""
        return {
            "blocks": list(self.blocks),
            "obs_size": self.obs_size,
            "generic": list(GENERIC_NAMES),
            "game": list(self.game_names),
        }

    def candidates(self, state: Any, seat: int) -> tuple[list[tuple[int, ...]], np.ndarray]:
        """The whole moves of ``seat`` in ``state`` and one float32 feature row per move (``state`` unchanged)."""
        moves = self.moves(state, seat)
        return [m for m, _ in moves], self.rows(state, seat, moves)

    def moves(self, state: Any, seat: int) -> list[tuple[tuple[int, ...], Any]]:
        """The whole moves of ``seat`` in ``state`` with the states after them (``state`` unchanged)."""
        return whole_moves(self.sim, state, seat, ends=self.ends_move)

    def rows(self, state: Any, seat: int, moves: list[tuple[tuple[int, ...], Any]]) -> np.ndarray:
        """The feature rows of ``moves`` (``(actions, state after)`` pairs) made by ``seat`` from ``state``."""
        sim, cols = self.sim, self._slices
        out = np.zeros((len(moves), self.size), dtype=np.float32)
        if "observation" in cols or "change" in cols:
            now = np.asarray(sim.observation(state, seat), dtype=np.float32).ravel()
            if "observation" in cols:
                out[:, cols["observation"]] = now
            if "change" in cols:
                for i, (_, after) in enumerate(moves):
                    out[i, cols["change"]] = np.asarray(sim.observation(after, seat), dtype=np.float32).ravel() - now
        if "generic" in cols:
            g = cols["generic"].start
            for i, (seq, after) in enumerate(moves):
                out[i, g] = float(sim.value(after, seat))
                out[i, g + 1] = len(seq)
        if "game" in cols and moves:
            out[:, cols["game"]] = np.asarray(self._hook(state, seat, moves), dtype=np.float32)
        return out


@dataclass(frozen=True, eq=False)
class MoveScorerNet:
    """``score(x) = w_out . relu(... relu(W_1 @ ((x - mean) / scale) + b_1) ...) + b_out`` for each move's row ``x``."""

    mean: np.ndarray
    scale: np.ndarray
    weights: tuple[np.ndarray, ...]
    biases: tuple[np.ndarray, ...]
    meta: dict[str, Any] = field(default_factory=dict, compare=False)
    source: str = field(default="", compare=False)

    @property
    def feature_size(self) -> int:
        return int(self.mean.size)

    def scores(self, rows: np.ndarray) -> np.ndarray:
        """One score per row (float64)."""
        x = (np.asarray(rows, dtype=np.float32) - self.mean) / self.scale
        last = len(self.weights) - 1
        for i, (w, b) in enumerate(zip(self.weights, self.biases)):
            x = x @ w.T + b
            if i < last:
                x = np.maximum(x, 0.0)
        return x.reshape(-1).astype(np.float64)

    def save(self, path: str | Path) -> None:
        """Write the model (``np.savez``: arrays and a JSON string; no pickles)."""
        arrays: dict[str, np.ndarray] = {"mean": self.mean, "scale": self.scale}
        for i, (w, b) in enumerate(zip(self.weights, self.biases)):
            arrays[f"w{i}"] = np.asarray(w, dtype=np.float32)
            arrays[f"b{i}"] = np.asarray(b, dtype=np.float32)
        meta = {"format": FORMAT, "layers": len(self.weights), **self.meta}
        arrays["meta"] = np.array(json.dumps(meta, sort_keys=True))
        with open(path, "wb") as fh:
            np.savez(fh, **arrays)

    @classmethod
    def load(cls, path: str | Path) -> MoveScorerNet:
        """Read a model written by :meth:`save`; anything else raises :class:`AgentSpecError` naming the problem."""
        try:
            raw = read_bytes(path, what="move scorer", max_bytes=MAX_MODEL_BYTES)
            with np.load(io.BytesIO(raw), allow_pickle=False) as data:
                arrays = {k: data[k] for k in data.files}
        except (OSError, ValueError) as exc:
            raise AgentSpecError(f"move scorer {path}: not a readable .npz ({exc})") from None
        if "meta" not in arrays or arrays["meta"].dtype.kind != "U" or arrays["meta"].ndim != 0:
            raise AgentSpecError(f"move scorer {path}: no meta string")
        try:
            meta = json.loads(str(arrays["meta"]))
        except json.JSONDecodeError:
            raise AgentSpecError(f"move scorer {path}: meta is not JSON") from None
        if not isinstance(meta, dict) or meta.get("format") != FORMAT:
            raise AgentSpecError(f"move scorer {path}: not a {FORMAT} file")
        layers = meta.get("layers")
        if (
            not isinstance(layers, int)
            or layers < 1
            or any(f"w{i}" not in arrays or f"b{i}" not in arrays for i in range(layers))
        ):
            raise AgentSpecError(f"move scorer {path}: layers missing")
        weights = tuple(arrays[f"w{i}"].astype(np.float32) for i in range(layers))
        biases = tuple(arrays[f"b{i}"].astype(np.float32) for i in range(layers))
        mean, scale = arrays.get("mean"), arrays.get("scale")
        if mean is None or scale is None or mean.shape != scale.shape or mean.ndim != 1:
            raise AgentSpecError(f"move scorer {path}: bad feature normalisation")
        width = mean.size
        for i, (w, b) in enumerate(zip(weights, biases)):
            if w.ndim != 2 or w.shape[1] != width or b.shape != (w.shape[0],):
                raise AgentSpecError(f"move scorer {path}: layer {i} has shape {w.shape} after a width of {width}")
            width = w.shape[0]
        if width != 1:
            raise AgentSpecError(f"move scorer {path}: the last layer gives {width} outputs, not one score")
        arrays_ok = all(np.isfinite(a).all() for a in (mean, scale, *weights, *biases)) and bool((scale > 0).all())
        if not arrays_ok:
            raise AgentSpecError(f"move scorer {path}: non-finite weights or a non-positive scale")
        return cls(mean.astype(np.float32), scale.astype(np.float32), weights, biases, meta, str(path))


@lru_cache(maxsize=32)
def _cached(path: str, mtime_ns: int, size: int) -> MoveScorerNet:
    return MoveScorerNet.load(path)


def load_move_scorer(path: str | Path) -> MoveScorerNet:
    """The :class:`MoveScorerNet` of a model file (cached per file version)."""
    p = Path(path)
    if not p.exists():
        raise AgentSpecError(f"move scorer not found: {path}")
    try:
        st = regular_file(p, what="move scorer")
    except FileFormatError as exc:
        raise AgentSpecError(str(exc)) from None
    return _cached(str(p.resolve()), st.st_mtime_ns, st.st_size)


def best_index(scores: np.ndarray) -> int:
    """The index of the highest score on the :data:`LOGIT_QUANTUM` grid (ties to the lowest index)."""
    return int(np.argmax(np.rint(np.asarray(scores, dtype=np.float64) / LOGIT_QUANTUM)))


def softmax(scores: np.ndarray) -> np.ndarray:
    z = np.asarray(scores, dtype=np.float64)
    z = np.exp(z - z.max())
    return z / z.sum()


class MoveScorerAgent(SeededAgent):
    """Plays the whole move of highest score (or, with ``sample``, one drawn from the scores' softmax).

    Args:
        net: the model (:func:`load_move_scorer`).
        game, num_players: the table; the model must have been trained for this game and feature layout.
        seed: the agent's own generator (used only with ``sample``).
        sample: draw the move from the softmax instead of taking the best.
    """

    name = "moves"
    needs_view = True
    needs_observation = False

    def __init__(
        self, net: MoveScorerNet, game: str, num_players: int, seed: int | None = None, sample: bool = False
    ) -> None:
        super().__init__(seed)
        self.net = net
        trained, name = net.meta.get("game"), get_spec(game).name
        if trained is not None and trained != name:
            raise AgentSpecError(f"move scorer {net.source or '(in memory)'}: trained for {trained}, not {name}")
        blocks = net.meta.get("features", {}).get("blocks", list(BLOCKS))
        self.featurizer = MoveFeaturizer(game, num_players, tuple(blocks))
        if net.feature_size != self.featurizer.size:
            raise AgentSpecError(
                f"move scorer {net.source or '(in memory)'}: made for {net.feature_size} features a move, "
                f"{self.featurizer.game} at {num_players} players has {self.featurizer.size}"
            )
        self.sample = bool(sample)
        self._plan: list[int] = []
        self._plan_seat = -1

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self._plan, self._plan_seat = [], -1

    def choose(self, state: Any, seat: int) -> tuple[list[tuple[int, ...]], np.ndarray, int]:
        """The candidates of ``state`` for ``seat``, their feature rows and the index the agent picks."""
        moves, rows = self.featurizer.candidates(state, seat)
        scores = self.net.scores(rows)
        index = sample_index(self.rng, softmax(scores)) if self.sample else best_index(scores)
        return moves, rows, index

    def act(self, observation: dict[str, np.ndarray], view: PlayerView | None = None) -> int:
        if view is None:
            raise ValueError("the move-scoring agent needs the seat's view")
        legal = view.legal_actions
        if self._plan and self._plan_seat == view.seat and self._plan[0] in legal:
            return self._plan.pop(0)
        self._plan = []
        if len(legal) == 1:
            return int(legal[0])
        moves, _, index = self.choose(view.state, view.seat)
        move = moves[index]
        self._plan, self._plan_seat = list(move[1:]), view.seat
        return int(move[0])
