"""Picture digests: proof that a change to the drawing code left the ``rgb_array`` pixels alone.

For every game (its quick variant, fewest and most players) a random-legal game is played
from seed 0 and the picture is hashed at a few steps, seen by everybody and by seat 0.
Pixels depend on the text renderer, so the digests are only compared where Pillow,
FreeType and the DejaVu font files are the ones they were recorded with
(``made_with`` in the file); elsewhere the test skips and says why.

    python -m tests.picture_digests            # compare
    python -m tests.picture_digests --write    # re-record (only when a picture changes on purpose)
"""

from __future__ import annotations

import argparse
import hashlib
import json
from pathlib import Path
from typing import Any

import numpy as np

import ice_envs
from ice_envs.core import table_render as tr

FILE = Path(__file__).parent / "data" / "picture_digests.json"
#: Steps of the random game at which the picture is hashed.
STEPS = (0, 12, 40)
#: The viewers hashed: everybody, then seat 0.
VIEWERS = (None, 0)


def made_with() -> dict[str, Any]:
    """What the pixels depend on besides the code: Pillow, FreeType and the font files."""
    import PIL
    from PIL import features

    fonts = {}
    for bold in (False, True):
        for mono in (False, True):
            path = getattr(tr.font(14, bold=bold, mono=mono), "path", None)
            data = Path(path).read_bytes() if isinstance(path, str) and Path(path).is_file() else b""
            fonts[Path(path).name if path else "default"] = hashlib.sha256(data).hexdigest()[:16]
    return {"pillow": PIL.__version__, "freetype2": features.version("freetype2"), "fonts": fonts}


def digests(game: str) -> dict[str, str]:
    """``"<players>p/step<k>/<viewer>"`` -> sha256 (16 hex digits) of the picture's pixels."""
    spec = ice_envs.get_spec(game)
    out: dict[str, str] = {}
    for n in sorted({spec.players[0], spec.players[-1]}):
        env = ice_envs.make(game, num_players=n, raw=True, **dict(spec.quick.options))
        env.reset(seed=0)
        rng = np.random.default_rng(0)
        for step in range(max(STEPS) + 1):
            if step in STEPS:
                for viewer in VIEWERS:
                    img = env.render_view(viewer, "rgb_array")
                    h = hashlib.sha256(f"{img.shape}".encode() + img.tobytes()).hexdigest()[:16]
                    out[f"{n}p/step{step}/{'all' if viewer is None else viewer}"] = h
            legal = env.legal_actions()
            if not legal:
                break
            env.step(int(legal[rng.integers(len(legal))]))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true", help="re-record the digests file")
    args = parser.parse_args()
    now = {"made_with": made_with(), "games": {g: digests(g) for g in sorted(ice_envs.GAMES)}}
    if args.write:
        FILE.write_text(json.dumps(now, indent=1, sort_keys=True) + "\n")
        print(f"wrote {FILE}")
        return
    pinned = json.loads(FILE.read_text())
    print("same" if pinned == now else "DIFFERENT")


if __name__ == "__main__":
    main()
