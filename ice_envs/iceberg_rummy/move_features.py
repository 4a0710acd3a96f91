"""What an Iceberg Rummy player reads off a move at a glance: the move-scoring learner's game features.

A turn chains card selections, any number of melds and lay-offs, and the discard, so a whole move that ran
to the end of the turn would be every order of every combination of plays (hundreds at a decision). Here a
move ends after each completed play and after the discard (:func:`ends_move`): a move is one play (the cards
selected and the commit to a new meld or a lay-off slot), one discard, or a cleared selection
(``allow_clear``). The seat decides its next play with the table as it then is.

One row per move. The evaluations are the heuristic's own (``heuristic.py``), so the learner starts from what
the heuristic weighs: the settlement of a play (its points plus the best play-out of the rest of the hand
against the table after it, minus 10 per card left dead), the discard value of each card (version 2's
weights), and the holding rule. Every column reads only the seat's own hand and memories (the card it passed
left), the public table, hand sizes, scores and the stock's size, never another seat's hand: two re-deals of
one seat's view give the same rows. The state after a move is not read (after a discard it holds the next
seat's draw, after going out the others' penalties).

Columns (:data:`NAMES`):

* ``is_new_meld``, ``is_layoff``, ``is_discard``, ``is_clear``, ``is_other``: the kind of move (``other``: a
  selection left open, past the listing's caps);
* ``play_points``, ``play_cards``, ``is_special``: what a play scores at once, its cards, whether it lays a
  special meld (odds or evens; the heuristic never holds those back);
* ``settle_after``, ``settle_gap``, ``play_gap``: the settlement of the hand after the move (a play's points
  count in it; a discard's is the play-out of the hand without the card), its shortfall under the best move
  of the decision, and a play's shortfall under the best play (the heuristic's choice among plays; 0 for
  discards);
* ``cards_after``, ``goes_out``, ``keeps_two``: cards left in hand after the move, whether none (the hand
  ends), whether at least two (the heuristic's play when going out would lose);
* ``discard_value``, ``discard_gap``: the discarded card's value to the hand by the heuristic's rule 4
  (:func:`~ice_envs.iceberg_rummy.heuristic.card_values`, :data:`~ice_envs.iceberg_rummy.heuristic.WEIGHTS_V2`),
  its excess over the hand's least valuable card (both 0 for plays), and whether the card is among the least
  valuable (within the heuristic's quantum of 1/1000 of a point);
* ``card_id``, ``card_rank``: the discarded card, or a play's lowest card (its id, 0-51, and its rank, 1-12
  from the two up; both -1 for other moves): the heuristic breaks ties by them (a play of the lowest cards, a
  discard of the highest);
* ``held_back``: a play the holding rule would hold now (version 2 holding, not a special meld, and the hand
  cannot go out this turn);
* ``hand_now``, ``playout_now``, ``dead_now``: the hand before the move, its best play-out's points and the
  cards that play-out leaves;
* ``can_go_out``, ``go_out_wins``: whether the whole hand can be laid this turn (one card left at most), and
  then whether going out wins on the heuristic's re-deals (:func:`~ice_envs.iceberg_rummy.heuristic.going_out_wins`,
  with a fixed generator, so the column is a function of the view);
* ``holding_v1``, ``holding_v2``: whether the heuristic's versions hold their plays now;
* ``fewest_opponent_cards``, ``aces_unplaced``, ``stock_size``, ``score_lead``: the fewest cards another seat
  holds, the aces still to be placed, the stock's cards, and the seat's running score less the best other
  seat's.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ice_envs.iceberg_rummy import heuristic as H
from ice_envs.iceberg_rummy import melds as M
from ice_envs.iceberg_rummy import rules

NAMES = (
    "is_new_meld",
    "is_layoff",
    "is_discard",
    "is_clear",
    "is_other",
    "play_points",
    "play_cards",
    "is_special",
    "settle_after",
    "settle_gap",
    "play_gap",
    "cards_after",
    "goes_out",
    "keeps_two",
    "discard_value",
    "discard_gap",
    "discard_lowest",
    "card_id",
    "card_rank",
    "held_back",
    "hand_now",
    "playout_now",
    "dead_now",
    "can_go_out",
    "go_out_wins",
    "holding_v1",
    "holding_v2",
    "fewest_opponent_cards",
    "aces_unplaced",
    "stock_size",
    "score_lead",
)
_COL = {name: i for i, name in enumerate(NAMES)}
#: The seed of the generator that draws :func:`~ice_envs.iceberg_rummy.heuristic.going_out_wins`' re-deals.
GO_OUT_SEED = 0


def _parse(seq: tuple[int, ...], selection: tuple[int, ...]) -> tuple[str, tuple[int, ...], int]:
    """``(kind, cards, target or discarded card)`` of a move: kind ``new``, ``layoff``, ``discard``,
    ``clear`` or ``other``; ``cards`` the sorted cards of a play (the selection included)."""
    cards = list(selection)
    for a in seq:
        if a < rules.DISCARD_BASE:
            cards.append(a)
        elif a < rules.COMMIT_NEW:
            return "discard", (), a - rules.DISCARD_BASE
        elif a == rules.COMMIT_NEW:
            return "new", tuple(sorted(cards)), -1
        elif a < rules.CLEAR_SELECTION:
            return "layoff", tuple(sorted(cards)), a - rules.LAYOFF_BASE
        else:
            return "clear", (), -1
    return "other", tuple(sorted(cards)), -1


def _settle_rest(rest: np.ndarray, table: tuple[tuple[int, ...], ...]) -> int:
    points, played = M.best_playout(rest, table)
    return int(points) - 10 * (int(rest.sum()) - int(played))


def move_features(state: rules.IcebergRummyState, seat: int, moves: list[tuple[tuple[int, ...], Any]]) -> np.ndarray:
    """The :data:`NAMES` columns of each of ``moves`` (``(actions, state after)``) made by ``seat`` from ``state``."""
    hand = state.hands[seat].astype(np.int8)
    table = state.table()
    size = int(hand.sum())
    selection = tuple(state.selection) if state.current == seat else ()
    commits = M.analyse(hand.tobytes(), table).commits
    playout_now, played_now = M.best_playout(hand, table)
    settle_now = int(playout_now) - 10 * (size - int(played_now))
    hold2 = H.holding_v2(state, seat)
    sizes = rules.hand_sizes(state).tolist()
    others = [p for p in range(state.num_players) if p != seat]
    running = rules.running_scores(state)
    can_go_out = size - int(played_now) <= 1
    wins = (
        can_go_out
        and played_now > 0
        and H.going_out_wins(state, seat, int(playout_now), np.random.default_rng(GO_OUT_SEED))
    )

    out = np.zeros((len(moves), len(NAMES)), dtype=np.float64)
    out[:, _COL["hand_now"]] = size
    out[:, _COL["playout_now"]] = playout_now
    out[:, _COL["dead_now"]] = size - played_now
    out[:, _COL["can_go_out"]] = can_go_out
    out[:, _COL["go_out_wins"]] = wins
    out[:, _COL["holding_v1"]] = H.holding(state, seat)
    out[:, _COL["holding_v2"]] = hold2
    out[:, _COL["fewest_opponent_cards"]] = min((sizes[p] for p in others), default=0)
    out[:, _COL["aces_unplaced"]] = rules.total_aces(state.config) - int(state.table_aces.sum())
    out[:, _COL["stock_size"]] = state.stock_size
    out[:, _COL["score_lead"]] = running[seat] - max((running[p] for p in others), default=0.0)

    values: dict[int, float] | None = None
    discard_settle: dict[int, int] = {}
    for row, (seq, _after) in zip(out, moves):
        kind, cards, which = _parse(seq, selection)
        if kind in ("new", "layoff"):
            value = commits[cards][which]
            play = (cards, which, value)
            row[_COL["is_new_meld" if kind == "new" else "is_layoff"]] = 1
            row[_COL["play_points"]] = value
            row[_COL["play_cards"]] = len(cards)
            special = H.is_special(play)
            row[_COL["is_special"]] = special
            row[_COL["held_back"]] = hold2 and not special and not can_go_out
            row[_COL["card_id"]] = cards[0]
            row[_COL["card_rank"]] = cards[0] % M.NUM_RANKS
            row[_COL["settle_after"]] = H.settlement(hand, table, play)
            left = size - len(cards)
        elif kind == "discard":
            if values is None:
                values = H.card_values(
                    hand,
                    table,
                    H.unseen_counts(state, seat),
                    H.future_cards_seen(state, H.WEIGHTS_V2.pickup),
                    int(state.known_left[seat]),
                    H.WEIGHTS_V2,
                )
                lowest = min(values.values())
            if which not in discard_settle:
                rest = hand.copy()
                rest[which] -= 1
                discard_settle[which] = _settle_rest(rest, table)
            row[_COL["is_discard"]] = 1
            row[_COL["discard_value"]] = values[which]
            row[_COL["discard_gap"]] = values[which] - lowest
            row[_COL["discard_lowest"]] = round(values[which] * H.QUANTUM) == round(lowest * H.QUANTUM)
            row[_COL["card_id"]] = which
            row[_COL["card_rank"]] = which % M.NUM_RANKS
            row[_COL["settle_after"]] = discard_settle[which]
            left = size - 1
        else:
            row[_COL["is_clear" if kind == "clear" else "is_other"]] = 1
            row[_COL["card_id"]] = row[_COL["card_rank"]] = -1
            row[_COL["settle_after"]] = settle_now
            left = size
        row[_COL["cards_after"]] = left
        row[_COL["goes_out"]] = left == 0
        row[_COL["keeps_two"]] = left >= 2
    if len(out):
        settle = out[:, _COL["settle_after"]]
        out[:, _COL["settle_gap"]] = settle.max() - settle
        plays = (out[:, _COL["is_new_meld"]] + out[:, _COL["is_layoff"]]) == 1
        if plays.any():
            out[plays, _COL["play_gap"]] = settle[plays].max() - settle[plays]
    return out


def ends_move(action: int, state: rules.IcebergRummyState) -> bool:
    """A move ends after each completed play (a new meld or a lay-off committed), after the discard, and
    after a cleared selection: a move is one play or one discard, not a whole turn's combination of them."""
    return action >= rules.DISCARD_BASE


move_features.NAMES = NAMES  # type: ignore[attr-defined]
move_features.ends_move = ends_move  # type: ignore[attr-defined]
