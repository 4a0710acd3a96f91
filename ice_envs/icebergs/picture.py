"""The picture of Icebergs: the hex map with ice and ships, and the ships' logs.

Everything in Icebergs is public. One paint function (:func:`paint`) makes the ``rgb_array``
pixels (:func:`draw`) and the SVG (:func:`svg`). In the SVG each map space (``hex-<space>``) and the
floes and icebergs on it (``floe-<space>``, ``berg-<space>``) are tagged ``data-target`` (see
:func:`action_target`).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ice_envs.core.canvas import Canvas, paint_rgb, paint_svg
from ice_envs.core.render import ACCENT, FOREGROUND, draw_die, font
from ice_envs.icebergs import rules
from ice_envs.icebergs.hexmap import SEA

HEX = 30  # hex radius in pixels
SEA_COLOR = (38, 104, 160)
SEA_EDGE = (60, 130, 190)
ISLAND_COLOR = (226, 232, 236)
ISLAND_EDGE = (170, 180, 190)
FLOE_COLOR = (214, 238, 250)
BERG_COLOR = (250, 252, 255)
BERG_SHADE = (150, 200, 230)
PLAYER_COLORS = (
    (230, 70, 60),
    (250, 190, 40),
    (80, 200, 90),
    (200, 90, 220),
    (250, 130, 40),
    (40, 40, 40),
)
MARGIN_X = 70
MARGIN_Y = 56
PANEL_W = 330
BACKGROUND = (16, 52, 82)


def _center(row: int, col: int) -> tuple[float, float]:
    h = math.sqrt(3) * HEX
    x = MARGIN_X + HEX + 1.5 * HEX * col
    y = MARGIN_Y + h / 2 + h * row + (h / 2 if col % 2 else 0)
    return x, y


def _hexagon(cx: float, cy: float, r: float) -> list[tuple[float, float]]:
    return [(cx + r * math.cos(math.radians(60 * i)), cy + r * math.sin(math.radians(60 * i))) for i in range(6)]


def _map_width(env: Any) -> int:
    return int(2 * MARGIN_X + 2 * HEX + 1.5 * HEX * (env.hexmap.cols - 1))


def size(env: Any) -> tuple[int, int]:
    """Width and height of the picture of ``env``'s map and ships."""
    h = math.sqrt(3) * HEX
    map_h = int(MARGIN_Y + h * (env.hexmap.rows + 0.5) + 40)
    panel_h = 120 + 22 * env.config.num_ships + 14 * 14
    return _map_width(env) + PANEL_W, max(map_h, panel_h, 200)


def draw(env: Any, viewer: int | None = None) -> np.ndarray:
    """A picture of the map (ice, ships, edges) with a side panel of ships' logs, as an ``(H, W, 3)`` uint8 array."""
    return paint_rgb(size(env), BACKGROUND, lambda canvas: paint(canvas, env, viewer))


#: The name ``env.py`` has always called :func:`draw` by.
render_rgb = draw


def svg(env: Any, viewer: int | None = None) -> str:
    """The same picture as :func:`draw`, as a standalone SVG document."""
    return paint_svg(size(env), BACKGROUND, lambda canvas: paint(canvas, env, viewer))


def hex_target(space: int) -> str:
    """The ``data-target`` key of map space ``space``."""
    return f"hex-{space}"


def floe_target(space: int) -> str:
    """The ``data-target`` key of the ice floe(s) on ``space``."""
    return f"floe-{space}"


def berg_target(space: int) -> str:
    """The ``data-target`` key of the iceberg(s) on ``space``."""
    return f"berg-{space}"


def action_target(env: Any, action: int) -> str | None:
    """The SVG element a legal ``action`` of the deciding ship belongs to: the space a ship move,
    an entry, a drift or a floe placement goes to, the floe or iceberg an ice move pushes (each of
    its directions names it); ``None`` for leaving by an edge, ending the turn, declining, the
    hazard's choice and the solo ice table's choice."""
    st: rules.IcebergsState = env.game_state
    lay = env.layout
    m = env.hexmap
    k = st.current
    step = None
    if action < 6:
        step = action
    elif lay.drift <= action < lay.drift + 6:
        step = action - lay.drift
    if step is not None:
        target = m.neighbours[st.pos[k]][step] if st.pos[k] >= 0 else -1
        return hex_target(target) if target >= 0 else None
    if lay.enter <= action < lay.floe:
        col = 0 if st.status[k] == rules.ALASKA_READY else m.cols - 1
        return hex_target((action - lay.enter) * m.cols + col)
    if lay.floe <= action < lay.berg:
        return floe_target((action - lay.floe) // 7)
    if lay.berg <= action < lay.place:
        return berg_target((action - lay.berg) // 7)
    if lay.place <= action < lay.drift:
        return hex_target(action - lay.place)
    return None


def _draw_space(draw: Canvas, env: Any, s: int, ships: list[int]) -> None:
    """Space ``s`` of the map with its ice and the ``ships`` on it."""
    st: rules.IcebergsState = env.game_state
    cfg = env.config
    m = env.hexmap
    small = font(11)
    r, c = divmod(s, m.cols)
    cx, cy = _center(r, c)
    if m.terrain[s] == SEA:
        draw.polygon(_hexagon(cx, cy, HEX - 1), fill=SEA_COLOR, outline=SEA_EDGE)
    else:
        draw.polygon(_hexagon(cx, cy, HEX - 1), fill=ISLAND_COLOR, outline=ISLAND_EDGE)
        draw.line([(cx - 10, cy + 6), (cx - 2, cy - 6), (cx + 4, cy + 2), (cx + 10, cy - 4)], fill=ISLAND_EDGE, width=2)
        return
    nf = st.floes[s]
    if nf:
        fx, fy = cx - 12, cy + 9
        with draw.group(floe_target(s)):
            draw.polygon(
                [(fx - 9, fy), (fx - 4, fy - 6), (fx + 8, fy - 5), (fx + 10, fy + 2), (fx + 2, fy + 6)],
                fill=FLOE_COLOR,
                outline=(160, 200, 225),
            )
            if nf > 1:
                draw.text((fx - 3, fy - 6), str(nf), fill=(20, 60, 100), font=small)
    nb = st.berg_count[s]
    if nb:
        bx, by = cx + 10, cy + 10
        with draw.group(berg_target(s)):
            draw.polygon(
                [(bx - 11, by + 5), (bx - 3, by - 13), (bx + 3, by - 6), (bx + 6, by - 10), (bx + 12, by + 5)],
                fill=BERG_COLOR,
                outline=BERG_SHADE,
            )
            if nb > 1:
                draw.text((bx - 3, by - 6), str(nb), fill=(20, 60, 100), font=small)
    for i, k in enumerate(ships):
        owner, j = divmod(k, cfg.ships_per_player)
        sx = cx - 13 + (i % 3) * 13
        sy = cy - 13 + (i // 3) * 11
        color = PLAYER_COLORS[owner % len(PLAYER_COLORS)]
        if k == st.current and not st.over:
            draw.ellipse((sx - 10, sy - 12, sx + 10, sy + 10), fill=(255, 255, 255))
        draw.polygon([(sx - 8, sy), (sx + 8, sy), (sx + 5, sy + 6), (sx - 5, sy + 6)], fill=color, outline=(10, 10, 10))
        draw.rectangle((sx - 3, sy - 5, sx + 3, sy), fill=color, outline=(10, 10, 10))
        draw.line([(sx, sy - 5), (sx, sy - 10)], fill=(10, 10, 10), width=1)
        if cfg.fleet:
            draw.text((sx - 3, sy + 6), "abc"[j], fill=FOREGROUND, font=small)


def paint(draw: Canvas, env: Any, viewer: int | None = None) -> None:
    """Paint the map and the ships' logs of ``env`` on ``draw``."""
    st: rules.IcebergsState = env.game_state
    cfg = env.config
    m = env.hexmap
    h = math.sqrt(3) * HEX
    map_w = _map_width(env)
    small, mid, big = font(11), font(13), font(16)

    # edges
    draw.text((8, MARGIN_Y + h * m.rows / 2 - 20), "ALASKA", fill=ACCENT, font=mid)
    draw.text((8, MARGIN_Y + h * m.rows / 2), "<- west", fill=ACCENT, font=small)
    ex = map_w - MARGIN_X + 8
    draw.text((ex - 10, MARGIN_Y + h * m.rows / 2 - 20), "NEWFOUND-", fill=ACCENT, font=small)
    draw.text((ex - 10, MARGIN_Y + h * m.rows / 2 - 6), "LAND", fill=ACCENT, font=small)
    draw.text((ex - 10, MARGIN_Y + h * m.rows / 2 + 8), "east ->", fill=ACCENT, font=small)

    ships_at: dict[int, list[int]] = {}
    for k, p in enumerate(st.pos):
        if p >= 0:
            ships_at.setdefault(p, []).append(k)

    for s in range(m.num_spaces):
        with draw.group(hex_target(s)):
            _draw_space(draw, env, s, ships_at.get(s, []))

    # panel
    px = map_w + 10
    draw.text((px, 12), "ICEBERGS", fill=ACCENT, font=big)
    mode = "solo" if cfg.solo else (f"fleet x{cfg.ships_per_player}" if cfg.fleet else f"{cfg.num_players} players")
    draw.text((px, 34), f"{mode} - round {min(st.round + 1, cfg.max_turns)}/{cfg.max_turns}", fill=FOREGROUND, font=mid)
    y = 56
    if st.over:
        w = rules.winner(st)
        text = "stopped by max_turns" if st.truncated else (f"player_{w} wins!" if w >= 0 else "nobody wins")
        if cfg.solo and not st.truncated:
            text = {1.0: "solo game won!", 0.0: "solo game drawn", -1.0: "solo game lost"}[st.result[0]]
        draw.text((px, y), text, fill=(255, 230, 120), font=big)
    else:
        who = env.ship_name(st.deciding_ship)
        if st.die and not cfg.solo:
            draw_die(draw, px, y, str(st.die), size=30)
        phase = rules.PHASE_NAMES[st.phase]
        draw.text((px + 40, y), f"{who}: {phase}", fill=FOREGROUND, font=mid)
        draw.text((px + 40, y + 16), f"Moves left: {st.moves_left}", fill=FOREGROUND, font=mid)
    y += 44
    draw.text((px, y), f"Spare floes: {st.spare_floes}", fill=FOREGROUND, font=mid)
    y += 20
    if st.first_home >= 0:
        draw.text((px, y), "A ship is home: others lose 1 Cargo a turn", fill=(255, 200, 120), font=small)
        y += 16
    draw.text((px, y), "Ship's logs", fill=ACCENT, font=mid)
    y += 18
    for k in range(cfg.num_ships):
        owner, _ = divmod(k, cfg.ships_per_player)
        color = PLAYER_COLORS[owner % len(PLAYER_COLORS)]
        draw.rectangle((px, y + 3, px + 10, y + 13), fill=color, outline=(10, 10, 10))
        where = rules.STATUS_NAMES[st.status[k]]
        if st.status[k] == rules.AT_SEA:
            where = m.label(st.pos[k])
        marker = ">" if k == st.current and not st.over else " "
        draw.text((px + 14, y), f"{marker}{env.ship_name(k)}: {where}", fill=FOREGROUND, font=small)
        draw.text((px + 14, y + 11), f"  Fuel {st.fuel[k]}  Cargo {st.cargo[k]}", fill=FOREGROUND, font=small)
        y += 24
    y += 6
    for line in st.log[-8:]:
        draw.text((px, y), line[:52], fill=(190, 210, 225), font=small)
        y += 14
