"""``heuristic@v1`` and ``heuristic@v2``: v1 is the published heuristic; v2 changes only what it names."""

from __future__ import annotations

import numpy as np
import pytest

import ice_envs
from ice_envs.agents.spec import load_agent, parse_agent_spec
from ice_envs.core.agent import PlayerView
from ice_envs.core.errors import AgentSpecError
from ice_envs.iceberg_rummy import heuristic as rummy


def test_versions_parse_and_load():
    assert parse_agent_spec("heuristic@v2").label == "heuristic@v2"
    assert parse_agent_spec("heuristic").label == "heuristic"
    assert type(load_agent("heuristic@v1", "iceberg_rummy", seed=0)) is rummy.IcebergRummyHeuristic
    assert type(load_agent("heuristic", "iceberg_rummy", seed=0)) is rummy.IcebergRummyHeuristic
    assert type(load_agent("heuristic@v2", "iceberg_rummy", seed=0)) is rummy.IcebergRummyHeuristicV2
    # a game without a version 2 plays its version 1
    assert type(load_agent("heuristic@v2", "icebergs", seed=0)) is type(load_agent("heuristic", "icebergs", seed=0))
    for bad in ("heuristic@v3", "heuristic@", "heuristic@v2:x"):
        with pytest.raises(AgentSpecError, match="heuristic version"):
            parse_agent_spec(bad)


def _rummy_states(games: int):
    """Iceberg Rummy (4 players, one hand) states at the heuristic's decisions with nothing selected."""
    for g in range(games):
        env = ice_envs.make("iceberg_rummy", raw=True, num_players=4, single_hand=True)
        env.reset(seed=g)
        agent = rummy.IcebergRummyHeuristic(g)
        while not env._game_over():
            seat = env.current_seat
            state = env.game_state
            legal = env.legal_actions()
            if not state.selection and len(legal) > 1:
                yield state, seat, legal
            view = PlayerView("iceberg_rummy", seat, 4, state, legal)
            env.step(agent.act({"action_mask": env.action_mask()}, view))
            if not env.agents:
                break


def _discards(action: int) -> bool:
    return rummy.rules.DISCARD_BASE <= action < rummy.rules.COMMIT_NEW


def test_rummy_v2_differs_from_v1_in_its_hold_and_its_discard_weights():
    """v2 holds whenever v1 does; where v1 releases for the last ace alone, v2 may keep holding; wherever the
    two hold alike they make the same play, or each discards the card of least value by its own weights."""
    released = other_card = 0
    for state, seat, legal in _rummy_states(3):
        v1, v2 = rummy.holding(state, seat), rummy.holding_v2(state, seat)
        assert v2 or not v1
        view = PlayerView("iceberg_rummy", seat, 4, state, legal)
        mask = np.zeros(rummy.rules.NUM_ACTIONS, dtype=np.int8)
        mask[legal] = 1
        a1 = rummy.IcebergRummyHeuristic(1).act({"action_mask": mask}, view)
        a2 = rummy.IcebergRummyHeuristicV2(1).act({"action_mask": mask}, view)
        if v1 != v2:
            released += 1
        elif _discards(a1) or _discards(a2):
            hand = state.hands[seat].astype(np.int8)
            assert a1 == rummy.rules.DISCARD_BASE + rummy.choose_discard(state, seat, hand, rummy.WEIGHTS_V1)
            assert a2 == rummy.rules.DISCARD_BASE + rummy.choose_discard(state, seat, hand, rummy.WEIGHTS_V2)
            other_card += a1 != a2
        else:
            assert a1 == a2
    assert released > 0
    assert other_card > 0


def test_rummy_v2_weighs_a_card_one_card_away_from_a_meld_less():
    """Rule 4's pair and run terms scale with the weights: v2's values are v1's less the difference in
    those terms, and with pick-ups not counted the chance of each missing card is a draw's alone."""
    v1, v2 = rummy.WEIGHTS_V1, rummy.WEIGHTS_V2
    assert v2.pair < v1.pair and v2.run < v1.run and v2.pickup < v1.pickup
    for state, seat, _ in _rummy_states(1):
        assert rummy.future_cards_seen(state, v2.pickup) < rummy.future_cards_seen(state, v1.pickup)
        hand = state.hands[seat].astype(np.int8)
        args = (hand, state.table(), rummy.unseen_counts(state, seat), 3.0, int(state.known_left[seat]))
        none = rummy.card_values(*args, rummy.DiscardWeights(0.0, 0.0, 0.0))
        for weights in (v1, v2):
            half = rummy.DiscardWeights(weights.pair / 2, weights.run / 2, weights.pickup)
            full, halved = rummy.card_values(*args, weights), rummy.card_values(*args, half)
            for c in full:
                assert full[c] >= halved[c] >= none[c]
                assert full[c] - none[c] == pytest.approx(2 * (halved[c] - none[c]))
