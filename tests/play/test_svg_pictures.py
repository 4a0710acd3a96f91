"""The SVG pictures: drawn by the same paint code as the ``rgb_array`` pixels, with clickable move
targets, and with nothing in them that the viewer may not see."""

from __future__ import annotations

import copy
import importlib
import re
import xml.etree.ElementTree as ET

import numpy as np
import pytest

import ice_envs
from ice_envs.core import canvas as canvas_module
from tests.play.helpers import short_game

SVG = "{http://www.w3.org/2000/svg}"
#: Every game's ``picture.py`` paints on the canvas (``draw`` and ``svg`` from one paint function).
SVG_GAMES = sorted(ice_envs.GAMES)
#: Games with cards or dice that other seats may not see (in the others everything is public).
HIDDEN_GAMES = ["cardiceo", "iceberg_rummy", "tip_of_the_diceberg"]
#: Games whose pictures tag the elements their moves belong to.
TARGET_GAMES = SVG_GAMES


def _positions(game: str, seed: int, every: int = 6, per_count: int = 3, limit: int = 240):
    """Random positions of ``game`` (its quick variant, ``per_count`` of each player count): yields envs."""
    spec = ice_envs.get_spec(game)
    options = short_game(game)[2]
    for n in spec.players:
        env = ice_envs.make(game, num_players=n, raw=True, **options)
        env.reset(seed=seed + n)
        rng = np.random.default_rng(seed + n)
        shown = 0
        for step in range(limit):
            legal = env.legal_actions()
            if step % every == 0 or not legal:
                yield env
                shown += 1
            if not legal or shown == per_count:
                break
            env.step(int(legal[rng.integers(len(legal))]))


def _texts(root: ET.Element) -> list[str]:
    return [t.text or "" for t in root.iter(SVG + "text")]


def _targets(root: ET.Element) -> set[str]:
    return {g.get("data-target") for g in root.iter(SVG + "g") if g.get("data-target")}


@pytest.mark.parametrize("game", SVG_GAMES)
def test_svg_is_the_rgb_picture_drawn_as_svg(game, monkeypatch):
    """Same size as the pixels, the same texts, and ``render_view(mode="svg")`` is the module's ``svg``."""
    module = importlib.import_module(f"ice_envs.{game}.picture")
    drawn: list[str] = []
    pillow_text = canvas_module.PillowCanvas.text

    def record(self, xy, text, fill=None, font=None, anchor=None):
        drawn.extend(line for line in text.split("\n") if line)
        pillow_text(self, xy, text, fill=fill, font=font, anchor=anchor)

    monkeypatch.setattr(canvas_module.PillowCanvas, "text", record)
    checked = 0
    for env in _positions(game, seed=1, every=13):
        for viewer in [None, *range(env.num_players)]:
            drawn.clear()
            img = env.render_view(viewer, "rgb_array")
            text = env.render_view(viewer, "svg")
            assert text == module.svg(env, viewer)
            if game != "icebergs":  # Icebergs draws from the env (its map), the others from the state too
                assert text == module.svg(env.game_state, viewer)
            root = ET.fromstring(text)
            assert (int(root.get("width")), int(root.get("height"))) == (img.shape[1], img.shape[0])
            assert _texts(root) == drawn and drawn
            checked += 1
    assert checked > 10


@pytest.mark.parametrize("game", TARGET_GAMES)
def test_every_legal_move_target_is_an_element_of_the_deciding_seats_svg(game):
    named = 0
    for env in _positions(game, seed=2, every=3, per_count=12):
        legal = env.legal_actions()
        if not legal:
            continue
        seat = env.current_seat
        targets = _targets(ET.fromstring(env.render_view(seat, "svg")))
        module = importlib.import_module(f"ice_envs.{game}.picture")
        for action in legal:
            key = env.action_target(action)
            assert key == module.action_target(env, action)
            if key is not None:
                assert key in targets, (game, env.describe_action(action), key)
                named += 1
    assert named > 20  # the game's moves do have places on the table


@pytest.mark.parametrize("game", SVG_GAMES)
def test_svg_for_a_seat_is_the_same_whatever_it_cannot_see(game):
    """Re-dealing everything seat k cannot see leaves seat k's SVG unchanged, byte for byte (so no hidden
    card, die or deck order is in its text, attributes, ids or comments); the full view does change."""
    changed = 0
    hidden = game in HIDDEN_GAMES
    for env in _positions(game, seed=3, every=11, per_count=4):
        full = env.render_view(None, "svg") if hidden else None
        for viewer in range(env.num_players):
            mine = env.render_view(viewer, "svg")
            other = copy.copy(env)
            for k in range(2):
                other.game_state = env.resample_hidden(viewer, np.random.default_rng(k))
                assert other.render_view(viewer, "svg") == mine
                if hidden:
                    changed += other.render_view(None, "svg") != full
            assert not re.search(r"<!--|<script|\bon\w+=", mine)
    if hidden:
        assert changed  # the re-deal did change what the others hold
