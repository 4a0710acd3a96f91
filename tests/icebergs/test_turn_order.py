"""The v1 observation pieces of the turn order: decoded from the observation of every seat
and compared with the engine state, in random positions and in the rulebook's fleet order."""

from __future__ import annotations

import json

import numpy as np
import pytest

import ice_envs
from ice_envs.icebergs import rules
from ice_envs.icebergs.env import MAX_SEATS, next_ship

V0_PIECES = (
    "sea",
    "island",
    "west_edge",
    "east_edge",
    "floes",
    "icebergs",
    "ships",
    "turn_ship",
    "ship_slots",
    "moves_left",
    "die",
    "phase",
    "fuel_paid",
    "drifted",
    "spare_floes",
    "home_with_cargo",
    "round",
    "solo",
    "fleet",
)
TURN_PIECES = ("turn_order", "next_ship", "start_seat")


def expected_turn_pieces(state: rules.IcebergsState, seat: int) -> dict[str, np.ndarray]:
    """``turn_order``, ``next_ship`` and ``start_seat`` of ``seat``'s observation, computed from the state."""
    cfg = state.config
    n, kps = cfg.num_players, cfg.ships_per_player
    out = {
        "turn_order": np.zeros((MAX_SEATS, rules.MAX_SHIPS_PER_PLAYER), np.float32),
        "next_ship": np.zeros((MAX_SEATS, rules.MAX_SHIPS_PER_PLAYER), np.float32),
        "start_seat": np.zeros(MAX_SEATS, np.float32),
    }
    if state.over:
        return out

    def slot(ship: int) -> tuple[int, int]:
        owner, j = divmod(ship, kps)
        return (owner - seat) % n, j

    ships = len(state.order)
    for i, k in enumerate(state.order):
        out["turn_order"][slot(k)] = ((i - state.order_pos) % ships + 1) / ships
    # the next ship the engine's _next_turn would give the turn to: the order, home and sunk skipped
    later = state.order[state.order_pos + 1 :] + state.order[: state.order_pos + 1]
    playing = [k for k in later if state.status[k] not in (rules.HOME, rules.SUNK)]
    if playing:
        out["next_ship"][slot(playing[0])] = 1.0
    out["start_seat"][(state.order[0] // kps - seat) % n] = 1.0
    return out


def check_every_seat(env) -> None:
    raw = env.unwrapped
    lay = raw.obs_layout
    for seat, agent in enumerate(raw.possible_agents):
        obs = raw.observe(agent)["observation"]
        want = expected_turn_pieces(raw.game_state, seat)
        for name in TURN_PIECES:
            np.testing.assert_array_equal(lay.view(obs, name), want[name], err_msg=f"{name} of {agent}")


@pytest.mark.parametrize(
    "n,opts",
    [
        (2, {}),
        (5, {"restart_on_sink": True}),
        (2, {"fleet": True}),
        (3, {"fleet": True}),
        (3, {"fleet": True, "extra_ships": True}),
        (1, {"solo": True, "solo_ice_six": "player"}),
    ],
)
def test_turn_pieces_decode_to_the_engine_state_from_every_seat(n, opts):
    """In random positions, the turn-order pieces of every seat agree with the engine's order."""
    env = ice_envs.make("icebergs", num_players=n, **opts)
    rng = np.random.default_rng(3)
    checked = 0
    for seed in range(3):
        env.reset(seed=seed)
        for step, agent in enumerate(env.agent_iter(400)):
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            if step % 7 == 0:
                check_every_seat(env)
                checked += 1
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert checked > 10


def test_turn_pieces_skip_ships_home_or_sunk_and_vanish_at_the_end():
    """R2.1, R7.1.1 (I17): the next ship skips ships home or sunk; a finished game shows no turn."""
    env = ice_envs.make("icebergs", num_players=2, fleet=True)
    home = {"status": "home", "cargo": 3}
    ships = [
        {"status": "start"},
        {"status": "start"},
        {"status": "sunk"},
        home,
        {"status": "start"},
        {"status": "start"},
    ]
    env.reset(seed=0, options={"start_player": 0, "ships": ships})
    st = env.unwrapped.game_state
    assert st.order == [0, 3, 1, 4, 2, 5] and st.current == 0
    assert next_ship(st) == 1  # ship 3 (player_1's first) is home
    lay = env.unwrapped.obs_layout
    for seat in (0, 1):
        obs = env.observe(f"player_{seat}")["observation"]
        assert lay.view(obs, "next_ship")[(0 - seat) % 2, 1] == 1.0 and lay.view(obs, "next_ship").sum() == 1
        assert lay.view(obs, "turn_order")[(1 - seat) % 2, 0] == pytest.approx(2 / 6)  # ship 3 is still in the order
        assert lay.view(obs, "start_seat")[(0 - seat) % 2] == 1.0
    check_every_seat(env)
    st.over, st.phase = True, rules.PHASE_OVER
    obs = env.unwrapped.observe("player_0")["observation"]
    assert all(not lay.view(obs, name).any() for name in TURN_PIECES)


def test_fleet_start_player_tells_apart_positions_v0_could_not():
    """R7.1.1 (I17): with start player 0 or 1 the same ship moves now but a different ship moves
    next; the v0 pieces are identical, the turn-order pieces differ."""
    env = ice_envs.make("icebergs", num_players=2, fleet=True)
    env.reset(seed=4, options={"start_player": 0})
    data = env.state_dict()
    state = data["state"]["fields"]
    twin_data = json.loads(json.dumps(data))
    # player_0's ship b (ship 1) moves in both: third in [0, 3, 1, 4, 2, 5], fourth in [3, 0, 4, 1, 5, 2]
    state["order_pos"], state["current"] = 2, 1
    twin = twin_data["state"]["fields"]
    twin["order"], twin["order_pos"], twin["current"] = rules.turn_order(2, 3, 1), 3, 1
    a = ice_envs.make("icebergs", num_players=2, fleet=True)
    b = ice_envs.make("icebergs", num_players=2, fleet=True)
    a.reset(seed=0)
    b.reset(seed=0)
    a.unwrapped.load_state_dict(data)
    b.unwrapped.load_state_dict(twin_data)
    assert next_ship(a.unwrapped.game_state) == 4 and next_ship(b.unwrapped.game_state) == 5
    lay = a.unwrapped.obs_layout
    for agent in ("player_0", "player_1"):
        oa, ob = a.observe(agent)["observation"], b.observe(agent)["observation"]
        for name in V0_PIECES:
            np.testing.assert_array_equal(lay.view(oa, name), lay.view(ob, name), err_msg=name)
        assert not np.array_equal(lay.view(oa, "next_ship"), lay.view(ob, "next_ship"))
        assert not np.array_equal(lay.view(oa, "start_seat"), lay.view(ob, "start_seat"))
    check_every_seat(a)
    check_every_seat(b)


def test_v0_pieces_keep_their_place_and_size():
    """The v1 pieces are appended: the v0 layout is the first part of the v1 layout, unchanged."""
    lay = ice_envs.make("icebergs", raw=True, num_players=2).obs_layout
    assert lay.names[: len(V0_PIECES)] == V0_PIECES
    assert lay.names[len(V0_PIECES) :] == (*TURN_PIECES, "ice_choice")
    assert lay.offset("turn_order") == 1488  # the v0 size on the default map
