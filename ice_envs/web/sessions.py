"""Games played in the browser: one :class:`PlaySession` per game, kept by a :class:`SessionStore`.

A session is what ``ice-envs play`` does in the terminal (:mod:`ice_envs.play.terminal`), driven
by requests instead of typed lines: the person sits at one seat, agents at the others; agents
move until it is the person's turn (or the game is over); a move is accepted only if it is legal
in the current position (else :class:`~ice_envs.core.errors.IllegalActionError`, and nothing
changes); ``undo`` takes back a move being composed where the terminal allows it
(:func:`ice_envs.play.games.in_selection`); the opponents' moves are logged as the person may
see them (:func:`ice_envs.play.games.public_description`). Every decision goes through
:class:`~ice_envs.evaluation.record.GameRecorder`, so the game's record is the same JSON-lines
file as ``ice-envs play --record`` writes.

Agent specs are checked before anything is built: ``python:`` agents run code and are refused
unless the server was started with ``--allow-python-agents``; ``ppo:`` and ``rllib:``
checkpoints must lie in the shipped ``checkpoints/`` folder or the ``--runs`` folder (unless
``--allow-python-agents``, which trusts the person at the keyboard entirely).
"""

from __future__ import annotations

import dataclasses
import secrets
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

import ice_envs
from ice_envs.core.errors import IllegalActionError, OptionError
from ice_envs.evaluation.record import GameRecorder, is_over
from ice_envs.play.cli import _game_options
from ice_envs.play.games import in_selection, public_description, selection_help
from ice_envs.web.library import REPO_ROOT, SHIPPED_CHECKPOINTS

#: The most games kept at once (the oldest is dropped first).
MAX_SESSIONS = 64
#: The most decisions agents take in a row before the page is shown again (a safety bound).
MAX_AGENT_RUN = 100_000


class Refused(OptionError):
    """A request the server refuses on principle (``python:`` agents without the flag): 403."""


@dataclass
class NewGame:
    """What the new-game form asks for."""

    game: str
    num_players: int
    seat: int = 0
    #: One agent spec per seat other than ``seat``, in seat order.
    opponents: list[str] = field(default_factory=list)
    variant: str | None = None
    seed: int = 0


@dataclass
class LogLine:
    """One decision as the person saw it."""

    seat: int
    who: str
    text: str


class PlaySession:
    """One game between the person at ``setup.seat`` and agents."""

    def __init__(self, setup: NewGame, token: str, runs: Path | None = None, allow_python: bool = False) -> None:
        from ice_envs.agents import load_agent
        from ice_envs.agents.spec import AgentSpecError, parse_agent_spec

        spec = ice_envs.get_spec(setup.game)
        n = setup.num_players
        allowed = variant_players(spec, setup.variant)
        if n not in allowed:
            raise OptionError(f"{spec.name}: {n} players is not allowed here; choose one of {list(allowed)}")
        if not 0 <= setup.seat < n:
            raise OptionError(f"seat {setup.seat} is not a seat of a {n}-player game (0-{n - 1})")
        if len(setup.opponents) != n - 1:
            raise OptionError(f"{len(setup.opponents)} opponents given for the {n - 1} other seats")
        self.options = game_options(spec, setup.variant)
        self.setup = setup
        self.token = token
        self.key = spec.name
        self.seat = setup.seat
        self.lock = threading.Lock()
        self.created = time.time()
        self.labels: dict[int, str] = {setup.seat: "you"}
        self.agents: dict[int, Any] = {}
        others = [p for p in range(n) if p != setup.seat]
        try:
            parsed = [checked_spec(parse_agent_spec(text), runs, allow_python) for text in setup.opponents]
            self.raw = ice_envs.make(spec.name, num_players=n, raw=True, render_mode="ansi", **self.options)
            for p, agent_spec in zip(others, parsed, strict=True):
                seed = int(np.random.SeedSequence([setup.seed, p]).generate_state(1)[0])
                agent = load_agent(agent_spec, self.key, seed=seed, num_players=n)
                agent.reset(seed=seed)
                self.agents[p] = agent
                self.labels[p] = agent_spec.label
        except (Refused, OptionError):
            raise
        except (AgentSpecError, ValueError) as exc:  # an agent that cannot play this game (a checkpoint's shapes)
            raise OptionError(str(exc)) from None
        self.view_rng = np.random.default_rng(np.random.SeedSequence([setup.seed, n, 7]))
        record_agents = ["human" if p == setup.seat else self.labels[p] for p in range(n)]
        self.recorder = GameRecorder(self.key, n, self.options, setup.seed, record_agents)
        self.log: list[LogLine] = []
        self.snapshot: tuple[dict[str, Any], int, dict[str, float], int] | None = None
        self.saved: Path | None = None
        self.raw.reset(seed=setup.seed)
        self.advance()

    # ------------------------------------------------------------------ state
    @property
    def over(self) -> bool:
        return is_over(self.raw)

    @property
    def my_turn(self) -> bool:
        return not self.over and self.raw.current_seat == self.seat

    def legal(self) -> list[int]:
        """The person's legal moves now (none when it is not their turn)."""
        return [int(a) for a in self.raw.legal_actions()] if self.my_turn else []

    @property
    def can_undo(self) -> bool:
        return self.my_turn and self.snapshot is not None and in_selection(self.raw)

    @property
    def undo_help(self) -> str:
        return selection_help(self.raw)

    # ------------------------------------------------------------------ moves
    def move(self, action: int) -> None:
        """The person's move ``action``; refused (nothing changes) unless it is legal now."""
        if self.over:
            raise IllegalActionError("the game is over: no more moves")
        if not self.my_turn:
            raise IllegalActionError(f"it is player_{self.raw.current_seat}'s turn, not yours")
        legal = self.legal()
        if action not in legal:
            raise IllegalActionError(f"move {action} is not legal now; legal moves: {legal}")
        if not in_selection(self.raw):
            self.snapshot = (
                self.raw.state_dict(),
                len(self.recorder.record.steps),
                dict(self.recorder.totals),
                len(self.log),
            )
        self.log.append(LogLine(self.seat, "you", self.raw.describe_action(action)))
        self.recorder.take(self.raw, action)
        self.advance()

    def undo(self) -> None:
        """Take back the move being composed (the state before the selection began)."""
        if not self.can_undo or self.snapshot is None:
            what = self.undo_help
            raise IllegalActionError(
                f"nothing to undo: undo takes back {what}, before it is played"
                if what
                else "nothing to undo: in this game every move is final when taken"
            )
        state, steps, totals, log = self.snapshot
        self.raw.load_state_dict(state)
        self.recorder.truncate(steps, totals)
        del self.log[log:]
        self.snapshot = None

    def advance(self) -> None:
        """Let the agents move until it is the person's turn or the game is over."""
        from ice_envs.core.agent import make_view

        for _ in range(MAX_AGENT_RUN):
            if self.over or self.raw.current_seat == self.seat:
                break
            seat = self.raw.current_seat
            agent = self.agents[seat]
            obs = self.raw.observe(self.raw.agent_selection)
            view = make_view(self.raw, seat, self.view_rng) if agent.needs_view else None
            action = int(agent.act(obs, view))
            text = public_description(self.raw, action, self.seat)
            self.recorder.take(self.raw, action)
            if text is not None:
                self.log.append(LogLine(seat, self.labels[seat], text))
        if self.over and self.recorder.record.outcome is None:
            self.recorder.finish(self.raw)
        if not self.over:
            self.snapshot = self.snapshot if in_selection(self.raw) else None

    # ------------------------------------------------------------------ the result
    def result(self) -> dict[str, Any]:
        """Scores, rewards and (when the game is over) the verdict."""
        raw = self.raw
        totals = self.recorder.totals
        rows = [
            {
                "seat": p,
                "who": self.labels[p],
                "score": float(raw.scores()[p]),
                "reward": float(totals.get(raw.possible_agents[p], 0.0)),
            }
            for p in range(raw.num_players)
        ]
        verdict = ""
        if self.over:
            if any(raw.truncations.values()):
                verdict = f"Game stopped after {raw.num_steps} decisions (the cap): no result."
            else:
                won = raw.winners()
                names = [f"player_{p}" + (" (you)" if p == self.seat else "") for p in won]
                who = (
                    "nobody wins"
                    if not names
                    else " and ".join(names) + (" wins" if len(names) == 1 else " share the win")
                )
                verdict = f"Game over after {raw.num_steps} decisions: {who}. " + (
                    "You win!" if self.seat in won else "You lose."
                )
        return {"rows": rows, "verdict": verdict}

    def record_text(self) -> str:
        """The game record so far as JSON lines (with its outcome once the game is over)."""
        return "\n".join(self.recorder.record.lines()) + "\n"

    def save(self, runs: Path) -> Path:
        """Write the record to ``runs/web/<game>-<time>-<token>.jsonl`` (once the game is over)."""
        if self.saved is None:
            stamp = time.strftime("%Y%m%d-%H%M%S", time.gmtime(self.created))
            self.saved = self.recorder.save(runs / "web" / f"{self.key}-{stamp}-{self.token[:8]}.jsonl")
        return self.saved


#: The variant name of a game's short test game (its spec's ``quick``), offered beside its registered variants.
QUICK = "quick"


def variant_players(spec: Any, variant: str | None) -> tuple[int, ...]:
    """The player counts ``variant`` allows (the game's own where the variant does not narrow them)."""
    if variant == QUICK:
        return tuple(spec.quick.players or spec.players)
    if variant in spec.variants:
        return tuple(spec.variants[variant].players or spec.players)
    return tuple(spec.players)


def game_options(spec: Any, variant: str | None) -> dict[str, Any]:
    """The options of ``variant``: a registered one, or :data:`QUICK` (the spec's short game)."""
    if variant == QUICK:
        return dict(spec.quick.options)
    return _game_options(spec, variant, None)


def checked_spec(spec: Any, runs: Path | None, allow_python: bool) -> Any:
    """``spec`` if the web app may load it: ``python:`` needs the flag; checkpoints must be shipped or under runs."""
    if spec.kind == "python" and not allow_python:
        raise Refused(
            f"agent {spec.label!r}: python: agents run code; start the server with --allow-python-agents to use them"
        )
    if spec.kind in ("ppo", "rllib") and spec.path:
        path = checkpoint_path(spec.path, runs, allow_python)
        return dataclasses.replace(spec, path=str(path))
    return spec


def checkpoint_path(text: str, runs: Path | None, allow_python: bool) -> Path:
    """The checkpoint ``text`` names: relative names are looked up in the checkout and in ``runs``."""
    given = Path(text)
    roots = [r for r in (SHIPPED_CHECKPOINTS, runs) if r is not None]
    candidates = [given] if given.is_absolute() else [Path.cwd() / given, REPO_ROOT / given]
    if runs is not None and not given.is_absolute():
        candidates.append(runs / given)
    for candidate in candidates:
        if candidate.exists():
            resolved = candidate.resolve()
            if allow_python or any(resolved.is_relative_to(r.resolve()) for r in roots):
                return resolved
            raise Refused(f"checkpoint {text!r}: only checkpoints in checkpoints/ or the --runs folder can be loaded")
    raise OptionError(f"checkpoint {text!r}: no such file")


class SessionStore:
    """The games in play, by unguessable token; the oldest is dropped past :data:`MAX_SESSIONS`."""

    def __init__(self, limit: int = MAX_SESSIONS) -> None:
        self.limit = limit
        self._sessions: OrderedDict[str, PlaySession] = OrderedDict()
        self._lock = threading.Lock()

    def new_token(self) -> str:
        return secrets.token_urlsafe(12)

    def add(self, session: PlaySession) -> None:
        with self._lock:
            self._sessions[session.token] = session
            while len(self._sessions) > self.limit:
                self._sessions.popitem(last=False)

    def get(self, token: str) -> PlaySession | None:
        with self._lock:
            session = self._sessions.get(token)
            if session is not None:
                self._sessions.move_to_end(token)
            return session
