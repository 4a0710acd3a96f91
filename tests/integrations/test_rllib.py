"""RLlib multi-agent PPO: the env adapter, the training backend, and its policies as ``rllib:PATH`` agents.

One local Ray (2 CPUs) per module; every training run is a few hundred steps.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

ray = pytest.importorskip("ray")
pytest.importorskip("torch")

import ice_envs  # noqa: E402
from ice_envs.agents.spec import AgentSpecError, load_agent, parse_agent_spec  # noqa: E402
from ice_envs.cli import main as cli_main  # noqa: E402
from ice_envs.core.errors import OptionError  # noqa: E402
from ice_envs.train.config import ConfigError, RLlibTrainConfig, TrainConfig, load_config  # noqa: E402
from ice_envs.train.run import torch_cpu_kernels  # noqa: E402
from ice_envs.wrappers.rllib import IceMultiAgentEnv, RLlibObservationKeys  # noqa: E402

SMOKE = Path(__file__).resolve().parents[2] / "train" / "configs" / "cardiceo_rllib_smoke_ppo.yaml"
FULL = SMOKE.with_name("cardiceo_rllib_ppo.yaml")


@pytest.fixture(scope="module")
def local_ray():
    """One local Ray for the module (its start-up is most of the cost of these tests)."""
    started = not ray.is_initialized()
    if started:
        ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield
    if started:
        ray.shutdown()


def masked_random(obs: dict, rng: np.random.Generator) -> int:
    legal = np.flatnonzero(obs["action_mask"] > 0)
    return int(rng.choice(legal))


# ---------------------------------------------------------------------------- the env adapter


@pytest.mark.parametrize(
    ("game", "players", "opponents"), [("cardiceo", 2, []), ("tip_of_the_diceberg", 3, ["random"])]
)
def test_adapter_plays_whole_games_turn_by_turn(game, players, opponents):
    env = IceMultiAgentEnv({"game": game, "num_players": players, "opponents": opponents})
    rng = np.random.default_rng(0)
    for episode in range(3):
        obs, infos = env.reset(seed=episode)
        learners = set(env.agents)
        assert len(learners) == players - len(opponents)
        totals = dict.fromkeys(env.possible_agents, 0.0)
        done = False
        steps = 0
        while not done:
            assert len(obs) == 1 and set(obs) <= learners  # only the learning seat to move
            ((agent_id, ob),) = obs.items()
            assert set(ob) == {"observations", "action_mask"} and ob["action_mask"].dtype == np.float32
            assert env.observation_spaces[agent_id].contains(ob)
            obs, rewards, terms, truncs, infos = env.step({agent_id: masked_random(ob, rng)})
            for a, r in rewards.items():
                totals[a] += r
            done = terms["__all__"] or truncs["__all__"]
            if done:
                assert set(obs) == learners  # every learning seat sees the end
                obs = {}
            steps += 1
        assert steps <= ice_envs.get_spec(game).max_random_decisions
        shares = env.env.unwrapped.win_shares()
        for agent_id in learners:  # each learning seat got its outcome reward: positive exactly for a winner
            won = shares[env.possible_agents.index(agent_id)] > 0
            assert (totals[agent_id] > 0) == won, (agent_id, totals, shares)


def test_adapter_length_cap_truncates():
    env = IceMultiAgentEnv({"game": "cardiceo", "num_players": 2, "max_decisions": 5})
    obs, _ = env.reset(seed=3)
    rng = np.random.default_rng(1)
    for _ in range(5):
        ((agent_id, ob),) = obs.items()
        obs, _, terms, truncs, _ = env.step({agent_id: masked_random(ob, rng)})
        if truncs["__all__"]:
            break
    assert truncs["__all__"] and not terms["__all__"]


def test_adapter_rejects_bad_env_config():
    with pytest.raises(OptionError, match="unknown env_config key"):
        IceMultiAgentEnv({"game": "cardiceo", "players": 2})
    with pytest.raises(OptionError, match="no learning seat"):
        IceMultiAgentEnv({"game": "cardiceo", "num_players": 2, "opponents": ["random", "random"]})
    with pytest.raises(OptionError, match="max_decisions"):
        IceMultiAgentEnv({"game": "cardiceo", "max_decisions": 0})


def test_observation_keys_with_rllibs_own_pettingzoo_env():
    from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv

    env = PettingZooEnv(RLlibObservationKeys(ice_envs.make("cubemelt", num_players=2)))
    obs, _ = env.reset(seed=0)
    rng = np.random.default_rng(0)
    for _ in range(ice_envs.get_spec("cubemelt").max_random_decisions):
        ((agent_id, ob),) = obs.items()
        assert set(ob) == {"observations", "action_mask"}
        obs, _, terms, truncs, _ = env.step({agent_id: masked_random(ob, rng)})
        if terms["__all__"] or truncs["__all__"]:
            break
    assert terms["__all__"] or truncs["__all__"]


# ---------------------------------------------------------------------------- configs


def test_backend_switch(capsys):
    assert isinstance(load_config(SMOKE), RLlibTrainConfig)
    sb3 = load_config(SMOKE.with_name("cardiceo_ppo.yaml"), ["backend=sb3"])
    assert isinstance(sb3, TrainConfig) and sb3.name == "cardiceo_ppo"
    assert cli_main(["train", str(SMOKE), "--print-config"]) == 0
    assert "backend: rllib" in capsys.readouterr().out
    assert cli_main(["train", str(SMOKE), "--set", "backend=jax", "--print-config"]) == 2
    assert "backend: 'jax' is not one of ['sb3', 'rllib']" in capsys.readouterr().err


def test_config_keys_are_checked_by_name():
    cfg = load_config(SMOKE)
    assert cfg.backend == "rllib" and cfg.ray.address is None and cfg.ray.num_cpus == 2
    assert load_config(FULL).ray.num_env_runners == 1
    for override, key in [
        ("ray.adress=auto", "ray.adress"),
        ("ray.num_env_runners=-1", "ray.num_env_runners"),
        ("ppo.minibatch_size=100000", "ppo.minibatch_size"),
        ("model.hidden=[]", "model.hidden"),
        ("opponents=[nobody]", "opponents[0]"),
        ("game.learner_seat=0", "game.learner_seat"),
        ("iterations=0", "iterations"),
        ("backend=tf", "backend"),
    ]:
        with pytest.raises(ConfigError, match=key.replace("[", r"\[").replace("]", r"\]")):
            load_config(SMOKE, [override])


# ---------------------------------------------------------------------------- training and evaluation


@pytest.mark.parametrize("shared_encoder", [False, True])
def test_exported_policy_matches_the_rlmodule(local_ray, tmp_path, shared_encoder):
    import torch
    from ray.rllib.core.columns import Columns

    from ice_envs.agents.ppo_agent import PolicyNet
    from ice_envs.train.rllib_backend import POLICY_ID, build_algorithm, export_policy

    cfg = load_config(SMOKE, [f"model.vf_share_layers={str(shared_encoder).lower()}", "model.activation=relu"])
    algo = build_algorithm(cfg)
    try:
        path = export_policy(algo, cfg, tmp_path / "p.npz", 0, 0)
        module = algo.learner_group._learner.module[POLICY_ID]
        env = IceMultiAgentEnv(cfg.env_config())
        obs, _ = env.reset(seed=5)
        ((_, ob),) = obs.items()
        batch = {
            Columns.OBS: {
                "observations": torch.as_tensor(ob["observations"][None]),
                "action_mask": torch.as_tensor(ob["action_mask"][None]),
            }
        }
        with torch.no_grad():
            logits = module.forward_inference(batch)[Columns.ACTION_DIST_INPUTS][0].numpy()
    finally:
        algo.stop()
    net = PolicyNet.load_npz(path)
    legal = ob["action_mask"] > 0
    np.testing.assert_allclose(net.logits(ob["observations"])[legal], logits[legal], rtol=1e-5, atol=1e-5)
    assert net.meta["backend"] == "rllib" and net.meta["game"] == "cardiceo"


@pytest.mark.parametrize(
    ("game", "players", "opponents"), [("cardiceo", 2, "[]"), ("tip_of_the_diceberg", 3, "[random]")]
)
def test_train_two_games_then_evaluate_the_checkpoint(local_ray, tmp_path, game, players, opponents):
    """RLlib multi-agent PPO for a few iterations on a local Ray, then the run as an ``rllib:`` agent."""
    run_dir = tmp_path / "run"
    code = cli_main(
        [
            "train",
            str(SMOKE),
            "--run-dir",
            str(run_dir),
            "--quiet",
            "--set",
            f"game.name={game}",
            "--set",
            f"game.players={players}",
            "--set",
            f"opponents={opponents}",
            "--set",
            "eval.games=0",
        ]
    )
    assert code == 0
    for name in ("config.yaml", "meta.json", "final.npz", "evaluation.json", "progress.jsonl"):
        assert (run_dir / name).is_file(), name
    assert list((run_dir / "tb" / "rllib_1").glob("events.out.tfevents.*"))
    assert (run_dir / "policies" / "iter_2.npz").is_file()
    assert (run_dir / "checkpoints" / "iter_2" / "rllib_checkpoint.json").is_file()
    meta = json.loads((run_dir / "meta.json").read_text())
    assert meta["backend"] == "rllib" and meta["versions"]["ray"] == ray.__version__ and meta["machine"]
    assert meta["sessions"][0]["torch_cpu_kernels"] == torch_cpu_kernels()
    rows = [json.loads(line) for line in (run_dir / "progress.jsonl").read_text().splitlines()]
    assert [r["iteration"] for r in rows] == [1, 2] and rows[-1]["timesteps"] >= 800
    assert cli_main(["train", "--resume", str(run_dir)]) == 2  # --resume is for SB3 runs, and says so

    out = tmp_path / "eval"
    agents = ",".join([f"rllib:{run_dir}"] + ["random"] * (players - 1))
    code = cli_main(
        ["evaluate", game, "--players", str(players), "--agents", agents, "--games", str(4 * players)]
        + ["--out", str(out), "--no-progress"]
    )
    assert code == 0
    summary = json.loads((out / "evaluation.json").read_text())
    row = summary["per_agent"][0]
    assert row["spec"] == "rllib:run" and row["games"] == 4 * players
    assert summary["truncated_games"] == 0


def test_rllib_agent_specs_are_checked(tmp_path):
    assert parse_agent_spec("rllib:runs/x").label == "rllib:x"
    assert parse_agent_spec("rllib:runs/x?players=any").any_players
    with pytest.raises(AgentSpecError, match="rllib:PATH"):
        parse_agent_spec("rllib:")
    with pytest.raises(AgentSpecError, match="not found"):
        load_agent("rllib:/nonexistent/run.npz", "cardiceo")
    with pytest.raises(AgentSpecError, match="no final.npz"):
        load_agent(f"rllib:{tmp_path}", "cardiceo")
    ckpt = tmp_path / "ckpt"
    ckpt.mkdir()
    (ckpt / "rllib_checkpoint.json").write_text("{}")
    with pytest.raises(AgentSpecError, match="never loaded"):
        load_agent(f"rllib:{ckpt}", "cardiceo")
    ppo_snapshot = Path(__file__).resolve().parents[2] / "checkpoints"
    snapshots = sorted(ppo_snapshot.glob("*_ppo/final.npz"))
    if snapshots:  # a PPO snapshot is not an RLlib policy
        with pytest.raises(AgentSpecError, match="not a policy of the RLlib backend"):
            load_agent(f"rllib:{snapshots[0]}", "cardiceo")
