"""The picture of Tip of the Diceberg: the pool, the Diceberg slots with their melds, every hand.

One paint function (:func:`paint`) makes the ``rgb_array`` pixels (:func:`draw`) and the SVG (:func:`svg`).
In the SVG the face-up hand cards (``p<seat>-card-<card>``), the players' dice (``p<seat>-die-<die>``),
the pool dice (``pool-die-<die>``) and the slots (``slot-<k>``) are tagged ``data-target``
(see :func:`action_target`).

The viewer's hand (and the meld it is composing) is face up, the other hands face
down (``viewer=None``: all face up). Dice are public and drawn in their suit colour.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ice_envs.core import table_render as tr
from ice_envs.core.canvas import Canvas, paint_rgb, paint_svg
from ice_envs.tip_of_the_diceberg import rules
from ice_envs.tip_of_the_diceberg.patterns import CARD_NUMBER, CARD_SUIT, DIE_TYPE, ITEM_DIE0, SUIT_FACES, SUITS

WIDTH = 1280
POOL_Y = 56
SLOTS_Y = 150
SLOT_W, SLOT_H, SLOTS_PER_ROW = 206, 156, 6
ROW_H = 92
SUIT_COLORS: tuple[tr.Color, ...] = (
    (210, 60, 60),
    (230, 130, 30),
    (60, 160, 70),
    (30, 150, 160),
    (50, 100, 210),
    (140, 70, 190),
)
POWER_COLORS: dict[str, tr.Color] = {
    "": (90, 120, 150),
    "reroll": (140, 80, 200),
    "discard": (200, 70, 70),
    "take": (60, 160, 90),
    "clear": (210, 160, 40),
}


def _state(env_or_state: Any) -> rules.DicebergState:
    raw = getattr(env_or_state, "unwrapped", env_or_state)
    return raw.game_state if hasattr(raw, "metadata") else raw


def _slot_rows(num_slots: int) -> int:
    return max(1, -(-num_slots // SLOTS_PER_ROW))


def size(num_players: int, num_slots: int = 12) -> tuple[int, int]:
    """Width and height of the picture."""
    players_y = SLOTS_Y + _slot_rows(num_slots) * (SLOT_H + 8) + 6
    return WIDTH, players_y + ROW_H * num_players + 8


def _die(d: Canvas, cx: float, cy: float, r: float, die: int, value: int, *, marked: bool = False) -> None:
    t = DIE_TYPE[die]
    color = SUIT_COLORS[t]
    tr.die_shape(
        d,
        cx,
        cy,
        r,
        SUIT_FACES[t],
        str(value),
        fill=color,
        outline=tr.CURRENT if marked else tr.INK,
        text_color=(255, 255, 255),
    )
    if marked:
        d.ellipse((cx + r * 0.55, cy - r, cx + r * 1.05, cy - r * 0.5), fill=tr.CURRENT)


def _item(d: Canvas, s: rules.DicebergState, x: float, y: float, item: int, *, w: int = 30, h: int = 42) -> None:
    """A card or a die of a meld, at (x, y) in a box of ``w`` x ``h``."""
    if item < ITEM_DIE0:
        suit = CARD_SUIT[item]
        tr.suit_card(d, x, y, str(CARD_NUMBER[item]), SUITS[suit], SUIT_COLORS[suit], w=w, h=h)
    else:
        die = item - ITEM_DIE0
        _die(d, x + w / 2, y + h / 2, w / 2 + 2, die, s.die_value[die])


def _status(s: rules.DicebergState) -> str:
    if s.phase == rules.PHASE_OVER:
        return f"game over after {s.config.num_rounds} rounds — winner: " + ", ".join(f"player_{p}" for p in s.winners)
    text = f"player_{s.current} is {rules.PHASE_NAMES[s.phase]}"
    if s.phase == rules.PHASE_PLAY:
        text += " (leads the trick)" if s.last_player < 0 else f" (last play: player_{s.last_player})"
    return text


def draw(env_or_state: Any, viewer: int | None = None) -> np.ndarray:
    """The table as ``viewer`` sees it, as an ``(H, W, 3)`` uint8 array."""
    s = _state(env_or_state)
    return paint_rgb(size(s.config.num_players, len(s.slots)), tr.TABLE, lambda canvas: paint(canvas, s, viewer))


def svg(env_or_state: Any, viewer: int | None = None) -> str:
    """The same picture as :func:`draw`, as a standalone SVG document."""
    s = _state(env_or_state)
    return paint_svg(size(s.config.num_players, len(s.slots)), tr.TABLE, lambda canvas: paint(canvas, s, viewer))


def card_target(seat: int, card: int) -> str:
    """The ``data-target`` key of card ``card`` face up in ``seat``'s hand."""
    return f"p{seat}-card-{card}"


def die_target(seat: int, die: int) -> str:
    """The ``data-target`` key of die ``die`` in front of ``seat``."""
    return f"p{seat}-die-{die}"


def pool_die_target(die: int) -> str:
    """The ``data-target`` key of die ``die`` in the pool."""
    return f"pool-die-{die}"


def slot_target(k: int) -> str:
    """The ``data-target`` key of Diceberg slot ``k``."""
    return f"slot-{k}"


def action_target(env_or_state: Any, action: int) -> str | None:
    """The SVG element a legal ``action`` of the deciding seat belongs to: the card or die it adds
    to the meld, discards or marks, the slot a meld is played to, the pool die drafted or taken;
    ``None`` for passing without a die, re-rolling the marked dice and declining a power."""
    s = _state(env_or_state)
    p = s.current
    if action < rules.ADD_DIE:
        return card_target(p, action - rules.ADD_CARD)
    if action < rules.COMMIT:
        return die_target(p, action - rules.ADD_DIE)
    if action < rules.PASS:
        return slot_target(action - rules.COMMIT)
    for base in (rules.PASS_TAKE, rules.DRAFT, rules.TAKE):
        if base <= action < base + rules.NUM_DICE:
            return pool_die_target(action - base)
    if rules.DISCARD <= action < rules.MARK:
        return card_target(p, action - rules.DISCARD)
    if rules.MARK <= action < rules.REROLL:
        return die_target(p, action - rules.MARK)
    return None


def paint(d: Canvas, s: rules.DicebergState, viewer: int | None) -> None:
    """Paint the table as ``viewer`` sees it on ``d``."""
    n = s.config.num_players
    width, _ = size(n, len(s.slots))
    title = f"Tip of the Diceberg — {n} players, round {s.round + 1}/{s.config.num_rounds}, trick {s.tricks + 1}"
    tr.title_bar(d, width, title, _status(s))
    _draw_pool(d, s)
    for k in range(len(s.slots)):
        row, col = divmod(k, SLOTS_PER_ROW)
        with d.group(slot_target(k)):
            _draw_slot(d, s, k, 12 + col * (SLOT_W + 4), SLOTS_Y + row * (SLOT_H + 8))
    players_y = SLOTS_Y + _slot_rows(len(s.slots)) * (SLOT_H + 8) + 6
    for p in range(n):
        _draw_player(d, s, p, players_y + ROW_H * p, viewer)


def _draw_pool(d: Canvas, s: rules.DicebergState) -> None:
    tr.panel(d, (12, POOL_Y, WIDTH - 12, POOL_Y + 88))
    d.text((24, POOL_Y + 6), "Pool", fill=tr.TEXT, font=tr.font(14, bold=True))
    pool = rules.pool_dice(s)
    if not pool:
        d.text((24, POOL_Y + 40), "(empty)", fill=tr.MUTED, font=tr.font(13))
    for i, die in enumerate(pool):
        with d.group(pool_die_target(die)):
            _die(d, 44 + 46 * i, POOL_Y + 50, 19, die, s.die_value[die])
    x0 = 880
    d.text((x0, POOL_Y + 8), f"cards out of the round: {len(s.removed)}", fill=tr.MUTED, font=tr.font(12))
    d.text((x0, POOL_Y + 26), f"passes in a row: {s.passes}", fill=tr.MUTED, font=tr.font(12))
    for i, order in enumerate(s.history[-2:]):
        r = len(s.history) - len(s.history[-2:]) + i + 1
        out = ", ".join(f"player_{p}" for p in order) or "nobody"
        d.text((x0, POOL_Y + 44 + 16 * i), f"round {r}: {out} out", fill=tr.MUTED, font=tr.font(12))


def _draw_slot(d: Canvas, s: rules.DicebergState, k: int, x: int, y: int) -> None:
    card = rules.slot_card(s, k)
    taken = s.slot_player[k] >= 0
    owner_color = tr.PLAYER_COLORS[s.slot_player[k] % len(tr.PLAYER_COLORS)] if taken else None
    tr.panel(d, (x, y, x + SLOT_W, y + SLOT_H), fill=(232, 242, 250), highlight=owner_color)
    color = POWER_COLORS.get(card.power, POWER_COLORS[""])
    d.rounded_rectangle((x + 3, y + 3, x + SLOT_W - 3, y + 24), radius=8, fill=color)
    head = tr.fit_text(d, f"{k}  {card.id} {card.name}", tr.font(12, bold=True), SLOT_W - 16)
    d.text((x + 8, y + 6), head, fill=(255, 255, 255), font=tr.font(12, bold=True))
    fnt = tr.font(11)
    lines = tr.wrap_text(d, card.text, fnt, SLOT_W - 16, max_lines=2)
    for i, line in enumerate(lines):
        d.text((x + 8, y + 28 + 14 * i), line, fill=tr.INK, font=fnt)
    if card.power:
        d.text((x + 8, y + 58), f"power: {card.power}", fill=color, font=tr.font(11, bold=True))
    if taken:
        d.text((x + 8, y + SLOT_H - 18), f"player_{s.slot_player[k]}", fill=tr.INK, font=tr.font(11, bold=True))
        xs = tr.card_row(len(s.slot_meld[k]), x + 8, SLOT_W - 16, 28, gap=3)
        for ix, item in zip(xs, s.slot_meld[k]):
            _item(d, s, ix, y + 76, item, w=28, h=40)
    else:
        d.text((x + SLOT_W / 2, y + 104), "open", fill=(140, 160, 180), font=tr.font(14, bold=True), anchor="mm")


def _draw_player(d: Canvas, s: rules.DicebergState, p: int, y: int, viewer: int | None) -> None:
    over = s.phase == rules.PHASE_OVER
    name = tr.player_header(
        d, p, y, WIDTH, ROW_H, viewer=viewer, over=over, winner=p in s.winners, acting=p == s.current
    )
    d.text((24, y + 34), f"{s.points[p]} points", fill=tr.TEXT, font=tr.font(13, bold=True))
    hand = s.hands[p]
    dice = rules.own_dice(s, p)
    d.text(
        (24, y + 54),
        f"{len(hand)} cards, {len(dice)} {'die' if len(dice) == 1 else 'dice'}",
        fill=tr.MUTED,
        font=tr.font(12),
    )
    if p in s.out_order:
        tr.badge(d, 130, y + 34, f"OUT #{s.out_order.index(p) + 1}", fill=tr.WINNER)
    if over and p in s.winners:
        tr.badge(d, 54 + tr.text_width(d, name, tr.font(14, bold=True)), y + 11, "WINS", fill=tr.WINNER)
    elif not over and p == s.current:
        tr.badge(d, 54 + tr.text_width(d, name, tr.font(14, bold=True)), y + 11, "to act")
    sees = viewer is None or viewer == p
    selection = set(s.selection) if sees and p == s.current and not over else set()
    marks = set(s.marks) if sees and p == s.current and not over else set()
    xs = tr.card_row(len(hand), 210, 560, 38)
    for x, c in zip(xs, hand):
        if sees:
            suit = CARD_SUIT[c]
            with d.group(card_target(p, c)):
                tr.suit_card(
                    d, x, y + 18, str(CARD_NUMBER[c]), SUITS[suit], SUIT_COLORS[suit], w=38, h=54, raised=c in selection
                )
        else:
            tr.card_back(d, x, y + 18, w=38, h=54)
    dx = tr.card_row(len(dice), 800, WIDTH - 830, 40)
    for x, die in zip(dx, dice):
        lift = -8 if ITEM_DIE0 + die in selection else 0
        with d.group(die_target(p, die)):
            _die(d, x + 20, y + 44 + lift, 19, die, s.die_value[die], marked=die in marks)
    if selection:
        d.text((800, y + 4), "composing a meld (raised)", fill=tr.CURRENT, font=tr.font(11))
    elif marks:
        d.text((800, y + 4), "dice marked to re-roll", fill=tr.CURRENT, font=tr.font(11))
