"""Replay a game record: ``ice-envs replay RECORD --out DIR``.

The env is rebuilt from the record's header (game, players, options) and reset with its
seed; every recorded action is checked (the right agent is to act, the action is legal,
its description is the recorded one) and taken. The env's ``render_mode="rgb_array"``
picture is written as PNG frames (``frame_00000.png`` is the deal, ``frame_00012.png``
the table after 12 decisions) and as an animated GIF (``replay.gif``). At the end the
final state and outcome are checked against the record's outcome line (the state digest
included). Any mismatch raises :class:`ice_envs.evaluation.record.RecordError` naming the
line. With ``progress`` the decisions replayed are counted on stderr when it is a terminal
(:func:`ice_envs.core.progress.progress_bar`), since drawing the frames of a long game takes
minutes. A record of a game that did not finish (no outcome line, or its decisions stop
before the game is over) replays as far as it goes: ``ReplayResult.finished`` is then
``False``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

import ice_envs
from ice_envs.core.errors import OptionError
from ice_envs.core.progress import progress_bar
from ice_envs.evaluation.record import (
    GameRecord,
    RecordError,
    add_rewards,
    is_over,
    load_record,
    outcome_of,
    step_order_problem,
)

DEFAULT_MAX_FRAMES = 150
GIF_MAX_WIDTH = 960


@dataclass
class ReplayResult:
    """What a replay produced: the env in its final state, the files written, the checks made."""

    env: Any
    steps: int
    frames: list[Path] = field(default_factory=list)
    gif: Path | None = None
    outcome: dict[str, Any] = field(default_factory=dict)
    checked_outcome: bool = False
    #: Whether the record holds a finished game: an outcome line and a replayed game that is over.
    finished: bool = False


def picture(env: Any, viewer: int | None = None) -> np.ndarray:
    """The env's ``rgb_array`` picture as seen by ``viewer`` (``None``: everything)."""
    raw = env.unwrapped
    if viewer is None and raw.render_mode == "rgb_array":
        return raw.render()
    return raw.render_view(viewer, "rgb_array")


def build_env(record: GameRecord) -> Any:
    """The raw env of ``record``'s header (through the env's own option checks), reset with its seed."""
    try:
        env = ice_envs.make(
            record.game, num_players=record.num_players, raw=True, render_mode="rgb_array", **record.options
        )
        env.reset(seed=record.seed)
    except (OptionError, TypeError, ValueError) as exc:
        raise RecordError(f"{record.source}: record header does not build a game: {exc}") from None
    return env


def frame_steps(total: int, every: int | None, max_frames: int) -> set[int]:
    """Which frames (0 = the deal, ``total`` = the end) to keep."""
    if every is None:
        every = max(1, math.ceil((total + 1) / max(1, max_frames)))
    keep = set(range(0, total + 1, every))
    keep.add(total)
    return keep


def replay(
    record: GameRecord | str | Path,
    out: str | Path | None = None,
    *,
    viewer: int | None = None,
    every: int | None = None,
    max_frames: int = DEFAULT_MAX_FRAMES,
    fps: float = 2.0,
    gif: bool = True,
    check_descriptions: bool = True,
    progress: bool = False,
) -> ReplayResult:
    """Replay ``record``; with ``out`` write PNG frames and (``gif``) an animated GIF there.

    ``progress``: count the decisions replayed on stderr (``ice-envs replay`` does, unless ``--no-progress``).
    """
    if not isinstance(record, GameRecord):
        record = load_record(record)
    env = build_env(record)
    if viewer is not None and not 0 <= viewer < env.num_players:
        raise OptionError(f"--viewer {viewer} is not a seat of this {env.num_players}-player game")
    out_dir = Path(out) if out is not None else None
    if out_dir is not None:
        out_dir.mkdir(parents=True, exist_ok=True)
    keep = frame_steps(len(record.steps), every, max_frames) if out_dir is not None else set()
    result = ReplayResult(env=env, steps=len(record.steps))
    gif_frames: list[Any] = []
    totals: dict[str, float] = {}

    def snap(k: int) -> None:
        if k in keep and out_dir is not None:
            path = out_dir / f"frame_{k:05d}.png"
            img = _save_png(picture(env, viewer), path)
            result.frames.append(path)
            if gif:
                gif_frames.append(_gif_frame(img))

    bar = progress_bar(len(record.steps), "replay", "decisions", enabled=progress, terminal_only=True, transient=True)
    try:
        snap(0)
        for i, step in enumerate(record.steps):
            line = i + 2  # the header is line 1
            _check_step(env, step, f"{record.source}, line {line}", check_descriptions)
            if step.get("step") != i:
                raise RecordError(f"{record.source}, line {line}: {step_order_problem(i, step.get('step'))}")
            env.step(int(step["action"]))
            add_rewards(totals, env)
            snap(i + 1)
            bar.update(1)
    finally:
        bar.close()
    result.outcome = outcome_of(env, totals)
    if record.outcome is not None:
        _check_outcome(record.outcome, result.outcome, record.source)
        result.checked_outcome = True
    result.finished = record.outcome is not None and bool(record.outcome["finished"]) and is_over(env)
    if gif and out_dir is not None and gif_frames:
        result.gif = _save_gif(gif_frames, out_dir / "replay.gif", fps)
    return result


def _check_step(env: Any, step: dict[str, Any], where: str, check_descriptions: bool) -> None:
    """Refuse a decision that does not fit the replayed game; ``where`` is ``"FILE, line N"``."""
    if is_over(env):
        raise RecordError(f"{where}: the game is already over, but the record has more decisions")
    if not isinstance(step.get("agent"), str) or type(step.get("action")) is not int:
        raise RecordError(f"{where}: a decision needs an agent name and an integer action, got {step!r}")
    if env.agent_selection != step["agent"]:
        raise RecordError(
            f"{where}: the record has {step['agent']} acting, but {env.agent_selection} is to act "
            "(the record does not match this game or this ice-envs version)"
        )
    action = step["action"]
    legal = env.legal_actions()
    if type(action) is not int or action not in legal:
        raise RecordError(f"{where}: action {action!r} is not legal here; legal actions: {legal}")
    recorded = step.get("description")
    if check_descriptions and recorded is not None:
        now = env.describe_action(action)
        if now != recorded:
            raise RecordError(f"{where}: action {action} is {now!r} here, but the record says {recorded!r}")


def _check_outcome(recorded: dict[str, Any], replayed: dict[str, Any], source: str) -> None:
    problems = []
    for key in ("finished", "truncated", "steps", "state_digest"):
        if key in recorded and recorded[key] != replayed[key]:
            problems.append(f"{key}: recorded {recorded[key]!r}, replayed {replayed[key]!r}")
    if "scores" in recorded and not np.allclose(recorded["scores"], replayed["scores"]):
        problems.append(f"scores: recorded {recorded['scores']}, replayed {replayed['scores']}")
    if "rewards" in recorded:
        rec, rep = recorded["rewards"], replayed["rewards"]
        if set(rec) != set(rep) or not np.allclose([rec[a] for a in rep], list(rep.values())):
            problems.append(f"rewards: recorded {rec}, replayed {rep}")
    if problems:
        raise RecordError(f"{source}: the replay does not end as the record says: " + "; ".join(problems))


def _save_png(frame: np.ndarray, path: Path) -> Any:
    from PIL import Image

    img = Image.fromarray(np.asarray(frame, dtype=np.uint8))
    img.save(path)
    return img


def _gif_frame(img: Any) -> Any:
    """A frame scaled for the GIF and reduced to a palette (keeps memory low)."""
    from PIL import Image

    if img.width > GIF_MAX_WIDTH:
        h = round(img.height * GIF_MAX_WIDTH / img.width)
        img = img.resize((GIF_MAX_WIDTH, h), Image.Resampling.LANCZOS)
    return img.quantize(colors=255, method=Image.Quantize.FASTOCTREE)


def _save_gif(frames: list[Any], path: Path, fps: float) -> Path:
    from PIL import Image

    width = max(f.width for f in frames)
    height = max(f.height for f in frames)
    if any(f.size != (width, height) for f in frames):
        padded = []
        for f in frames:
            canvas = Image.new("RGB", (width, height), (16, 52, 82))
            canvas.paste(f.convert("RGB"), (0, 0))
            padded.append(canvas.quantize(colors=255, method=Image.Quantize.FASTOCTREE))
        frames = padded
    duration = max(20, round(1000 / fps))
    durations = [duration] * (len(frames) - 1) + [max(duration, 3000)]
    frames[0].save(path, save_all=True, append_images=frames[1:], duration=durations, loop=0, optimize=False)
    return path
