"""
# Iceberg Rummy

| Import             | `from ice_envs import iceberg_rummy_v1`             |
|--------------------|-----------------------------------------------------|
| Actions            | Discrete                                            |
| Parallel API       | No                                                  |
| Manual Control     | `ice-envs play iceberg_rummy`                     |
| Agents             | `agents= ['player_0', ..., 'player_{n-1}']`         |
| Agents             | 2-5                                                 |
| Action Shape       | Discrete(154)                                       |
| Action Values      | Discrete(154)                                       |
| Observation Shape  | (1801,)                                             |
| Observation Values | [0, 1] except hand sizes, scores and hands played   |

A rummy game in which every meld and every card added to a meld scores at once (more
for bigger melds), four special six-card melds score 200-700, discards are passed face
down to the left-hand neighbour, and aces placed face up multiply the hand's score. The
hand ends when a player goes out, the last ace is placed or the stock runs out; cards
left in hand cost what they could have scored (10 each if they fit nowhere). A game is
hands until someone reaches 5000 (a cap on hands truncates it). Rules and every interpretation:
`docs/rules/iceberg_rummy.md`.

## Arguments

``` python
iceberg_rummy_v1.env(num_players=2, single_hand=False, target_score=5000,
                     ace_scoring="multiplier", ace_value=30, ace_holder_finishes=False,
                     max_hands=100, allow_clear=False, num_decks=None, score_scale=100.0,
                     max_hands_end="truncate", render_mode=None, illegal_action="raise",
                     reward_mode="outcome", max_cycles=None)
```

`num_players`: 2-5 (one deck for 2-3 players, two for 4-5, unless `num_decks` is 1 or 2).
`single_hand`: one hand is the episode. `target_score`: a full game ends after the hand
in which someone reaches it. `ace_scoring`: `"multiplier"` (rulebook: n aces multiply
the hand score by n + 1), `"fixed"` (`ace_value` points per ace, 20-50), `"doubling"`
(20, 40, 80, ... per ace) or `"cats"` (n aces score 10 n^2). `ace_holder_finishes`: the
player who places the last ace finishes the turn before the hand ends.
`max_hands`: a full game also stops after this many hands (default 100; `None` for no
cap — random players lose points every hand and never reach 5000). `max_hands_end`:
what the cap does: `"truncate"` (default; the episode is truncated: `truncations` true
for every agent, no outcome reward, no winner, `infos` hold `"scores"` and
`"max_hands": True`) or `"decide"` (the v0 behaviour: a decided game, highest total
winning). `allow_clear`: offer a "clear the selection" action; the selection being
composed is then private to the acting player (it could be shown and taken back).
`score_scale`: points per unit of reward under `reward_mode="score"` and of
`scores()`. The common arguments (`render_mode`, `illegal_action`, `reward_mode`,
`max_cycles`) are those of every ice-envs game.

`reset(seed, options)` accepts `options={"dealer": d, "hands": [["7S", "8S", ...], ...],
"stock": ["KD", ...], "melds": [(owner, ["5S", "6S", "7S"]), ...]}` (stock top first;
cards not named are shuffled into the stock below the named ones; melds start on the
table) to start from a given position.

## Observation Space

A dict with `"observation"` (float32, shape (1801,)) and `"action_mask"` (int8, shape
(154,)). Seats are in relative order (self, then to the left). Cards are indexed
`suit * 13 + rank` (suits C, D, H, S; ranks A, 2, ..., 10, J, Q, K). The pieces, in
order (`layout_for(config)` declares them; a test keeps this table equal to it):

| Piece          | Offsets   | Size         | Range       | Meaning                                                                                            |
|----------------|-----------|--------------|-------------|----------------------------------------------------------------------------------------------------|
| `hand`         | 0-51      | 52           | [0, 1]      | own hand, copies of each card / 2                                                                  |
| `selection`    | 52-103    | 52           | [0, 1]      | the play being composed by the acting player / 2 (allow_clear: own only)                           |
| `table_cards`  | 104-155   | 52           | [0, 1]      | cards in table melds / 2                                                                           |
| `passed`       | 156-207   | 52           | [0, 1]      | the card I passed most recently this hand (one-hot)                                                |
| `received`     | 208-259   | 52           | [0, 1]      | the card I picked up from my right-hand neighbour most recently (one-hot)                          |
| `hand_sizes`   | 260-264   | 5            | [0, 10.4]   | hand size per relative seat / 10                                                                   |
| `aces`         | 265-269   | 5            | [0, 1]      | aces placed this hand per relative seat / 8                                                        |
| `hand_points`  | 270-274   | 5            | (-inf, inf) | points recorded this hand per relative seat / 1000                                                 |
| `totals`       | 275-279   | 5            | (-inf, inf) | game total per relative seat / 1000                                                                |
| `begun`        | 280-284   | 5            | [0, 1]      | relative seat has begun a turn this hand                                                           |
| `seated`       | 285-289   | 5            | [0, 1]      | relative seat is at the table                                                                      |
| `dealer`       | 290-294   | 5            | [0, 1]      | relative seat is the dealer                                                                        |
| `acting`       | 295-299   | 5            | [0, 1]      | relative seat is acting                                                                            |
| `stock`        | 300       | 1            | [0, 1]      | stock size / deck size                                                                             |
| `aces_hidden`  | 301       | 1            | [0, 1]      | aces not yet placed / aces in the deck                                                             |
| `two_decks`    | 302       | 1            | [0, 1]      | two decks are in play                                                                              |
| `passed_known` | 303       | 1            | [0, 1]      | the card I passed is known to be still in my left neighbour's hand                                 |
| `composing`    | 304       | 1            | [0, 1]      | a play is being composed (selection non-empty; allow_clear: own only)                              |
| `last_turn`    | 305       | 1            | [0, 1]      | the hand ends after this turn (ace-holder variant)                                                 |
| `melds`        | 306-1745  | 1440 (48x30) | [0, 1]      | 48 table meld slots x 30, in the order laid                                                        |
| `hands_played` | 1746      | 1            | [0, inf)    | hands finished this game / 100 (0 in the first hand)                                               |
| `hands_left`   | 1747      | 1            | [0, 1]      | hands left before the cap, this one included / max_hands (0: no cap, single hand)                  |
| `passed_cards` | 1748-1799 | 52           | [0, 1]      | copies of each card I passed this hand (at most the deck's) / 2                                    |
| `passed_held`  | 1800      | 1            | [0, 1]      | my last pass is known to be in my left neighbour's hand (2p: also after it passed me another card) |

Meld slot (a row of `melds`, 30 values): 0 present; 1-6 kind one-hot (pair/set, run, odds in one suit,
evens in one suit, odds in one colour, evens in one colour); 7-11 owner (relative seat)
one-hot; 12-24 ranks in the meld (A..K); 25-28 cards per suit (C, D, H, S), min(count, 2)
/ 2; 29 size / 12. Other hands, the stock order and the cards passed between other
players are not observed; under `allow_clear=True` neither is another player's selection.

## Action Space

| Action  | Meaning                                                                  |
|---------|--------------------------------------------------------------------------|
| 0-51    | select card `id` for the play being composed                             |
| 52-103  | discard card `id - 52` face down to the left-hand neighbour (ends turn)  |
| 104     | commit the selection as a new meld                                       |
| 105-152 | commit the selection as a lay-off onto table meld slot `id - 105`        |
| 153     | clear the selection (only with `allow_clear=True`)                       |

A play is composed card by card, in increasing card id, and the mask admits a card only
if the selection stays part of some legal meld or lay-off, so every legal play has
exactly one action sequence and a selection is never a dead end. Commits are legal only
for a complete legal play; discards only with an empty selection. Drawing, picking up the
passed card and placing aces are automatic. There is no separate "done melding" action:
the discard ends the melding.

## Rewards

`reward_mode="outcome"`: at the end of the game (of the hand with `single_hand=True`)
each player with the highest total gets +1 (ties all win) and every other player -1. A
full game stopped at `max_hands` is truncated and pays no outcome reward (unless
`max_hands_end="decide"`).
`reward_mode="score"`: the change of the player's running score / `score_scale` (100):
meld and lay-off points (and ace bonuses under the ace variants) when earned, and the
end-of-hand settlement (penalties and the ace multiplier) when the hand ends. A game
starts from 0 points: an ace bonus scored in the automatic start of the first turn
(before any decision) is paid with the first decision's reward, so each player's rewards
sum to its final score / `score_scale`.

## Version History

* v1: reaching `max_hands` truncates the episode instead of deciding the game
  (`max_hands_end="truncate"`; v0: `"decide"`, still an option). New observation pieces,
  appended after `melds`: `hands_played`, `hands_left`, `passed_cards`, `passed_held`.
  Under `allow_clear=True` the selection (`selection`, `composing`) is seen by the acting
  player only (v0: by every seat).
  Every env takes the base option `skip_forced` (apply single-action steps at once); default
  `False`, chosen on the learning curves of docs/training.md ("Forced steps").
* v0: Initial release (ice-envs 0.1.0).
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import numpy as np
from gymnasium import spaces

from ice_envs.core.aec import IceAECEnv
from ice_envs.core.cards import relative_seats
from ice_envs.core.errors import OptionError
from ice_envs.core.layout import ObservationLayout, Piece
from ice_envs.core.options import check_choice, check_flag, check_int, check_number
from ice_envs.core.wrapping import make_factories
from ice_envs.iceberg_rummy import melds as M
from ice_envs.iceberg_rummy import rules
from ice_envs.iceberg_rummy.spec import SPEC

MAX_SEATS = 5
#: Width of a row of the ``melds`` piece (one table meld slot; see the module docstring).
SLOT_SIZE = 30
DEFAULT_MAX_HANDS = rules.IcebergRummyConfig.max_hands
_INF = float("inf")
_RANKS_OF = np.arange(M.NUM_CARDS) % M.NUM_RANKS
_SUITS_OF = np.arange(M.NUM_CARDS) // M.NUM_RANKS
_HALF = np.float32(0.5)


def layout_for(config: rules.IcebergRummyConfig) -> ObservationLayout:
    """The observation layout (the same for every configuration). The pieces after ``melds`` came in v1."""
    c, k = M.NUM_CARDS, MAX_SEATS
    return ObservationLayout(
        [
            Piece("hand", c, 0, 1, "own hand, copies of each card / 2"),
            Piece("selection", c, 0, 1, "the play being composed by the acting player / 2 (allow_clear: own only)"),
            Piece("table_cards", c, 0, 1, "cards in table melds / 2"),
            Piece("passed", c, 0, 1, "the card I passed most recently this hand (one-hot)"),
            Piece("received", c, 0, 1, "the card I picked up from my right-hand neighbour most recently (one-hot)"),
            Piece("hand_sizes", k, 0, 10.4, "hand size per relative seat / 10"),
            Piece("aces", k, 0, 1, "aces placed this hand per relative seat / 8"),
            Piece("hand_points", k, -_INF, _INF, "points recorded this hand per relative seat / 1000"),
            Piece("totals", k, -_INF, _INF, "game total per relative seat / 1000"),
            Piece("begun", k, 0, 1, "relative seat has begun a turn this hand"),
            Piece("seated", k, 0, 1, "relative seat is at the table"),
            Piece("dealer", k, 0, 1, "relative seat is the dealer"),
            Piece("acting", k, 0, 1, "relative seat is acting"),
            Piece("stock", 1, 0, 1, "stock size / deck size"),
            Piece("aces_hidden", 1, 0, 1, "aces not yet placed / aces in the deck"),
            Piece("two_decks", 1, 0, 1, "two decks are in play"),
            Piece("passed_known", 1, 0, 1, "the card I passed is known to be still in my left neighbour's hand"),
            Piece("composing", 1, 0, 1, "a play is being composed (selection non-empty; allow_clear: own only)"),
            Piece("last_turn", 1, 0, 1, "the hand ends after this turn (ace-holder variant)"),
            Piece("melds", (rules.MAX_MELDS, SLOT_SIZE), 0, 1, "48 table meld slots x 30, in the order laid"),
            Piece("hands_played", 1, 0, _INF, "hands finished this game / 100 (0 in the first hand)"),
            Piece(
                "hands_left",
                1,
                0,
                1,
                "hands left before the cap, this one included / max_hands (0: no cap, single hand)",
            ),
            Piece("passed_cards", c, 0, 1, "copies of each card I passed this hand (at most the deck's) / 2"),
            Piece(
                "passed_held",
                1,
                0,
                1,
                "my last pass is known to be in my left neighbour's hand (2p: also after it passed me another card)",
            ),
        ]
    )


class IcebergRummyEnv(IceAECEnv):
    """Iceberg Rummy as a PettingZoo AEC env (see the module docstring)."""

    metadata = {**IceAECEnv.metadata, "name": SPEC.env_name}
    min_players = 2
    max_players = 5
    engine = rules
    reset_option_keys = ("dealer", "hands", "stock", "melds")
    #: Per hand: 20x the longest heuristic hand seen (161 decisions, 5 players) rounded up to 4,000; a whole
    #: game (up to ``max_hands`` hands, 1,728 decisions at most seen) gets 40,000 (docs/rules/iceberg_rummy.md).
    default_max_decisions = 40_000

    def _default_max_decisions(self) -> int:
        return 4_000 if self.config.single_hand else self.default_max_decisions

    def __init__(
        self,
        num_players: int = 2,
        single_hand: bool = False,
        target_score: int = 5000,
        ace_scoring: str = "multiplier",
        ace_value: int = 30,
        ace_holder_finishes: bool = False,
        max_hands: int | None = DEFAULT_MAX_HANDS,
        allow_clear: bool = False,
        num_decks: int | None = None,
        score_scale: float = 100.0,
        max_hands_end: str = "truncate",
        **common: Any,
    ) -> None:
        name = self.metadata["name"]
        if num_decks is not None:
            num_decks = check_choice(name, "num_decks", check_int(name, "num_decks", num_decks), (1, 2))
        try:
            self.config = rules.IcebergRummyConfig(
                num_players=self.check_num_players(num_players),
                single_hand=check_flag(name, "single_hand", single_hand),
                target_score=check_int(name, "target_score", target_score, low=1),
                ace_scoring=check_choice(name, "ace_scoring", ace_scoring, rules.ACE_SCORINGS),
                ace_value=check_int(name, "ace_value", ace_value, low=20, high=50),
                ace_holder_finishes=check_flag(name, "ace_holder_finishes", ace_holder_finishes),
                max_hands=check_int(name, "max_hands", max_hands, low=1, allow_none=True),
                allow_clear=check_flag(name, "allow_clear", allow_clear),
                num_decks=num_decks,
                max_hands_end=check_choice(name, "max_hands_end", max_hands_end, rules.MAX_HANDS_ENDS),
            )
        except ValueError as exc:
            raise OptionError(str(exc)) from None
        if check_number(name, "score_scale", score_scale) <= 0:
            raise OptionError(f"{name}: score_scale must be a positive number, got {score_scale!r}")
        self.score_scale = float(score_scale)
        #: The observation layout; the encoder's offsets below are read from it once.
        self.obs_layout = lay = layout_for(self.config)
        super().__init__(num_players, **common)
        self._obs_size = lay.size
        self._hand_slice = lay.slice("hand")
        self._table_slice = lay.slice("table_cards")
        self._melds_slice = lay.slice("melds")
        #: the offsets of :meth:`_encode`, in the order it unpacks them
        self._offsets = lay.offsets(
            "selection",
            "passed",
            "received",
            "hand_sizes",
            "aces",
            "hand_points",
            "totals",
            "begun",
            "seated",
            "dealer",
            "acting",
            "stock",
            "aces_hidden",
            "two_decks",
            "passed_known",
            "composing",
            "last_turn",
        )
        #: the v1 pieces: two single values and the cards passed this hand
        self._offsets_v1 = lay.offsets("hands_played", "hands_left", "passed_held")
        self._passed_cards_slice = lay.slice("passed_cards")
        #: whether other seats see the acting player's selection (not under allow_clear, I24)
        self._selection_public = not self.config.allow_clear
        #: The table last encoded and its encoding per seat (see :meth:`_table_view`).
        self._tbl_melds: list[tuple[int, int, tuple[int, ...]]] = []
        self._tbl_cards = np.zeros(M.NUM_CARDS, dtype=np.float32)
        self._tbl_views = [np.zeros(rules.MAX_MELDS * SLOT_SIZE, dtype=np.float32) for _ in range(self.num_players)]
        self._tbl_rels = [_relative(seat, self.num_players)[1] for seat in range(self.num_players)]

    # -- encoding
    def _num_actions(self) -> int:
        return rules.NUM_ACTIONS

    def _observation_box(self) -> spaces.Box:
        return self.obs_layout.box()

    def _encode(self, seat: int) -> np.ndarray:
        """The observation of ``seat``: array blocks copied in, single values written through a
        ``memoryview`` (each Python float rounded once to float32, as numpy assignment does)."""
        s: rules.IcebergRummyState = self.game_state
        (o_sel, o_passed, o_received, o_sizes, o_aces, o_points, o_totals, o_begun, o_seated, o_dealer,
         o_acting, o_stock, o_aces_hidden, o_decks, o_known, o_composing, o_last) = self._offsets  # fmt: skip
        obs = np.zeros(self._obs_size, dtype=np.float32)
        np.multiply(s.hands[seat], _HALF, out=obs[self._hand_slice])
        table_cards, slots = self._table_view(s.melds, seat)
        obs[self._table_slice] = table_cards
        obs[self._melds_slice] = slots
        decks = s.config.decks
        np.multiply(np.minimum(s.passed[seat], decks), _HALF, out=obs[self._passed_cards_slice])
        mv = memoryview(obs)
        composing = bool(s.selection) and (self._selection_public or seat == s.current)
        if composing:
            for c in s.selection:
                mv[o_sel + c] += 0.5  # halves: exact in float32
        seats, rel = _relative(seat, self.num_players)
        passed, received = int(s.last_passed[seat]), int(s.last_received[seat])
        if passed >= 0:
            mv[o_passed + passed] = 1.0
        if received >= 0:
            mv[o_received + received] = 1.0
        sizes = s.hands.sum(axis=1).tolist()
        aces, points, bonus = s.aces.tolist(), s.hand_points.tolist(), s.ace_bonus.tolist()
        totals, turns = s.totals.tolist(), s.turns_taken.tolist()
        for i, q in enumerate(seats):
            mv[o_sizes + i] = sizes[q] * 0.1
            mv[o_aces + i] = aces[q] * 0.125
            mv[o_points + i] = (points[q] + bonus[q]) * 0.001
            mv[o_totals + i] = totals[q] * 0.001
            if turns[q]:
                mv[o_begun + i] = 1.0
            mv[o_seated + i] = 1.0
        mv[o_dealer + rel[s.dealer]] = 1.0
        if s.phase != rules.PHASE_OVER:
            mv[o_acting + rel[s.current]] = 1.0
        mv[o_stock] = (s.stock.size - s.stock_pos) / (52 * decks)
        mv[o_aces_hidden] = 1.0 - sum(s.table_aces.tolist()) / (4 * decks)
        if decks == 2:
            mv[o_decks] = 1.0
        if s.known_left[seat] >= 0:
            mv[o_known] = 1.0
        if composing:
            mv[o_composing] = 1.0
        if s.end_after_turn:
            mv[o_last] = 1.0
        o_played, o_left, o_held = self._offsets_v1
        mv[o_played] = s.hand_no * 0.01
        cap = s.config.max_hands
        if cap is not None and not s.config.single_hand:
            mv[o_left] = max(0, cap - s.hand_no) / cap
        if s.still_left[seat] >= 0:
            mv[o_held] = 1.0
        mv.release()
        return obs

    def _table_view(self, melds: list[tuple[int, int, tuple[int, ...]]], seat: int) -> tuple[np.ndarray, np.ndarray]:
        """The table as seen from ``seat``: card counts / 2 and the 48 meld slots.

        The env keeps the encoding of the last table it saw, for every seat, and updates
        only the slots of the melds that changed (a play appends a meld or replaces one);
        comparing the meld list with its copy is mostly a pointer comparison per meld.
        The arrays are the env's own: callers copy them and must not write to them.
        """
        if melds != self._tbl_melds:
            self._update_table(melds)
        return self._tbl_cards, self._tbl_views[seat]

    def _update_table(self, melds: list[tuple[int, int, tuple[int, ...]]]) -> None:
        """Bring the cached table encoding of :meth:`_table_view` up to ``melds``."""
        old = self._tbl_melds
        cards = self._tbl_cards
        views = self._tbl_views
        if len(melds) < len(old):  # a new hand (or another state): start from an empty table
            cards[:] = 0.0
            for view in views:
                view[:] = 0.0
            old = []
        rels = self._tbl_rels
        for k, meld in enumerate(melds):
            if k < len(old):
                before = old[k]
                if meld is before or meld == before:
                    continue
                cards -= _slot(before[0], before[2])[1]  # halves: float32 sums stay exact
            kind, owner, meld_cards = meld
            slot, counts = _slot(kind, meld_cards)
            cards += counts
            at = k * SLOT_SIZE
            for view, rel in zip(views, rels):
                view[at : at + SLOT_SIZE] = slot
                view[at + 7 + rel[owner]] = 1.0
        self._tbl_melds[:] = melds  # in place: a failed reset or load restores this very list

    # -- engine
    def _current_seat(self) -> int:
        return self.game_state.current

    def _apply_action(self, action: int) -> None:
        # the base class has checked the action against the mask
        rules.apply(self.game_state, action, self.np_random, check=False)

    def _scores(self) -> np.ndarray:
        return rules.scores(self.game_state) / self.score_scale

    def _opening_scores(self) -> np.ndarray:
        """A new game starts from 0 points: an ace placed in the automatic start of the first turn (R3.3)
        scores its variant bonus at once (R7.1), paid with the first decision's reward."""
        return np.zeros(self.num_players)

    def _undecided_stop(self) -> str | None:
        """A game stopped undecided at ``max_hands`` (``max_hands_end="truncate"``, I17) is a truncation:
        no outcome reward (score rewards still carry the last settlement), scores in the infos."""
        return "max_hands" if rules.is_truncated(self.game_state) else None

    # -- text
    def _describe(self, action: int) -> str:
        s: rules.IcebergRummyState = self.game_state
        sel = list(s.selection)
        if action < rules.DISCARD_BASE:
            now = M.cards_text([*sel, action])
            return f"select {M.card_name(action)} (play so far: {now})"
        if action < rules.COMMIT_NEW:
            left = (s.current + 1) % self.num_players
            return f"discard {M.card_name(action - rules.DISCARD_BASE)} face down to player_{left}"
        if action == rules.CLEAR_SELECTION:
            return f"clear the selection ({M.cards_text(sel) or 'empty'})"
        target = -1 if action == rules.COMMIT_NEW else action - rules.LAYOFF_BASE
        value = rules.analysis(s).commits.get(tuple(sel), {}).get(target) if s.phase == rules.PHASE_MELD else None
        points = f" (+{value})" if value is not None else ""
        if target < 0:
            kind = M.meld_kind(sel)
            name = _kind_name(kind, len(sel)) if kind is not None else "meld"
            return f"lay {M.cards_text(sel) or 'the selection'} as a new {name}{points}"
        if target < len(s.melds):
            kind, owner, cards = s.melds[target]
            where = f"meld {target} (player_{owner}'s {_kind_name(kind, len(cards))} {M.cards_text(cards)})"
        else:
            where = f"meld slot {target} (empty)"
        return f"lay off {M.cards_text(sel) or 'the selection'} onto {where}{points}"

    def _render_rgb(self, viewer: int | None) -> np.ndarray:
        from ice_envs.iceberg_rummy.picture import draw

        return draw(self, viewer)

    def _render_svg(self, viewer: int | None) -> str:
        from ice_envs.iceberg_rummy.picture import svg

        return svg(self, viewer)

    def _action_target(self, action: int) -> str | None:
        from ice_envs.iceberg_rummy.picture import action_target

        return action_target(self, action)

    def _render_text(self, viewer: int | None) -> str:
        s: rules.IcebergRummyState = self.game_state
        n = self.num_players
        decks = "two decks" if s.config.decks == 2 else "one deck"
        head = f"Iceberg Rummy, {n} players ({decks}), hand {s.hand_no + (0 if s.phase == rules.PHASE_OVER else 1)}"
        head += f", dealer player_{s.dealer}"
        if s.phase == rules.PHASE_OVER and s.truncated:
            head += f" — stopped undecided at the hand cap (max_hands={s.config.max_hands}, truncated): no winner"
        elif s.phase == rules.PHASE_OVER:
            head += " — game over, winner(s): " + ", ".join(f"player_{w}" for w in s.winners)
        else:
            head += f" — player_{s.current} to meld or discard"
            if s.end_after_turn:
                head += " (last ace placed: the hand ends after this turn)"
        aces_left = rules.total_aces(s.config) - int(s.table_aces.sum())
        lines = [head, f"Stock: {s.stock_size} cards   Aces still hidden: {aces_left}"]
        lines.append("Table:" if s.melds else "Table: no melds yet")
        for k, (kind, owner, cards) in enumerate(s.melds):
            lines.append(f"  [{k:2d}] player_{owner:<2d} {_kind_name(kind, len(cards)):<19s} {M.cards_text(cards)}")
        for p in range(n):
            size = int(s.hands[p].sum())
            if viewer is None or viewer == p:
                cards = M.cards_text(M.cards_of(s.hands[p]))
            else:
                cards = "## " * size
            marker = ">" if p == s.current and s.phase != rules.PHASE_OVER else " "
            score = f"total {int(s.totals[p]):6d}"
            if s.phase != rules.PHASE_OVER:
                score += f"  this hand +{int(s.hand_points[p] + s.ace_bonus[p])}"
            lines.append(f"{marker} player_{p}: {score}  aces {int(s.aces[p])}  {size:2d} cards  {cards.strip()}")
        sees_selection = self._selection_public or viewer is None or viewer == s.current
        if s.selection and s.phase != rules.PHASE_OVER and sees_selection:
            lines.append(f"Composing: {M.cards_text(s.selection)}")
        if s.last_hand:
            h = s.last_hand
            parts = [
                f"player_{p} {h['meld_points'][p]:+d} melds, -{h['penalties'][p]} left in hand, "
                f"{h['aces'][p]} aces => {h['scores'][p]:+d}"
                for p in range(n)
            ]
            lines.append(f"Last hand ({h['hand'] + 1}, ended: {h['reason']}): " + "; ".join(parts))
        return "\n".join(lines)


@lru_cache(maxsize=64)
def _relative(seat: int, n: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Seats in relative order from ``seat``, and the relative position of each seat."""
    seats = relative_seats(seat, n)
    rel = np.empty(n, dtype=np.int64)
    rel[seats] = np.arange(n)
    return tuple(seats.tolist()), tuple(rel.tolist())


@lru_cache(maxsize=8192)
def _slot(kind: int, cards: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray]:
    """One encoded meld slot without its owner (values 7-11), and its cards as counts / 2 (cached)."""
    arr = np.asarray(cards, dtype=np.intp)
    slot = np.zeros(SLOT_SIZE, dtype=np.float32)
    slot[0] = 1.0
    slot[1 + kind] = 1.0
    slot[12 + _RANKS_OF[arr]] = 1.0
    slot[25:29] = np.minimum(np.bincount(_SUITS_OF[arr], minlength=4), 2) / 2.0
    slot[29] = len(cards) / 12.0
    counts = np.bincount(arr, minlength=M.NUM_CARDS).astype(np.float32) * 0.5
    return slot, counts


def _kind_name(kind: int, size: int) -> str:
    if kind == M.GROUP:
        return "pair" if size == 2 else "set"
    return M.KIND_NAMES[kind]


env, raw_env = make_factories(IcebergRummyEnv)
