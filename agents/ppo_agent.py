"""The PPO agent: plays a trained MaskablePPO checkpoint with the action mask applied.

    agent = PPOAgent.load("runs/train/cardiceo_ppo-seed0/final.zip", game="cardiceo", num_players=4)
    action = agent.act(observation)          # observation = env.last()[0]

``ppo:PATH`` agent specs (``ice-envs evaluate ... --agents ppo:PATH,random``) build one.
``PATH`` is a MaskablePPO ``.zip`` saved by ``train`` (or by ``MaskablePPO.save`` with an
``MlpPolicy``), or a ``.npz`` policy snapshot of the self-play pool.

The policy network is copied into numpy once at load time (:class:`PolicyNet`), so
acting costs a few small matrix products and no torch call, and the agent's choices come
from its own seeded generator: ``deterministic=True`` (default) plays the most probable
legal action, ``False`` samples the masked policy distribution. Illegal actions get
probability 0 in both cases, as in MaskablePPO itself. Loading a ``.zip`` needs torch
(the ``train`` extra); loading a ``.npz`` needs only numpy.
"""

from __future__ import annotations

import io
import json
import os
import re
import zipfile
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from ice_envs.core.agent import PlayerView, SeededAgent
from ice_envs.core.errors import AgentSpecError

ACTIVATIONS = ("tanh", "relu")
_LAYER = re.compile(r"^mlp_extractor\.policy_net\.(\d+)\.(weight|bias)$")


@dataclass(frozen=True)
class PolicyNet:
    """The actor of an SB3 ``MlpPolicy`` as numpy arrays: hidden layers, then the action head.

    ``logits(x) = W_out @ act(... act(W_1 @ x + b_1) ...) + b_out``, exactly what
    ``policy.action_net(policy.mlp_extractor.forward_actor(x))`` computes in torch.
    """

    weights: tuple[np.ndarray, ...]
    biases: tuple[np.ndarray, ...]
    activation: str = "tanh"
    #: What the trainer recorded: game, players, options, timesteps (empty if unknown).
    meta: dict[str, Any] = field(default_factory=dict, compare=False)
    #: The file it was loaded from ("" if built in memory).
    source: str = field(default="", compare=False)

    @property
    def obs_size(self) -> int:
        return int(self.weights[0].shape[1])

    @property
    def n_actions(self) -> int:
        return int(self.weights[-1].shape[0])

    def logits(self, obs: np.ndarray) -> np.ndarray:
        """Unmasked action logits for one observation vector (or a batch, rows = observations)."""
        x = np.asarray(obs, dtype=np.float32)
        act = np.tanh if self.activation == "tanh" else _relu
        last = len(self.weights) - 1
        for i, (w, b) in enumerate(zip(self.weights, self.biases)):
            x = x @ w.T + b
            if i < last:
                x = act(x)
        return x

    def probabilities(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """The masked policy distribution (illegal actions get exactly 0)."""
        logits = self.logits(obs).astype(np.float64)
        legal = np.asarray(mask).astype(bool)
        if not legal.any():
            raise ValueError("the action mask has no legal action")
        z = np.where(legal, logits, -np.inf)
        z = np.exp(z - z.max())
        return z / z.sum()

    # -------------------------------------------------------------- conversions
    @classmethod
    def from_state_dict(cls, state: dict[str, Any], activation: str, meta: dict[str, Any] | None = None) -> PolicyNet:
        """From an SB3 policy ``state_dict`` (torch tensors or arrays)."""
        if activation not in ACTIVATIONS:
            raise AgentSpecError(f"unsupported activation {activation!r}; PPO agents support {list(ACTIVATIONS)}")
        layers: dict[int, dict[str, np.ndarray]] = {}
        for key, value in state.items():
            m = _LAYER.match(key)
            if m:
                layers.setdefault(int(m.group(1)), {})[m.group(2)] = _to_numpy(value)
            elif key.startswith(("features_extractor.", "pi_features_extractor.")):
                raise AgentSpecError(f"unsupported policy: a features extractor with parameters ({key})")
        if "action_net.weight" not in state:
            raise AgentSpecError("not an SB3 actor-critic policy: no action_net.weight")
        weights = [layers[i]["weight"] for i in sorted(layers)]
        biases = [layers[i]["bias"] for i in sorted(layers)]
        weights.append(_to_numpy(state["action_net.weight"]))
        biases.append(_to_numpy(state["action_net.bias"]))
        return cls(tuple(weights), tuple(biases), activation, dict(meta or {}))

    def save_npz(self, path: str | Path) -> None:
        """Write the network (and its meta data) to a ``.npz`` file."""
        arrays = {f"w{i}": w for i, w in enumerate(self.weights)}
        arrays.update({f"b{i}": b for i, b in enumerate(self.biases)})
        arrays["activation"] = np.array(self.activation)
        arrays["meta"] = np.array(json.dumps(self.meta))
        tmp = Path(f"{path}.tmp.npz")
        np.savez(tmp, **arrays)
        os.replace(tmp, path)

    @classmethod
    def load_npz(cls, path: str | Path) -> PolicyNet:
        with np.load(path, allow_pickle=False) as data:
            n = sum(1 for k in data.files if k.startswith("w"))
            weights = tuple(data[f"w{i}"].astype(np.float32) for i in range(n))
            biases = tuple(data[f"b{i}"].astype(np.float32) for i in range(n))
            return cls(weights, biases, str(data["activation"]), json.loads(str(data["meta"])), str(path))

    @classmethod
    def load_zip(cls, path: str | Path) -> PolicyNet:
        """From a MaskablePPO ``.zip`` (reads only the policy weights and kwargs)."""
        try:
            import torch
            from stable_baselines3.common.save_util import json_to_data
        except ImportError as exc:
            raise AgentSpecError(
                f"ppo .zip checkpoints need the train extra (pip install -e '.[train]'): {exc}"
            ) from None
        try:
            with zipfile.ZipFile(path) as archive:
                raw = json.loads(archive.read("data"))
                state = torch.load(io.BytesIO(archive.read("policy.pth")), map_location="cpu", weights_only=True)
        except (zipfile.BadZipFile, KeyError, json.JSONDecodeError) as exc:
            raise AgentSpecError(f"{path} is not a MaskablePPO checkpoint: {exc}") from None
        keep = {k: raw[k] for k in ("policy_kwargs", "ice_envs") if k in raw}
        data = json_to_data(json.dumps(keep))
        act_fn = (data.get("policy_kwargs") or {}).get("activation_fn", torch.nn.Tanh)
        activation = {torch.nn.Tanh: "tanh", torch.nn.ReLU: "relu"}.get(act_fn, getattr(act_fn, "__name__", "?"))
        net = cls.from_state_dict(state, activation, data.get("ice_envs") or {})
        return cls(net.weights, net.biases, net.activation, net.meta, str(path))


def _relu(x: np.ndarray) -> np.ndarray:
    return np.maximum(x, 0.0)


def _to_numpy(value: Any) -> np.ndarray:
    if hasattr(value, "detach"):
        value = value.detach().cpu().numpy()
    return np.asarray(value, dtype=np.float32)


@lru_cache(maxsize=64)
def _cached_net(path: str, mtime_ns: int, size: int) -> PolicyNet:
    return PolicyNet.load_npz(path) if path.endswith(".npz") else PolicyNet.load_zip(path)


def load_policy_net(path: str | Path) -> PolicyNet:
    """The :class:`PolicyNet` of a ``.zip`` checkpoint or ``.npz`` snapshot (cached per file version)."""
    p = Path(path)
    if not p.is_file():
        raise AgentSpecError(f"ppo checkpoint not found: {path}")
    st = p.stat()
    return _cached_net(str(p.resolve()), st.st_mtime_ns, st.st_size)


class PPOAgent(SeededAgent):
    """Plays a :class:`PolicyNet`; masks are applied at prediction, so only legal actions are chosen."""

    name = "ppo"
    needs_view = False
    needs_observation = True

    def __init__(self, net: PolicyNet, seed: int | None = None, deterministic: bool = True, label: str = "ppo") -> None:
        super().__init__(seed)
        self.net = net
        self.deterministic = deterministic
        self.name = label

    @classmethod
    def load(
        cls,
        path: str | Path,
        game: str | None = None,
        num_players: int | None = None,
        seed: int | None = None,
        deterministic: bool = True,
    ) -> PPOAgent:
        """Load a checkpoint; with ``game`` given, check that it was trained for that game.

        A checkpoint trained on one player count may play another when the observation
        and action sizes agree (they do in games whose encodings have fixed seat slots).
        """
        net = load_policy_net(path)
        if game is not None:
            _check_compatible(net, path, game, num_players)
        return cls(net, seed, deterministic, label=f"ppo:{Path(path).name}")

    def action_probabilities(self, observation: dict[str, np.ndarray]) -> np.ndarray:
        """The masked policy distribution over all actions."""
        return self.net.probabilities(observation["observation"], observation["action_mask"])

    def __getstate__(self) -> dict[str, Any]:
        """Pickle a loaded network as its file name (training env snapshots stay small)."""
        state = dict(self.__dict__)
        if self.net.source and Path(self.net.source).is_file():
            state["net"] = self.net.source
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        if isinstance(state["net"], str):
            state["net"] = load_policy_net(state["net"])
        self.__dict__.update(state)

    def act(self, observation: dict[str, np.ndarray], view: PlayerView | None = None) -> int:
        probs = self.action_probabilities(observation)
        if self.deterministic:
            return int(np.argmax(probs))
        return int(self.rng.choice(probs.size, p=probs))


def _check_compatible(net: PolicyNet, path: str | Path, game: str, num_players: int | None) -> None:
    import ice_envs

    spec = ice_envs.get_spec(game)
    trained_on = net.meta.get("game")
    if trained_on is not None and trained_on != spec.name:
        raise AgentSpecError(f"{path} was trained on {trained_on!r}, not {spec.name!r}")
    n = num_players or net.meta.get("players") or spec.players[0]
    options = net.meta.get("options") or {}
    env = ice_envs.make(spec.name, raw=True, num_players=n, **options)
    agent = env.possible_agents[0]
    obs_size = int(np.prod(env.observation_space(agent)["observation"].shape))
    n_actions = int(env.action_space(agent).n)
    if (obs_size, n_actions) != (net.obs_size, net.n_actions):
        raise AgentSpecError(
            f"{path} expects observations of size {net.obs_size} and {net.n_actions} actions; "
            f"{spec.name} with {n} players has {obs_size} and {n_actions}"
        )
