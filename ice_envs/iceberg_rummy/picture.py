"""The picture of Iceberg Rummy: the stock, the table melds, the aces and every hand.

One paint function (:func:`paint`) makes the ``rgb_array`` pixels (:func:`draw`) and the SVG (:func:`svg`).
In the SVG the face-up hand cards (``p<seat>-card-<card>``), the table melds shown (``meld-<k>``) and
the melds panel around them (``melds``) are tagged ``data-target`` (see :func:`action_target`).

The viewer's hand (and the play it is composing) is face up, the other hands face down
(``viewer=None``: all face up). A card passed face down is shown as a back.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ice_envs.core import table_render as tr
from ice_envs.core.canvas import Canvas, paint_rgb, paint_svg
from ice_envs.iceberg_rummy import melds as M
from ice_envs.iceberg_rummy import rules

WIDTH = 1200
TOP_Y = 56
TABLE_Y = 146
TABLE_H = 240
ROW_H = 92
MELD_W, MELD_H, MELD_STEP = 30, 42, 16
SUIT_SYMBOLS = ("\u2663", "\u2666", "\u2665", "\u2660")  # clubs, diamonds, hearts, spades
SUIT_COLORS: tuple[tr.Color, ...] = (tr.INK, tr.RED, tr.RED, tr.INK)
KIND_SHORT = ("set", "run", "odds/suit", "evens/suit", "odds/colour", "evens/colour")


def _state(env_or_state: Any) -> rules.IcebergRummyState:
    raw = getattr(env_or_state, "unwrapped", env_or_state)
    return raw.game_state if hasattr(raw, "metadata") else raw


def size(num_players: int) -> tuple[int, int]:
    """Width and height of the picture for ``num_players``."""
    return WIDTH, TABLE_Y + TABLE_H + 10 + ROW_H * num_players + 8


def card(
    d: Canvas, x: float, y: float, c: int, *, w: int = 40, h: int = 56, raised: bool = False, compact: bool = False
) -> None:
    """A face-up playing card (rank and suit symbol)."""
    suit = c // M.NUM_RANKS
    rank = M.RANK_NAMES[c % M.NUM_RANKS]
    color = SUIT_COLORS[suit]
    tr.card_face(d, x, y, rank, SUIT_SYMBOLS[suit], w=w, h=h, color=color, raised=raised, compact=compact)


def _status(s: rules.IcebergRummyState) -> str:
    if s.phase == rules.PHASE_OVER and s.truncated:
        return f"stopped at the hand cap (max_hands={s.config.max_hands}): no winner"
    if s.phase == rules.PHASE_OVER:
        return "game over — winner(s): " + ", ".join(f"player_{w}" for w in s.winners)
    text = f"player_{s.current} to meld or discard"
    if s.end_after_turn:
        text += " (last ace placed: the hand ends after this turn)"
    if s.last_hand:
        h = s.last_hand
        text += f"; last hand ({h['hand'] + 1}) ended: {h['reason']}"
    return text


def draw(env_or_state: Any, viewer: int | None = None) -> np.ndarray:
    """The table as ``viewer`` sees it, as an ``(H, W, 3)`` uint8 array."""
    s = _state(env_or_state)
    return paint_rgb(size(s.config.num_players), tr.TABLE, lambda canvas: paint(canvas, s, viewer))


def svg(env_or_state: Any, viewer: int | None = None) -> str:
    """The same picture as :func:`draw`, as a standalone SVG document."""
    s = _state(env_or_state)
    return paint_svg(size(s.config.num_players), tr.TABLE, lambda canvas: paint(canvas, s, viewer))


#: The ``data-target`` key of the table melds panel (where a new meld goes).
MELDS_TARGET = "melds"


def card_target(seat: int, c: int) -> str:
    """The ``data-target`` key of card ``c`` face up in ``seat``'s hand."""
    return f"p{seat}-card-{c}"


def meld_target(k: int) -> str:
    """The ``data-target`` key of table meld ``k``."""
    return f"meld-{k}"


def action_target(env_or_state: Any, action: int) -> str | None:
    """The SVG element a legal ``action`` of the deciding seat belongs to: the hand card it selects
    or discards (both name the card), the melds panel for a new meld, the table meld a lay-off goes
    onto (the panel where that meld is not shown); ``None`` for clearing the selection."""
    s = _state(env_or_state)
    if action < rules.COMMIT_NEW:
        return card_target(s.current, action % M.NUM_CARDS)
    if action == rules.COMMIT_NEW:
        return MELDS_TARGET
    if action < rules.CLEAR_SELECTION:
        k = action - rules.LAYOFF_BASE
        return meld_target(k) if any(place[0] == k for place in _meld_places(s)[0]) else MELDS_TARGET
    return None


def paint(d: Canvas, s: rules.IcebergRummyState, viewer: int | None) -> None:
    """Paint the table as ``viewer`` sees it on ``d``."""
    n = s.config.num_players
    width, _ = size(n)
    decks = "two decks" if s.config.decks == 2 else "one deck"
    hand = s.hand_no + (0 if s.phase == rules.PHASE_OVER else 1)
    title = f"Iceberg Rummy — {n} players ({decks}), hand {hand}, dealer player_{s.dealer}"
    tr.title_bar(d, width, title, _status(s))
    _draw_top(d, s)
    with d.group(MELDS_TARGET):
        _draw_melds(d, s)
    for p in range(n):
        _draw_player(d, s, p, TABLE_Y + TABLE_H + 10 + ROW_H * p, viewer)


def _draw_top(d: Canvas, s: rules.IcebergRummyState) -> None:
    tr.panel(d, (12, TOP_Y, WIDTH - 12, TOP_Y + 82))
    for i in range(min(3, max(1, s.stock_size // 10 + 1)) if s.stock_size else 0):
        tr.card_back(d, 24 + 3 * i, TOP_Y + 12 - 2 * i, w=40, h=56)
    d.text((80, TOP_Y + 16), f"Stock: {s.stock_size} cards", fill=tr.TEXT, font=tr.font(14, bold=True))
    hidden = rules.total_aces(s.config) - int(s.table_aces.sum())
    d.text((80, TOP_Y + 40), f"Aces not yet placed: {hidden}", fill=tr.MUTED, font=tr.font(12))
    x = 320
    d.text((x, TOP_Y + 8), "Aces on the table", fill=tr.TEXT, font=tr.font(12, bold=True))
    for suit in range(M.NUM_SUITS):
        for k in range(int(s.table_aces[suit])):
            card(d, x + 62 * suit + 8 * k, TOP_Y + 26, M.card_id(M.ACE, suit), w=34, h=48)
    if s.pending >= 0 and s.pending_to >= 0:
        x = 620
        tr.card_back(d, x, TOP_Y + 14, w=40, h=56)
        d.text((x + 52, TOP_Y + 26), f"passed face down to player_{s.pending_to}", fill=tr.MUTED, font=tr.font(12))


def _meld_width(size: int, step: int) -> int:
    return MELD_W + step * (size - 1) + 12


def _meld_places(s: rules.IcebergRummyState) -> tuple[list[tuple[int, int, int, int]], int]:
    """Where the table melds go: ``(k, x, y, width)`` of each meld that fits in the panel, in
    order (the rest are summed up as "+N more melds"), and the card step they are fanned with."""
    row_h = MELD_H + 26
    rows = (TABLE_H - 30) // row_h
    left, right = 24, WIDTH - 24
    for step in (MELD_STEP, 12, 9, 7):
        if _rows_needed(s, step, right - left) <= rows:
            break
    places: list[tuple[int, int, int, int]] = []
    x, y = left, TABLE_Y + 30
    for k, (_, _, cards) in enumerate(s.melds):
        w = _meld_width(len(cards), step)
        if x + w > right:
            x, y = left, y + row_h
            if y + row_h > TABLE_Y + TABLE_H:
                break
        places.append((k, x, y, w))
        x += w
    return places, step


def _draw_melds(d: Canvas, s: rules.IcebergRummyState) -> None:
    tr.panel(d, (12, TABLE_Y, WIDTH - 12, TABLE_Y + TABLE_H))
    d.text((24, TABLE_Y + 6), f"Table melds ({len(s.melds)})", fill=tr.TEXT, font=tr.font(14, bold=True))
    if not s.melds:
        d.text((24, TABLE_Y + 40), "no melds yet", fill=tr.MUTED, font=tr.font(13))
        return
    places, step = _meld_places(s)
    for k, x, y, w in places:
        kind, owner, cards = s.melds[k]
        color = tr.PLAYER_COLORS[owner % len(tr.PLAYER_COLORS)]
        with d.group(meld_target(k)):
            d.rounded_rectangle((x - 4, y - 2, x + w - 8, y + MELD_H + 20), radius=6, outline=color, width=2)
            for i, c in enumerate(cards):
                card(d, x + step * i, y + 2, c, w=MELD_W, h=MELD_H, compact=True)
            label = f"{k} {KIND_SHORT[kind]} p{owner}"
            d.text((x, y + MELD_H + 5), tr.fit_text(d, label, tr.font(10), w - 10), fill=tr.MUTED, font=tr.font(10))
    if len(places) < len(s.melds):
        more = f"+{len(s.melds) - len(places)} more melds"
        d.text((WIDTH - 24 - 150, TABLE_Y + 8), more, fill=tr.CURRENT, font=tr.font(12))


def _rows_needed(s: rules.IcebergRummyState, step: int, width: int) -> int:
    rows, x = 1, 0
    for _, _, cards in s.melds:
        w = _meld_width(len(cards), step)
        if x + w > width:
            rows, x = rows + 1, 0
        x += w
    return rows


def _draw_player(d: Canvas, s: rules.IcebergRummyState, p: int, y: int, viewer: int | None) -> None:
    over = s.phase == rules.PHASE_OVER
    name = tr.player_header(
        d, p, y, WIDTH, ROW_H, viewer=viewer, over=over, winner=p in s.winners, acting=p == s.current
    )
    bx = 54 + tr.text_width(d, name, tr.font(14, bold=True))
    if over and p in s.winners:
        tr.badge(d, bx, y + 11, "WINS", fill=tr.WINNER)
    elif not over and p == s.current:
        tr.badge(d, bx, y + 11, "to act")
    d.text((24, y + 34), f"total {int(s.totals[p])}", fill=tr.TEXT, font=tr.font(13, bold=True))
    extra = f"this hand +{int(s.hand_points[p] + s.ace_bonus[p])}" if not over else ""
    d.text((24, y + 54), f"{extra}  aces {int(s.aces[p])}".strip(), fill=tr.MUTED, font=tr.font(12))
    cards = M.cards_of(s.hands[p])
    sees = viewer is None or viewer == p
    selection = list(s.selection) if sees and p == s.current and not over else []
    xs = tr.card_row(len(cards), 220, WIDTH - 250, 40)
    chosen = list(selection)
    for x, c in zip(xs, cards):
        if sees:
            raised = c in chosen
            if raised:
                chosen.remove(c)
            with d.group(card_target(p, c)):
                card(d, x, y + 18, c, raised=raised)
        else:
            tr.card_back(d, x, y + 18)
    if selection:
        tx = (xs[-1] + 52) if xs else 220
        d.text((tx, y + 38), "composing: " + M.cards_text(selection), fill=tr.CURRENT, font=tr.font(12, bold=True))
