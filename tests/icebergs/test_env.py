"""Icebergs env: options, map files, observation layout, off-turn hazard choices, full games."""

from __future__ import annotations

import numpy as np
import pytest

import ice_envs
from ice_envs.core.errors import OptionError
from ice_envs.icebergs import rules
from ice_envs.icebergs.env import layout_for
from ice_envs.icebergs.hexmap import MapError, default_map, parse_map


def make(**kw):
    return ice_envs.make("icebergs", raw=True, **kw)


# ------------------------------------------------------------------ options
@pytest.mark.parametrize(
    "kwargs,match",
    [
        ({"num_players": 1}, "solo=True"),
        ({"num_players": 4, "fleet": True}, "num_players=2-3"),
        ({"num_players": 2, "solo": True}, "num_players=1"),
        ({"num_players": 1, "solo": True, "fleet": True}, "solo"),
        ({"num_players": 2, "ships_per_player": 4}, "ships_per_player"),
        ({"num_players": 2, "fleet": True, "ships_per_player": 1}, "ships_per_player"),
        ({"num_players": 2, "max_turns": 0}, "max_turns"),
        ({"num_players": 2, "max_turns_end": "x"}, "max_turns_end"),
        ({"num_players": 2, "fleet_end": "x"}, "fleet_end"),
        ({"num_players": 2, "map": "no_such_map"}, "no_such_map"),
        ({"num_players": 2, "entry_cost": "free"}, "entry_cost='free' is not one of"),
        ({"num_players": 2, "extra_ships": 1}, "extra_ships"),
        ({"num_players": 1, "solo": True, "solo_ice_six": "me"}, "solo_ice_six='me' is not one of"),
        ({"num_players": 2, "solo_ice_six": "player"}, "solo_ice_six='player' is a rule of the solo game"),
        ({"num_players": 3, "ships_per_player": 3}, r"ships_per_player=3 for 3 players .*extra_ships=True"),
    ],
)
def test_bad_options(kwargs, match):
    """R1.1, R7.1, R7.2, R7.5, R7.6: bad options raise OptionError."""
    with pytest.raises(OptionError, match=match):
        make(**kwargs)


def test_variant_player_counts():
    """R1.1, R7.1, R7.2: player and ship counts of the variants."""
    assert make(num_players=6).num_players == 6
    assert make(num_players=2, fleet=True).config.num_ships == 6
    assert make(num_players=2, ships_per_player=2).config.num_ships == 4
    assert make(num_players=1, solo=True).config.solo


def test_fleet_with_three_players_fits_the_box():
    """R1.1, R7.1 (I29): the box has 6 ships: fleet=True with 3 players gives 2 each; 3 x 3 is an extension."""
    env = make(num_players=3, fleet=True)
    assert env.config.ships_per_player == 2 and env.config.num_ships == 6
    assert make(num_players=3, ships_per_player=2).config == env.config
    big = make(num_players=3, fleet=True, extra_ships=True)
    assert big.config.ships_per_player == 3 and big.config.num_ships == 9
    assert make(num_players=3, ships_per_player=3, extra_ships=True).config == big.config
    big.reset(seed=0)
    assert len(big.game_state.order) == 9


# ------------------------------------------------------------------ maps
def test_default_map_matches_the_rulebook():
    """R1.2, R1.3 (I28): the default map has the rulebook's numbers."""
    m = default_map()
    assert (m.rows, m.cols) == (7, 13)
    assert len(m.iceberg_starts) == 6 and len(m.floe_starts) == 20 and m.spare_floes == 16
    assert len(m.east_edge()) == 7 and len(m.west_edge()) == 7


@pytest.mark.parametrize(
    "text,line,match",
    [
        ("grid:\n. . .\n. .\n", 3, "row 1 has 2 spaces"),
        ("grid:\n. x .\n. . .\n", 2, "token 'x'"),
        ("name: a\nspare_floes: many\ngrid:\n. .\n", 2, "spare_floes"),
        ("colour: blue\ngrid:\n. .\n", 1, "unknown key"),
        ("just words\n", 1, "expected 'key: value'"),
        ("grid:\n# . .\n# . .\n", 2, "west edge"),
        ("grid:\n. # .\n. # .\n", 2, "no sea route"),
    ],
)
def test_bad_map_names_the_line(text, line, match):
    """R7.6 (the map file format): a bad map names the line."""
    with pytest.raises(MapError, match=rf"line {line}: .*{match}"):
        parse_map(text, source="bad.txt")


def test_bad_map_file_through_the_env(tmp_path):
    path = tmp_path / "mine.txt"
    path.write_text("name: mine\ngrid:\n. . B\n. F\n")
    with pytest.raises(OptionError, match=r"mine.txt, line 4"):
        make(num_players=2, map=str(path))
    path.write_text("name: mine\nspare_floes: 3\ngrid:\n. . B .\n. F . .\n")
    env = make(num_players=2, map=str(path))
    assert env.hexmap.name == "mine" and env.layout.size == env.action_space("player_0").n
    env.reset(seed=0)
    assert env.observe("player_0")["observation"].shape == (layout_for(env.unwrapped.config).size,)


def test_map_round_trips_through_text():
    m = default_map()
    assert parse_map(m.to_text()) == m


# ------------------------------------------------------------------ observation
def test_observation_layout():
    env = make(num_players=3)
    env.reset(
        seed=0,
        options={
            "start_player": 1,
            "ships": [
                {"status": "at_sea", "space": [2, 3], "fuel": 4},
                {"status": "start"},
                {"status": "home", "cargo": 6},
            ],
        },
    )
    m = env.hexmap
    S = m.num_spaces
    obs = env.observe("player_1")["observation"]
    lay = env.unwrapped.obs_layout
    planes = obs[: 13 * S].reshape(13, m.rows, m.cols)  # the documented plane view
    assert np.array_equal(planes[6:12], lay.view(obs, "ships")) and np.array_equal(planes[4], lay.view(obs, "floes"))
    assert planes[0].sum() + planes[1].sum() == S and planes[1].sum() == 11
    assert planes[4].sum() * 4 == 20 and planes[5].sum() * 3 == 6
    # player_0's ship is relative seat 2 for player_1
    assert planes[6 + 2][2, 3] == pytest.approx(1 / 3) and planes[6].sum() == 0
    ships = lay.view(obs, "ship_slots")
    assert ships[0, 0, 0] == 1 and ships[0, 0, 3 + rules.START] == 1 and ships[0, 0, 12] == 1  # own ship, its turn
    assert ships[2, 0, 1] == pytest.approx(4 / 8) and ships[2, 0, 3 + rules.AT_SEA] == 1
    assert ships[1, 0, 3 + rules.HOME] == 1 and ships[1, 0, 2] == pytest.approx(6 / 8) and ships[1, 0, 15] == 1
    assert ships[3:].sum() == 0 and ships[:, 1:].sum() == 0
    assert lay.view(obs, "home_with_cargo")[0] == 1  # a ship is home with cargo
    die = env.game_state.die
    if die > 1:
        assert lay.view(obs, "die")[die - 1] == 1 and lay.view(obs, "phase")[0] == 1


def test_off_turn_hazard_choice_goes_to_the_ship_owner():
    """R3.10.2 (house rule I13): the hazard choice goes to the ship's owner, off-turn."""
    env = ice_envs.make("icebergs", num_players=3)
    for seed in range(200):
        env.reset(
            seed=seed,
            options={
                "start_player": 0,
                "ships": [
                    {"status": "at_sea", "space": [5, 0]},
                    {"status": "at_sea", "space": [5, 1], "fuel": 5, "cargo": 5, "loaded": True},
                    {"status": "start"},
                ],
                "icebergs": [[5, 2]],
                "floes": [],
            },
        )
        raw = env.unwrapped
        lay = raw.layout
        s = raw.hexmap.space(5, 2)
        action = lay.berg + 7 * s + 4  # (5,2) is an even column: SW is (5,1), player_1's ship
        if raw.game_state.phase != rules.PHASE_MOVE or action not in raw.legal_actions():
            continue
        env.step(action)
        if raw.game_state.phase == rules.PHASE_HAZARD:
            assert env.agent_selection == "player_1"
            assert raw.legal_actions() == [lay.lose_fuel, lay.lose_cargo]
            assert not env.observe("player_0")["action_mask"].any()
            assert "loses 1 Cargo" in raw.describe_action(lay.lose_cargo)
            env.step(lay.lose_cargo)
            assert raw.game_state.cargo[1] == 4
            if raw.game_state.status[1] == rules.AT_SEA and not raw.game_state.over:
                assert env.agent_selection == "player_0"
            return
    pytest.fail("no seed gave a hazard roll of 5-6")


def test_truncation_by_max_turns_and_decided_end():
    """R7.5 (I22), R6.3: truncation by max_turns, or a decided end."""
    env = ice_envs.make("icebergs", num_players=2, max_turns=3)
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    for agent in env.agent_iter(10_000):
        obs, _, term, trunc, info = env.last()
        if term or trunc:
            assert trunc and not term and info.get("max_turns")
            env.step(None)
            continue
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    env = ice_envs.make("icebergs", num_players=2, max_turns=3, max_turns_end="decide")
    env.reset(seed=0)
    for agent in env.agent_iter(10_000):
        obs, reward, term, trunc, _ = env.last()
        if term or trunc:
            assert term and not trunc and reward == -1.0  # nobody has cargo home: everyone loses
            env.step(None)
            continue
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))


# ------------------------------------------------------------------ full games with a sailing policy
def _distance_to_edge(m, col: int) -> list[int]:
    """Sea steps from each space to the edge column ``col`` (99 where unreachable)."""
    dist = [99] * m.num_spaces
    todo = [r * m.cols + col for r in range(m.rows) if m.terrain[r * m.cols + col] == 0]
    for s in todo:
        dist[s] = 0
    while todo:
        nxt = []
        for s in todo:
            for t in m.neighbours[s]:
                if t >= 0 and m.terrain[t] == 0 and dist[t] == 99:
                    dist[t] = dist[s] + 1
                    nxt.append(t)
        todo = nxt
    return dist


def sail(env) -> int:
    """A simple greedy sailor: head for Alaska, then home; drift toward the goal; keep fuel."""
    raw = env.unwrapped
    st = raw.game_state
    lay = raw.layout
    legal = raw.legal_actions()
    m = raw.hexmap
    if st.phase == rules.PHASE_HAZARD:
        return lay.lose_cargo if st.cargo[st.deciding_ship] > st.fuel[st.deciding_ship] else lay.lose_fuel
    k = st.current
    goal_west = not st.loaded[k]
    for a in (lay.to_alaska, lay.to_home, lay.drift_alaska, lay.drift_home):
        if a in legal:
            return a
    entries = [a for a in legal if lay.enter <= a < lay.floe]
    if entries:
        return min(entries, key=lambda a: rules.enter_cost(st, k, rules.entry_edge(st, k)[a - lay.enter]))

    dist = _distance_to_edge(m, 0 if goal_west else m.cols - 1)
    here = dist[st.pos[k]] if st.pos[k] >= 0 else 99
    best = None
    for a in legal:
        if a < 6:
            t = m.neighbours[st.pos[k]][a]
            key = (here - dist[t], -rules.move_cost(st, k, t))
        elif lay.drift <= a < lay.drift + 6:
            t = m.neighbours[st.pos[k]][a - lay.drift]
            key = (here - dist[t], 0)
        else:
            continue
        if key[0] > 0 and (best is None or key > best[0]):
            best = (key, a)
    if best is None and st.phase == rules.PHASE_MOVE and st.pos[k] >= 0:
        # clear the floes out of the way: from the best next space, off toward any other side
        for d, t in enumerate(m.neighbours[st.pos[k]]):
            if t >= 0 and dist[t] < here and st.floes[t]:
                for a in legal:
                    if lay.floe + 7 * t <= a < lay.floe + 7 * t + 7:
                        back = m.neighbours[t][a - lay.floe - 7 * t] if a - lay.floe - 7 * t < 6 else -1
                        if back != st.pos[k]:
                            return a
    if best is not None:
        return best[1]
    if st.phase == rules.PHASE_ONE:
        return lay.decline
    return lay.end_turn


@pytest.mark.parametrize(
    "opts,n", [({}, 2), ({}, 4), ({"fleet": True}, 2), ({"ships_per_player": 2}, 3), ({"solo": True}, 1)]
)
def test_sailing_policy_finishes_games(opts, n):
    env = ice_envs.make("icebergs", num_players=n, **opts)
    finished = 0
    for seed in range(4):
        env.reset(seed=seed)
        for agent in env.agent_iter(20_000):
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            action = sail(env)
            assert obs["action_mask"][action]
            env.step(action)
        st = env.unwrapped.game_state
        assert st.over
        if not st.truncated:
            finished += 1
            assert all(s in (rules.HOME, rules.SUNK) for s in st.status) or st.config.fleet or st.config.solo
    assert finished >= 2


def test_rgb_render_is_a_map_picture():
    env = make(num_players=3, render_mode="rgb_array")
    env.reset(seed=0)
    img = env.render()
    assert img.dtype == np.uint8 and img.shape[2] == 3 and img.shape[0] > 300 and img.shape[1] > 700
    # sea blue dominates the map area
    assert (img[:, :, 2] > img[:, :, 0]).mean() > 0.5


def test_state_dict_round_trip_keeps_the_map():
    import json

    text = "name: tiny\nspare_floes: 1\ngrid:\n. F .\n. B .\n"
    env = make(num_players=2, map_text=text)
    env.reset(seed=1)
    data = json.loads(json.dumps(env.state_dict()))
    twin = make(num_players=2, map_text=text)
    twin.reset(seed=5)
    twin.load_state_dict(data)
    assert twin.game_state.config.hexmap == env.hexmap
    assert np.array_equal(twin.observe("player_0")["observation"], env.observe("player_0")["observation"])


# ------------------------------------------------------------------ options through the env
def test_solo_ice_six_choice_is_a_decision_of_the_player():
    """R7.2.5 (I20, solo_ice_six="player"): after a table roll of 6 the player picks the line; the
    observation shows the choice (``ice_choice``), the mask the two actions, and a saved state resumes."""
    import json

    env = make(num_players=1, solo=True, solo_ice_six="player")
    lay = env.layout
    assert env.action_space("player_0").n == lay.size == make(num_players=1, solo=True).layout.size + 2
    obs_lay = env.obs_layout
    for seed in range(400):
        env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        for _ in range(60):
            if env.game_state.phase == rules.PHASE_ICE_CHOICE or env.game_state.over:
                break
            env.step(int(rng.choice(env.legal_actions())))
        if env.game_state.phase == rules.PHASE_ICE_CHOICE:
            break
    else:
        pytest.fail("no table roll of 6 with an iceberg on the map")
    obs = env.observe("player_0")
    assert np.flatnonzero(obs["action_mask"]).tolist() == [lay.ice_one_berg, lay.ice_two_bergs]
    assert obs_lay.view(obs["observation"], "ice_choice")[0] == 1.0
    assert not obs_lay.view(obs["observation"], "phase").any()
    assert "two spaces" in env.describe_action(lay.ice_one_berg)
    assert "one space each" in env.describe_action(lay.ice_two_bergs)
    assert "the ice table rolled 6" in env.render_view()
    twin = make(num_players=1, solo=True, solo_ice_six="player")
    twin.reset(seed=1)
    twin.load_state_dict(json.loads(json.dumps(env.state_dict())))
    for e in (env, twin):
        e.step(lay.ice_two_bergs)
    assert twin.game_state == env.game_state
    assert np.array_equal(twin.observe("player_0")["observation"], env.observe("player_0")["observation"])
    assert env.obs_layout.view(env.observe("player_0")["observation"], "ice_choice")[0] == 0.0


def test_entry_cost_all_moves_through_the_env():
    """R3.4 (I2): with entry_cost="all_moves" every entry row is legal at the start of the turn and
    entering ends the turn; the description says so."""
    env = make(num_players=2, entry_cost="all_moves")
    m = env.hexmap
    east = [r * m.cols + m.cols - 1 for r in range(m.rows)]
    env.reset(seed=0, options={"start_player": 0, "icebergs": east[:6]})
    st = env.game_state
    while st.phase != rules.PHASE_MOVE:  # a one: neither, and roll again
        env.step(env.layout.decline)
    lay = env.layout
    entries = [a for a in env.legal_actions() if lay.enter <= a < lay.floe]
    assert entries == [lay.enter + r for r in range(m.rows) if m.terrain[east[r]] == 0]
    assert "all the Moves of the roll" in env.describe_action(entries[0])
    env.step(entries[-1])  # the row without an iceberg: no hazard roll; all the Moves are spent
    assert st.pos[0] == east[-1] and st.fuel[0] == 7 and st.current == 1


@pytest.mark.parametrize(
    "n,opts,plain",
    [
        (2, {"entry_cost": "all_moves"}, {}),
        (3, {"fleet": True, "extra_ships": True}, {"fleet": True}),
        (1, {"solo": True, "solo_ice_six": "player"}, {"solo": True}),
    ],
)
def test_new_options_round_trip_through_state_dict(n, opts, plain):
    """R7.7, R7.9-R7.11: the options are part of the saved state; an env with other options refuses it."""
    import json

    env = make(num_players=n, **opts)
    env.reset(seed=2)
    data = json.loads(json.dumps(env.state_dict()))
    twin = make(num_players=n, **opts)
    twin.reset(seed=9)
    twin.load_state_dict(data)
    assert twin.game_state == env.game_state and twin.config == env.config
    other = make(num_players=n, **plain)
    other.reset(seed=9)
    with pytest.raises(OptionError, match="another configuration"):
        other.load_state_dict(data)
