"""The declarative observation layouts: ``ice_envs.core.layout`` and every game's use of it.

For every registered game, player count and variant, the env's observation space is its
layout's box, the layout's pieces tile the vector, random-play observations respect every
piece's bounds, and the env docstring's observation table is the layout's table (for the
configuration the docstring documents: the env's defaults).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import ice_envs
from ice_envs.core.layout import ObservationLayout, Piece, parse_table
from ice_envs.core.registry import GAMES, all_cases, built_in_games

CASES = [pytest.param(g, n, opts, id=f"{g}-{v}-{n}p") for g, v, n, opts in all_cases()]
RANDOM_DECISIONS = 300


def _raw(game: str, n: int, opts: dict):
    """The raw env of a case (every env has an ``obs_layout``: a game that declares none has one whole-vector piece)."""
    return ice_envs.make(game, raw=True, num_players=n, **opts)


def _defaults(module) -> tuple[int, dict]:
    """The (num_players, options) of ``module.raw_env()`` with no arguments: what the docstring documents."""
    return module.raw_env().num_players, {}


# ------------------------------------------------------------------ layout.py itself
def _small() -> ObservationLayout:
    return ObservationLayout(
        [
            Piece("hand", 3, 0, 1, "own cards"),
            Piece("dice", (2, 4), 0.0, 1.0, "die values one-hot"),
            Piece("score", 1, -math.inf, math.inf, "score / 100"),
            Piece("sizes", 2, 0, 10.4, "hand sizes / 10"),
        ]
    )


def test_offsets_slices_and_size() -> None:
    lay = _small()
    assert lay.size == 14 and len(lay) == 4 and lay.names == ("hand", "dice", "score", "sizes")
    assert [lay.offset(n) for n in lay.names] == [0, 3, 11, 12]
    assert lay.slice("dice") == slice(3, 11) and lay.shape("dice") == (2, 4)
    assert lay.piece("hand").shape == (3,) and lay.piece("dice").size == 8
    assert "dice" in lay and "nope" not in lay
    with pytest.raises(KeyError, match="nope"):
        lay.offset("nope")


def test_box_has_per_element_bounds() -> None:
    box = _small().box()
    assert box.shape == (14,) and box.dtype == np.float32
    assert box.low.tolist() == [0.0] * 11 + [-math.inf, 0.0, 0.0]
    assert box.high[:11].tolist() == [1.0] * 11 and box.high[11] == math.inf
    assert box.high[12] == np.float32(10.4) and box.high[13] == np.float32(10.4)


def test_view_reshapes_and_keeps_batch_axes() -> None:
    lay = _small()
    obs = np.arange(14, dtype=np.float32)
    assert lay.view(obs, "dice").tolist() == [[3, 4, 5, 6], [7, 8, 9, 10]]
    assert lay.view(obs, "score").tolist() == [11]
    batch = np.stack([obs, obs + 100])
    assert lay.view(batch, "dice").shape == (2, 2, 4) and lay.view(batch, "hand")[1].tolist() == [100, 101, 102]
    lay.view(obs, "hand")[:] = -1  # a view of the observation, not a copy
    assert obs[:3].tolist() == [-1, -1, -1]
    with pytest.raises(ValueError, match="layout size"):
        lay.view(np.zeros(13), "hand")


def test_out_of_bounds_names_the_pieces() -> None:
    lay = _small()
    obs = np.zeros(14, dtype=np.float32)
    obs[11] = -1e9
    assert lay.out_of_bounds(obs) == []
    obs[4] = 2.0
    obs[13] = np.nan
    assert lay.out_of_bounds(obs) == ["dice", "sizes"]


def test_table_rows() -> None:
    table = _small().table()
    lines = table.splitlines()
    assert lines[0].split("|")[1:-1] == [" Piece   ", " Offsets ", " Size    ", " Range       ", " Meaning            "]
    assert set(lines[1]) == {"|", "-"}
    assert parse_table(table) == [
        ["`hand`", "0-2", "3", "[0, 1]", "own cards"],
        ["`dice`", "3-10", "8 (2x4)", "[0, 1]", "die values one-hot"],
        ["`score`", "11", "1", "(-inf, inf)", "score / 100"],
        ["`sizes`", "12-13", "2", "[0, 10.4]", "hand sizes / 10"],
    ]
    assert len({len(line) for line in lines}) == 1, "columns are aligned"


def test_parse_table_finds_the_table_in_text() -> None:
    text = "Intro.\n\n| Piece | Offsets | Size | Range | Meaning |\n|---|---|---|---|---|\n| `a` | 0 | 1 | [0, 1] | x |\n\nMore."
    assert parse_table(text) == [["`a`", "0", "1", "[0, 1]", "x"]]
    with pytest.raises(ValueError, match="no table"):
        parse_table("| Index | Description |\n|---|---|\n| 0 | x |")


def test_bad_layouts_are_refused() -> None:
    with pytest.raises(ValueError, match="duplicate"):
        ObservationLayout([Piece("a", 1, 0, 1, "x"), Piece("a", 2, 0, 1, "y")])
    with pytest.raises(ValueError, match="low"):
        Piece("a", 1, 1, 0, "x")
    with pytest.raises(ValueError, match="shape"):
        Piece("a", (2, -1), 0, 1, "x")
    with pytest.raises(ValueError, match="one line"):
        Piece("a", 1, 0, 1, "x | y")


def test_empty_pieces_take_no_room() -> None:
    lay = ObservationLayout([Piece("a", 2, 0, 1, "x"), Piece("none", 0, 0, 1, "empty"), Piece("b", 1, 0, 1, "y")])
    assert lay.size == 3 and lay.offset("b") == 2 and lay.view(np.zeros(3), "none").shape == (0,)


# ------------------------------------------------------------------ every game
@pytest.mark.parametrize(("game", "n", "opts"), CASES)
def test_observation_space_is_the_layout_box(game: str, n: int, opts: dict) -> None:
    env = _raw(game, n, opts)
    lay = env.obs_layout
    box = lay.box()
    for agent in env.possible_agents:
        space = env.observation_space(agent)["observation"]
        assert space.shape == box.shape == (lay.size,)
        assert space.dtype == box.dtype == np.float32
        assert np.array_equal(space.low, box.low) and np.array_equal(space.high, box.high)


@pytest.mark.parametrize(("game", "n", "opts"), CASES)
def test_pieces_tile_the_vector(game: str, n: int, opts: dict) -> None:
    lay = _raw(game, n, opts).obs_layout
    covered = np.zeros(lay.size, dtype=np.int64)
    at = 0
    for piece in lay:
        sl = lay.slice(piece.name)
        assert sl.start == at, f"{piece.name}: gap or overlap before it"
        assert sl.stop - sl.start == piece.size == math.prod(piece.shape) > 0
        covered[sl] += 1
        at = sl.stop
    assert at == lay.size and (covered == 1).all()


@pytest.mark.parametrize(("game", "n", "opts"), CASES)
def test_random_play_stays_inside_every_piece(game: str, n: int, opts: dict) -> None:
    env = _raw(game, n, opts)
    lay = env.obs_layout
    rng = np.random.default_rng(0)
    env.reset(seed=0)
    for _ in range(RANDOM_DECISIONS):
        for agent in env.possible_agents:
            obs = env.observe(agent)["observation"]
            assert obs.dtype == np.float32 and obs.shape == (lay.size,)
            assert lay.out_of_bounds(obs) == [], f"{agent}: out of bounds"
        if all(env.terminations.values()) or all(env.truncations.values()):
            env.reset(seed=int(rng.integers(1 << 30)))
            continue
        mask = env.observe(env.agent_selection)["action_mask"]
        legal = np.flatnonzero(mask)
        env.step(int(legal[rng.integers(legal.size)]))


@pytest.mark.parametrize("game", sorted(built_in_games()))  # plug-ins: the kit's layout_table check
def test_docstring_table_is_the_layout_table(game: str) -> None:
    """The env module docstring documents the default configuration's layout, row for row."""
    module = GAMES[game].load()
    expected = _raw(game, *_defaults(module)).obs_layout.table()
    assert parse_table(module.__doc__) == parse_table(expected), (
        f"the observation table of {module.__name__} is out of date; paste:\n{expected}"
    )
    assert "(issue 10)" not in module.__doc__


def test_indices_read_named_pieces_in_any_order() -> None:
    from ice_envs.core.layout import ObservationLayout, Piece

    layout = ObservationLayout([Piece("a", 2, 0, 1, "a"), Piece("b", (2, 2), 0, 1, "b"), Piece("c", 1, 0, 1, "c")])
    assert layout.sizes() == [("a", 2), ("b", 4), ("c", 1)]
    assert layout.indices([("c", 1), ("a", 2)]).tolist() == [6, 0, 1]
    assert layout.indices([]).size == 0
    with pytest.raises(KeyError, match="'d'"):
        layout.indices([("d", 1)])
    with pytest.raises(ValueError, match="4 entries, not 3"):
        layout.indices([("b", 3)])
