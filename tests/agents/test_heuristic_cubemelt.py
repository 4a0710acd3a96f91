"""CubeMelt heuristic: legal play everywhere, sensible choices in hand-built positions, beats random."""

from __future__ import annotations

import numpy as np
import pytest

from ice_envs import cubemelt_v1
from ice_envs.agents import heuristic_for
from ice_envs.core.agent import PlayerView
from ice_envs.cubemelt import rules
from ice_envs.cubemelt.heuristic import COUNTS, KEEPS, CubeMeltHeuristic, transition
from ice_envs.evaluation import tournament as ev
from tests.agents.mixed_play import play_mixed_game

FACE = {"h": rules.HEART, "s": rules.STAR, "x": rules.SAD, "d": rules.DROOPING}


def position(
    n: int,
    dice: str,
    *,
    love: list[int] | None = None,
    adventure: list[int] | None = None,
    melt: list[int] | None = None,
    abilities: list[str] | None = None,
    start: int = 0,
    rerolls: int = 0,
) -> rules.CubeMeltState:
    """A re-rolling position of ``start``'s turn; ``dice`` spelt with h/s/x/d (Heart/Star/Sad/Drooping)."""
    cfg = rules.CubeMeltConfig(num_players=n, expansion=abilities is not None)
    state = rules.new_game(
        cfg,
        np.random.default_rng(0),
        abilities=abilities,
        dice=[FACE[c] for c in dice],
        love=love,
        adventure=adventure,
        melt=melt,
        start_player=start,
    )
    state.rerolls = rerolls
    return state


def decide(state: rules.CubeMeltState) -> int:
    """The heuristic's action for the deciding seat of ``state`` (checked legal)."""
    legal = list(rules.legal_actions(state))
    mask = np.zeros(rules.NUM_ACTIONS, dtype=np.int8)
    mask[legal] = 1
    view = PlayerView("cubemelt", state.decider, state.config.num_players, state.copy(), legal)
    action = CubeMeltHeuristic(0).act({"observation": np.zeros(107, np.float32), "action_mask": mask}, view)
    assert action in legal
    return action


def rerolled(state: rules.CubeMeltState, action: int) -> list[int]:
    """Faces of the dice that ``action`` re-rolls."""
    return [state.dice[i] for i in range(rules.NUM_DICE) if action >> i & 1]


# ------------------------------------------------------------------ machinery
def test_registry_loads_it():
    agent = heuristic_for("cubemelt", seed=0)
    assert isinstance(agent, CubeMeltHeuristic) and agent.name == "heuristic" and agent.needs_view


def test_transition_rows_are_distributions():
    for faces in (rules.DEFAULT_FACES, (0, 1, 2, 3)):
        p = transition(tuple(rules.CubeMeltConfig(faces=faces).faces))
        assert p.shape == (len(KEEPS), len(COUNTS)) == (210, 84)
        assert np.allclose(p.sum(axis=1), 1.0)
    # keeping all six dice stays put
    p = transition(tuple(rules.CubeMeltConfig().faces))
    full = KEEPS.index((2, 2, 1, 1))
    assert p[full, COUNTS.index((2, 2, 1, 1))] == 1.0


@pytest.mark.parametrize(
    "options",
    [
        {},
        {"expansion": True},
        {"faces": ("heart", "star", "sad", "drooping")},
        {"expansion": True, "ninja_targets": "all", "per_neighbour": True, "paid_rerolls": 2, "reroll_can_melt": True},
        {"expansion": True, "cat_trigger": "actual", "ninja_targets": "neighbours"},
    ],
    ids=["base", "expansion", "uniform_faces", "expansion_house", "expansion_readings"],
)
def test_only_legal_actions_over_random_positions(options):
    rng = np.random.default_rng(7)
    heuristic = CubeMeltHeuristic(1)
    for game in range(12):
        n = 2 + game % 4
        env = cubemelt_v1.env(num_players=n, **options)
        love = rng.integers(0, 20, n).tolist()
        adventure = rng.integers(0, 20, n).tolist()
        melt = rng.integers(1, 21, n).tolist()
        dice = [rules.FACE_NAMES[f] for f in rng.integers(0, 4, 6)]
        env.reset(
            seed=game,
            options={"love": love, "adventure": adventure, "melt": melt, "dice": dice, "start_player": game % n},
        )
        play_mixed_game(env, heuristic, rng)


def test_stops_when_the_tie_wins_the_game():
    # Hearts and Stars tie at two: every die is mine, +2 Love takes me from 18 to 20.
    assert decide(position(3, "hhssxd", love=[18, 0, 0])) == rules.STOP


def test_never_gives_six_hearts_away():
    action = decide(position(3, "hhhhhh"))
    assert action != rules.STOP and rules.HEART in rerolled(position(3, "hhhhhh"), action)


def test_does_not_hand_a_neighbour_the_win():
    state = position(3, "hhhhss", love=[0, 17, 0])  # stopping gives both neighbours +4 Love: 21
    action = decide(state)
    assert action != rules.STOP and rules.HEART in rerolled(state, action)


def test_pays_for_a_reroll_only_when_it_pays():
    # After the free re-roll: five Hearts would make the neighbour at 18 win: pay the Melt.
    losing = position(3, "hhhhhs", love=[0, 18, 0], rerolls=1)
    action = decide(losing)
    assert action != rules.STOP and rules.HEART in rerolled(losing, action)
    # Four Sad faces melt both neighbours by 4 and give me +2 Love: keep it, no Melt paid.
    assert decide(position(3, "xxxxhh", rerolls=1)) == rules.STOP


def test_aims_the_sad_majority_at_the_neighbours():
    # Three Sad, two Hearts, one Star: neighbours melt 3, I gain; a free re-roll may touch only the Star.
    state = position(3, "xxxhhs")
    action = decide(state)
    assert action == rules.STOP or rerolled(state, action) == [rules.STAR]


def test_dragon_takes_the_track_that_wins():
    for love, adventure, want in (
        ([18, 0, 0], [3, 0, 0], rules.CHOOSE_LOVE),
        ([3, 0, 0], [18, 0, 0], rules.CHOOSE_ADVENTURE),
    ):
        state = position(
            3,
            "xxxxss" if want == rules.CHOOSE_LOVE else "xxxxhh",
            love=love,
            adventure=adventure,
            abilities=["dragon", "cat", "unicorn"],
        )
        rules.apply(state, rules.STOP, np.random.default_rng(0))
        assert state.phase == rules.PHASE_CHOOSE and state.decider == 0 and state.pending == rules.DRAGON
        assert decide(state) == want


def test_knight_off_turn_takes_the_winning_track():
    state = position(3, "xxxhhs", love=[0, 4, 0], adventure=[0, 19, 0], abilities=["cat", "knight", "unicorn"])
    rules.apply(state, rules.STOP, np.random.default_rng(0))
    assert state.phase == rules.PHASE_CHOOSE and state.decider == 1 and state.pending == rules.KNIGHT
    assert decide(state) == rules.CHOOSE_ADVENTURE


def test_knight_lifts_its_min_when_someone_melts():
    # Seat 0 sends four Sad faces to both neighbours: seat 2 (Melt 3) melts and the game ends on
    # min(Love, Adventure). Seat 0 finishes on 8 Love, 6 Adventure (min 6); the Knight (9 Love,
    # 5 Adventure) ties it only by taking Adventure.
    state = position(
        3,
        "xxxxhh",
        love=[6, 9, 0],
        adventure=[6, 5, 0],
        melt=[20, 20, 3],
        abilities=["cat", "knight", "unicorn"],
    )
    rules.apply(state, rules.STOP, np.random.default_rng(0))
    assert state.phase == rules.PHASE_CHOOSE and state.decider == 1
    assert decide(state) == rules.CHOOSE_ADVENTURE


def test_ninja_keeps_five_hearts_for_itself():
    state = position(3, "hhhhhs", abilities=["ninja", "cat", "knight"])
    rules.apply(state, rules.STOP, np.random.default_rng(0))
    assert state.phase == rules.PHASE_NINJA
    assert decide(state) == rules.NINJA_APPLY


# ------------------------------------------------------------------ strength
def test_short_evaluation_beats_random():
    summary, _ = ev.evaluate("cubemelt", 3, "heuristic,random,random", games=60, seed=0, progress=False)
    heuristic = summary["per_agent"][0]
    assert heuristic["agent"] == "heuristic"
    assert heuristic["win_rate_ci95"][0] > 1 / 3
