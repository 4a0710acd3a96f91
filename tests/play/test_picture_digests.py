"""The ``rgb_array`` pixels are the ones recorded (see tests/picture_digests.py), where the text renderer is the same."""

from __future__ import annotations

import json

import pytest

import ice_envs
from tests.picture_digests import FILE, digests, made_with

PINNED = json.loads(FILE.read_text())


@pytest.mark.parametrize("game", sorted(ice_envs.GAMES))
def test_pictures_match_their_recorded_digests(game):
    here = made_with()
    if here != PINNED["made_with"]:
        pytest.skip(f"pixels were recorded with {PINNED['made_with']}, this machine has {here}")
    assert digests(game) == PINNED["games"][game]
