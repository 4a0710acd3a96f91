"""End to end in headless Chromium: a whole game of each game played with the mouse, a replay
stepped to its end and back with the keys and the slider, and the league pages.

Chromium is Debian's ``chromium`` package (``/usr/bin/chromium``), driven by Playwright's Python
API (no browser download). Where either is missing the tests skip with the reason. Select them
with ``-m browser``; they take well under two minutes together.

The person's moves are chosen by the game's heuristic for the person's seat (so that every game
ends in a few dozen moves) and then made as a person makes them: a click on the table where the
move has a place there, else a click on its button in the move list.
"""

from __future__ import annotations

import io
import json
import shutil
import socket
import threading
import time

import numpy as np
import pytest

pytestmark = pytest.mark.browser

pytest.importorskip("starlette", reason="the web extra is not installed: pip install 'ice-envs[web]'")
pytest.importorskip(
    "playwright", reason="Playwright is not installed (pip install 'ice-envs[browser]'): no browser tests"
)
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
if CHROMIUM is None:
    pytest.skip(
        "no chromium on this machine (Debian: apt-get install chromium): no browser tests", allow_module_level=True
    )

from ice_envs.agents import load_agent  # noqa: E402
from ice_envs.core.agent import make_view  # noqa: E402

#: Chromium's switches: no sandbox (containers), no GPU, nothing fetched from the network.
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
#: game -> (players, variant, opponents, seed): short games against the heuristic (a seed whose game lasts a
#: dozen of the person's moves or more).
GAMES = {
    "cardiceo": (2, "short", ["heuristic"], 4),
    "cubemelt": (2, "default", ["heuristic"], 4),
    "iceberg_rummy": (2, "quick", ["heuristic"], 7),
    "icebergs": (2, "default", ["heuristic"], 4),
    "tip_of_the_diceberg": (3, "quick", ["heuristic", "random"], 4),
}
MAX_CLICKS = 300


@pytest.fixture(scope="module")
def server(app):
    import uvicorn

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        assert thread.is_alive() and time.monotonic() < deadline, "the server did not start"
        time.sleep(0.02)
    yield f"http://127.0.0.1:{port}"
    server.should_exit = True
    thread.join(10)


@pytest.fixture(scope="module")
def page():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        tab = browser.new_page(viewport={"width": 1280, "height": 860})
        tab.set_default_timeout(20_000)
        yield tab
        browser.close()


def check_screenshot(page, selector: str) -> None:
    """The element is shown, and its screenshot is a real picture (many colours, not a blank box)."""
    from PIL import Image

    element = page.locator(selector).first
    assert element.is_visible()
    picture = Image.open(io.BytesIO(element.screenshot())).convert("RGB")
    assert picture.width > 200 and picture.height > 100
    colours = picture.resize((200, 100)).getcolors(maxcolors=20_000)
    assert colours is None or len(colours) > 20, f"{selector}: the screenshot is nearly blank"


def guide_move(session) -> int:
    """The move the person makes: the heuristic's for the person's seat."""
    if not hasattr(session, "_guide"):
        session._guide = load_agent("heuristic", session.key, seed=0)
        session._guide_rng = np.random.default_rng(0)
    raw = session.raw
    with session.lock:
        obs = raw.observe(raw.agent_selection)
        return int(session._guide.act(obs, make_view(raw, session.seat, session._guide_rng)))


def click_move(page, action: int) -> str:
    """Make ``action`` with the mouse: on the table where it has a place there (choosing it among the moves
    that share the place), else in the move list. Returns where it was clicked."""
    targets = json.loads(page.locator("#targets").text_content() or "{}")
    place = next((key for key, moves in targets.items() if action in [m[0] for m in moves]), None)
    if place is not None:
        spot = page.locator(f'#table [data-target="{place}"]').first
        assert spot.is_visible(), f"the move's place {place!r} is not on the table"
        if len(targets[place]) == 1:
            with page.expect_navigation():
                spot.click()
            return "table"
        spot.click()
        with page.expect_navigation():
            page.locator(f'#target-choice button[data-action="{action}"]').click()
        return "table, then a choice"
    page.evaluate("document.querySelectorAll('#move-list details').forEach(d => d.open = true)")
    with page.expect_navigation():
        page.locator(f'#move-list button.move[data-action="{action}"]').click()
    return "list"


@pytest.mark.parametrize("game", list(GAMES))
def test_a_whole_game_is_played_with_the_mouse(server, page, app, game):
    players, variant, opponents, seed = GAMES[game]
    page.goto(f"{server}/play?game={game}&players={players}")
    page.select_option("#variant", variant)
    page.fill("#seed", str(seed))
    for seat, spec in enumerate(opponents, start=1):
        page.fill(f"#opponent{seat}", spec)
    with page.expect_navigation():
        page.click("#start")
    session = app.state.sessions.get(page.url.rsplit("/", 1)[-1])
    assert session is not None and session.key == game
    check_screenshot(page, "#table")
    assert page.locator("#move-list button.move").count() >= 1
    clicks = {"table": 0, "table, then a choice": 0, "list": 0}
    steps = session.recorder.record.steps
    while page.locator("#play").get_attribute("data-state") == "your-turn":
        assert sum(clicks.values()) < MAX_CLICKS, f"{game}: no end after {MAX_CLICKS} moves"
        action, before = guide_move(session), len(steps)
        clicks[click_move(page, action)] += 1
        assert (steps[before]["agent"], steps[before]["action"]) == (f"player_{session.seat}", action)
    assert page.locator("#play").get_attribute("data-state") == "over"
    verdict = page.locator("#verdict").text_content()
    assert "Game over" in verdict or "stopped" in verdict
    assert session.over and len(steps) >= sum(clicks.values())
    print(f"{game}: {clicks}")
    check_screenshot(page, "#table")
    with page.expect_navigation():
        page.click("#replay-link")
    assert page.locator("#replay").get_attribute("data-steps") == str(len(session.recorder.record.steps))


def step_of(page) -> int:
    return int(page.locator("#replay").get_attribute("data-step"))


def test_a_replay_is_stepped_to_its_end_and_back(server, page):
    page.goto(f"{server}/replays")
    with page.expect_navigation():
        page.click('a[href="/replay/shipped/cubemelt.jsonl"]')
    steps = int(page.locator("#replay").get_attribute("data-steps"))
    check_screenshot(page, "#table")
    for k in range(1, 4):
        with page.expect_navigation():
            page.keyboard.press("ArrowRight")
        assert step_of(page) == k
    with page.expect_navigation():
        page.keyboard.press("End")
    assert step_of(page) == steps and "End of the record" in page.locator("#next-decision").text_content()
    with page.expect_navigation():
        page.keyboard.press("ArrowLeft")
    assert step_of(page) == steps - 1
    with page.expect_navigation():
        page.select_option("#viewer", "1")
    assert step_of(page) == steps - 1 and "view=1" in page.url
    with page.expect_navigation():
        page.eval_on_selector("#slider", "s => { s.value = 2; s.dispatchEvent(new Event('change')); }")
    assert step_of(page) == 2 and "view=1" in page.url
    with page.expect_navigation():
        page.click("#first")
    assert step_of(page) == 0 and "The deal." in page.locator("#last-decision").text_content()
    check_screenshot(page, "#table")


def test_the_league_pages(server, page):
    page.goto(f"{server}/leagues")
    with page.expect_navigation():
        page.click('a[href="/league/shipped/cardiceo.json"]')
    assert page.locator("#ratings tr").count() == 6  # a header and five agents
    assert page.locator("#pairwise td[style]").count() == 25
    check_screenshot(page, "#pairwise")
    page.goto(f"{server}/leagues")
    with page.expect_navigation():
        page.click('a[href="/league/runs/league/league.json"]')
    assert page.locator("#tables tr").count() == 4
    with page.expect_navigation():
        page.locator("#tables a").first.click()
    assert page.locator("#new-game").is_visible()
    page.goto(f"{server}/leagues")
    with page.expect_navigation():
        page.click('a[href="/evaluation/runs/eval/evaluation.json"]')
    with page.expect_navigation():
        page.locator("#samples a").first.click()
    assert page.locator("#replay").get_attribute("data-steps")


def test_the_new_game_form_follows_the_game_and_seat_chosen(server, page):
    page.goto(f"{server}/play?game=icebergs&players=6")
    with page.expect_navigation():
        page.select_option("#game-select", "cubemelt")  # 6 players is not a CubeMelt table: its fewest are asked
    assert "game=cubemelt" in page.url and page.locator("#players-select").input_value() == "2"
    page.select_option("#seat", "1")
    assert page.locator("#opponent1").is_disabled() and not page.locator("#opponent0").is_disabled()
