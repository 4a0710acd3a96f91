"""The contract checks of one case (a game at one player count with one set of options).

Each check takes a :class:`~ice_envs.testing.cases.Case` and raises ``AssertionError`` naming what
is wrong. Together they are the env contract of ``docs/CONTRIBUTING_GAMES.md``: PettingZoo's own
API and seed tests, exact masks, state round trips, no leak of hidden information, bounded
episodes, refused bad input that changes nothing, rewards, render modes and the observation layout.
"""

from __future__ import annotations

import contextlib
import io
import json
import pickle
from typing import Any

import numpy as np
from pettingzoo.test import api_test
from pettingzoo.test.seed_test import check_environment_deterministic
from pettingzoo.utils.wrappers import BaseWrapper

import ice_envs
from ice_envs.core.errors import IllegalActionError, OptionError
from ice_envs.core.serialize import to_jsonable
from ice_envs.testing.cases import Case, obs_equal, raises, random_action

API_SEEDS = (0, 1, 2)
SEED_TEST_SEEDS = (0, 7, 123)
#: Random games of the ``env()`` pass; the ``raw_env()`` pass plays one more game, another deal (the wrapper
#: changes nothing of the game: that pass checks the raw factory's own env, not the rules again).
RANDOM_GAMES = 4
RAW_RANDOM_GAMES = 1
#: Every check of random play runs on each of a game's first decisions, then on every 25th (long games stay quick).
FULL_CHECK_DECISIONS = 200
#: Random games per case stop once this many decisions are spent (at least one whole game is always played).
DECISION_BUDGET = 4000
#: The first game's decision at which the state round trips and the hidden-information check also run
#: (besides 3 decisions below 60 drawn for each game): every case has at least one probe.
FIRST_PROBE = 0


class _SeedShift(BaseWrapper):
    """Lets PettingZoo's seed check (which always seeds 42) run over other seeds."""

    def __init__(self, env: Any, shift: int) -> None:
        super().__init__(env)
        self._shift = shift

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        self.env.reset(seed=None if seed is None else seed + self._shift, options=options)


def _trajectory(env: Any, seed: int, action_seed: int, limit: int) -> list:
    """(agent, observation bytes, mask bytes, reward, action) of every step of one random game."""
    env.reset(seed=seed)
    rng = np.random.default_rng(action_seed)
    out = []
    for _agent in env.agent_iter(limit):
        obs, reward, term, trunc, _ = env.last()
        action = None if term or trunc else random_action(rng, obs["action_mask"])
        out.append((_agent, obs["observation"].tobytes(), obs["action_mask"].tobytes(), reward, action))
        env.step(action)
    return out


def _state_text(state: Any) -> str:
    return json.dumps(to_jsonable(state), sort_keys=True)


def pettingzoo_api_test(case: Case) -> None:
    """PettingZoo's ``api_test`` passes after resets with several seeds."""
    env = case.make()
    for seed in API_SEEDS:
        env.reset(seed=seed)
        with contextlib.redirect_stdout(io.StringIO()):  # api_test prints its progress
            api_test(env, num_cycles=200)


def pettingzoo_seed_test(case: Case) -> None:
    """PettingZoo's determinism check passes at several seeds."""
    for shift in SEED_TEST_SEEDS:
        check_environment_deterministic(_SeedShift(case.make(), shift), _SeedShift(case.make(), shift), num_cycles=100)


def same_seed_same_game(case: Case) -> None:
    """The same seed and actions replay the same game; other seeds give other games."""
    limit = 400 * case.players
    a = _trajectory(case.make(), seed=11, action_seed=5, limit=limit)
    b = _trajectory(case.make(), seed=11, action_seed=5, limit=limit)
    assert a == b, "the same seed and actions gave two different games"
    others = [_trajectory(case.make(), seed=s, action_seed=5, limit=limit) for s in (12, 13, 14)]
    assert any(o != a for o in others), "three other seeds all gave the same game"


def random_play(case: Case, raw_factory: bool) -> None:
    """Masks exact, only the actor may act, observations in space, descriptions, state_dict, pickle and
    ``reset(options={"state": ...})`` round trips, hidden information really hidden, games end: over
    :data:`RANDOM_GAMES` games through ``env()``, and :data:`RAW_RANDOM_GAMES` other ones through ``raw_env()``."""
    spec = case.spec
    env = case.make(raw=raw_factory, render_mode="ansi")
    raw = env.unwrapped
    rng = np.random.default_rng(2024)
    check_rng = np.random.default_rng(99)
    spent = 0
    resamples = {"probes": 0, "changed": 0}
    from_reset = case.make(raw=True)  # the env that each probe resets to the probed state
    first, games = (RANDOM_GAMES, RAW_RANDOM_GAMES) if raw_factory else (0, RANDOM_GAMES)
    for game_index in range(first, first + games):
        if game_index > first and spent >= DECISION_BUDGET:
            break  # long games (a full Iceberg Rummy game, Icebergs to max_turns): fewer of them
        env.reset(seed=1000 + game_index)
        decisions = 0
        probes = set(rng.integers(0, 60, size=3).tolist()) | ({FIRST_PROBE} if game_index == first else set())
        for agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            assert env.observation_space(agent).contains(obs), f"observation of {agent} outside its space"
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
                    assert isinstance(text, str) and text.strip(), f"action {a} has no description"
            if decisions in probes:
                _check_round_trips(case, env, from_reset, rng)
                _check_hidden_information(env, check_rng, resamples, spec.hidden_information)
            env.step(random_action(rng, mask))
            decisions += 1
            spent += 1
            assert decisions <= spec.max_random_decisions, f"game not over after {decisions} random decisions"
        assert isinstance(raw.render(), str)
    _judge_resamples(spec.hidden_information, resamples)


def _check_round_trips(case: Case, env: Any, from_reset: Any, rng: np.random.Generator) -> None:
    raw = env.unwrapped
    saved = json.loads(json.dumps(raw.state_dict()))
    twin = case.make()
    twin.reset(seed=0)
    twin.unwrapped.load_state_dict(saved)
    clone = pickle.loads(pickle.dumps(raw))
    from_reset.reset(seed=0, options={"state": saved["state"]})
    copies = [twin.unwrapped, clone]
    for copy_env in (*copies, from_reset):
        assert copy_env.agent_selection == raw.agent_selection, "a copy of the env has another agent to act"
        for agent in raw.agents:
            assert obs_equal(copy_env.observe(agent), raw.observe(agent)), f"a copy shows {agent} another observation"
    assert from_reset.state_dict()["state"] == saved["state"], "reset(options={'state': ...}) changed the state"
    # continue all three identically for a few steps with the same actions
    probe = pickle.loads(pickle.dumps(raw))
    for _ in range(10):
        if any(probe.terminations.values()) or any(probe.truncations.values()):
            break
        action = random_action(rng, probe.action_mask())
        for e in (probe, *copies):
            e.step(action)
        for copy_env in copies:
            assert copy_env.agent_selection == probe.agent_selection, "a copy continues with another agent"
            assert copy_env.rewards == probe.rewards, "a copy continues with other rewards"
            assert obs_equal(copy_env.observe(probe.agent_selection), probe.observe(probe.agent_selection))


def _check_hidden_information(env: Any, rng: np.random.Generator, resamples: dict[str, int], hidden: bool) -> None:
    """Each seat's observation stays the same when what it cannot see is re-dealt; counts the re-deals
    that changed the engine state (judged at the end against the spec's ``hidden_information``: once a
    game that hides information has changed, the states are no longer compared)."""
    raw = env.unwrapped
    for agent in raw.agents:
        seat = raw.possible_agents.index(agent)
        before = raw.observe(agent)
        original = raw.game_state
        compare = not (hidden and resamples["changed"])
        text = _state_text(original) if compare else ""
        for _ in range(2):
            resampled = raw.resample_hidden(seat, rng)
            resamples["probes"] += 1
            resamples["changed"] += compare and _state_text(resampled) != text
            raw.game_state = resampled
            raw._mask = None
            after = raw.observe(agent)
            raw.game_state = original
            raw._mask = None
            assert obs_equal(before, after), f"{agent}'s observation changes when hidden information is re-dealt"
        assert not compare or _state_text(raw.game_state) == text, "resample_hidden changed the env's own state"


def _judge_resamples(hidden_information: bool, resamples: dict[str, int]) -> None:
    probes, changed = resamples["probes"], resamples["changed"]
    if hidden_information:
        assert changed, (
            f"the spec declares hidden_information=True, but resample_hidden returned the same state at all "
            f"{probes} probes: it must re-deal what the seat cannot see (else the observation may leak it unnoticed)"
        )
    else:
        assert not changed, (
            f"the spec declares hidden_information=False, but resample_hidden changed the state at {changed} of "
            f"{probes} probes: declare hidden_information=True in the GameSpec"
        )


def render_modes(case: Case) -> None:
    """``ansi`` gives text, ``rgb_array`` a uint8 picture of one fixed shape (at least 64 x 64) through a
    game; every seat's view renders."""
    for mode in ("ansi", "rgb_array"):
        env = case.make(render_mode=mode)
        env.reset(seed=3)
        first = env.render()
        rng = np.random.default_rng(0)
        for _agent in env.agent_iter(30):
            obs, _, term, trunc, _ = env.last()
            env.step(None if term or trunc else random_action(rng, obs["action_mask"]))
        later = env.render()
        if mode == "ansi":
            assert isinstance(first, str) and first.strip() and isinstance(later, str), "ansi render is not text"
        else:
            assert isinstance(first, np.ndarray) and first.dtype == np.uint8 and first.ndim == 3 and first.shape[2] == 3
            assert first.shape[0] >= 64 and first.shape[1] >= 64, f"picture of shape {first.shape} is too small"
            assert later.shape == first.shape, f"the picture changed shape from {first.shape} to {later.shape}"
        for viewer in range(case.players):
            assert env.unwrapped.render_view(viewer, "ansi"), f"player_{viewer}'s view is empty"


def illegal_actions(case: Case, raw_factory: bool) -> None:
    """Out of range, negative, float, bool, string and None actions are IllegalActionErrors naming the action and
    the legal ones, and change nothing; numpy integers are accepted; ``illegal_action="penalize"`` ends the game."""
    env = case.make(raw=raw_factory)
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
        with raises(IllegalActionError, r"action .* legal actions: \["):
            env.step(action)
        assert json.dumps(raw.state_dict(), sort_keys=True) == before, f"a refused {action!r} changed the env"
    if illegal.size:
        with raises(IllegalActionError, rf"action {illegal[0]} .*illegal.*legal actions"):
            env.step(int(illegal[0]))
    steps, forced = raw.num_steps, raw.num_forced_steps
    env.step(np.int64(legal[0]))  # numpy integers are actions
    assert raw.num_steps - steps == 1 + raw.num_forced_steps - forced, "one decision did not take one step"
    if illegal.size:
        penal = case.make(raw=raw_factory, illegal_action="penalize")
        penal.reset(seed=4)
        offender = penal.agent_selection
        penal.step(int(illegal[0]))
        assert all(penal.terminations.values()), "a penalized illegal action did not end the game"
        assert penal.rewards[offender] == -1.0
        assert all(r == 0.0 for a, r in penal.rewards.items() if a != offender)
        assert penal.unwrapped.legal_actions() == [] and not penal.unwrapped.action_mask().any()


def bad_options(case: Case) -> None:
    """Bad player counts, unknown options, unknown reset keys and a bad reward mode are OptionErrors naming
    them; a refused reset changes nothing."""
    spec = case.spec
    for bad_n in (0, max(spec.players) + 1, 99):
        with raises(OptionError, "num_players"):
            ice_envs.make(case.game, **{**case.options, "num_players": bad_n})
    with raises(OptionError, r"unknown option 'no_such_option'; allowed: \["):
        case.make(no_such_option=1)
    env = case.make()
    env.reset(seed=0)
    before = json.dumps(env.unwrapped.state_dict(), sort_keys=True)
    with raises(OptionError, r"unknown reset option 'no_such_key'; allowed: \["):
        env.reset(seed=1, options={"no_such_key": 1})
    assert json.dumps(env.unwrapped.state_dict(), sort_keys=True) == before, "a refused reset changed the env"
    with raises(OptionError, "reward_mode"):
        case.make(reward_mode="nope")


def score_rewards(case: Case) -> None:
    """Under ``reward_mode="score"`` an agent's rewards over a finished game sum to its score change."""
    env = case.make(reward_mode="score")
    env.reset(seed=8)
    initial = env.unwrapped._opening_scores()  # before any automatic opening move that scores (Rummy's aces)
    totals = dict.fromkeys(env.possible_agents, 0.0)
    rng = np.random.default_rng(1)
    for agent in env.agent_iter(2000):
        obs, reward, term, trunc, _ = env.last()
        totals[agent] += reward
        env.step(None if term or trunc else random_action(rng, obs["action_mask"]))
    if not env.agents:  # finished: every agent has been given all its rewards
        scores = env.unwrapped.scores()
        for i, agent in enumerate(env.possible_agents):
            assert np.isclose(totals[agent], scores[i] - initial[i]), f"{agent}'s rewards do not sum to its score"


def state_not_shadowed(case: Case) -> None:
    """The engine state lives in ``game_state``; PettingZoo's ``state()`` is the inherited method."""
    env = case.make()
    env.reset(seed=0)
    assert callable(env.unwrapped.state) and env.unwrapped.game_state is not None
    with raises(NotImplementedError, ""):
        env.unwrapped.state()


def observation_layout(case: Case) -> None:
    """``env.obs_layout`` tiles the observation vector: its pieces' sizes add up to the space's, and every
    bound of the space lies inside its piece's bounds."""
    env = case.make(raw=True)
    lay = env.obs_layout
    box = env.observation_space(env.possible_agents[0])["observation"]
    assert box.shape == (lay.size,), f"the layout covers {lay.size} entries, the observation space {box.shape}"
    assert sum(size for _, size in lay.sizes()) == lay.size
    assert np.all(lay.low() <= box.low) and np.all(box.high <= lay.high()), "the space's bounds exceed the layout's"
