"""Gymnasium ids of every game: ``gym.make`` per case, both env checkers, exact masks, seeding, opponents.

The cases come from ``ice_envs.GAMES`` (built-in and plug-in games), so a new game is covered the
moment it registers. What the registries do without ``import ice_envs`` is checked in a fresh
interpreter (the module syntax ``ice_envs:ice_envs/...`` works; a bare id does not).
"""

from __future__ import annotations

import subprocess
import sys
import warnings

import gymnasium as gym
import numpy as np
import pytest

import ice_envs
from ice_envs.core.agent import SeededAgent
from ice_envs.core.errors import AgentSpecError, OptionError
from ice_envs.core.registry import all_cases
from ice_envs.wrappers import FixedOpponents, SingleAgentEnv, gym_id, gym_ids, register_envs
from ice_envs.wrappers.registration import ENTRY_POINT

GAMES = sorted(ice_envs.GAMES)
CASES = [pytest.param(g, n, opts, id=f"{g}-{v}-{n}p") for g, v, n, opts in all_cases()]
#: Learner decisions played per case (masked random actions).
STEPS = 30


def _smallest(game: str) -> int:
    return min(ice_envs.get_spec(game).players)


def _masked(env: gym.Env, rng: np.random.Generator) -> int:
    return int(rng.choice(np.flatnonzero(env.unwrapped.action_masks())))


def test_the_ids_follow_the_scheme():
    built_in = {
        "cardiceo": "ice_envs/Cardiceo-v1",
        "cubemelt": "ice_envs/Cubemelt-v1",
        "iceberg_rummy": "ice_envs/IcebergRummy-v1",
        "icebergs": "ice_envs/Icebergs-v1",
        "tip_of_the_diceberg": "ice_envs/TipOfTheDiceberg-v1",
    }
    assert {g: i for g, i in gym_ids().items() if g in built_in} == built_in
    assert sorted(gym_ids()) == GAMES
    for game in GAMES:
        spec = ice_envs.get_spec(game)
        assert gym_id(game) == gym_id(spec.env_name) == gym_id(spec)
        assert gym_id(game).endswith(f"-v{spec.version}")
        registered = gym.registry[gym_id(game)]
        assert registered.entry_point == ENTRY_POINT and registered.kwargs == {"game": game}


def test_registering_again_changes_nothing():
    before = dict(gym.registry)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert sorted(register_envs()) == sorted(gym_ids().values())
    assert dict(gym.registry) == before


def test_a_colliding_id_is_left_alone_with_a_warning(monkeypatch):
    env_id = gym_id("cardiceo")
    taken = gym.registry[env_id]
    monkeypatch.setitem(gym.registry, env_id, gym.envs.registration.EnvSpec(env_id, entry_point="other.module:Env"))
    with pytest.warns(UserWarning, match="already registered"):
        ids = register_envs()
    assert env_id not in ids and gym.registry[env_id].entry_point == "other.module:Env"
    monkeypatch.setitem(gym.registry, env_id, taken)


@pytest.mark.parametrize("game,n,opts", CASES)
def test_gym_make_plays_every_case(game, n, opts):
    env = gym.make(gym_id(game), num_players=n, **opts)
    assert env.spec is not None and env.spec.id == gym_id(game)
    assert env.unwrapped.num_players == n and env.unwrapped.game == game
    obs, info = env.reset(seed=0)
    assert env.observation_space.contains(obs)
    rng = np.random.default_rng(0)
    for _ in range(STEPS):
        obs, reward, terminated, truncated, info = env.step(_masked(env, rng))
        assert env.observation_space.contains(obs) and isinstance(reward, float)
        assert "illegal_action" not in info
        if terminated or truncated:
            assert "episode" in info
            obs, info = env.reset()
    env.close()


@pytest.mark.parametrize("game", GAMES)
def test_gymnasium_env_checker_passes_on_the_id(game):
    from gymnasium.utils.env_checker import check_env

    env = gym.make(gym_id(game), num_players=_smallest(game))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_env(env.unwrapped)  # with a spec: also every render mode, made through the registry
    assert [str(w.message) for w in caught] == []


@pytest.mark.parametrize("game", GAMES)
def test_stable_baselines3_env_checker_passes_on_the_id(game):
    pytest.importorskip("stable_baselines3")
    from stable_baselines3.common.env_checker import check_env

    env = gym.make(gym_id(game), num_players=_smallest(game))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_env(env)


@pytest.mark.parametrize("game", GAMES)
def test_action_masks_are_the_games_own(game):
    """The mask is exact: every masked action is legal and every other one would be refused by the game."""
    env = gym.make(gym_id(game), num_players=_smallest(game), illegal_action="raise")
    inner = env.unwrapped
    env.reset(seed=1)
    rng = np.random.default_rng(1)
    for _ in range(STEPS):
        mask = env.get_wrapper_attr("action_masks")()
        assert mask.dtype == bool and mask.shape == (env.action_space.n,)
        assert inner.raw.agent_selection == inner.agent
        legal = set(inner.raw.legal_actions())
        assert set(np.flatnonzero(mask).tolist()) == legal
        assert np.array_equal(mask, inner.raw.observe(inner.agent)["action_mask"].astype(bool))
        _, _, terminated, truncated, _ = env.step(_masked(env, rng))
        if terminated or truncated:
            assert env.get_wrapper_attr("action_masks")().all()  # after the end: all True, as documented
            env.reset()


def _trajectory(game: str, seed: int, **kwargs) -> list:
    env = gym.make(gym_id(game), num_players=_smallest(game), **kwargs)
    obs, info = env.reset(seed=seed)
    out: list = [obs.copy(), info["seat"]]
    rng = np.random.default_rng(seed)
    for _ in range(60):
        obs, reward, terminated, truncated, info = env.step(_masked(env, rng))
        out += [obs.copy(), reward, terminated, truncated]
        if terminated or truncated:
            obs, info = env.reset()
            out += [obs.copy(), info["seat"]]
    return out


def _same(a: list, b: list) -> bool:
    return len(a) == len(b) and all(np.array_equal(x, y) for x, y in zip(a, b))


@pytest.mark.parametrize("game", [g for g in GAMES if ice_envs.get_spec(g).heuristic])  # heuristic opponents
def test_the_same_seed_gives_the_same_games(game):
    assert _same(_trajectory(game, 5, opponents="heuristic"), _trajectory(game, 5, opponents="heuristic"))
    assert not _same(_trajectory(game, 5), _trajectory(game, 6))


def test_game_options_are_keywords_and_checked():
    env = gym.make(gym_id("cardiceo"), num_players=3, hand_size=5, max_decisions=40)
    assert env.unwrapped.raw.num_players == 3 and env.unwrapped.raw.max_game_length == 40
    with pytest.raises(OptionError, match="bogus"):
        gym.make(gym_id("cardiceo"), bogus=1)
    with pytest.raises(OptionError):
        gym.make(gym_id("cardiceo"), num_players=9)
    with pytest.raises(OptionError, match="hand_size"):
        SingleAgentEnv("cardiceo", 2, options={"hand_size": 5}, hand_size=6)


@pytest.mark.parametrize("seat", [-1, 3, True, 1.0, "0"])
def test_a_bad_learner_seat_is_refused(seat):
    with pytest.raises(OptionError, match="learner_seat"):
        gym.make(gym_id("cardiceo"), num_players=3, learner_seat=seat)


def test_a_fixed_learner_seat_is_kept_and_a_drawn_one_varies():
    env = gym.make(gym_id("cardiceo"), num_players=4, learner_seat=2)
    assert {env.reset(seed=s)[1]["seat"] for s in range(8)} == {2}
    env = gym.make(gym_id("cardiceo"), num_players=4)
    assert {env.reset(seed=s)[1]["seat"] for s in range(40)} == {0, 1, 2, 3}


class Recorder(SeededAgent):
    """An Agent of the test's own: plays the lowest legal action and counts its decisions."""

    name = "recorder"

    def __init__(self) -> None:
        super().__init__(0)
        self.decisions = 0

    def act(self, observation, view=None) -> int:
        self.decisions += 1
        return int(np.flatnonzero(observation["action_mask"])[0])


def test_opponents_from_specs_one_for_all_and_one_per_seat():
    env = gym.make(gym_id("cardiceo"), num_players=3, opponents="heuristic")
    _, info = env.reset(seed=0)
    assert info["opponents"] == "heuristic"
    assert {type(a).__name__ for a in env.unwrapped.opponents.agents} == {"CardiceoHeuristic"}
    assert len({id(a) for a in env.unwrapped.opponents.agents}) == 2  # a fresh agent per seat

    env = gym.make(gym_id("cardiceo"), num_players=3, opponents=["heuristic", "greedy"], learner_seat=2)
    _, info = env.reset(seed=0)
    assert info["opponents"] == "heuristic,greedy"
    table = env.unwrapped._table
    assert type(table[0]).__name__ == "CardiceoHeuristic" and type(table[1]).__name__ == "GreedyAgent"

    env = gym.make(gym_id("cardiceo"), num_players=3, opponents="mcts:sims=5,rollout=random,random")
    assert env.unwrapped.opponents.label == "mcts:sims=5,rollout=random,random"


def test_an_agent_object_plays_the_opponent_seats():
    agent = Recorder()
    env = gym.make(gym_id("cardiceo"), num_players=3, opponents=agent, hand_size=5)
    _, info = env.reset(seed=0)
    assert info["opponents"] == "recorder"
    rng = np.random.default_rng(0)
    for _ in range(20):
        _, _, terminated, truncated, _ = env.step(_masked(env, rng))
        if terminated or truncated:
            env.reset()
    assert agent.decisions > 0
    assert set(env.unwrapped._table.values()) == {agent}


def test_opponents_sit_from_the_learners_left():
    a, b = Recorder(), Recorder()
    sampler = FixedOpponents("cardiceo", 3, [a, b])
    rng = np.random.default_rng(0)
    assert sampler.draw(rng, [1, 2])[1] == {1: a, 2: b}
    assert sampler.draw(rng, [0, 2])[1] == {2: a, 0: b}
    assert sampler.draw(rng, [0, 1])[1] == {0: a, 1: b}


@pytest.mark.parametrize(
    "opponents,match",
    [
        ("bogus", "unknown agent"),
        (["heuristic", "random", "random"], "3 agents given for the 2 opponent seats"),
        ([], "no agent given"),
        (42, "opponents=42"),
        ("mcts:sims=0", "sims"),
    ],
)
def test_bad_opponents_are_refused(opponents, match):
    with pytest.raises(AgentSpecError, match=match):
        gym.make(gym_id("cardiceo"), num_players=3, opponents=opponents)


def test_a_solo_game_has_no_opponents():
    env = gym.make(gym_id("icebergs"), num_players=1, solo=True, opponents="heuristic")
    _, info = env.reset(seed=0)
    assert info["opponents"] == "solo" and info["seat"] == 0


def test_a_ppo_checkpoint_plays_as_an_opponent():
    path = "checkpoints/cardiceo_ppo/final.npz"
    players = 4
    env = gym.make(gym_id("cardiceo"), num_players=players, opponents=f"ppo:{path}")
    _, info = env.reset(seed=0)
    assert info["opponents"] == "ppo:final.npz"
    rng = np.random.default_rng(0)
    for _ in range(10):
        _, _, terminated, truncated, _ = env.step(_masked(env, rng))
        if terminated or truncated:
            env.reset()


def _fresh(code: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)


def test_without_import_ice_envs_only_the_module_syntax_finds_the_ids():
    proc = _fresh(
        "import gymnasium as gym\n"
        "try:\n"
        "    gym.make('ice_envs/Cardiceo-v1')\n"
        "except gym.error.NamespaceNotFound:\n"
        "    print('bare: NamespaceNotFound')\n"
        "env = gym.make('ice_envs:ice_envs/Cardiceo-v1', num_players=2)\n"
        "print('module syntax:', env.spec.id, env.reset(seed=0)[0].shape)\n"
    )
    assert proc.returncode == 0, proc.stderr
    assert "bare: NamespaceNotFound" in proc.stdout and "module syntax: ice_envs/Cardiceo-v1" in proc.stdout


def test_pettingzoo_registry_needs_import_ice_envs():
    pettingzoo = pytest.importorskip("pettingzoo")
    if not hasattr(pettingzoo, "make"):
        pytest.skip("this PettingZoo has no registry")
    proc = _fresh(
        "import pettingzoo\n"
        "try:\n"
        "    pettingzoo.make('aec', 'ice_envs/cardiceo-v1')\n"
        "except Exception as exc:\n"
        "    print('before:', type(exc).__name__)\n"
        "import ice_envs\n"
        "env = pettingzoo.make('aec', 'ice_envs/cardiceo-v1', num_players=3)\n"
        "env.reset(seed=0)\n"
        "print('after:', env.unwrapped.metadata['name'], env.num_agents)\n"
        "print('underscore:', pettingzoo.make('aec', 'ice_envs/cardiceo_v1').unwrapped.metadata['name'])\n"
    )
    assert proc.returncode == 0, proc.stderr
    assert "before: NamespaceNotFound" in proc.stdout
    assert "after: cardiceo_v1 3" in proc.stdout and "underscore: cardiceo_v1" in proc.stdout


def test_a_plugin_game_gets_an_id_and_passes_the_checkers(tmp_path_factory):
    """The toy plug-in of ``tests/test_plugin_game.py``, installed beside ice-envs: found, registered, checked."""
    from tests.test_plugin_game import plugin as install

    plugin = install.__wrapped__(tmp_path_factory)
    proc = plugin.run(
        [sys.executable, "-c"]
        + [
            "import warnings, gymnasium as gym, ice_envs\n"
            "from gymnasium.utils.env_checker import check_env\n"
            "from ice_envs.wrappers import gym_id\n"
            "env = gym.make('ice_envs/DiceRace-v0', num_players=3, opponents='random')\n"
            "assert gym_id('dice_race') == env.spec.id\n"
            "with warnings.catch_warnings():\n"
            "    warnings.simplefilter('error')\n"
            "    check_env(env.unwrapped)\n"
            "print('plugin:', env.spec.id, env.unwrapped.num_players)\n"
        ]
    )
    assert proc.returncode == 0, proc.stderr
    assert "plugin: ice_envs/DiceRace-v0 3" in proc.stdout
