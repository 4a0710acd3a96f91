"""Write the web app's screenshots of docs/web.md (docs/img/web/*.png) in headless Chromium.

    .venv/bin/python tests/web/make_screenshots.py [OUT_DIR]

A game in progress of each game (a few moves in, the person's moves chosen by the heuristic), a
replay of a shipped record and a shipped league, each as a 1280-pixel-wide page reduced to a
palette so that the files stay small.
"""

from __future__ import annotations

import io
import socket
import sys
import threading
import time
from pathlib import Path

from PIL import Image

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tests.web.test_browser import CHROMIUM, CHROMIUM_ARGS, GAMES, guide_move  # noqa: E402

#: How many of the person's moves are made before each game's screenshot.
MOVES = {"cardiceo": 2, "cubemelt": 2, "iceberg_rummy": 4, "icebergs": 6, "tip_of_the_diceberg": 6}


def save(png: bytes, path: Path) -> None:
    image = Image.open(io.BytesIO(png)).convert("RGB")
    image.quantize(colors=128, method=Image.Quantize.MEDIANCUT).save(path, optimize=True)
    print(f"{path} {path.stat().st_size // 1024} KiB")


def main(out: Path) -> None:
    import uvicorn
    from playwright.sync_api import sync_playwright

    from ice_envs.web.app import create_app

    out.mkdir(parents=True, exist_ok=True)
    app = create_app(None)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    threading.Thread(target=server.run, daemon=True).start()
    while not server.started:
        time.sleep(0.02)
    base = f"http://127.0.0.1:{port}"
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1280, "height": 760})
        for game, (players, variant, opponents, _) in GAMES.items():
            page.goto(f"{base}/play?game={game}&players={players}")
            page.select_option("#variant", "default" if variant == "quick" else variant)
            page.fill("#seed", "4")
            for seat, spec in enumerate(opponents, start=1):
                page.fill(f"#opponent{seat}", spec)
            with page.expect_navigation():
                page.click("#start")
            session = app.state.sessions.get(page.url.rsplit("/", 1)[-1])
            for _ in range(MOVES[game]):
                action = guide_move(session)
                page.evaluate("document.querySelectorAll('#move-list details').forEach(d => d.open = true)")
                with page.expect_navigation():
                    page.locator(f'#move-list button.move[data-action="{action}"]').click()
            save(page.screenshot(), out / f"play_{game}.png")
        page.goto(f"{base}/replay/shipped/iceberg_rummy.jsonl?step=60&view=full")
        save(page.screenshot(), out / "replay.png")
        page.goto(f"{base}/league/shipped/cardiceo.json")
        save(page.screenshot(full_page=True), out / "league.png")
        browser.close()
    server.should_exit = True


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "docs" / "img" / "web")
