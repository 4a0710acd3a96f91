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

Nothing in a checkpoint is ever unpickled: a ``.zip`` is read member by member (regular
file, size caps on the archive and on each member), its ``data`` is parsed as plain JSON
whose ``:serialized:`` (pickled) values are ignored — the activation is read from the
plain ``"<class 'torch.nn.modules.activation.ReLU'>"`` text SB3 writes next to them — and
``policy.pth`` is read with ``torch.load(..., weights_only=True)``; a ``.npz`` is read with
``allow_pickle=False``. Every network is checked at load (:meth:`PolicyNet.checked`): the
layer chain, the activation (a known one), finite weights, the meta data; and
:meth:`PPOAgent.load` checks the observation size and action count against the env and
the recorded game and player count against those asked for. Every failure is one
:class:`AgentSpecError` naming the file.

A checkpoint records the observation pieces it was trained on (``observation_pieces`` in its
meta data: ``[name, size]`` in order, see :mod:`ice_envs.core.layout`). When an env has since
gained pieces (observation pieces are only ever added, never renamed, resized or reordered
in meaning), the agent reads its own pieces out of the new observation by name and plays
exactly as before; a piece that is gone or has another size is an :class:`AgentSpecError`.
"""

from __future__ import annotations

import io
import json
import os
import re
import stat
import zipfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from ice_envs.core.agent import PlayerView, SeededAgent
from ice_envs.core.errors import AgentSpecError
from ice_envs.core.files import FileFormatError, decode_text, parse_json, read_bytes, regular_file

ACTIVATIONS = ("tanh", "relu")
_LAYER = re.compile(r"^mlp_extractor\.policy_net\.(\d+)\.(weight|bias)$")
#: torch activation classes (as SB3 writes them in the ``data`` JSON) -> :data:`ACTIVATIONS`.
_TORCH_ACTIVATIONS = {
    "<class 'torch.nn.modules.activation.Tanh'>": "tanh",
    "<class 'torch.nn.modules.activation.ReLU'>": "relu",
}
#: Size cap of a checkpoint file (``.zip`` or ``.npz``) and of the decompressed weights in it.
MAX_CHECKPOINT_BYTES = 512 << 20
#: Size cap of a ``.zip``'s ``data`` member (JSON) and of a ``.npz``'s meta text.
MAX_DATA_BYTES = 16 << 20
#: The ``.zip`` members that are read; every other one is ignored (never unpickled).
_ZIP_DATA, _ZIP_POLICY = "data", "policy.pth"
_NPZ_KEY = re.compile(r"^([wb])(\d+)$")
#: Deterministic play compares logits rounded to multiples of this (see :meth:`PPOAgent.greedy_action`).
LOGIT_QUANTUM = 2.0**-16


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
        return masked_distribution(self.logits(obs), mask)

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
        if "action_net.bias" not in state:
            raise AgentSpecError("not an SB3 actor-critic policy: no action_net.bias")
        order = sorted(layers)
        for i in order:
            if set(layers[i]) != {"weight", "bias"}:
                raise AgentSpecError(f"broken layer chain: layer {i} of the policy net lacks a weight or a bias")
        weights = [layers[i]["weight"] for i in order]
        biases = [layers[i]["bias"] for i in order]
        weights.append(_to_numpy(state["action_net.weight"]))
        biases.append(_to_numpy(state["action_net.bias"]))
        return cls.checked(weights, biases, activation, dict(meta or {}))

    @classmethod
    def checked(cls, weights: Any, biases: Any, activation: Any, meta: Any = None, source: str = "") -> PolicyNet:
        """A network whose every part is checked; :class:`AgentSpecError` (naming ``source``) if not.

        The layer chain (each weight matrix's input size is the previous layer's output
        size, each bias as long as its layer's output), a known activation, finite float
        weights, meta data as a dict whose ``game`` is a string and ``players`` an int.
        """
        where = f"{source}: " if source else ""
        if not isinstance(activation, str) or activation not in ACTIVATIONS:
            raise AgentSpecError(
                f"{where}unsupported activation {activation!r}; PPO agents support {list(ACTIVATIONS)}"
            )
        weights, biases = list(weights), list(biases)
        if not weights or len(weights) != len(biases):
            raise AgentSpecError(f"{where}broken layer chain: {len(weights)} weight matrices and {len(biases)} biases")
        ws: list[np.ndarray] = []
        bs: list[np.ndarray] = []
        for i, (w, b) in enumerate(zip(weights, biases)):
            w, b = np.asarray(w), np.asarray(b)
            if w.dtype.kind not in "fiu" or b.dtype.kind not in "fiu":
                raise AgentSpecError(f"{where}layer {i}: weights must be numbers, got {w.dtype} and {b.dtype}")
            if w.ndim != 2 or b.ndim != 1 or 0 in w.shape:
                raise AgentSpecError(
                    f"{where}broken layer chain: layer {i} has a weight of shape {w.shape} and a bias of shape {b.shape}"
                )
            if b.shape[0] != w.shape[0]:
                raise AgentSpecError(
                    f"{where}broken layer chain: layer {i} has {w.shape[0]} outputs but a bias of {b.shape[0]}"
                )
            if ws and w.shape[1] != ws[-1].shape[0]:
                raise AgentSpecError(
                    f"{where}broken layer chain: layer {i} takes {w.shape[1]} inputs, "
                    f"layer {i - 1} gives {ws[-1].shape[0]}"
                )
            w, b = w.astype(np.float32), b.astype(np.float32)
            if not (np.isfinite(w).all() and np.isfinite(b).all()):
                raise AgentSpecError(f"{where}layer {i} has non-finite weights (NaN or infinity)")
            ws.append(w)
            bs.append(b)
        meta = {} if meta is None else meta
        if not isinstance(meta, dict):
            raise AgentSpecError(f"{where}meta data must be a JSON object, got {type(meta).__name__}")
        if "game" in meta and meta["game"] is not None and not isinstance(meta["game"], str):
            raise AgentSpecError(f"{where}meta data 'game' must be a string, got {meta['game']!r}")
        players = meta.get("players")
        if players is not None and (type(players) is not int or players < 1):
            raise AgentSpecError(f"{where}meta data 'players' must be a positive integer, got {players!r}")
        if meta.get("options") is not None and not isinstance(meta["options"], dict):
            raise AgentSpecError(f"{where}meta data 'options' must be a JSON object, got {meta['options']!r}")
        pieces = meta.get("observation_pieces")
        if pieces is not None:
            _check_pieces(pieces, int(ws[0].shape[1]), where)
        return cls(tuple(ws), tuple(bs), activation, dict(meta), source)

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
        """From a ``.npz`` written by :meth:`save_npz` (``allow_pickle=False``; every part checked)."""
        data = _read_checkpoint_bytes(path)
        try:
            _check_zip_members(zipfile.ZipFile(io.BytesIO(data)), path, MAX_CHECKPOINT_BYTES)
            with np.load(io.BytesIO(data), allow_pickle=False) as npz:
                files = set(npz.files)
                indices: dict[str, set[int]] = {"w": set(), "b": set()}
                for key in files - {"activation", "meta"}:
                    m = _NPZ_KEY.match(key)
                    if not m:
                        raise AgentSpecError(f"{path} is not a PPO policy .npz: unexpected array {key!r}")
                    indices[m.group(1)].add(int(m.group(2)))
                n = len(indices["w"])
                if indices["w"] != set(range(n)) or indices["b"] != set(range(n)):
                    raise AgentSpecError(
                        f"{path}: broken layer chain: weights {sorted(indices['w'])}, biases {sorted(indices['b'])}"
                    )
                weights = [npz[f"w{i}"] for i in range(n)]
                biases = [npz[f"b{i}"] for i in range(n)]
                activation = _text_array(npz["activation"], path, "activation")
                meta_text = _text_array(npz["meta"], path, "meta") if "meta" in files else "{}"
        except AgentSpecError:
            raise
        except (zipfile.BadZipFile, EOFError, KeyError, ValueError, OSError) as exc:
            raise AgentSpecError(f"{path} is not a PPO policy .npz: {exc}") from None
        return cls.checked(weights, biases, activation, _parse_meta(meta_text, path), str(path))

    @classmethod
    def load_zip(cls, path: str | Path) -> PolicyNet:
        """From a MaskablePPO ``.zip``: the ``data`` JSON (never unpickled) and ``policy.pth`` (weights only).

        The file and the archive are checked before torch is imported: a broken file is refused at once.
        """
        data = _read_checkpoint_bytes(path)
        try:
            archive = zipfile.ZipFile(io.BytesIO(data))
            infos = _check_zip_members(archive, path, MAX_CHECKPOINT_BYTES)
            for name in (_ZIP_DATA, _ZIP_POLICY):
                if name not in infos:
                    raise AgentSpecError(f"{path} is not a MaskablePPO checkpoint: no {name!r} in the archive")
            if infos[_ZIP_DATA].file_size > MAX_DATA_BYTES:
                raise AgentSpecError(f"{path}: its 'data' is larger than the limit of {MAX_DATA_BYTES} bytes")
            raw_data = _read_member(archive, infos[_ZIP_DATA])
            raw_policy = _read_member(archive, infos[_ZIP_POLICY])
        except AgentSpecError:
            raise
        except (zipfile.BadZipFile, EOFError, KeyError, ValueError, OSError, RuntimeError) as exc:
            raise AgentSpecError(f"{path} is not a MaskablePPO checkpoint: {exc}") from None

        try:
            raw = parse_json(
                decode_text(raw_data, what="checkpoint data", source=f"{path}:data"),
                what="checkpoint data",
                source=f"{path}:data",
            )
        except FileFormatError as exc:
            raise AgentSpecError(f"{path} is not a MaskablePPO checkpoint: {exc}") from None
        if not isinstance(raw, dict):
            raise AgentSpecError(f"{path} is not a MaskablePPO checkpoint: its data is not a JSON object")
        activation = _zip_activation(raw.get("policy_kwargs"), path)
        try:
            import torch
        except ImportError as exc:
            raise AgentSpecError(
                f"ppo .zip checkpoints need the train extra (pip install -e '.[train]'): {exc}"
            ) from None
        try:
            state = torch.load(io.BytesIO(raw_policy), map_location="cpu", weights_only=True)
        except Exception as exc:  # weights_only refuses anything but tensors and plain containers
            raise AgentSpecError(f"{path}: policy.pth cannot be read as plain weights: {exc}") from None
        if not isinstance(state, dict) or not all(isinstance(k, str) for k in state):
            raise AgentSpecError(f"{path}: policy.pth is not a policy state_dict")
        for key, value in state.items():
            if not isinstance(value, torch.Tensor):
                raise AgentSpecError(f"{path}: policy.pth entry {key!r} is not a tensor")
        try:
            net = cls.from_state_dict(state, activation, {})
        except AgentSpecError as exc:
            raise AgentSpecError(f"{path}: {exc}") from None
        _check_net_arch(raw.get("policy_kwargs"), net, path)
        meta = raw.get("ice_envs")
        return cls.checked(net.weights, net.biases, net.activation, {} if meta is None else meta, str(path))


def _read_checkpoint_bytes(path: str | Path) -> bytes:
    """The bytes of a checkpoint file: a regular file within :data:`MAX_CHECKPOINT_BYTES`."""

    try:
        return read_bytes(path, what="ppo checkpoint", max_bytes=MAX_CHECKPOINT_BYTES)
    except FileFormatError as exc:
        raise AgentSpecError(str(exc)) from None


def _check_zip_members(archive: zipfile.ZipFile, path: str | Path, cap: int) -> dict[str, zipfile.ZipInfo]:
    """The archive's members by name, refusing duplicates, links, directories and oversized ones."""
    infos: dict[str, zipfile.ZipInfo] = {}
    total = 0
    for info in archive.infolist():
        if info.filename in infos:
            raise AgentSpecError(f"{path}: the archive holds {info.filename!r} twice")
        mode = info.external_attr >> 16
        if info.is_dir() or (stat.S_IFMT(mode) and not stat.S_ISREG(mode)):  # links, devices, folders
            raise AgentSpecError(f"{path}: archive member {info.filename!r} is not a regular file")
        if info.file_size > cap:
            raise AgentSpecError(f"{path}: archive member {info.filename!r} is larger than the limit of {cap} bytes")
        total += info.file_size
        infos[info.filename] = info
    if total > cap:
        raise AgentSpecError(f"{path}: the archive unpacks to more than the limit of {cap} bytes")
    return infos


def _read_member(archive: zipfile.ZipFile, info: zipfile.ZipInfo) -> bytes:
    """A member's bytes, never more than its (checked) declared size."""
    with archive.open(info) as handle:
        data = handle.read(info.file_size + 1)
    if len(data) != info.file_size:
        raise ValueError(f"member {info.filename!r} does not have its declared size")
    return data


def _text_array(value: np.ndarray, path: str | Path, key: str) -> str:
    if value.shape != () or value.dtype.kind != "U":
        raise AgentSpecError(f"{path}: {key!r} must be a text scalar, got an array of {value.dtype} {value.shape}")
    return str(value)


def _parse_meta(text: str, path: str | Path) -> Any:

    if len(text) > MAX_DATA_BYTES:
        raise AgentSpecError(f"{path}: its meta data is larger than the limit of {MAX_DATA_BYTES} bytes")
    try:
        return parse_json(text, what="checkpoint meta data", source=str(path))
    except FileFormatError as exc:
        raise AgentSpecError(str(exc)) from None


def _zip_activation(policy_kwargs: Any, path: str | Path) -> str:
    """The activation named in plain text in SB3's ``policy_kwargs`` (SB3's default, tanh, if none)."""
    if policy_kwargs is None:
        return "tanh"
    if not isinstance(policy_kwargs, dict):
        raise AgentSpecError(f"{path}: policy_kwargs is not a JSON object")
    name = policy_kwargs.get("activation_fn")
    if name is None:
        if ":serialized:" in policy_kwargs and len(set(policy_kwargs) - {":type:", ":serialized:"}) == 0:
            raise AgentSpecError(f"{path}: policy_kwargs are only serialized (pickled); they are never unpickled")
        return "tanh"
    if name in ACTIVATIONS:
        return name
    if name not in _TORCH_ACTIVATIONS:
        raise AgentSpecError(
            f"{path}: unsupported activation {name!r}; PPO agents support {sorted(_TORCH_ACTIVATIONS)}"
        )
    return _TORCH_ACTIVATIONS[name]


def _check_net_arch(policy_kwargs: Any, net: PolicyNet, path: str | Path) -> None:
    """The hidden widths in ``policy_kwargs.net_arch`` (when written as JSON) match the weights."""
    arch = policy_kwargs.get("net_arch") if isinstance(policy_kwargs, dict) else None
    if arch is None:
        return
    if isinstance(arch, dict):
        arch = arch.get("pi")
    if isinstance(arch, list) and arch and isinstance(arch[0], dict):  # SB3 < 2: [dict(pi=..., vf=...)]
        arch = arch[0].get("pi")
    if not isinstance(arch, list) or not all(type(w) is int for w in arch):
        raise AgentSpecError(f"{path}: policy_kwargs.net_arch is not a list of layer widths: {arch!r}")
    widths = [int(w.shape[0]) for w in net.weights[:-1]]
    if widths != arch:
        raise AgentSpecError(f"{path}: broken layer chain: net_arch says {arch}, the weights have {widths}")


def _relu(x: np.ndarray) -> np.ndarray:
    return np.maximum(x, 0.0)


def _legal(mask: np.ndarray) -> np.ndarray:
    legal = np.asarray(mask).astype(bool)
    if not legal.any():
        raise ValueError("the action mask has no legal action")
    return legal


def masked_distribution(logits: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """The softmax of one observation's ``logits`` over the legal actions of ``mask`` (illegal: exactly 0)."""
    z = np.where(_legal(mask), np.asarray(logits).astype(np.float64), -np.inf)
    z = np.exp(z - z.max())
    return z / z.sum()


def quantized_argmax(logits: np.ndarray, mask: np.ndarray) -> int:
    """The legal action of highest logit, the logits rounded to multiples of :data:`LOGIT_QUANTUM` first.

    The logits' last bits depend on the BLAS and SIMD path that computed them (and on how many
    observations one product held), so they are compared on that grid; a tie goes to the lowest action id.
    """
    rounded = np.rint(np.asarray(logits).astype(np.float64) / LOGIT_QUANTUM)
    return int(np.argmax(np.where(_legal(mask), rounded, -np.inf)))


def sample_index(rng: np.random.Generator, probs: np.ndarray) -> int:
    """An index drawn with probabilities ``probs``: exactly ``rng.choice(probs.size, p=probs)``.

    The same arithmetic as numpy's ``Generator.choice`` (the cumulative sums scaled by the last, one
    uniform double, the first sum above it) and the same draw from ``rng``, without ``choice``'s
    checks of ``probs``, which cost more than the draw (``probs`` comes from
    :meth:`PolicyNet.probabilities`: finite, non-negative, normalised). Tested against ``choice``.
    """
    cdf = np.cumsum(probs, dtype=np.float64)
    cdf /= cdf[-1]
    return int(cdf.searchsorted(rng.random(), side="right"))


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
    if not p.exists():
        raise AgentSpecError(f"ppo checkpoint not found: {path}")
    try:
        st = regular_file(p, what="ppo checkpoint")
    except FileFormatError as exc:
        raise AgentSpecError(str(exc)) from None
    if p.suffix not in (".zip", ".npz"):
        raise AgentSpecError(f"ppo checkpoint {path}: must be a MaskablePPO .zip or a policy .npz")
    return _cached_net(str(p.resolve()), st.st_mtime_ns, st.st_size)


class PPOAgent(SeededAgent):
    """Plays a :class:`PolicyNet`; masks are applied at prediction, so only legal actions are chosen."""

    name = "ppo"
    needs_view = False
    needs_observation = True

    def __init__(
        self,
        net: PolicyNet,
        seed: int | None = None,
        deterministic: bool = True,
        label: str = "ppo",
        observation_indices: np.ndarray | None = None,
    ) -> None:
        super().__init__(seed)
        self.net = net
        self.deterministic = deterministic
        self.name = label
        #: Where the network's inputs lie in the env's observation (``None``: the whole vector, as is).
        self.observation_indices = observation_indices

    @classmethod
    def load(
        cls,
        path: str | Path,
        game: str | None = None,
        num_players: int | None = None,
        seed: int | None = None,
        deterministic: bool = True,
        check_meta: bool = True,
    ) -> PPOAgent:
        """Load a checkpoint; with ``game`` given, check that it fits that game.

        The observation size and action count must be the env's. The game and player
        count the checkpoint's meta data records must be those asked for (``num_players``
        when given); ``check_meta=False`` lets a checkpoint play another player count when
        the sizes agree (they do in games whose encodings have fixed seat slots).
        """
        net = load_policy_net(path)
        indices = None
        if game is not None:
            indices = _check_compatible(net, path, game, num_players, check_meta)
        return cls(net, seed, deterministic, label=f"ppo:{Path(path).name}", observation_indices=indices)

    def network_input(self, observation: dict[str, np.ndarray]) -> np.ndarray:
        """The observation vector as the network was trained on it (its own pieces, when the env has more)."""
        vector = observation["observation"]
        if self.observation_indices is None:
            return vector
        return np.asarray(vector)[..., self.observation_indices]

    def action_probabilities(self, observation: dict[str, np.ndarray]) -> np.ndarray:
        """The masked policy distribution over all actions."""
        return self.net.probabilities(self.network_input(observation), observation["action_mask"])

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
        if self.deterministic:
            return self.greedy_action(observation)
        return sample_index(self.rng, self.action_probabilities(observation))

    def greedy_action(self, observation: dict[str, np.ndarray]) -> int:
        """The most probable legal action, the same on every CPU (:func:`quantized_argmax`)."""
        return quantized_argmax(self.net.logits(self.network_input(observation)), observation["action_mask"])

    def batch_key(self) -> tuple[Any, ...]:
        """Agents with equal keys can decide together, in one forward pass (:meth:`act_batch`)."""
        indices = None if self.observation_indices is None else self.observation_indices.tobytes()
        return (PPOAgent, id(self.net), self.deterministic, indices)

    @staticmethod
    def act_batch(agents: Sequence[PPOAgent], observations: np.ndarray, masks: np.ndarray) -> list[int]:
        """What ``agents[i].act`` plays on observation row ``i`` with mask row ``i``, for agents of one
        :meth:`batch_key` (e.g. one checkpoint at many tables): one forward pass for the whole batch.

        Each agent samples from its own generator, as :meth:`act` does; deterministic play compares the
        logits on the :data:`LOGIT_QUANTUM` grid, so a row's decision does not depend on the batch it was in.
        """
        if not agents:
            return []
        first = agents[0]
        inputs = np.asarray(observations)
        if first.observation_indices is not None:
            inputs = inputs[:, first.observation_indices]
        logits = first.net.logits(inputs)
        if first.deterministic:
            return [quantized_argmax(row, mask) for row, mask in zip(logits, masks, strict=True)]
        return [
            sample_index(agent.rng, masked_distribution(row, mask))
            for agent, row, mask in zip(agents, logits, masks, strict=True)
        ]


def _check_compatible(
    net: PolicyNet, path: str | Path, game: str, num_players: int | None, check_meta: bool = True
) -> np.ndarray | None:
    """Check that ``net`` fits ``game``; the indices of its inputs in the env's observation (``None``: all, as is)."""
    import ice_envs
    from ice_envs.core.errors import OptionError

    spec = ice_envs.get_spec(game)
    trained_on = net.meta.get("game")
    if check_meta and trained_on is not None and trained_on != spec.name:
        raise AgentSpecError(f"{path} was trained on {trained_on!r}, not {spec.name!r}")
    trained_players = net.meta.get("players")
    if check_meta and num_players is not None and trained_players is not None and trained_players != num_players:
        raise AgentSpecError(
            f"{path} was trained for {trained_players} players, not {num_players} "
            "(ppo:PATH?players=any, or check_meta=False, plays it at another player count)"
        )
    n = num_players or trained_players or spec.players[0]
    options = (net.meta.get("options") or {}) if trained_on in (None, spec.name) else {}
    try:
        env = ice_envs.make(spec.name, raw=True, num_players=n, **options)
    except (OptionError, TypeError, ValueError) as exc:
        raise AgentSpecError(f"{path}: its recorded game options do not build {spec.name}: {exc}") from None
    agent = env.possible_agents[0]
    obs_size = int(np.prod(env.observation_space(agent)["observation"].shape))
    n_actions = int(env.action_space(agent).n)
    recorded = net.meta.get("observation_pieces")
    layout = getattr(env, "obs_layout", None)
    if n_actions == net.n_actions and recorded is not None and layout is not None:
        if recorded == observation_pieces(layout):
            return None
        return _piece_indices(layout, [(str(name), int(size)) for name, size in recorded], path, spec.name)
    if (obs_size, n_actions) != (net.obs_size, net.n_actions):
        raise AgentSpecError(
            f"{path} expects observations of size {net.obs_size} and {net.n_actions} actions; "
            f"{spec.name} with {n} players has {obs_size} and {n_actions}"
        )
    return None


def observation_pieces(layout: Any) -> list[list[Any]]:
    """``[name, size]`` of each piece of an observation layout, in order (what a checkpoint records)."""
    return [[name, size] for name, size in layout.sizes()]


def _check_pieces(pieces: Any, obs_size: int, where: str) -> None:
    """Raise :class:`AgentSpecError` unless ``pieces`` is a list of ``[name, size]`` adding up to ``obs_size``."""
    ok = isinstance(pieces, list) and all(
        isinstance(p, list) and len(p) == 2 and isinstance(p[0], str) and type(p[1]) is int and p[1] >= 0
        for p in pieces
    )
    if not ok:
        raise AgentSpecError(f"{where}meta data 'observation_pieces' must be a list of [name, size] pairs")
    names = [p[0] for p in pieces]
    if len(set(names)) != len(names):
        raise AgentSpecError(f"{where}meta data 'observation_pieces' names a piece twice")
    total = sum(p[1] for p in pieces)
    if total != obs_size:
        raise AgentSpecError(
            f"{where}meta data 'observation_pieces' add up to {total} entries, but the network takes {obs_size}"
        )


def _piece_indices(layout: Any, pieces: list[tuple[str, int]], path: str | Path, game: str) -> np.ndarray:
    """Indices of the recorded ``pieces`` in the env's observation, or :class:`AgentSpecError` naming the first misfit."""
    try:
        return layout.indices(pieces)
    except (KeyError, ValueError) as exc:
        raise AgentSpecError(f"{path} was trained on observation pieces that {game} no longer has: {exc}") from None
