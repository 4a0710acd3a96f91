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

#: Positions probed per game (the person's turns, over games at both ends of the player counts with the
#: person in every seat), re-deals per position, and the most games played to find them.
POSITIONS = 48
REDEALS = 2
MAX_GAMES = 40


def _state_text(raw) -> str:
    return json.dumps(raw.state_dict()["state"], sort_keys=True)


@pytest.mark.parametrize("game", list(ice_envs.GAMES))
def test_the_play_page_does_not_depend_on_what_the_seat_cannot_see(app, client, game):
    spec = ice_envs.get_spec(game)
    counts = sorted({min(spec.quick.players or spec.players), max(spec.players)})
    rng = np.random.default_rng(11)
    probes = changed = 0
    for game_index in range(MAX_GAMES):
        if probes >= POSITIONS:
            break
        players = counts[game_index % len(counts)]
        seat = game_index % players
        form = {"game": game, "players": str(players), "seat": str(seat), "seed": str(game_index)}
        form.update({f"opponent{p}": "random" for p in range(players) if p != seat})
        if spec.quick.options and players in (spec.quick.players or spec.players):
            form["variant"] = "quick"
        r = client.post("/play", data=form, follow_redirects=False)
        assert r.status_code == 303, r.text[-300:]
        page = r.headers["location"]
        session = app.state.sessions.get(page.rsplit("/", 1)[-1])
        raw = session.raw
        turns = 0
        while not session.over and probes < POSITIONS:
            turns += 1
            if turns % 2 == 1:  # probe every other turn of the person
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
    assert probes == POSITIONS
    if spec.hidden_information:
        assert changed, f"{game}: no probe re-dealt anything: the check was empty"
