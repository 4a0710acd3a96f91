"""No response to a seat depends on what that seat cannot see.

For random positions of every game (each player count's ends, every seat taken by the person in
turn), the play page is fetched, then the hidden part of the state is re-dealt consistently with
the person's view (``resample_hidden``, the re-deal the search agents use) and the page fetched
again: the bytes must be identical. A game with hidden information must have been re-dealt to a
different state at some of the probes, so that the check is not empty. The game record, which
holds every seat's moves, is refused until the game is over.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

import ice_envs

pytest.importorskip("starlette", reason="the web extra is not installed: pip install 'ice-envs[web]'")
pytest.importorskip("jinja2", reason="the web extra is not installed: pip install 'ice-envs[web]'")

#: Positions probed per game (person's turns), and re-deals per position.
POSITIONS = 24
REDEALS = 2


def _state_text(raw) -> str:
    return json.dumps(raw.state_dict()["state"], sort_keys=True)


@pytest.mark.parametrize("game", list(ice_envs.GAMES))
def test_the_play_page_does_not_depend_on_what_the_seat_cannot_see(app, client, game):
    spec = ice_envs.get_spec(game)
    counts = sorted({min(spec.quick.players or spec.players), max(spec.players)})
    rng = np.random.default_rng(11)
    probes = changed = 0
    for round_index, players in enumerate(counts * 2):
        seat = round_index % players
        form = {"game": game, "players": str(players), "seat": str(seat), "seed": str(round_index)}
        form.update({f"opponent{p}": "random" for p in range(players) if p != seat})
        if spec.quick.options and players in (spec.quick.players or spec.players):
            form["variant"] = "quick"
        r = client.post("/play", data=form, follow_redirects=False)
        assert r.status_code == 303, r.text[-300:]
        page = r.headers["location"]
        session = app.state.sessions.get(page.rsplit("/", 1)[-1])
        raw = session.raw
        turns = 0
        while not session.over and probes < POSITIONS * (round_index + 1) // len(counts * 2) + 1:
            turns += 1
            if turns % 3 == 1:  # probe every third of the person's turns
                assert client.get(page + "/record.jsonl").status_code == 409
                seen = client.get(page).content
                original, text = raw.game_state, _state_text(raw)
                for _ in range(REDEALS):
                    raw.game_state = raw.resample_hidden(seat, rng)
                    raw._mask = None
                    changed += _state_text(raw) != text
                    again = client.get(page).content
                    raw.game_state = original
                    raw._mask = None
                    assert again == seen, f"{game}: the page of seat {seat} changed when its hidden part was re-dealt"
                probes += 1
            legal = session.legal()
            client.post(page + "/move", data={"action": str(int(rng.choice(legal)))}, follow_redirects=False)
    assert probes >= POSITIONS // 2
    if spec.hidden_information:
        assert changed, f"{game}: no probe re-dealt anything: the check was empty"
