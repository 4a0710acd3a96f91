"""Hostile PPO checkpoints: nothing is unpickled, every network is checked at load, errors name the file."""

from __future__ import annotations

import base64
import io
import json
import os
import pickle
import zipfile
from pathlib import Path

import numpy as np
import pytest

import ice_envs
from ice_envs.agents.ppo_agent import PolicyNet, PPOAgent, load_policy_net
from ice_envs.core.errors import AgentSpecError

SHIPPED = sorted((Path(__file__).resolve().parents[2] / "checkpoints").glob("*/final.npz"))
CARDICEO = {"game": "cardiceo", "players": 2, "options": {"hand_size": 5}}
#: The size of Cardiceo's observation (the synthetic checkpoints below are made for it).
CARDICEO_OBS = ice_envs.make("cardiceo", num_players=2, raw=True).obs_layout.size


class Payload:
    """Unpickling this writes the marker file (what a crafted checkpoint would run)."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self):
        return (os.system, (f"touch {self.marker}",))


def cardiceo_net(meta: dict | None = None, obs: int = CARDICEO_OBS, actions: int = 10) -> PolicyNet:
    rng = np.random.default_rng(0)
    shapes = [(8, obs), (8, 8), (actions, 8)]
    weights = tuple(rng.normal(size=s).astype(np.float32) for s in shapes)
    biases = tuple(np.zeros(s[0], dtype=np.float32) for s in shapes)
    return PolicyNet(weights, biases, "tanh", dict(CARDICEO if meta is None else meta))


def write_npz(path: Path, **arrays) -> Path:
    np.savez(path, **arrays)
    return path


def npz_arrays(net: PolicyNet) -> dict:
    arrays = {f"w{i}": w for i, w in enumerate(net.weights)}
    arrays.update({f"b{i}": b for i, b in enumerate(net.biases)})
    arrays["activation"] = np.array(net.activation)
    arrays["meta"] = np.array(json.dumps(net.meta))
    return arrays


def play_one_game(agent: PPOAgent, game: str, players: int, options: dict) -> None:
    env = ice_envs.make(game, num_players=players, **options)
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    for name in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        action = agent.act(obs) if name == "player_0" else int(rng.choice(np.flatnonzero(obs["action_mask"])))
        assert obs["action_mask"][action] == 1
        env.step(action)


# ------------------------------------------------------------------------------ .npz
def test_a_good_npz_loads(tmp_path):
    net = cardiceo_net()
    net.save_npz(tmp_path / "ok.npz")
    agent = PPOAgent.load(tmp_path / "ok.npz", game="cardiceo", num_players=2)
    assert all(np.array_equal(a, b) for a, b in zip(agent.net.weights, net.weights))
    assert agent.net.meta == net.meta and agent.net.activation == "tanh"
    play_one_game(agent, "cardiceo", 2, {"hand_size": 5})


@pytest.mark.parametrize(
    "data",
    [b"", b"PK\x03\x04 not really a zip", os.urandom(4096), b"\x93NUMPY garbage"],
    ids=["empty", "fake-zip", "random", "npy-magic"],
)
def test_corrupt_and_empty_npz(tmp_path, data):
    path = tmp_path / "bad.npz"
    path.write_bytes(data)
    with pytest.raises(AgentSpecError, match=r"bad\.npz"):
        load_policy_net(path)


def test_truncated_npz(tmp_path):
    cardiceo_net().save_npz(tmp_path / "ok.npz")
    data = (tmp_path / "ok.npz").read_bytes()
    for cut in (10, len(data) // 2, len(data) - 10):
        path = tmp_path / f"cut{cut}.npz"
        path.write_bytes(data[:cut])
        with pytest.raises(AgentSpecError, match=rf"cut{cut}\.npz"):
            load_policy_net(path)


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_non_finite_weights_are_refused(tmp_path, bad):
    arrays = npz_arrays(cardiceo_net())
    arrays["w1"] = arrays["w1"].copy()
    arrays["w1"][2, 3] = bad
    path = write_npz(tmp_path / "nan.npz", **arrays)
    with pytest.raises(AgentSpecError, match=r"nan\.npz: layer 1 has non-finite weights"):
        load_policy_net(path)
    arrays = npz_arrays(cardiceo_net())
    arrays["b2"] = np.full(10, bad, dtype=np.float32)
    with pytest.raises(AgentSpecError, match="non-finite"):
        load_policy_net(write_npz(tmp_path / "nanb.npz", **arrays))


def test_unknown_activation_is_refused_never_run_as_relu(tmp_path):
    arrays = npz_arrays(cardiceo_net())
    for name in ("sigmoid", "ReLU", "", "relu6"):
        arrays["activation"] = np.array(name)
        path = write_npz(tmp_path / f"act{len(name)}.npz", **arrays)
        with pytest.raises(AgentSpecError, match="unsupported activation"):
            load_policy_net(path)
    arrays["activation"] = np.array([1, 2])
    with pytest.raises(AgentSpecError, match="'activation' must be a text scalar"):
        load_policy_net(write_npz(tmp_path / "actarr.npz", **arrays))


def test_broken_layer_chain(tmp_path):
    good = npz_arrays(cardiceo_net())
    cases = {
        "inputs": {"w1": np.zeros((8, 7), np.float32)},
        "bias": {"b0": np.zeros(5, np.float32)},
        "ndim": {"w0": np.zeros(104, np.float32)},
        "dtype": {"w0": np.array([["a"] * 104] * 8)},
    }
    for name, change in cases.items():
        with pytest.raises(AgentSpecError, match=rf"{name}\.npz: (broken layer chain|layer 0)"):
            load_policy_net(write_npz(tmp_path / f"{name}.npz", **{**good, **change}))
    missing = {k: v for k, v in good.items() if k != "b1"}
    with pytest.raises(AgentSpecError, match="broken layer chain"):
        load_policy_net(write_npz(tmp_path / "missing.npz", **missing))
    with pytest.raises(AgentSpecError, match="unexpected array"):
        load_policy_net(write_npz(tmp_path / "extra.npz", **good, x=np.zeros(3)))


def test_object_arrays_are_never_unpickled(tmp_path):
    marker = tmp_path / "pwned"
    arrays = npz_arrays(cardiceo_net())
    arrays["meta"] = np.array([Payload(marker)], dtype=object)
    np.savez(tmp_path / "obj.npz", **arrays)
    with pytest.raises(AgentSpecError, match=r"obj\.npz"):
        load_policy_net(tmp_path / "obj.npz")
    assert not marker.exists()


def test_bad_meta_data(tmp_path):
    arrays = npz_arrays(cardiceo_net())
    for meta, match in (("{nope", "not valid JSON"), ("[1]", "meta data must be a JSON object"),
                        ('{"players": "2"}', "'players' must be a positive integer"),
                        ('{"game": 5}', "'game' must be a string")):  # fmt: skip
        arrays["meta"] = np.array(meta)
        with pytest.raises(AgentSpecError, match=match):
            load_policy_net(write_npz(tmp_path / f"meta{len(meta)}.npz", **arrays))


def test_observation_and_action_sizes_must_fit(tmp_path):
    cardiceo_net(obs=50).save_npz(tmp_path / "obs.npz")
    with pytest.raises(AgentSpecError, match="expects observations of size 50 and 10 actions"):
        PPOAgent.load(tmp_path / "obs.npz", game="cardiceo", num_players=2)
    cardiceo_net(actions=7).save_npz(tmp_path / "act.npz")
    with pytest.raises(AgentSpecError, match=f"expects observations of size {CARDICEO_OBS} and 7 actions"):
        PPOAgent.load(tmp_path / "act.npz", game="cardiceo", num_players=2)


def test_a_four_player_checkpoint_at_two_players(tmp_path):
    cardiceo_net({"game": "cardiceo", "players": 4, "options": {}}).save_npz(tmp_path / "four.npz")
    with pytest.raises(AgentSpecError, match=r"four\.npz was trained for 4 players, not 2"):
        PPOAgent.load(tmp_path / "four.npz", game="cardiceo", num_players=2)
    agent = PPOAgent.load(tmp_path / "four.npz", game="cardiceo", num_players=2, check_meta=False)
    play_one_game(agent, "cardiceo", 2, {})
    assert PPOAgent.load(tmp_path / "four.npz", game="cardiceo", num_players=4).net.meta["players"] == 4


def test_another_game_is_refused(tmp_path):
    cardiceo_net().save_npz(tmp_path / "c.npz")
    other = next(g for g in sorted(ice_envs.GAMES) if g != "cardiceo")
    with pytest.raises(AgentSpecError, match="was trained on 'cardiceo'"):
        PPOAgent.load(tmp_path / "c.npz", game=other)


@pytest.mark.parametrize("suffix", [".npz", ".zip"])
def test_directories_devices_and_missing_paths(tmp_path, suffix):
    folder = tmp_path / f"folder{suffix}"
    folder.mkdir()
    with pytest.raises(AgentSpecError, match="not a regular file"):
        PPOAgent.load(folder)
    with pytest.raises(AgentSpecError, match="ppo checkpoint not found"):
        PPOAgent.load(tmp_path / f"missing{suffix}")
    if Path("/dev/zero").exists():
        with pytest.raises(AgentSpecError, match="/dev/zero: not a regular file"):
            PPOAgent.load("/dev/zero")
    other = tmp_path / "policy.pkl"
    other.write_bytes(pickle.dumps({"w": 1}))
    with pytest.raises(AgentSpecError, match="must be a MaskablePPO .zip or a policy .npz"):
        PPOAgent.load(other)


@pytest.mark.parametrize("path", SHIPPED, ids=[p.parent.name for p in SHIPPED])
def test_shipped_checkpoints_load_and_play(path):
    net = load_policy_net(path)
    meta = net.meta
    agent = PPOAgent.load(path, game=meta["game"], num_players=meta["players"])
    play_one_game(agent, meta["game"], meta["players"], meta.get("options") or {})


# ------------------------------------------------------------------------------ .zip
@pytest.fixture(scope="module")
def tiny_zip(tmp_path_factory) -> tuple[Path, object]:
    pytest.importorskip("sb3_contrib")
    import torch
    from sb3_contrib import MaskablePPO

    from ice_envs.wrappers.single_agent import SingleAgentEnv

    env = SingleAgentEnv("cardiceo", 2, {"hand_size": 5})
    kwargs = {"net_arch": [8, 8], "activation_fn": torch.nn.ReLU}
    model = MaskablePPO("MlpPolicy", env, n_steps=16, batch_size=16, policy_kwargs=kwargs, seed=0, device="cpu")
    path = tmp_path_factory.mktemp("zip") / "tiny.zip"
    model.save(path)
    return path, model


def rewrite_zip(src: Path, dst: Path, new_data: dict | None = None, **members: bytes | None) -> Path:
    """A copy of the ``.zip`` ``src`` with its ``data`` JSON replaced and members replaced (``None``: dropped)."""
    with zipfile.ZipFile(src) as old, zipfile.ZipFile(dst, "w") as new:
        for info in old.infolist():
            if info.filename in members:
                continue
            payload = old.read(info.filename)
            if info.filename == "data" and new_data is not None:
                payload = json.dumps(new_data).encode()
            new.writestr(info.filename, payload)
        for name, payload in members.items():
            if payload is not None:
                new.writestr(name, payload)
    return dst


def zip_data(path: Path) -> dict:
    with zipfile.ZipFile(path) as archive:
        return json.loads(archive.read("data"))


def observations(n: int) -> list[dict]:
    env = ice_envs.make("cardiceo", num_players=2, hand_size=5)
    env.reset(seed=1)
    rng = np.random.default_rng(1)
    out = []
    while len(out) < n:
        for _ in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            out.append(obs)
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        env.reset()
    return out[:n]


def test_a_real_sb3_save_holds_the_activation_as_plain_text(tiny_zip):
    path, _ = tiny_zip
    kwargs = zip_data(path)["policy_kwargs"]
    assert ":serialized:" in kwargs and kwargs["net_arch"] == [8, 8]
    assert kwargs["activation_fn"] == "<class 'torch.nn.modules.activation.ReLU'>"


def test_a_real_zip_loads_and_acts_as_maskable_ppo(tiny_zip):
    path, model = tiny_zip
    agent = PPOAgent.load(path, game="cardiceo", num_players=2)
    assert agent.net.activation == "relu" and [w.shape[0] for w in agent.net.weights] == [8, 8, 10]
    for obs in observations(60):
        action, _ = model.predict(obs["observation"], action_masks=obs["action_mask"].astype(bool), deterministic=True)
        assert agent.act(obs) == int(action)


def test_serialized_payloads_in_data_are_never_unpickled(tiny_zip, tmp_path):
    path, model = tiny_zip
    marker = tmp_path / "pwned"
    evil = base64.b64encode(pickle.dumps(Payload(marker))).decode()
    data = zip_data(path)
    data["policy_kwargs"][":serialized:"] = evil
    data["ice_envs"] = {":type:": "<class 'dict'>", ":serialized:": evil, "game": "cardiceo", "players": 2}
    data["observation_space"][":serialized:"] = evil
    crafted = rewrite_zip(path, tmp_path / "crafted.zip", data)
    try:
        agent = PPOAgent.load(crafted, game="cardiceo", num_players=2)
    except AgentSpecError as exc:
        assert "crafted.zip" in str(exc)
    else:  # the payload was ignored: the very same policy
        obs = observations(5)
        assert [agent.act(o) for o in obs] == [PPOAgent.load(path).act(o) for o in obs]
    assert not marker.exists()
    # policy_kwargs that are only a pickle are refused (the activation cannot be known)
    only = rewrite_zip(path, tmp_path / "only.zip", {**data, "policy_kwargs": {":serialized:": evil}})
    with pytest.raises(AgentSpecError, match=r"only\.zip: policy_kwargs are only serialized"):
        load_policy_net(only)
    assert not marker.exists()


def test_a_pickled_policy_pth_is_refused(tiny_zip, tmp_path):
    import torch

    path, _ = tiny_zip
    marker = tmp_path / "pwned"
    buffer = io.BytesIO()
    torch.save({"action_net.weight": Payload(marker)}, buffer)
    crafted = rewrite_zip(path, tmp_path / "pth.zip", **{"policy.pth": buffer.getvalue()})
    with pytest.raises(AgentSpecError, match=r"pth\.zip: policy.pth cannot be read as plain weights"):
        load_policy_net(crafted)
    assert not marker.exists()


def test_zip_activation_and_layer_chain_checks(tiny_zip, tmp_path):
    import torch

    path, _ = tiny_zip
    data = zip_data(path)
    sigmoid = {**data["policy_kwargs"], "activation_fn": "<class 'torch.nn.modules.activation.Sigmoid'>"}
    with pytest.raises(AgentSpecError, match=r"sig\.zip: unsupported activation"):
        load_policy_net(rewrite_zip(path, tmp_path / "sig.zip", {**data, "policy_kwargs": sigmoid}))
    arch = {**data["policy_kwargs"], "net_arch": [8, 9]}
    with pytest.raises(AgentSpecError, match="broken layer chain: net_arch says"):
        load_policy_net(rewrite_zip(path, tmp_path / "arch.zip", {**data, "policy_kwargs": arch}))
    with zipfile.ZipFile(path) as archive:
        state = torch.load(io.BytesIO(archive.read("policy.pth")), weights_only=True)
    broken = dict(state)
    broken["mlp_extractor.policy_net.2.weight"] = torch.zeros(8, 7)
    buffer = io.BytesIO()
    torch.save(broken, buffer)
    with pytest.raises(AgentSpecError, match=r"chain\.zip: broken layer chain"):
        load_policy_net(rewrite_zip(path, tmp_path / "chain.zip", **{"policy.pth": buffer.getvalue()}))
    nan = dict(state)
    nan["action_net.bias"] = torch.full_like(state["action_net.bias"], float("nan"))
    buffer = io.BytesIO()
    torch.save(nan, buffer)
    with pytest.raises(AgentSpecError, match="non-finite"):
        load_policy_net(rewrite_zip(path, tmp_path / "nan.zip", **{"policy.pth": buffer.getvalue()}))


def test_zip_structure_checks(tiny_zip, tmp_path, monkeypatch):
    from ice_envs.agents import ppo_agent

    path, _ = tiny_zip
    with pytest.raises(AgentSpecError, match=r"no 'data' in the archive"):
        load_policy_net(rewrite_zip(path, tmp_path / "nodata.zip", **{"data": None}))
    with pytest.raises(AgentSpecError, match=r"no 'policy.pth' in the archive"):
        load_policy_net(rewrite_zip(path, tmp_path / "nopth.zip", **{"policy.pth": None}))
    for name, payload in (("garbage", b"\xff\xfe not json"), ("list", b"[1, 2]"), ("deep", b"[" * 5000 + b"]" * 5000)):
        with pytest.raises(AgentSpecError, match=rf"{name}\.zip"):
            load_policy_net(rewrite_zip(path, tmp_path / f"{name}.zip", **{"data": payload}))
    data = path.read_bytes()
    (tmp_path / "cut.zip").write_bytes(data[: len(data) // 2])
    with pytest.raises(AgentSpecError, match=r"cut\.zip"):
        load_policy_net(tmp_path / "cut.zip")
    monkeypatch.setattr(ppo_agent, "MAX_DATA_BYTES", 100)
    with pytest.raises(AgentSpecError, match="larger than the limit of 100"):
        load_policy_net(rewrite_zip(path, tmp_path / "big.zip"))


def test_a_four_player_zip_at_two_players(tiny_zip, tmp_path):
    path, _ = tiny_zip
    data = {**zip_data(path), "ice_envs": {"game": "cardiceo", "players": 4, "options": {}}}
    four = rewrite_zip(path, tmp_path / "four.zip", data)
    with pytest.raises(AgentSpecError, match="trained for 4 players, not 2"):
        PPOAgent.load(four, game="cardiceo", num_players=2)
    assert PPOAgent.load(four, game="cardiceo", num_players=2, check_meta=False).net.meta["players"] == 4


# ------------------------------------------------------------------ training resume state
def test_resume_state_is_json_and_checked(tmp_path):
    from ice_envs.train.checkpoints import decode_state, encode_state, read_state, state_path
    from ice_envs.train.config import ConfigError

    zip_path = tmp_path / "step_000000000128.zip"
    state = state_path(zip_path)
    assert state.name == "step_000000000128.state.json"
    marker = tmp_path / "pwned"
    state.write_bytes(pickle.dumps(Payload(marker)))
    with pytest.raises(ConfigError, match=r"state\.json"):
        read_state(zip_path)
    assert not marker.exists()
    state.write_text(json.dumps({"kind": "ice-envs training state", "format": 4}))
    with pytest.raises(ConfigError, match="missing fields"):
        read_state(zip_path)
    for bad in ({"$object": "os:system", "id": 0, "attrs": {}}, {"$object": "builtins:eval", "id": 0, "attrs": {}},
                {"$pickle": "gAR9lC4="}, {"$array": "O", "shape": [1], "data": [1]},
                {"$generator": 0, "state": {"bit_generator": "os.system"}}):  # fmt: skip
        with pytest.raises(ConfigError, match="field 'envs\\[0\\]"):
            decode_state(bad, source=str(state), where="envs[0]")
    value = {"a": (1, 2.5), "x": np.arange(4, dtype=np.int8), "f": np.float32(0.5), "n": float("nan")}
    back = decode_state(json.loads(json.dumps(encode_state(value))), source="x", where="v")
    assert back["a"] == (1, 2.5) and back["x"].dtype == np.int8 and back["f"].dtype == np.float32
    assert np.isnan(back["n"])
    for unsaved in (np.random.default_rng(1), {3: 1}, {1, 2}, b"bytes", slice(1, 2)):  # declared state only
        with pytest.raises(TypeError, match="cannot save"):
            encode_state(unsaved)
