"""The env contract suite: every registered game x player count x variant.

A game is done when it passes this file. The cases come from ``ice_envs.GAMES``, so a
game is covered the moment its ``spec.py`` registers it.
"""

from __future__ import annotations

import json
import pickle

import numpy as np
import pytest
from pettingzoo.test import api_test
from pettingzoo.test.seed_test import check_environment_deterministic
from pettingzoo.utils.wrappers import BaseWrapper

import ice_envs
from ice_envs.core.errors import IllegalActionError, OptionError
from ice_envs.core.registry import all_cases

CASES = [pytest.param(g, n, opts, id=f"{g}-{v}-{n}p") for g, v, n, opts in all_cases()]
#: The base env's ``skip_forced`` option, once per game (default variant, a middle player count).
CASES += [
    pytest.param(spec.name, n, {"skip_forced": True}, id=f"{spec.name}-skip_forced-{n}p")
    for spec in ice_envs.GAMES.values()
    for n in [spec.players[len(spec.players) // 2]]
]
#: The contract holds through ``env()`` (PettingZoo's wrappers) and ``raw_env()`` alike.
FACTORIES = [pytest.param(False, id="env"), pytest.param(True, id="raw_env")]
API_SEEDS = (0, 1, 2)
SEED_TEST_SEEDS = (0, 7, 123)
RANDOM_GAMES = 4
#: Every check runs on each of a game's first decisions, then on every 25th (long games stay quick).
FULL_CHECK_DECISIONS = 200
#: Random games per case stop once this many decisions are spent (at least one whole game is always played).
DECISION_BUDGET = 4000


def _make(game: str, n: int, opts: dict, raw: bool = False, **extra):
    return ice_envs.make(game, num_players=n, raw=raw, **opts, **extra)


def _random_action(rng: np.random.Generator, mask: np.ndarray) -> int:
    legal = np.flatnonzero(mask)
    return int(legal[rng.integers(legal.size)])


def _obs_equal(a: dict, b: dict) -> bool:
    return np.array_equal(a["observation"], b["observation"]) and np.array_equal(a["action_mask"], b["action_mask"])


class _SeedShift(BaseWrapper):
    """Lets PettingZoo's seed check (which always seeds 42) run over other seeds."""

    def __init__(self, env, shift: int) -> None:
        super().__init__(env)
        self._shift = shift

    def reset(self, seed=None, options=None):
        self.env.reset(seed=None if seed is None else seed + self._shift, options=options)


def _trajectory(env, seed: int, action_seed: int, limit: int) -> list:
    """(agent, observation bytes, reward, action) of every step of one random game."""
    env.reset(seed=seed)
    rng = np.random.default_rng(action_seed)
    out = []
    for agent in env.agent_iter(limit):
        obs, reward, term, trunc, _ = env.last()
        action = None if term or trunc else _random_action(rng, obs["action_mask"])
        out.append((agent, obs["observation"].tobytes(), obs["action_mask"].tobytes(), reward, action))
        env.step(action)
    return out


@pytest.mark.parametrize("game,n,opts", CASES)
def test_pettingzoo_api_test(game, n, opts):
    env = _make(game, n, opts)
    for seed in API_SEEDS:
        env.reset(seed=seed)
        api_test(env, num_cycles=200)


@pytest.mark.parametrize("game,n,opts", CASES)
def test_pettingzoo_seed_test_over_seeds(game, n, opts):
    for shift in SEED_TEST_SEEDS:
        check_environment_deterministic(
            _SeedShift(_make(game, n, opts), shift), _SeedShift(_make(game, n, opts), shift), num_cycles=100
        )


@pytest.mark.parametrize("game,n,opts", CASES)
def test_same_seed_same_game_different_seed_different_game(game, n, opts):
    limit = 400 * n
    a = _trajectory(_make(game, n, opts), seed=11, action_seed=5, limit=limit)
    b = _trajectory(_make(game, n, opts), seed=11, action_seed=5, limit=limit)
    assert a == b
    others = [_trajectory(_make(game, n, opts), seed=s, action_seed=5, limit=limit) for s in (12, 13, 14)]
    assert any(o != a for o in others), "three other seeds all gave the same game"


@pytest.mark.parametrize("raw_factory", FACTORIES)
@pytest.mark.parametrize("game,n,opts", CASES)
def test_random_play_respects_the_contract(game, n, opts, raw_factory):
    """Masks exact, only the actor may act, observations in space, descriptions,
    state_dict and pickle round trips, no hidden-information leak, games end."""
    spec = ice_envs.get_spec(game)
    env = _make(game, n, opts, raw=raw_factory, render_mode="ansi")
    raw = env.unwrapped
    rng = np.random.default_rng(2024)
    check_rng = np.random.default_rng(99)
    spent = 0
    for game_index in range(RANDOM_GAMES):
        if game_index > 0 and spent >= DECISION_BUDGET:
            break  # long games (a full Iceberg Rummy game, Icebergs to max_turns): fewer of them
        env.reset(seed=1000 + game_index)
        decisions = 0
        probes = set(rng.integers(0, 60, size=3).tolist())
        for agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            space = env.observation_space(agent)
            assert space.contains(obs), f"observation of {agent} outside its space"
            mask = obs["action_mask"]
            legal = raw.legal_actions()
            assert legal, "the acting agent has no legal action"
            assert np.flatnonzero(mask).tolist() == legal, "mask differs from the engine's legal actions"
            if decisions < FULL_CHECK_DECISIONS or decisions % 25 == 0:
                for other in env.agents:
                    if other != agent:
                        assert not env.observe(other)["action_mask"].any(), f"{other} has a mask while {agent} acts"
                for a in legal:
                    text = raw.describe_action(a)
                    assert isinstance(text, str) and text.strip()
            if decisions in probes:
                _check_round_trips(game, n, opts, env, rng)
                _check_no_leak(env, check_rng)
            env.step(_random_action(rng, mask))
            decisions += 1
            spent += 1
            assert decisions <= spec.max_random_decisions, f"game not over after {decisions} random decisions"
        assert isinstance(raw.render(), str)


def _check_round_trips(game, n, opts, env, rng) -> None:
    raw = env.unwrapped
    saved = json.loads(json.dumps(raw.state_dict()))
    twin = _make(game, n, opts)
    twin.reset(seed=0)
    twin.unwrapped.load_state_dict(saved)
    clone = pickle.loads(pickle.dumps(raw))
    copies = [twin.unwrapped, clone]
    for copy_env in copies:
        assert copy_env.agent_selection == raw.agent_selection
        for agent in raw.agents:
            assert _obs_equal(copy_env.observe(agent), raw.observe(agent))
    # continue all three identically for a few steps with the same actions
    probe = pickle.loads(pickle.dumps(raw))
    for _ in range(10):
        if any(probe.terminations.values()) or any(probe.truncations.values()):
            break
        action = _random_action(rng, probe.action_mask())
        for e in (probe, *copies):
            e.step(action)
        for copy_env in copies:
            assert copy_env.agent_selection == probe.agent_selection
            assert copy_env.rewards == probe.rewards
            assert _obs_equal(copy_env.observe(probe.agent_selection), probe.observe(probe.agent_selection))


def _check_no_leak(env, rng) -> None:
    raw = env.unwrapped
    for agent in raw.agents:
        seat = raw.possible_agents.index(agent)
        before = raw.observe(agent)
        original = raw.game_state
        for _ in range(2):
            raw.game_state = raw.resample_hidden(seat, rng)
            raw._mask = None
            after = raw.observe(agent)
            raw.game_state = original
            raw._mask = None
            assert _obs_equal(before, after), f"{agent}'s observation changes when hidden information is re-dealt"


@pytest.mark.parametrize("game,n,opts", CASES)
def test_render_modes(game, n, opts):
    for mode in ("ansi", "rgb_array"):
        env = _make(game, n, opts, render_mode=mode)
        env.reset(seed=3)
        first = env.render()
        rng = np.random.default_rng(0)
        for agent in env.agent_iter(30):
            obs, _, term, trunc, _ = env.last()
            env.step(None if term or trunc else _random_action(rng, obs["action_mask"]))
        later = env.render()
        if mode == "ansi":
            assert isinstance(first, str) and first.strip() and isinstance(later, str)
        else:
            assert isinstance(first, np.ndarray) and first.dtype == np.uint8 and first.ndim == 3 and first.shape[2] == 3
            assert first.shape[0] >= 64 and first.shape[1] >= 64
        for viewer in range(n):
            assert env.unwrapped.render_view(viewer, "ansi")


@pytest.mark.parametrize("raw_factory", FACTORIES)
@pytest.mark.parametrize("game,n,opts", CASES)
def test_illegal_actions_are_refused_clearly(game, n, opts, raw_factory):
    """Out of range, negative, float, bool, string and None actions are IllegalActionErrors naming the action and
    the legal ones, and change nothing; numpy integers are accepted."""
    env = _make(game, n, opts, raw=raw_factory)
    env.reset(seed=4)
    raw = env.unwrapped
    mask = raw.action_mask()
    legal = np.flatnonzero(mask)
    illegal = np.flatnonzero(mask == 0)
    before = json.dumps(raw.state_dict(), sort_keys=True)
    bad = [mask.size, -1, None, "3", 3.5, float(legal[0]), True, False, [int(legal[0])], np.float64(legal[0])]
    if illegal.size:
        bad.append(int(illegal[0]))
    for action in bad:
        with pytest.raises(IllegalActionError, match=r"action .* legal actions: \["):
            env.step(action)
        assert json.dumps(raw.state_dict(), sort_keys=True) == before, f"a refused {action!r} changed the env"
    if illegal.size:
        with pytest.raises(IllegalActionError, match=rf"action {illegal[0]} .*illegal.*legal actions"):
            env.step(int(illegal[0]))
    steps, forced = raw.num_steps, raw.num_forced_steps
    env.step(np.int64(legal[0]))  # numpy integers are actions
    assert raw.num_steps - steps == 1 + raw.num_forced_steps - forced  # one decision (and any forced steps after it)
    if illegal.size:
        penal = _make(game, n, opts, raw=raw_factory, illegal_action="penalize")
        penal.reset(seed=4)
        offender = penal.agent_selection
        penal.step(int(illegal[0]))
        assert all(penal.terminations.values())
        assert penal.rewards[offender] == -1.0
        assert all(r == 0.0 for a, r in penal.rewards.items() if a != offender)
        assert penal.unwrapped.legal_actions() == [] and not penal.unwrapped.action_mask().any()


@pytest.mark.parametrize("game,n,opts", CASES)
def test_bad_options_are_refused_clearly(game, n, opts):
    spec = ice_envs.get_spec(game)
    for bad_n in (0, max(spec.players) + 1, 99):
        with pytest.raises(OptionError, match="num_players"):
            ice_envs.make(game, **{**opts, "num_players": bad_n})
    with pytest.raises(OptionError, match=r"unknown option 'no_such_option'; allowed: \["):
        _make(game, n, opts, no_such_option=1)
    with pytest.raises(OptionError, match=r"unknown reset option 'no_such_key'; allowed: \["):
        _make(game, n, opts).reset(seed=0, options={"no_such_key": 1})
    with pytest.raises(OptionError, match="reward_mode"):
        _make(game, n, opts, reward_mode="nope")


@pytest.mark.parametrize("game,n,opts", CASES)
def test_score_mode_rewards_sum_to_score(game, n, opts):
    env = _make(game, n, opts, reward_mode="score")
    env.reset(seed=8)
    initial = env.unwrapped._opening_scores()  # before any automatic opening move that scores (Rummy's aces)
    totals = dict.fromkeys(env.possible_agents, 0.0)
    rng = np.random.default_rng(1)
    for agent in env.agent_iter(2000):
        obs, reward, term, trunc, _ = env.last()
        totals[agent] += reward
        env.step(None if term or trunc else _random_action(rng, obs["action_mask"]))
    if not env.agents:  # finished: every agent has been given all its rewards
        scores = env.unwrapped.scores()
        for i, agent in enumerate(env.possible_agents):
            assert totals[agent] == pytest.approx(scores[i] - initial[i])


@pytest.mark.parametrize("game,n,opts", CASES)
def test_pettingzoo_state_is_not_shadowed(game, n, opts):
    """The engine state lives in ``game_state``; PettingZoo's ``state()`` is the inherited method."""
    env = _make(game, n, opts)
    env.reset(seed=0)
    assert callable(env.unwrapped.state) and env.unwrapped.game_state is not None
    with pytest.raises(NotImplementedError):
        env.unwrapped.state()


def test_unknown_game_is_refused():
    with pytest.raises(OptionError, match="unknown game"):
        ice_envs.make("no_such_game")


def test_every_game_has_a_pettingzoo_module_and_registry_entry():
    from pettingzoo.env_registry.registration import aec_registry

    for name, spec in ice_envs.GAMES.items():
        module = getattr(ice_envs, spec.env_name)
        assert callable(module.env) and callable(module.raw_env)
        assert spec.env_id in aec_registry
        assert module.raw_env(num_players=spec.players[0]).metadata["name"] == spec.env_name
        # the version lives in the spec: the env's docstring shows the same name
        assert spec.env_name in (module.__doc__ or ""), f"{spec.env_module} docstring does not name {spec.env_name}"
