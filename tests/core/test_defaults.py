"""What a game gets when it leaves the optional parts out: the whole-vector layout and the default picture."""

from __future__ import annotations

import math

import numpy as np
from gymnasium import spaces

from ice_envs.core.aec import IceAECEnv
from ice_envs.core.layout import WHOLE_VECTOR_PIECE, whole_vector_layout
from ice_envs.core.render import FOREGROUND, TEXT_PICTURE_SIZE, font, text_to_rgb, wrap_line


def test_the_whole_vector_layout_is_one_piece_around_the_box():
    box = spaces.Box(np.array([0.0, -1.0, 0.0], np.float32), np.array([1.0, 1.0, 5.0], np.float32), (3,), np.float32)
    lay = whole_vector_layout(box)
    assert lay.names == (WHOLE_VECTOR_PIECE,) and lay.size == 3 and lay.slice(WHOLE_VECTOR_PIECE) == slice(0, 3)
    assert lay.low().tolist() == [-1.0] * 3 and lay.high().tolist() == [5.0] * 3
    assert "no layout" in lay.table()


class _NoLayoutEnv(IceAECEnv):
    """The least a game declares: no obs_layout."""

    metadata = {**IceAECEnv.metadata, "name": "no_layout_v0"}

    def _num_actions(self) -> int:
        return 2

    def _observation_box(self) -> spaces.Box:
        return spaces.Box(0.0, 1.0, (4,), np.float32)


def test_an_env_without_a_layout_gets_the_whole_vector_piece():
    env = _NoLayoutEnv(2)
    assert env.obs_layout.names == (WHOLE_VECTOR_PIECE,) and env.obs_layout.size == 4
    assert env.obs_layout.box() == env.observation_space("player_0")["observation"]


def _text_rows(picture: np.ndarray) -> int:
    """Rows of the picture holding text (pixels of the text colour)."""
    return int(np.any(np.all(picture == FOREGROUND, axis=2), axis=1).sum())


def test_the_default_picture_has_one_size_whatever_the_text():
    short = text_to_rgb("one line", title="game_v0")
    long_lines = text_to_rgb("word " * 400 + "\n" + "#" * 500, title="game_v0")
    many_lines = text_to_rgb("\n".join(f"line {i}" for i in range(500)), title="game_v0")
    width, height = TEXT_PICTURE_SIZE
    assert short.shape == long_lines.shape == many_lines.shape == (height, width, 3)
    assert short.dtype == np.uint8
    assert _text_rows(long_lines) > 5 * _text_rows(short)  # wrapped onto many rows, not clipped at the right
    last_columns = long_lines[:, -8:]  # the right margin stays empty: nothing is cut at the edge
    assert not np.any(np.all(last_columns == FOREGROUND, axis=2))


def test_long_lines_wrap_at_spaces_or_inside_one_long_word():
    fnt = font(14)
    width = math.ceil(fnt.getlength("x" * 20))  # a monospace font: 20 characters
    assert wrap_line("alpha beta gamma delta epsilon", fnt, width) == ["alpha beta gamma", "delta epsilon"]
    assert wrap_line("y" * 45, fnt, width) == ["y" * 20, "y" * 20, "y" * 5]
    assert wrap_line("", fnt, width) == [""]
    assert all(fnt.getlength(part) <= width for part in wrap_line("a " * 100 + "b" * 70, fnt, width))
