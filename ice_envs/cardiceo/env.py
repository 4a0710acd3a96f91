"""
# Cardiceo

| Import             | `from ice_envs import cardiceo_v1`                  |
|--------------------|-----------------------------------------------------|
| Actions            | Discrete                                            |
| Parallel API       | No                                                  |
| Manual Control     | `ice-envs play cardiceo`                          |
| Agents             | `agents= ['player_0', ..., 'player_{n-1}']`         |
| Agents             | 2-6                                                 |
| Action Shape       | Discrete(10)                                        |
| Action Values      | Discrete(10)                                        |
| Observation Shape  | (422,)                                              |
| Observation Values | [0, 1]                                              |

Be the first player to discard every card in your hand. A card may be discarded
when the total of one or more of the three dice (d4, d8, d12) equals its value;
the dice used are passed to the next player, who re-rolls them; the unused dice go
to the middle and keep their values. Rules: `docs/rules/cardiceo.md`.

## Arguments

``` python
cardiceo_v1.env(num_players=2, hand_size=10, forced_discard=False,
                render_mode=None, illegal_action="raise", reward_mode="outcome",
                max_cycles=None)
```

`num_players`: 2-6. `hand_size`: 10, or 5 for the short game.
`forced_discard`: a player must keep discarding while possible (default: the player
may end the turn at any time). `render_mode`: `"ansi"`, `"rgb_array"`, `"human"`.
`illegal_action`: `"raise"` or `"penalize"`. `reward_mode`: `"outcome"` or `"score"`.
`max_cycles`: truncate after `max_cycles * num_players` decisions.

`reset(seed, options)` accepts `options={"hands": [[values], ...], "start_player": k,
"dice": [d4, d8, d12]}` to start from a given deal and first roll.

## Observation Space

A dict with `"observation"` (float32, shape (422,), in [0, 1]) and `"action_mask"`
(int8, shape (10,)). The observation is from the observing player's seat; seats are
in relative order (self, the next player to the left, ...). The pieces, in order
(`layout_for(config)` declares them; a test keeps this table equal to it):

| Piece           | Offsets | Size         | Range  | Meaning                                                                                                 |
|-----------------|---------|--------------|--------|---------------------------------------------------------------------------------------------------------|
| `hand`          | 0-14    | 15           | [0, 1] | own cards of value 1..15 (count / 4)                                                                    |
| `discarded`     | 15-29   | 15           | [0, 1] | cards of value 1..15 discarded so far by anyone (count / 4)                                             |
| `die_values`    | 30-65   | 36 (3x12)    | [0, 1] | die values one-hot, per die (d4, d8, d12): value 1..12                                                  |
| `die_status`    | 66-74   | 9 (3x3)      | [0, 1] | per die: fresh roll, locked from the middle, used this turn                                             |
| `totals`        | 75-89   | 15           | [0, 1] | totals 1..15 that the available dice can make                                                           |
| `hand_sizes`    | 90-95   | 6            | [0, 1] | hand size per relative seat (count / hand_size), 0 for empty seats                                      |
| `seated`        | 96-101  | 6            | [0, 1] | relative seat is at the table                                                                           |
| `phase`         | 102-103 | 2            | [0, 1] | phase: the "No play" choice (keep or re-roll the middle dice), discarding                               |
| `acting`        | 104-109 | 6            | [0, 1] | relative seat that must decide now, one-hot (all 0 once the game is over)                               |
| `stuck_dice`    | 110-325 | 216 (6x3x12) | [0, 1] | per relative seat: its dice one-hot (d4, d8, d12: value 1..12) when it was last unable to play          |
| `stuck`         | 326-331 | 6            | [0, 1] | relative seat has been unable to play (its stuck_dice are set)                                          |
| `known_missing` | 332-421 | 90 (6x15)    | [0, 1] | per relative seat: values 1..15 it is known to lack (made by its free dice when a turn ended by itself) |

Die values and statuses are public; other hands and the set-aside cards are not
observed. The last four pieces (v1) are what a player at the table sees and remembers
(rules page R7.6): whose decision it is, and per seat its dice the last time it was
unable to play at all (no die used, so all three went to the middle) and the card values
it is known to lack: whenever a turn ends by itself, the player holds none of the totals
its free dice make, and since hands never grow the mark stays true for the rest of the
game.

## Action Space

| Action | Meaning                                                            |
|--------|--------------------------------------------------------------------|
| 0      | discard the card equal to the d4                                   |
| 1      | discard the card equal to the d8                                   |
| 2      | discard the card equal to the d12                                  |
| 3      | discard the card equal to d4 + d8                                  |
| 4      | discard the card equal to d4 + d12                                 |
| 5      | discard the card equal to d8 + d12                                 |
| 6      | discard the card equal to d4 + d8 + d12                            |
| 7      | end the turn (unused dice go to the middle)                        |
| 8      | "No play": keep the three middle dice                              |
| 9      | "No play": re-roll all three dice                                  |

Every distinct legal play is one action: the card value is the total of the chosen
dice. A turn ends by itself once no discard is possible (the rulebook's wording), so
"end turn" is offered only while a discard is still possible.

## Rewards

`reward_mode="outcome"`: the winner gets +1 and every other player -1 at the end.
`reward_mode="score"`: +1 for every card discarded.

## Version History

* v1 (rules fidelity): the observation gains the pieces `acting`, `stuck_dice`, `stuck` and
  `known_missing` (appended; the first 104 entries are unchanged); the engine state keeps
  `stuck_dice` and `known_missing`, and `resample_hidden` deals no seat a value it is known
  to lack. The rules are unchanged.
  Every env takes the base option `skip_forced` (apply single-action steps at once); default
  `False`, chosen on the learning curves of docs/training.md ("Forced steps").
* v0: Initial release (ice-envs 0.1.0).
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import numpy as np
from gymnasium import spaces

from ice_envs.cardiceo import rules
from ice_envs.cardiceo.spec import SPEC
from ice_envs.core.aec import IceAECEnv, float32_vector
from ice_envs.core.cards import relative_seats
from ice_envs.core.errors import OptionError
from ice_envs.core.layout import ObservationLayout, Piece
from ice_envs.core.options import check_choice, check_flag, check_int
from ice_envs.core.wrapping import make_factories

MAX_SEATS = 6
_QUARTER = 1.0 / rules.COPIES_PER_VALUE
_ONES = [[1.0] * n for n in range(MAX_SEATS + 1)]


def layout_for(config: rules.CardiceoConfig) -> ObservationLayout:
    """The observation layout (the same for every configuration)."""
    v = rules.NUM_VALUES
    return ObservationLayout(
        [
            Piece("hand", v, 0, 1, "own cards of value 1..15 (count / 4)"),
            Piece("discarded", v, 0, 1, "cards of value 1..15 discarded so far by anyone (count / 4)"),
            Piece("die_values", (3, 12), 0, 1, "die values one-hot, per die (d4, d8, d12): value 1..12"),
            Piece("die_status", (3, 3), 0, 1, "per die: fresh roll, locked from the middle, used this turn"),
            Piece("totals", v, 0, 1, "totals 1..15 that the available dice can make"),
            Piece("hand_sizes", MAX_SEATS, 0, 1, "hand size per relative seat (count / hand_size), 0 for empty seats"),
            Piece("seated", MAX_SEATS, 0, 1, "relative seat is at the table"),
            Piece("phase", 2, 0, 1, 'phase: the "No play" choice (keep or re-roll the middle dice), discarding'),
            # v1: the acting seat and the public record of R7.6, appended
            Piece(
                "acting", MAX_SEATS, 0, 1, "relative seat that must decide now, one-hot (all 0 once the game is over)"
            ),
            Piece(
                "stuck_dice",
                (MAX_SEATS, 3, 12),
                0,
                1,
                "per relative seat: its dice one-hot (d4, d8, d12: value 1..12) when it was last unable to play",
            ),
            Piece("stuck", MAX_SEATS, 0, 1, "relative seat has been unable to play (its stuck_dice are set)"),
            Piece(
                "known_missing",
                (MAX_SEATS, v),
                0,
                1,
                "per relative seat: values 1..15 it is known to lack (made by its free dice when a turn ended by itself)",
            ),
        ]
    )


class CardiceoEnv(IceAECEnv):
    """Cardiceo as a PettingZoo AEC env (see the module docstring)."""

    metadata = {**IceAECEnv.metadata, "name": SPEC.env_name}
    min_players = 2
    max_players = 6
    engine = rules
    reset_option_keys = ("hands", "dice", "start_player")
    #: 20x the longest heuristic game seen (64 decisions) is 1,280; random play's documented bound is 5,000:
    #: 5,000 ends the endless "keep the middle dice" loops of degenerate policies (docs/rules/cardiceo.md).
    default_max_decisions = 5_000

    def __init__(
        self,
        num_players: int = 2,
        hand_size: int = 10,
        forced_discard: bool = False,
        **common: Any,
    ) -> None:
        name = self.metadata["name"]
        hand_size = check_choice(name, "hand_size", check_int(name, "hand_size", hand_size), rules.HAND_SIZES)
        try:
            self.config = rules.CardiceoConfig(
                num_players=self.check_num_players(num_players),
                hand_size=hand_size,
                forced_discard=check_flag(name, "forced_discard", forced_discard),
            )
        except ValueError as exc:
            raise OptionError(str(exc)) from None
        #: The observation layout; the encoder's offsets below are read from it once.
        self.obs_layout = lay = layout_for(self.config)
        super().__init__(num_players, **common)
        self._order = [relative_seats(seat, self.num_players).tolist() for seat in range(self.num_players)]
        assert lay.offset("hand") == 0 and lay.offset("discarded") == rules.NUM_VALUES, "written first, in order"
        self._zeros_after_counts = [0.0] * (lay.size - lay.offset("die_values"))
        #: index of "die i shows 0" (its one-hot is at + value) and of die i's "fresh roll" column
        self._die_value_at = tuple(lay.offset("die_values") + 12 * i - 1 for i in range(3))
        self._die_status_at = tuple(lay.offset("die_status") + 3 * i for i in range(3))
        self._totals_at = lay.offset("totals")
        self._sizes_at = lay.offset("hand_sizes")
        self._seated_at = lay.offset("seated")
        self._phase_at = lay.offset("phase")
        self._acting_at = lay.offset("acting")
        self._stuck_dice_at = lay.offset("stuck_dice") - 1  # + 36 * relative seat + 12 * die + value
        self._stuck_at = lay.offset("stuck")
        self._missing_at = lay.offset("known_missing")

    # -- encoding
    def _num_actions(self) -> int:
        return rules.NUM_ACTIONS

    def _observation_box(self) -> spaces.Box:
        return self.obs_layout.box()

    def _encode(self, seat: int) -> np.ndarray:
        s: rules.CardiceoState = self.game_state
        hands = s.hands.tolist()
        # own cards and the discards, count / 4 (exact in float32, as numpy's float32 product)
        buf = [c * _QUARTER for c in hands[seat]]
        buf += [c * _QUARTER for c in s.discarded.tolist()]
        buf += self._zeros_after_counts
        d4, d8, d12 = s.dice.tolist()
        v4, v8, v12 = self._die_value_at
        buf[v4 + d4] = 1.0
        buf[v8 + d8] = 1.0
        buf[v12 + d12] = 1.0
        phase = s.phase
        if phase != rules.PHASE_OVER:
            u4, u8, u12 = s.used.tolist()
            l4, l8, l12 = s.locked.tolist()
            # status per die: fresh roll (+0), locked from the middle (+1), used this turn (+2)
            s4, s8, s12 = self._die_status_at
            buf[s4 + (2 if u4 else 1 if l4 else 0)] = 1.0
            buf[s8 + (2 if u8 else 1 if l8 else 0)] = 1.0
            buf[s12 + (2 if u12 else 1 if l12 else 0)] = 1.0
            free = (() if u4 else (d4,)) + (() if u8 else (d8,)) + (() if u12 else (d12,))
            if free:
                for i in _reachable_list(free, self._totals_at):
                    buf[i] = 1.0
            buf[self._phase_at + phase] = 1.0
        n = self.num_players
        scale = 1.0 / s.config.hand_size
        order = self._order[seat]
        at = self._sizes_at
        buf[at : at + n] = [sum(hands[p]) * scale for p in order]
        at = self._seated_at
        buf[at : at + n] = _ONES[n]
        if phase != rules.PHASE_OVER:
            buf[self._acting_at + (s.current - seat) % n] = 1.0
        self._encode_record(buf, s, order)
        return float32_vector(buf)

    def _encode_record(self, buf: list[float], s: rules.CardiceoState, order: list[int]) -> None:
        """The public record of R7.6 (``stuck_dice``, ``stuck``, ``known_missing``) into ``buf``, seats in ``order``."""
        stuck = s.stuck_dice.tolist()
        missing = s.known_missing.tolist()
        for r, p in enumerate(order):
            d4, d8, d12 = stuck[p]
            if d4:  # 0: never stuck
                at = self._stuck_dice_at + 36 * r
                buf[at + d4] = buf[at + 12 + d8] = buf[at + 24 + d12] = 1.0
                buf[self._stuck_at + r] = 1.0
            row = missing[p]
            if any(row):
                at = self._missing_at + rules.NUM_VALUES * r
                buf[at : at + rules.NUM_VALUES] = [1.0 if x else 0.0 for x in row]

    # -- engine
    def _current_seat(self) -> int:
        return self.game_state.current

    def _game_over(self) -> bool:
        return self.game_state.phase == rules.PHASE_OVER

    def _apply_action(self, action: int) -> None:
        rules.apply(self.game_state, action, self.np_random, check=False)

    # -- text
    def _describe(self, action: int) -> str:
        s: rules.CardiceoState = self.game_state
        if action < rules.NUM_SUBSETS:
            dice = rules.SUBSETS[action]
            parts = "+".join(f"{rules.DIE_NAMES[i]}={int(s.dice[i])}" for i in dice)
            return f"discard a {rules.subset_total(s, action)} using {parts}"
        if action == rules.END_TURN:
            return "end the turn (unused dice go to the middle)"
        values = ", ".join(f"{n}={int(v)}" for n, v in zip(rules.DIE_NAMES, s.dice, strict=False))
        if action == rules.KEEP_DICE:
            return f"keep the middle dice ({values})"
        return "re-roll all three dice"

    def _render_text(self, viewer: int | None) -> str:
        s: rules.CardiceoState = self.game_state
        head = f"Cardiceo, {self.num_players} players, turn {s.turn + 1}"
        if s.phase == rules.PHASE_OVER:
            head += f" — player_{s.winner} wins"
        else:
            head += f" — player_{s.current} is {rules.PHASE_NAMES[s.phase]}"
        dice = []
        for i, name in enumerate(rules.DIE_NAMES):
            where = "used" if s.used[i] else ("middle" if s.locked[i] else "rolled")
            dice.append(f"{name}={int(s.dice[i])} ({where})")
        lines = [head, "Dice: " + "  ".join(dice)]
        for p in range(self.num_players):
            size = int(s.hands[p].sum())
            if viewer is None or viewer == p:
                cards = " ".join(str(v + 1) for v in range(rules.NUM_VALUES) for _ in range(int(s.hands[p, v])))
            else:
                cards = "## " * size
            marker = ">" if p == s.current and s.phase != rules.PHASE_OVER else " "
            lines.append(f"{marker} player_{p}: {size:2d} cards  {cards.strip()}")
            record = _record_text(s, p)
            if record:
                lines.append(record)
        return "\n".join(lines)

    def _render_rgb(self, viewer: int | None) -> np.ndarray:
        from ice_envs.cardiceo.picture import draw

        return draw(self, viewer)

    def _render_svg(self, viewer: int | None) -> str:
        from ice_envs.cardiceo.picture import svg

        return svg(self, viewer)

    def _action_target(self, action: int) -> str | None:
        from ice_envs.cardiceo.picture import action_target

        return action_target(self, action)


def _record_text(s: rules.CardiceoState, p: int) -> str:
    """Seat ``p``'s public record (R7.6) as a line of the text view (empty if none), e.g.
    ``"    stuck on 4 8 10; holds no 4 8 10 12 14"`` (dice d4, d8, d12; at most 65 characters)."""
    parts = []
    if s.stuck_dice[p, 0]:
        parts.append("stuck on " + " ".join(str(v) for v in s.stuck_dice[p].tolist()))
    missing = (np.flatnonzero(s.known_missing[p]) + 1).tolist()
    if missing:
        parts.append("holds no " + " ".join(map(str, missing)))
    return "    " + "; ".join(parts) if parts else ""


@lru_cache(maxsize=4096)
def _reachable_list(free_dice: tuple[int, ...], totals_at: int) -> tuple[int, ...]:
    """Observation indices of the card totals that ``free_dice`` can make (``totals_at``: the
    offset of the ``totals`` piece)."""
    totals = sorted(t for t in rules.reachable_totals(free_dice) if t <= rules.NUM_VALUES)
    return tuple(totals_at + t - 1 for t in totals)


env, raw_env = make_factories(CardiceoEnv)
