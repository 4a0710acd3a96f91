"""The contract checks made once per game: its registration, its observation table, its Gymnasium id
and a two-update training run. Each takes the game's short :class:`~ice_envs.testing.cases.Case`
(the spec's ``quick`` game, or the options given to ``check_game``)."""

from __future__ import annotations

import tempfile
from pathlib import Path

import numpy as np

import ice_envs
from ice_envs.core import protocols
from ice_envs.core.aec import IceAECEnv
from ice_envs.core.agent import Agent
from ice_envs.core.errors import MissingExtraError, require_extra
from ice_envs.core.layout import WHOLE_VECTOR_PIECE, parse_table
from ice_envs.core.registry import load_attribute
from ice_envs.testing.cases import Case

#: Gymnasium steps the id check plays.
GYM_STEPS = 60
#: PPO steps per update of the training smoke run (two updates).
SMOKE_STEPS = 32


class CheckSkipped(Exception):
    """A check that cannot run here (an extra is not installed); the message says why."""


def registration(case: Case) -> None:
    """The game is ``ice_envs.<name>_v<version>`` and PettingZoo's ``ice_envs/<name>-v<version>``; the engine
    has every function the adapter's default hooks call; what the spec names (heuristic, greedy value, UI
    hooks, shaping potentials, batched engine, smoke config, held-out tables) loads and has its protocol's
    members (:mod:`ice_envs.core.protocols`)."""
    from pettingzoo.env_registry.registration import aec_registry

    spec = case.spec
    module = getattr(ice_envs, spec.env_name)
    assert callable(module.env) and callable(module.raw_env), f"{spec.env_module} lacks env() or raw_env()"
    assert spec.env_id in aec_registry, f"{spec.env_id} is not in PettingZoo's registry"
    assert ice_envs.get_spec(spec.env_name) is spec
    raw = module.raw_env(num_players=spec.players[0])
    assert raw.metadata["name"] == spec.env_name, f"the env's metadata name is not {spec.env_name}"
    assert spec.env_name in (module.__doc__ or ""), f"{spec.env_module} docstring does not name {spec.env_name}"
    assert list(spec.variants)[0] == "default", "the first variant must be 'default'"
    _check_engine(raw)
    if spec.heuristic is not None:
        agent = spec.heuristic_class()(0)
        assert isinstance(agent, Agent), f"{spec.heuristic}(seed) is not an Agent (name, needs_view, reset, act)"
    if spec.greedy is not None:
        assert isinstance(spec.greedy_function(), protocols.GreedyValue), f"{spec.greedy} is not callable"
    for name in spec.potentials:
        assert isinstance(spec.potential(name), protocols.ShapingPotential), f"potential {name} is not callable"
    if spec.vector is not None:
        assert load_attribute(spec.vector) is not None, f"{spec.vector} does not load"
    ui = spec.ui_module()
    if ui is not None:
        for hook, protocol in protocols.UI_HOOKS.items():
            assert not hasattr(ui, hook) or isinstance(ui, protocol), f"UI hook {spec.ui}.{hook} is not callable"
        assert isinstance(getattr(ui, "SELECTION_HELP", ""), str), f"{spec.ui}.SELECTION_HELP is not a string"
    smoke = spec.smoke_config_path()
    assert smoke is None or smoke.is_file(), f"smoke config {smoke} is missing"
    for table in spec.held_out:
        assert table.players in spec.players and table.games % table.players == 0, f"held-out table {table}"
        ice_envs.make(spec.name, num_players=table.players, raw=True, **table.options)


#: The adapter's hooks that default to an engine function, and that function's name.
ENGINE_HOOKS = {
    "_new_state": "new_game",
    "_legal_actions": "legal_actions",
    "_apply_action": "apply",
    "_game_over": "is_over",
    "_outcome": "outcome",
    "_scores": "scores",
    "_resample_hidden": "resample_hidden",
}


def _check_engine(raw: IceAECEnv) -> None:
    """Every default hook the adapter keeps has its engine function (:class:`~ice_envs.core.protocols.Engine`)."""
    kept = [hook for hook in ENGINE_HOOKS if getattr(type(raw), hook) is getattr(IceAECEnv, hook)]
    missing = [ENGINE_HOOKS[hook] for hook in kept if not callable(getattr(raw.engine, ENGINE_HOOKS[hook], None))]
    assert not missing, f"the adapter keeps the default hooks of engine functions it lacks: {missing} (set engine=)"


def layout_table(case: Case) -> None:
    """A game that declares its observation pieces documents them: the env module docstring holds the
    layout table (:meth:`~ice_envs.core.layout.ObservationLayout.table`) of ``raw_env()`` with no arguments."""
    spec = case.spec
    module = spec.load()
    layout = module.raw_env().obs_layout
    if layout.names == (WHOLE_VECTOR_PIECE,) and "| Piece" not in (module.__doc__ or ""):
        return  # the default layout of a game that declares none: nothing to document
    expected = layout.table()
    try:
        documented = parse_table(module.__doc__ or "")
    except ValueError:
        documented = None
    assert documented == parse_table(expected), (
        f"the observation table of {module.__name__} is out of date:\n{expected}"
    )


def gym_id(case: Case) -> None:
    """``gym.make("ice_envs/<GameName>-v<version>")`` builds the game's single-agent view, which plays."""
    import gymnasium as gym

    from ice_envs.wrappers import gym_id as id_of

    env = gym.make(id_of(case.game), num_players=case.players, **case.options)
    assert env.spec is not None and env.spec.id == id_of(case.game)
    assert env.unwrapped.game == case.spec.name and env.unwrapped.num_players == case.players
    obs, _ = env.reset(seed=0)
    assert env.observation_space.contains(obs), "the reset observation lies outside the space"
    rng = np.random.default_rng(0)
    for _ in range(GYM_STEPS):
        action = int(rng.choice(np.flatnonzero(env.unwrapped.action_masks())))
        obs, reward, terminated, truncated, info = env.step(action)
        assert env.observation_space.contains(obs) and isinstance(reward, float)
        assert "illegal_action" not in info, "a masked action was refused"
        if terminated or truncated:
            obs, _ = env.reset()
    env.close()


def training(case: Case) -> None:
    """Two PPO updates against random opponents train and write a policy (needs the ``train`` extra;
    no intermediate checkpoint, no resume)."""
    try:
        require_extra(
            "train", "the training smoke run", "torch", "stable_baselines3", "sb3_contrib", "yaml", "pydantic"
        )
    except MissingExtraError as exc:
        raise CheckSkipped(f"training smoke run skipped: {exc}") from None
    from ice_envs.train.config import config_from_dict
    from ice_envs.train.run import train

    with tempfile.TemporaryDirectory(prefix="ice-envs-contract-") as tmp:
        cfg = config_from_dict(
            {
                "name": "contract",
                "game": {"name": case.game, "players": case.players, "options": dict(case.options)},
                "opponents": {"mix": {"random": 1.0}},
                "ppo": {"n_steps": SMOKE_STEPS, "batch_size": SMOKE_STEPS, "n_epochs": 1, "net_arch": [16]},
                "n_envs": 1,
                "vec_env": "dummy",
                "total_timesteps": 2 * SMOKE_STEPS,
                "eval": {"every": 0, "at_start": False, "games": 1, "against": ["random"], "final_games": 2},
                "checkpoint_every": 0,
                "seed": 0,
                "torch_threads": 1,
                "out_dir": tmp,
            }
        )
        result = train(cfg, Path(tmp) / "run", command="ice_envs.testing", echo=False)
        assert result.final_model.is_file(), "training wrote no final model"
        assert result.report["results"]["random"]["games"] == 2, "the final evaluation did not play its games"
