"""
# CubeMelt: Getting Dicey

| Import             | `from ice_envs import cubemelt_v1`                  |
|--------------------|-----------------------------------------------------|
| Actions            | Discrete                                            |
| Parallel API       | No                                                  |
| Manual Control     | `ice-envs play cubemelt`                          |
| Agents             | `agents= ['player_0', ..., 'player_{n-1}']`         |
| Agents             | 2-5                                                 |
| Action Shape       | Discrete(68)                                        |
| Action Values      | Discrete(68)                                        |
| Observation Shape  | (107,)                                              |
| Observation Values | [0, 1]                                              |

Keep your CubeMelt from melting while gaining Love and Adventure. On your turn roll six
dice, re-roll any of them once for free, then (paying 1 Melt) once more, and resolve:
the unique most frequent face goes to your left and right neighbours, the other dice to
you; when faces tie for most frequent, every die goes to you. 20 Love or 20 Adventure
wins at once; a Melt token at 0 ends the game and the others score min(Love,
Adventure). The expansion gives each player an ability (Cat, Dragon, Knight, Ninja,
Unicorn) whose choices are made by its owner, even on another player's turn.
Rules and every interpretation: `docs/rules/cubemelt.md`.

## Arguments

``` python
cubemelt_v1.env(num_players=2, faces=("heart", "heart", "star", "star", "sad", "drooping"),
                expansion=None, abilities=None, paid_rerolls=1, reroll_can_melt=False,
                ninja_targets="all", per_neighbour=False, cat_trigger="planned",
                render_mode=None, illegal_action="raise", reward_mode="outcome",
                max_cycles=None)
```

`num_players`: 2-5. `faces`: the faces of every die (names `"heart"`, `"star"`, `"sad"`,
`"drooping"`; 1-12 faces; e.g. `("heart", "star", "sad", "drooping")` for the
`uniform_faces` variant). `expansion`: play the expansion (abilities); `None` means
"on if `abilities` is given". `abilities`: one distinct ability per seat, e.g.
`("cat", "dragon", "knight")`; `None` deals them at random from the env's generator at
every reset. `paid_rerolls`: paid re-rolls allowed per turn (house rule 1).
`reroll_can_melt`: allow paying the last Melt (the payer melts and the game ends at
once). `ninja_targets`: `"all"` (the Ninja's remaining dice go to every other player,
the rulebook's "other players"; default since v1) or `"neighbours"` (to its left and
right players only; the v0 default). `per_neighbour`: the Cat and the Dragon trigger
once per neighbour meeting the condition instead of once per roll. `cat_trigger`:
`"planned"` (the Cat gains when a neighbour's dice of the roll give it 3 or more of a
kind, counted before the cap at 20) or `"actual"` (when a neighbour's real gain of a
kind over the whole resolution — dice, its own ability, after the cap — is 3 or more;
checked last, once every choice is made).
`render_mode`: `"ansi"`, `"rgb_array"`, `"human"`. `illegal_action`: `"raise"` or
`"penalize"`. `reward_mode`: `"outcome"` or `"score"`. `max_cycles`: truncate after
`max_cycles * num_players` decisions.

`reset(seed, options)` accepts `options={"abilities": [...], "dice": [6 faces],
"love": [...], "adventure": [...], "melt": [...], "start_player": k}` to start from a
given position (the dice are the start player's first roll).

## Observation Space

A dict with `"observation"` (float32, shape (107,), in [0, 1]) and `"action_mask"`
(int8, shape (68,)). Everything in CubeMelt is public. Seats are in relative order:
row r of `seats` and of `plan` describes the player r seats to the observer's left
(r = 0 is the observer); rows beyond the table are zero. The pieces, in order
(`layout_for(config)` declares them; a test keeps this table equal to it):

| Piece         | Offsets | Size      | Range  | Meaning                                                                                                                                                       |
|---------------|---------|-----------|--------|---------------------------------------------------------------------------------------------------------------------------------------------------------------|
| `seats`       | 0-54    | 55 (5x11) | [0, 1] | per relative seat: Love/20, Adventure/20, Melt/20, at the table, is the active player, is deciding now, ability one-hot (Cat, Dragon, Knight, Ninja, Unicorn) |
| `dice`        | 55-78   | 24 (6x4)  | [0, 1] | the six dice, one-hot face each (Heart, Star, Sad, Drooping)                                                                                                  |
| `face_counts` | 79-82   | 4         | [0, 1] | dice showing Heart, Star, Sad, Drooping (count / 6)                                                                                                           |
| `reroll_cost` | 83-84   | 2         | [0, 1] | re-rolling and the next re-roll is free / costs 1 Melt                                                                                                        |
| `paid_left`   | 85      | 1         | [0, 1] | paid re-rolls the active player can still make this turn (its Melt allowing) / `paid_rerolls`                                                                 |
| `decision`    | 86-90   | 5         | [0, 1] | pending decision: re-roll, Ninja apply/decline, Knight, Dragon, Unicorn Love-or-Adventure                                                                     |
| `plan`        | 91-105  | 15 (5x3)  | [0, 1] | the resolution in progress, per relative seat: Love gained, Adventure gained, Melt lost by the dice (each / 6); zero while re-rolling                         |
| `expansion`   | 106     | 1         | [0, 1] | expansion rules in play                                                                                                                                       |

## Action Space

| Action | Meaning                                                            |
|--------|--------------------------------------------------------------------|
| 0      | stop re-rolling and resolve the dice                               |
| 1-63   | re-roll exactly the dice whose bits are set (bit i = die i, dice 0-5); free as the turn's first re-roll, otherwise it costs 1 Melt (observation piece `reroll_cost` says which) |
| 64     | take Love (Knight conversion, Dragon or Unicorn gain)              |
| 65     | take Adventure (same choices)                                      |
| 66     | Ninja: apply the five-or-more face to yourself, the rest to the others |
| 67     | Ninja: decline                                                     |

Masks are exact. While re-rolling, ids 0-63 are legal; a paid re-roll is offered only
while the turn's paid re-rolls are not used up and paying would not melt the payer
(unless `reroll_can_melt`); after the last allowed re-roll the dice resolve at once.
Love-or-Adventure choices and the Ninja decision select the ability's owner as the
acting agent, even off-turn.

## Rewards

`reward_mode="outcome"`: at the end every winner gets +1 (shared wins +1 each) and
every other player -1; if every player melted at once nobody wins (all -1).
`reward_mode="score"`: the change of the player's tracks, ΔLove + ΔAdventure + ΔMelt
(Melt lost counts negative), after every decision.

## Version History

* v1: `ninja_targets` defaults to `"all"` (the rulebook's "the other players' boards";
  v0: `"neighbours"`, still an option); new option `cat_trigger` (`"planned"`, the v0
  behaviour, or `"actual"`). Observations are unchanged.
  Every env takes the base option `skip_forced` (apply single-action steps at once); default
  `False`, chosen on the learning curves of docs/training.md ("Forced steps").
* v0: Initial release (ice-envs 0.1.0).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from gymnasium import spaces

from ice_envs.core.aec import IceAECEnv, float32_vector
from ice_envs.core.cards import relative_seats
from ice_envs.core.errors import OptionError
from ice_envs.core.layout import ObservationLayout, Piece
from ice_envs.core.options import check_choice, check_flag, check_int
from ice_envs.core.wrapping import make_factories
from ice_envs.cubemelt import rules
from ice_envs.cubemelt.spec import SPEC

MAX_SEATS = 5
#: Width of a row of the ``seats`` piece (see :func:`layout_for`).
SEAT_BLOCK = 11
#: Column of the ``decision`` piece of each ability's Love-or-Adventure choice.
_DECISION_SLOT = {rules.KNIGHT: 2, rules.DRAGON: 3, rules.UNICORN: 4}
# rules constants as module globals (read in the encoder's loops)
_GOAL, _START_MELT, _NUM_DICE = rules.GOAL, rules.START_MELT, rules.NUM_DICE
_REROLL, _NINJA, _CHOOSE, _OVER = rules.PHASE_REROLL, rules.PHASE_NINJA, rules.PHASE_CHOOSE, rules.PHASE_OVER


def layout_for(config: rules.CubeMeltConfig) -> ObservationLayout:
    """The observation layout (the same for every configuration)."""
    n_dice, n_faces = rules.NUM_DICE, 4
    return ObservationLayout(
        [
            Piece(
                "seats",
                (MAX_SEATS, SEAT_BLOCK),
                0,
                1,
                "per relative seat: Love/20, Adventure/20, Melt/20, at the table, is the active player, "
                "is deciding now, ability one-hot (Cat, Dragon, Knight, Ninja, Unicorn)",
            ),
            Piece("dice", (n_dice, n_faces), 0, 1, "the six dice, one-hot face each (Heart, Star, Sad, Drooping)"),
            Piece("face_counts", n_faces, 0, 1, "dice showing Heart, Star, Sad, Drooping (count / 6)"),
            Piece("reroll_cost", 2, 0, 1, "re-rolling and the next re-roll is free / costs 1 Melt"),
            Piece(
                "paid_left",
                1,
                0,
                1,
                "paid re-rolls the active player can still make this turn (its Melt allowing) / `paid_rerolls`",
            ),
            Piece(
                "decision",
                5,
                0,
                1,
                "pending decision: re-roll, Ninja apply/decline, Knight, Dragon, Unicorn Love-or-Adventure",
            ),
            Piece(
                "plan",
                (MAX_SEATS, 3),
                0,
                1,
                "the resolution in progress, per relative seat: Love gained, Adventure gained, "
                "Melt lost by the dice (each / 6); zero while re-rolling",
            ),
            Piece("expansion", 1, 0, 1, "expansion rules in play"),
        ]
    )


class CubeMeltEnv(IceAECEnv):
    """CubeMelt: Getting Dicey as a PettingZoo AEC env (see the module docstring)."""

    metadata = {**IceAECEnv.metadata, "name": SPEC.env_name}
    min_players = 2
    max_players = 5
    engine = rules
    reset_option_keys = ("abilities", "dice", "love", "adventure", "melt", "start_player")
    #: 20x the longest heuristic game seen (62 decisions), rounded up (docs/rules/cubemelt.md).
    default_max_decisions = 2_000

    def __init__(
        self,
        num_players: int = 2,
        faces: Sequence[str | int] = rules.DEFAULT_FACES,
        expansion: bool | None = None,
        abilities: Sequence[str | int] | None = None,
        paid_rerolls: int = 1,
        reroll_can_melt: bool = False,
        ninja_targets: str = "all",
        per_neighbour: bool = False,
        cat_trigger: str = "planned",
        **common: Any,
    ) -> None:
        name = self.metadata["name"]
        num_players = self.check_num_players(num_players)
        try:
            faces = rules.check_faces(faces)
            abilities = None if abilities is None else rules.check_abilities("abilities", abilities, num_players)
        except ValueError as exc:
            raise OptionError(f"{name}: {exc}") from None
        expansion = abilities is not None if expansion is None else check_flag(name, "expansion", expansion)
        try:
            self.config = rules.CubeMeltConfig(
                num_players=num_players,
                faces=faces,  # type: ignore[arg-type]
                expansion=expansion,
                abilities=abilities,
                paid_rerolls=check_int(name, "paid_rerolls", paid_rerolls, low=0, high=rules.MAX_PAID_REROLLS),
                reroll_can_melt=check_flag(name, "reroll_can_melt", reroll_can_melt),
                ninja_targets=check_choice(name, "ninja_targets", ninja_targets, rules.NINJA_TARGETS),
                per_neighbour=check_flag(name, "per_neighbour", per_neighbour),
                cat_trigger=check_choice(name, "cat_trigger", cat_trigger, rules.CAT_TRIGGERS),
            )
        except (ValueError, TypeError) as exc:
            raise OptionError(str(exc)) from None
        #: The observation layout; the encoder's offsets below are read from it once.
        self.obs_layout = lay = layout_for(self.config)
        super().__init__(num_players, **common)
        #: Seats in relative order (self, then to the left) for each observer.
        self._orders = [relative_seats(seat, self.num_players).tolist() for seat in range(self.num_players)]
        self._obs_size = lay.size
        self._seats_at = lay.offset("seats")
        self._dice_at = lay.offset("dice")
        self._counts_at = lay.offset("face_counts")
        self._reroll_at = lay.offset("reroll_cost")
        self._paid_at = lay.offset("paid_left")
        self._decision_at = lay.offset("decision")
        self._plan_at = lay.offset("plan")
        self._expansion_at = lay.offset("expansion")

    # -- encoding
    def _num_actions(self) -> int:
        return rules.NUM_ACTIONS

    def _observation_box(self) -> spaces.Box:
        return self.obs_layout.box()

    def _encode(self, seat: int) -> np.ndarray:
        s: rules.CubeMeltState = self.game_state
        buf = [0.0] * self._obs_size  # filled as a list, converted once (cheaper than item-wise numpy writes)
        phase = s.phase
        over = phase == _OVER
        order = self._orders[seat]
        love, adventure, melt, abilities = s.love, s.adventure, s.melt, s.abilities
        active, decider = s.active, s.decider
        base = self._seats_at
        for p in order:
            buf[base] = love[p] / _GOAL
            buf[base + 1] = adventure[p] / _GOAL
            buf[base + 2] = melt[p] / _START_MELT
            buf[base + 3] = 1.0
            if not over:
                buf[base + 4] = 1.0 if p == active else 0.0
                buf[base + 5] = 1.0 if p == decider else 0.0
            ability = abilities[p]
            if ability >= 0:
                buf[base + 6 + ability] = 1.0
            base += SEAT_BLOCK
        counts = [0, 0, 0, 0]
        i = self._dice_at
        for face in s.dice:
            buf[i + face] = 1.0
            counts[face] += 1
            i += 4
        i = self._counts_at
        buf[i : i + 4] = [c / _NUM_DICE for c in counts]
        if phase == _REROLL:
            rerolls = s.rerolls
            buf[self._reroll_at + (0 if rerolls == 0 else 1)] = 1.0
            buf[self._decision_at] = 1.0
            paid = s.config.paid_rerolls
            if paid:
                buf[self._paid_at] = rules.paid_rerolls_left(s) / paid
        elif phase == _NINJA or phase == _CHOOSE:
            buf[self._decision_at + (1 if phase == _NINJA else _DECISION_SLOT[s.pending])] = 1.0
            plan_love, plan_adventure, plan_melt = s.plan_love, s.plan_adventure, s.plan_melt
            base = self._plan_at
            for p in order:
                buf[base] = plan_love[p] / _NUM_DICE
                buf[base + 1] = plan_adventure[p] / _NUM_DICE
                buf[base + 2] = plan_melt[p] / _NUM_DICE
                base += 3
        buf[self._expansion_at] = float(s.config.expansion)
        return float32_vector(buf)

    # -- engine
    def _current_seat(self) -> int:
        return self.game_state.decider

    def _game_over(self) -> bool:
        return self.game_state.phase == rules.PHASE_OVER

    # -- text
    def _describe(self, action: int) -> str:
        return describe(self.game_state, action)

    def _render_text(self, viewer: int | None) -> str:
        return render_text(self.game_state)

    def _render_rgb(self, viewer: int | None) -> np.ndarray:
        from ice_envs.cubemelt.picture import draw

        return draw(self, viewer)

    def _render_svg(self, viewer: int | None) -> str:
        from ice_envs.cubemelt.picture import svg

        return svg(self, viewer)

    def _action_target(self, action: int) -> str | None:
        from ice_envs.cubemelt.picture import action_target

        return action_target(self, action)


def _dice_text(dice: Sequence[int]) -> str:
    return " ".join(rules.FACE_LABELS[d] for d in dice)


def _ability_label(ability: int) -> str:
    return rules.ABILITY_NAMES[ability].capitalize() if ability >= 0 else ""


def describe(state: rules.CubeMeltState, action: int) -> str:
    """A readable description of ``action`` in ``state``."""
    if 0 <= action < rules.NUM_SUBSETS:
        if action == rules.STOP:
            return f"stop re-rolling and resolve {_dice_text(state.dice)}"
        which = [i for i in range(rules.NUM_DICE) if action >> i & 1]
        names = ", ".join(f"die {i} ({rules.FACE_LABELS[state.dice[i]]})" for i in which)
        kept = [rules.FACE_LABELS[state.dice[i]] for i in range(rules.NUM_DICE) if not action >> i & 1]
        cost = "pay 1 Melt and re-roll" if rules.next_reroll_paid(state) else "re-roll (free)"
        return f"{cost} {names}; keep {' '.join(kept) or 'nothing'}"
    if action in (rules.CHOOSE_LOVE, rules.CHOOSE_ADVENTURE):
        kind = "Love" if action == rules.CHOOSE_LOVE else "Adventure"
        if state.pending == rules.KNIGHT:
            return f"Knight: convert 1 of the Melt lost into 1 {kind}"
        if state.pending in (rules.DRAGON, rules.UNICORN):
            return f"{_ability_label(state.pending)}: gain 2 {kind}"
        return f"take {kind}"
    if action == rules.NINJA_APPLY:
        face = rules.most_frequent(state.dice)
        label = rules.FACE_LABELS[face] if face is not None else "the most frequent face"
        return f"Ninja: apply the {label} dice to yourself, the other dice to the other players"
    if action == rules.NINJA_DECLINE:
        return "Ninja: decline, resolve normally"
    return f"action {action} (outside CubeMelt's actions)"


def _event_text(event: tuple[int, int, int, int, int]) -> str:
    seat, source, love, adventure, melt = event
    if source == rules.NINJA:
        return f"player_{seat} (Ninja) takes the most frequent face"
    parts = [f"{v:+d} {name}" for v, name in zip((love, adventure, melt), rules.TRACK_NAMES, strict=True) if v]
    what = ", ".join(parts)
    if source == rules.SOURCE_PAID:
        return f"player_{seat} pays 1 Melt to re-roll"
    if source == rules.SOURCE_DICE:
        return f"player_{seat} {what}"
    if source == rules.KNIGHT:
        return f"player_{seat} (Knight) converts 1 Melt lost: {what}"
    return f"player_{seat} ({_ability_label(source)}) {what}"


def render_text(state: rules.CubeMeltState) -> str:
    """Text view of the table (everything is public)."""
    s = state
    cfg = s.config
    rules_name = "expansion" if cfg.expansion else "base rules"
    head = f"CubeMelt ({rules_name}), {cfg.num_players} players, turn {s.turn + 1}"
    if s.phase == rules.PHASE_OVER:
        names = " and ".join(f"player_{p}" for p in s.winners)
        verb = " win" if len(s.winners) > 1 else " wins"
        goal = [p for p in s.winners if max(s.love[p], s.adventure[p]) >= rules.GOAL]
        melted = ", ".join(f"player_{p}" for p in s.melted)
        if goal:
            head += f" — {names}{verb} with 20 Love or Adventure"
        elif s.winners:
            final = rules.final_scores(s)
            head += f" — {melted} melted; {names}{verb} with min(Love, Adventure) = {final[s.winners[0]]}"
        else:
            head += f" — {melted} melted; nobody wins"
    elif s.phase == rules.PHASE_REROLL:
        cost = "free re-roll" if s.rerolls == 0 else "re-roll for 1 Melt"
        head += f" — player_{s.active} may {cost} or stop"
    elif s.phase == rules.PHASE_NINJA:
        head += f" — player_{s.active} (Ninja) may take the most frequent face"
    else:
        head += f" — player_{s.decider} ({_ability_label(s.pending)}) chooses Love or Adventure"
    lines = [head]
    if s.last_active >= 0:
        lines.append(f"Last roll by player_{s.last_active}: {_dice_text(s.last_dice)}")
        lines.extend("  " + _event_text(e) for e in s.last_events)
    lines.append(f"Dice of player_{s.active}: {_dice_text(s.dice)}")
    if s.events:
        lines.extend("  " + _event_text(e) for e in s.events)
    for p in range(cfg.num_players):
        marker = ">" if s.phase != rules.PHASE_OVER and p == s.decider else " "
        ability = f"{_ability_label(s.abilities[p]):8s}" if cfg.expansion else ""
        lines.append(
            f"{marker} player_{p} {ability}Love {s.love[p]:2d}  Adventure {s.adventure[p]:2d}  Melt {s.melt[p]:2d}"
        )
    return "\n".join(lines)


env, raw_env = make_factories(CubeMeltEnv)
