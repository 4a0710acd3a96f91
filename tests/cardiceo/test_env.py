"""Adapter tests of Cardiceo: options, the documented observation layout decoded against the
engine state, masks, descriptions, rewards, given positions, save/load, the "No play" choice,
the forced-discard variant and rendering."""

from __future__ import annotations

import json

import numpy as np
import pytest

import ice_envs
from ice_envs.cardiceo import picture, rules
from ice_envs.core.errors import IllegalActionError, OptionError
from ice_envs.core.testing import ScriptedRng

D4, D8, D12, D4_D8, D4_D12, D8_D12, ALL3 = range(7)
END, KEEP, REROLL = rules.END_TURN, rules.KEEP_DICE, rules.REROLL_ALL

# Three hands that every value appears in at most four times (the rulebook example's hands).
HANDS3 = [
    [3, 10, 1, 1, 2, 2, 5, 5, 6, 6],
    [12, 1, 2, 3, 5, 6, 7, 9, 11, 13],
    [1, 2, 3, 5, 7, 7, 9, 9, 11, 15],
]
# Two hands: player_0 can always discard with the small dice, player_1 holds only high cards.
LIMIT = 5_000  # decisions: the spec's bound on a random game
LOW = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]
HIGH = [11, 12, 13, 14, 15, 11, 12, 13, 14, 15]


def make(n=2, **kwargs):
    return ice_envs.make("cardiceo", num_players=n, **kwargs)


def counts(values):
    return np.bincount(np.asarray(values, dtype=np.int64), minlength=rules.NUM_VALUES + 1)[1:]


# ------------------------------------------------------------------ observation decoding
def decode(obs: np.ndarray, hand_size: int) -> dict:
    """The observation vector split along the docstring's table."""
    return {
        "hand": obs[0:15] * 4,
        "discarded": obs[15:30] * 4,
        "die_values": obs[30:66].reshape(3, 12),
        "die_status": obs[66:75].reshape(3, 3),
        "totals": obs[75:90],
        "hand_sizes": obs[90:96] * hand_size,
        "seated": obs[96:102],
        "no_play": obs[102],
        "discarding": obs[103],
    }


def check_observation(raw, seat: int) -> None:
    """Every documented piece of ``seat``'s observation equals what the engine state says."""
    s = raw.game_state
    n = raw.num_players
    obs = raw.observe(raw.possible_agents[seat])["observation"]
    assert obs.dtype == np.float32 and obs.shape == (422,)
    assert raw.observation_space(raw.possible_agents[seat])["observation"].contains(obs)
    got = decode(obs, s.config.hand_size)
    assert got["hand"].tolist() == s.hands[seat].tolist()
    assert got["discarded"].tolist() == s.discarded.tolist()
    for i, faces in enumerate(rules.DIE_FACES):
        onehot = np.zeros(12)
        onehot[int(s.dice[i]) - 1] = 1.0
        assert got["die_values"][i].tolist() == onehot.tolist(), (i, s.dice)
        assert not got["die_values"][i, faces:].any()  # a d4 never shows 5..12
    if s.phase == rules.PHASE_OVER:
        assert got["no_play"] == 0 and got["discarding"] == 0
    else:
        for i in range(3):
            status = [0.0, 0.0, 0.0]
            status[2 if s.used[i] else 1 if s.locked[i] else 0] = 1.0
            assert got["die_status"][i].tolist() == status, (i, s.used, s.locked)
        free = [int(d) for d, u in zip(s.dice, s.used) if not u]
        reachable = {t for t in rules.reachable_totals(free) if t <= 15}
        assert {int(t) + 1 for t in np.flatnonzero(got["totals"])} == reachable
        assert got["no_play"] == float(s.phase == rules.PHASE_NO_PLAY_CHOICE)
        assert got["discarding"] == float(s.phase == rules.PHASE_DISCARD)
    sizes = [float(s.hands[(seat + k) % n].sum()) for k in range(n)] + [0.0] * (6 - n)
    assert got["hand_sizes"].tolist() == pytest.approx(sizes)
    assert got["seated"].tolist() == [1.0] * n + [0.0] * (6 - n)
    check_record_pieces(raw, seat, obs)


def check_record_pieces(raw, seat: int, obs: np.ndarray) -> None:
    """The v1 pieces (``acting``, ``stuck_dice``, ``stuck``, ``known_missing``) of ``seat``'s observation,
    decoded by name from the layout, equal the engine state read in relative seat order."""
    s = raw.game_state
    n = raw.num_players
    lay = raw.obs_layout
    acting = np.zeros(6)
    if s.phase != rules.PHASE_OVER:
        acting[(s.current - seat) % n] = 1.0
    assert lay.view(obs, "acting").tolist() == acting.tolist()
    stuck_dice, stuck, missing = (lay.view(obs, name) for name in ("stuck_dice", "stuck", "known_missing"))
    assert stuck_dice.shape == (6, 3, 12) and stuck.shape == (6,) and missing.shape == (6, 15)
    for r in range(6):
        if r >= n:  # an empty seat
            assert not stuck_dice[r].any() and stuck[r] == 0 and not missing[r].any()
            continue
        p = (seat + r) % n
        expected = np.zeros((3, 12))
        if s.stuck_dice[p].any():
            expected[[0, 1, 2], s.stuck_dice[p] - 1] = 1.0
        assert stuck_dice[r].tolist() == expected.tolist(), (seat, r, s.stuck_dice)
        assert stuck[r] == float(s.stuck_dice[p].any())
        assert missing[r].tolist() == s.known_missing[p].astype(float).tolist()


def random_game(env, seed, on_decision=None, on_over=None):
    """Play a random game to the end; ``on_decision(raw, agent, obs)`` is called before each
    action, ``on_over(raw)`` once at the final position (before the agents are removed)."""
    env.reset(seed=seed)
    raw = env.unwrapped
    rng = np.random.default_rng(seed)
    totals = dict.fromkeys(env.possible_agents, 0.0)
    over = False
    for agent in env.agent_iter(LIMIT):
        obs, reward, term, trunc, _ = env.last()
        totals[agent] += reward
        if term or trunc:
            if not over and on_over is not None:
                on_over(raw)
            over = True
            env.step(None)
            continue
        if on_decision is not None:
            on_decision(raw, agent, obs)
        legal = np.flatnonzero(obs["action_mask"])
        env.step(int(legal[rng.integers(legal.size)]))
    assert raw.game_state.phase == rules.PHASE_OVER
    return totals


# ------------------------------------------------------------------ registration and options
def test_spec_metadata_and_spaces():
    spec = ice_envs.get_spec("cardiceo")
    assert spec.players == (2, 3, 4, 5, 6)
    assert spec.variants["short"].options == {"hand_size": 5}
    assert spec.variants["forced_discard"].options == {"forced_discard": True}
    for factory in (ice_envs.cardiceo_v1.env, ice_envs.cardiceo_v1.raw_env):
        env = factory(num_players=3)
        assert env.metadata["name"] == spec.env_name == "cardiceo_v1"
        assert env.unwrapped.metadata["name"] == spec.env_name
        assert env.possible_agents == ["player_0", "player_1", "player_2"]
        assert env.action_space("player_1").n == 10
        space = env.observation_space("player_2")
        assert space["observation"].shape == (422,) and space["observation"].dtype == np.float32
        assert space["action_mask"].shape == (10,) and space["action_mask"].dtype == np.int8
    for vname, variant in spec.variants.items():
        cfg = make(3, **variant.options).unwrapped.config
        assert cfg.hand_size == variant.options.get("hand_size", 10), vname
        assert cfg.forced_discard == variant.options.get("forced_discard", False), vname


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"hand_size": 7}, "hand_size"),
        ({"hand_size": 0}, "hand_size"),
        ({"num_players": 1}, "num_players"),
        ({"num_players": 7}, "num_players"),
        ({"num_players": "3"}, "num_players"),
        ({"num_players": True}, "num_players"),
        ({"reward_mode": "points"}, "reward_mode"),
        ({"illegal_action": "ignore"}, "illegal_action"),
        ({"render_mode": "svg"}, "render_mode"),
        ({"max_cycles": 0}, "max_cycles"),
    ],
)
def test_bad_options_raise_option_error(kwargs, match):
    kwargs = {"num_players": 2, **kwargs}
    with pytest.raises(OptionError, match=match):
        ice_envs.make("cardiceo", **kwargs)


def test_unknown_game_variant_and_option():
    from ice_envs.cli import build_parser

    with pytest.raises(OptionError, match="unknown game"):
        ice_envs.make("cardiceo_v9")
    args = build_parser().parse_args(["demo", "cardiceo", "--variant", "no_such_variant"])
    with pytest.raises(OptionError, match="unknown variant 'no_such_variant'"):
        args.func(args)
    with pytest.raises(OptionError, match=r"unknown option 'no_such_option'; allowed: \['forced_discard', 'hand_size'"):
        make(no_such_option=1)


@pytest.mark.parametrize(
    "options, match",
    [
        ({"hands": [[1] * 3, [1] * 3]}, "four cards"),
        ({"hands": [[1, 2]]}, "1 hands given for 2 players"),
        ({"hands": [[0, 2], [3]]}, "not in 1..15"),
        ({"start_player": 2}, "start_player"),
        ({"dice": [5, 1, 1]}, "dice"),
        ({"dice": [1, 1]}, "dice"),
    ],
)
def test_bad_reset_options_are_refused(options, match):
    env = make(2)
    with pytest.raises(ValueError, match=match):
        env.reset(seed=0, options=options)


def test_bad_reset_options_raise_option_error_like_the_other_games():
    env = make(2)
    with pytest.raises(OptionError):
        env.reset(seed=0, options={"start_player": 2})


def test_given_hands_longer_than_hand_size_are_refused_or_stay_in_the_space():
    env = make(2, hand_size=5)
    try:
        env.reset(seed=0, options={"hands": [[1, 2, 3, 4, 5, 6], [7, 8]], "dice": [1, 1, 1]})
    except ValueError:
        return  # refused: fine
    obs = env.observe("player_0")["observation"]
    assert env.observation_space("player_0")["observation"].contains(obs), obs[90:96]


# ------------------------------------------------------------------ observation layout
def test_observation_of_a_given_position_piece_by_piece():
    env = make(3)
    env.reset(seed=0, options={"hands": HANDS3, "dice": [3, 4, 6], "start_player": 0})
    raw = env.unwrapped
    obs = env.observe("player_1")["observation"]
    expected_hand = np.zeros(15)
    for v in HANDS3[1]:
        expected_hand[v - 1] += 0.25
    assert obs[0:15].tolist() == expected_hand.tolist()
    assert not obs[15:30].any()  # nothing discarded yet
    assert (np.flatnonzero(obs[30:66]) + 30).tolist() == [30 + 2, 42 + 3, 54 + 5]  # d4=3, d8=4, d12=6
    assert np.flatnonzero(obs[66:75]).tolist() == [0, 3, 6]  # three fresh rolls
    # totals of 3, 4, 6: 3 4 6 7 9 10 13
    assert (np.flatnonzero(obs[75:90]) + 1).tolist() == [3, 4, 6, 7, 9, 10, 13]
    assert obs[90:96].tolist() == [1.0, 1.0, 1.0, 0.0, 0.0, 0.0]
    assert obs[96:102].tolist() == [1, 1, 1, 0, 0, 0]
    assert obs[102:104].tolist() == [0.0, 1.0]
    # player_0 discards the 3 with the d4 and the 10 with d8 + d12: the dice pass to player_1
    env.step(D4)
    obs = env.observe("player_2")["observation"]
    assert np.flatnonzero(obs[66:75]).tolist() == [2, 3, 6]  # the d4 is used this turn
    assert (np.flatnonzero(obs[75:90]) + 1).tolist() == [4, 6, 10]  # the 4 and the 6 are left
    assert obs[15 + 3 - 1] == 0.25
    env.step(D8_D12)
    assert env.agent_selection == "player_1"
    obs = env.observe("player_2")["observation"]
    # seen from player_2: self (10), player_0 (8), player_1 (10)
    assert obs[90:93].tolist() == pytest.approx([1.0, 0.8, 1.0])
    assert obs[15 + 3 - 1] == obs[15 + 10 - 1] == 0.25 and obs[15:30].sum() == 0.5
    for seat in range(3):
        check_observation(raw, seat)


@pytest.mark.parametrize("n, options", [(2, {}), (4, {"hand_size": 5}), (6, {"forced_discard": True})])
def test_observation_layout_equals_the_state_through_random_games(n, options):
    env = make(n, **options)
    seen = {"locked": 0, "used": 0, "no_play": 0, "stuck": 0, "missing_not_stuck": 0}

    def on_decision(raw, agent, obs):
        s = raw.game_state
        seen["locked"] += int((s.locked & ~s.used).any())
        seen["used"] += int(s.used.any())
        seen["no_play"] += int(s.phase == rules.PHASE_NO_PLAY_CHOICE)
        seen["stuck"] += int(s.stuck_dice.any())
        seen["missing_not_stuck"] += int((s.known_missing.any(axis=1) & ~s.stuck_dice.any(axis=1)).any())
        for seat in range(n):
            check_observation(raw, seat)

    def on_over(raw):
        seen["over"] = seen.get("over", 0) + 1
        for seat in range(n):
            check_observation(raw, seat)

    for seed in range(3):
        random_game(env, seed, on_decision, on_over)
    assert all(v > 0 for v in seen.values()) and seen["over"] == 3, seen


def test_acting_piece_tells_every_observer_who_decides():
    """The seat that must decide, relative to each observer, also for the seats not on turn."""
    env = make(3)
    env.reset(seed=0, options={"hands": HANDS3, "dice": [3, 4, 6], "start_player": 1})
    raw = env.unwrapped
    lay = raw.obs_layout
    for seat, relative in ((0, 1), (1, 0), (2, 2)):  # player_1 acts: it is 1 to the left of 0, 2 of 2
        acting = lay.view(env.observe(f"player_{seat}")["observation"], "acting")
        assert np.flatnonzero(acting).tolist() == [relative]
    random_game(env, 0)
    assert not lay.view(env.observe("player_0")["observation"], "acting").any()  # over: nobody acts


def test_record_pieces_after_the_worked_example():
    """R2.8 with R7.6, seen from every seat: C (player_2) was stuck with 4, 8, 10 and lacks 4 8 10 12 14;
    B (player_1) ended its turn with the 4 and the 8 left and lacks 4 8 12; nothing is known of A."""
    raw = make(3).unwrapped
    raw._rng = ScriptedRng([4, 8, 12, 10])  # B's roll, then C's re-roll of the d12
    raw.reset(options={"hands": HANDS3, "dice": [3, 4, 6]})
    for action in (D4, D8_D12, D12):
        raw.step(action)
    assert raw.agent_selection == "player_0" and raw.legal_actions() == [KEEP, REROLL]
    lay = raw.obs_layout
    for seat in range(3):
        obs = raw.observe(f"player_{seat}")["observation"]
        b, c = (1 - seat) % 3, (2 - seat) % 3  # B's and C's relative seats
        stuck_dice = lay.view(obs, "stuck_dice")
        assert lay.view(obs, "stuck").tolist() == [float(r == c) for r in range(6)]
        assert (np.argmax(stuck_dice[c], axis=1) + 1).tolist() == [4, 8, 10] and stuck_dice.sum() == 3
        missing = lay.view(obs, "known_missing")
        assert (np.flatnonzero(missing[b]) + 1).tolist() == [4, 8, 12]
        assert (np.flatnonzero(missing[c]) + 1).tolist() == [4, 8, 10, 12, 14]
        assert missing.sum() == 8
        check_observation(raw, seat)
    lines = raw.render_view(None).splitlines()
    assert lines[3].startswith("  player_1:") and lines[4] == "    holds no 4 8 12"
    assert lines[5].startswith("  player_2:") and lines[6] == "    stuck on 4 8 10; holds no 4 8 10 12 14"
    assert len(lines) == 7


def test_observation_hides_the_other_hands():
    env = make(4)
    rng = np.random.default_rng(0)

    def on_decision(raw, agent, obs):
        for seat in range(raw.num_players):
            before = raw.observe(raw.possible_agents[seat])["observation"]
            saved = raw.game_state
            raw.game_state = raw.resample_hidden(seat, rng)
            try:
                after = raw.observe(raw.possible_agents[seat])["observation"]
            finally:
                raw.game_state = saved
            assert np.array_equal(before, after)

    random_game(env, 5, on_decision)


# ------------------------------------------------------------------ masks and descriptions
@pytest.mark.parametrize("n, options", [(2, {}), (3, {"hand_size": 5}), (5, {"forced_discard": True})])
def test_action_mask_equals_the_engine_legal_actions(n, options):
    env = make(n, **options)
    checked = []

    def on_decision(raw, agent, obs):
        legal = rules.legal_actions(raw.game_state)
        assert np.flatnonzero(obs["action_mask"]).tolist() == sorted(legal)
        assert raw.legal_actions() == sorted(legal)
        assert raw.action_mask().tolist() == obs["action_mask"].tolist()
        assert agent == raw.possible_agents[raw.game_state.current]
        for other in raw.possible_agents:
            if other != agent:
                assert not raw.observe(other)["action_mask"].any()
        checked.append(len(legal))

    def on_over(raw):
        assert not raw.action_mask().any() and raw.legal_actions() == []
        for agent in raw.possible_agents:
            assert not raw.observe(agent)["action_mask"].any()
        checked.append(0)

    for seed in range(4):
        random_game(env, seed, on_decision, on_over)
    assert len(checked) > 50 and checked.count(0) == 4


def test_action_mask_is_all_zero_after_the_agent_loop_finished():
    env = make(2)
    random_game(env, 0)
    raw = env.unwrapped
    assert raw.agents == [] and raw.game_state.phase == rules.PHASE_OVER
    assert not raw.action_mask().any()
    assert not raw.observe("player_0")["action_mask"].any()


def test_describe_action():
    env = make(3)
    env.reset(seed=0, options={"hands": HANDS3, "dice": [3, 4, 6]})
    raw = env.unwrapped
    assert raw.describe_action(D4) == "discard a 3 using d4=3"
    assert raw.describe_action(D12) == "discard a 6 using d12=6"
    assert raw.describe_action(D8_D12) == "discard a 10 using d8=4+d12=6"
    assert raw.describe_action(ALL3) == "discard a 13 using d4=3+d8=4+d12=6"
    assert raw.describe_action(END) == "end the turn (unused dice go to the middle)"
    assert raw.describe_action(KEEP) == "keep the middle dice (d4=3, d8=4, d12=6)"
    assert raw.describe_action(REROLL) == "re-roll all three dice"
    assert raw.describe_action(np.int64(4)) == "discard a 9 using d4=3+d12=6"
    with pytest.raises(IllegalActionError, match="outside the action space"):
        raw.describe_action(10)


def test_illegal_actions_raise_or_penalize():
    env = make(2)
    env.reset(seed=0, options={"hands": [LOW, HIGH], "dice": [1, 2, 3]})
    with pytest.raises(IllegalActionError, match=r"legal actions: \[0, 1, 2, 3, 4, 5, 6, 7\]"):
        env.step(KEEP)
    env = make(2, illegal_action="penalize")
    env.reset(seed=0, options={"hands": [LOW, HIGH], "dice": [1, 2, 3]})
    env.step(REROLL)
    raw = env.unwrapped
    assert raw.rewards == {"player_0": -1.0, "player_1": 0.0}
    assert all(raw.terminations.values())
    assert raw.infos["player_0"] == {"illegal_action": True}


# ------------------------------------------------------------------ rewards
@pytest.mark.parametrize("n", [2, 3, 6])
def test_outcome_rewards_winner_plus_one_others_minus_one(n):
    env = make(n)
    infos = []
    for seed in range(6):
        totals = random_game(env, seed, on_over=lambda raw: infos.append((dict(raw.infos), raw.scores().tolist())))
        s = env.unwrapped.game_state
        assert s.phase == rules.PHASE_OVER
        winner = int(np.flatnonzero(s.hands.sum(axis=1) == 0)[0])
        assert s.winner == winner and (s.hands.sum(axis=1) == 0).sum() == 1
        assert totals == {a: (1.0 if seat == winner else -1.0) for seat, a in enumerate(env.possible_agents)}
        assert env.unwrapped.winners() == [winner]
        final_infos, final_scores = infos[-1]
        assert all(final_infos[a]["scores"] == final_scores for a in env.possible_agents)
        assert final_scores[winner] == s.config.hand_size


@pytest.mark.parametrize("n, hand_size", [(2, 10), (4, 5)])
def test_score_rewards_are_one_per_card_discarded_and_sum_to_the_score(n, hand_size):
    env = make(n, hand_size=hand_size, reward_mode="score")
    for seed in range(4):
        env.reset(seed=seed)
        raw = env.unwrapped
        rng = np.random.default_rng(seed)
        totals = dict.fromkeys(env.possible_agents, 0.0)
        for agent in env.agent_iter(LIMIT):
            obs, reward, term, trunc, _ = env.last()
            totals[agent] += reward
            if term or trunc:
                env.step(None)
                continue
            before = raw.game_state.hands.sum(axis=1).copy()
            action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
            env.step(action)
            shed = before - raw.game_state.hands.sum(axis=1)
            assert [raw.rewards[a] for a in raw.possible_agents] == shed.tolist()
            assert shed.sum() == (1 if action < rules.NUM_SUBSETS else 0)
        s = raw.game_state
        discarded = hand_size - s.hands.sum(axis=1)
        assert [totals[a] for a in env.possible_agents] == discarded.tolist() == raw.scores().tolist()
        assert sum(totals.values()) == s.discarded.sum()
        assert max(totals.values()) == hand_size  # the winner shed the whole hand


def test_max_cycles_truncates():
    env = make(2, max_cycles=2)
    env.reset(seed=0, options={"hands": [LOW, LOW], "dice": [1, 2, 3]})
    for _ in range(4):
        assert not any(env.unwrapped.truncations.values())
        env.step(int(np.flatnonzero(env.unwrapped.action_mask())[0]))
    assert all(env.unwrapped.truncations.values()) and env.unwrapped.num_steps == 4


# ------------------------------------------------------------------ given positions, save and load
def test_reset_from_a_given_position():
    env = make(3)
    env.reset(seed=1, options={"hands": HANDS3, "start_player": 2, "dice": [2, 7, 11]})
    raw = env.unwrapped
    s = raw.game_state
    assert env.agent_selection == "player_2" and s.current == 2 and s.turn == 0
    assert s.dice.tolist() == [2, 7, 11] and not s.locked.any() and not s.used.any()
    assert s.phase == rules.PHASE_DISCARD  # the opening roll gives no "No play" choice
    for seat in range(3):
        assert s.hands[seat].tolist() == counts(HANDS3[seat]).tolist()
    assert not s.discarded.any() and raw.scores().tolist() == [0.0, 0.0, 0.0]
    # d4=2, d8=7, d12=11 make 2 7 9 11 13 18 20: player_2 holds 2, 7, 9, 11
    assert raw.legal_actions() == [D4, D8, D12, D4_D8, END]
    obs = env.observe("player_2")["observation"]
    assert obs[0 + 15 - 1] == 0.25 and obs[0 + 7 - 1] == 0.5
    # the same seed and options give the same game; the seed alone picks the deal
    env.reset(seed=1, options={"start_player": 1})
    first = env.unwrapped.state_dict()
    assert env.agent_selection == "player_1" or env.unwrapped.game_state.turn > 0
    env.reset(seed=1, options={"start_player": 1})
    assert env.unwrapped.state_dict() == first
    env.reset(seed=2, options={"start_player": 1})
    assert env.unwrapped.state_dict()["state"] != first["state"]


def test_reset_when_the_start_player_cannot_discard():
    env = make(2)
    env.reset(seed=0, options={"hands": [LOW, HIGH], "start_player": 1, "dice": [1, 2, 3]})
    s = env.unwrapped.game_state
    # player_1 (11-15) cannot use 1, 2, 3: the turn ends by itself, all dice go to the middle
    assert s.turn == 1 and s.current == 0 and env.agent_selection == "player_0"
    assert s.phase == rules.PHASE_NO_PLAY_CHOICE and s.locked.all() and s.dice.tolist() == [1, 2, 3]
    assert env.unwrapped.legal_actions() == [KEEP, REROLL]


def test_reset_from_a_saved_engine_state():
    env = make(3)
    env.reset(seed=4)
    for _ in range(5):
        env.step(int(np.flatnonzero(env.unwrapped.action_mask())[0]))
    saved = env.unwrapped.state_dict()
    twin = make(3)
    twin.reset(seed=0, options={"state": json.loads(json.dumps(saved["state"]))})
    assert twin.unwrapped.state_dict()["state"] == saved["state"]
    assert twin.agent_selection == env.agent_selection
    for agent in env.possible_agents:
        assert np.array_equal(twin.observe(agent)["observation"], env.observe(agent)["observation"])


@pytest.mark.parametrize("n, steps", [(2, 7), (4, 23)])
def test_state_dict_round_trip_continues_identically(n, steps):
    env = make(n, reward_mode="score")
    env.reset(seed=3)
    rng = np.random.default_rng(0)
    for _ in range(steps):
        env.step(int(rng.choice(np.flatnonzero(env.unwrapped.action_mask()))))
    saved = json.loads(json.dumps(env.unwrapped.state_dict()))
    twin = make(n, reward_mode="score")
    twin.reset(seed=99)
    twin.unwrapped.load_state_dict(saved)
    assert twin.unwrapped.state_dict() == env.unwrapped.state_dict()
    assert twin.agent_selection == env.agent_selection
    actions = np.random.default_rng(1)
    for _ in range(LIMIT):
        if any(env.unwrapped.terminations.values()):
            break
        mask = env.unwrapped.action_mask()
        assert np.array_equal(twin.unwrapped.action_mask(), mask)
        action = int(actions.choice(np.flatnonzero(mask)))
        env.step(action)
        twin.step(action)  # re-rolls come from the restored generator: the same dice
        assert twin.unwrapped.state_dict() == env.unwrapped.state_dict()
        for agent in env.possible_agents:
            assert np.array_equal(twin.observe(agent)["observation"], env.observe(agent)["observation"])
    assert env.unwrapped.game_state.phase == rules.PHASE_OVER
    assert twin.unwrapped.rewards == env.unwrapped.rewards
    with pytest.raises(OptionError, match="players"):
        make(n + 1).unwrapped.load_state_dict(saved)


# ------------------------------------------------------------------ the "No play" choice
def test_no_play_choice_after_a_voluntary_end_with_no_die_used():
    env = make(2)
    env.reset(seed=0, options={"hands": [LOW, LOW], "dice": [1, 2, 3]})
    raw = env.unwrapped
    env.step(END)  # player_0 uses no die at all
    assert env.agent_selection == "player_1"
    assert raw.legal_actions() == [KEEP, REROLL]
    obs = env.observe("player_1")["observation"]
    assert obs[102:104].tolist() == [1.0, 0.0]
    assert np.flatnonzero(obs[66:75]).tolist() == [1, 4, 7]  # all three locked from the middle
    env.step(KEEP)
    s = raw.game_state
    assert s.dice.tolist() == [1, 2, 3] and s.locked.all() and s.phase == rules.PHASE_DISCARD
    env.step(D4)  # player_1 uses the d4 and ends the turn: the d4 is re-rolled, no choice
    env.step(END)
    s = raw.game_state
    assert env.agent_selection == "player_0" and s.phase == rules.PHASE_DISCARD
    assert s.locked.tolist() == [False, True, True] and s.dice[1:].tolist() == [2, 3]
    assert np.flatnonzero(env.observe("player_0")["observation"][66:75]).tolist() == [0, 4, 7]


def test_no_play_reroll_rolls_all_three_dice():
    env = make(2)
    raw = env.unwrapped
    rolled = set()
    for seed in range(20):
        env.reset(seed=seed, options={"hands": [LOW, HIGH], "start_player": 1, "dice": [1, 2, 3]})
        env.step(REROLL)
        s = raw.game_state
        # player_0 (1-10) can always use the d4: its turn goes on with three fresh dice
        assert s.turn == 1 and s.phase == rules.PHASE_DISCARD and not s.locked.any() and not s.used.any()
        assert all(1 <= d <= f for d, f in zip(s.dice.tolist(), rules.DIE_FACES))
        rolled.add(tuple(s.dice.tolist()))
    assert len(rolled) > 5


@pytest.mark.parametrize("n, options", [(2, {}), (3, {"hand_size": 5}), (4, {"forced_discard": True}), (6, {})])
def test_no_play_choice_appears_exactly_when_the_previous_player_used_no_die(n, options):
    env = make(n, **options)
    cases = {"after_use": 0, "after_none": 0, "after_stuck": 0}
    for seed in range(6):
        env.reset(seed=seed)
        raw = env.unwrapped
        s = raw.game_state
        # the opening roll is no "No play" choice; a stuck start player passes on all three dice
        assert s.turn in (0, 1)
        assert (s.phase == rules.PHASE_NO_PLAY_CHOICE) == (s.turn == 1)
        rng = np.random.default_rng(seed)
        for _ in range(LIMIT):
            if any(raw.terminations.values()):
                break
            before = raw.game_state.copy()
            mask = raw.action_mask()
            is_choice = before.phase == rules.PHASE_NO_PLAY_CHOICE
            assert (mask[KEEP] == 1) == (mask[REROLL] == 1) == is_choice
            assert raw.observe(raw.agent_selection)["observation"][102] == float(is_choice)
            action = int(rng.choice(np.flatnonzero(mask)))
            env.step(action)
            s = raw.game_state
            if s.phase == rules.PHASE_OVER:
                break
            passed = s.turn - before.turn
            assert passed in (0, 1, 2)
            if passed == 0:
                assert s.phase == rules.PHASE_DISCARD
                continue
            # the dice the player who just finished a turn used in it
            used = before.used.copy()
            if action < rules.NUM_SUBSETS:
                used[list(rules.SUBSETS[action])] = True
            if passed == 1:
                expect_choice = not used.any()
                cases["after_none" if expect_choice else "after_use"] += 1
            else:  # the next player could use none of the dice passed on: the one after chooses
                assert used.any()
                expect_choice = True
                cases["after_stuck"] += 1
            assert (s.phase == rules.PHASE_NO_PLAY_CHOICE) == expect_choice, (before, action, s)
    assert all(v > 0 for v in cases.values()), cases


# ------------------------------------------------------------------ forced discard
def test_forced_discard_removes_the_voluntary_end_of_turn():
    for forced, expected in ((False, [D4, D8, D12, D4_D8, D4_D12, D8_D12, ALL3, END]), (True, list(range(7)))):
        env = make(2, forced_discard=forced)
        env.reset(seed=0, options={"hands": [LOW, LOW], "dice": [1, 2, 3]})
        assert env.unwrapped.legal_actions() == expected
        if forced:
            with pytest.raises(IllegalActionError):
                env.step(END)


@pytest.mark.parametrize("forced", [False, True])
def test_end_turn_offered_exactly_while_a_discard_is_possible_unless_forced(forced):
    env = make(3, forced_discard=forced)
    seen = []

    def on_decision(raw, agent, obs):
        mask = obs["action_mask"]
        s = raw.game_state
        can_discard = bool(rules.legal_discards(s))
        assert can_discard == (s.phase == rules.PHASE_DISCARD)  # a stuck turn ends by itself
        assert mask[END] == (can_discard and not forced)
        if s.phase == rules.PHASE_DISCARD:
            assert mask[: rules.NUM_SUBSETS].any()
        seen.append(s.phase)

    for seed in range(5):
        random_game(env, seed, on_decision)
    assert rules.PHASE_DISCARD in seen and rules.PHASE_NO_PLAY_CHOICE in seen


# ------------------------------------------------------------------ rendering
def test_render_ansi_shows_the_table():
    env = make(3, render_mode="ansi")
    env.reset(seed=0, options={"hands": HANDS3, "dice": [3, 4, 6]})
    text = env.render()
    lines = text.splitlines()
    assert lines[0] == "Cardiceo, 3 players, turn 1 — player_0 is discarding"
    assert lines[1] == "Dice: d4=3 (rolled)  d8=4 (rolled)  d12=6 (rolled)"
    assert lines[2] == "> player_0: 10 cards  1 1 2 2 3 5 5 6 6 10"
    assert lines[3] == "  player_1: 10 cards  1 2 3 5 6 7 9 11 12 13"
    env.step(D4)
    assert "d4=3 (used)" in env.render()
    env.step(D8_D12)
    text = env.render()
    assert "player_1 is discarding" in text and "player_0:  8 cards" in text and "(middle)" not in text
    random_game(env, 0)
    assert "wins" in env.render().splitlines()[0]


def test_render_human_prints_and_none_renders_nothing(capsys):
    env = make(2, render_mode="human")
    env.reset(seed=0)
    assert env.render() is None
    assert "Cardiceo, 2 players" in capsys.readouterr().out
    quiet = make(2)
    quiet.reset(seed=0)
    assert quiet.render() is None


def test_render_rgb_array():
    for n in (2, 5):
        env = make(n, render_mode="rgb_array")
        env.reset(seed=0)
        img = env.render()
        width, height = picture.size(n)
        assert isinstance(img, np.ndarray) and img.dtype == np.uint8 and img.shape == (height, width, 3)
        assert img.std() > 0  # not a blank canvas
        env.step(int(np.flatnonzero(env.unwrapped.action_mask())[0]))
        assert not np.array_equal(env.render(), img)
        assert np.array_equal(env.unwrapped.render_view(None, "rgb_array"), env.render())


def test_render_view_hides_the_other_hands():
    env = make(3)
    env.reset(seed=0, options={"hands": HANDS3, "dice": [3, 4, 6]})
    raw = env.unwrapped
    text = raw.render_view(1)
    lines = text.splitlines()
    assert lines[2] == "> player_0: 10 cards  " + " ".join(["##"] * 10)
    assert lines[3] == "  player_1: 10 cards  1 2 3 5 6 7 9 11 12 13"
    assert lines[4] == "  player_2: 10 cards  " + " ".join(["##"] * 10)
    assert raw.render_view(None).splitlines()[4].endswith("1 2 3 5 7 7 9 9 11 15")
    # re-dealing what player_1 cannot see changes neither its text nor its picture
    rng = np.random.default_rng(0)
    picture_1 = raw.render_view(1, "rgb_array")
    full = raw.render_view(None, "rgb_array")
    full_text = raw.render_view(None)
    assert not np.array_equal(picture_1, full)
    saved = raw.game_state
    raw.game_state = raw.resample_hidden(1, rng)
    try:
        assert not np.array_equal(raw.game_state.hands, saved.hands)
        assert raw.render_view(1) == text
        assert np.array_equal(raw.render_view(1, "rgb_array"), picture_1)
        assert raw.render_view(None) != full_text and not np.array_equal(raw.render_view(None, "rgb_array"), full)
    finally:
        raw.game_state = saved
    assert raw.render_view(0, "svg").startswith("<svg")
    with pytest.raises(OptionError, match="mode"):
        raw.render_view(0, "png")
