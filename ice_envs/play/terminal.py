"""A person plays one game in the terminal against agents: ``ice-envs play``.

On each of the person's turns the table is shown as their seat may see it
(``render_view(seat, "ansi")``: never another player's hidden cards) with the legal
moves as a numbered menu (:mod:`ice_envs.play.menu`, grouped when there are many).
The person types a number or a command:

==========  ===================================================================
``help``    the commands and where the rules are
``undo``    take back the meld being composed (Tip of the Diceberg, Iceberg
            Rummy) or the dice marked for a re-roll: the game is restored to
            the state before the selection began
``back``    close a group of moves
``table``   show the table again
``quit``    leave the game
==========  ===================================================================

Bad input is refused with a message and asked again. The agents' moves are printed as
the person may see them (:func:`ice_envs.play.games.public_description`). At the end the
result, scores and rewards are shown. Input is read line by line, so a script can play
by writing moves to stdin; end of input quits.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

import numpy as np

import ice_envs
from ice_envs.core.errors import OptionError
from ice_envs.core.registry import spec_of
from ice_envs.evaluation.record import GameRecorder, is_over
from ice_envs.play.console import Console
from ice_envs.play.games import group_path, in_selection, public_description, selection_help
from ice_envs.play.menu import MoveMenu

COMMANDS = {
    "help": ("help", "h", "?"),
    "undo": ("undo", "u"),
    "back": ("back", "b"),
    "table": ("table", "t"),
    "quit": ("quit", "q", "exit"),
}
FOOTER = "Type a number, or help, undo, back, table, quit."


@dataclass
class PlaySetup:
    """What ``ice-envs play`` was asked for."""

    game: str
    num_players: int
    seat: int = 0
    #: One agent spec per seat other than ``seat``, in seat order.
    opponents: list[str] = field(default_factory=list)
    seed: int = 0
    options: dict[str, Any] = field(default_factory=dict)
    record: Path | None = None
    menu_limit: int = 20


class _Quit(Exception):
    """The person typed ``quit`` (or input ended)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class _Snapshot:
    """The game just before the person began composing a move (for ``undo``)."""

    def __init__(self, env: Any, steps: int, totals: dict[str, float]) -> None:
        self.state = env.state_dict()
        self.steps = steps
        self.totals = dict(totals)


def opponent_specs(text: str | None, num_players: int, default: str) -> list[str]:
    """The comma-separated ``--opponents`` list: one spec for every other seat, or one for all."""
    specs = [s.strip() for s in (text or default).split(",") if s.strip()]
    if len(specs) == 1:
        specs = specs * (num_players - 1)
    if len(specs) != num_players - 1:
        raise OptionError(
            f"--opponents gives {len(specs)} agents for {num_players - 1} opponent seats; "
            "give one spec per other seat (in seat order) or a single spec for all"
        )
    return specs


class TerminalGame:
    """One game between a person (at ``setup.seat``) and agents, over text streams."""

    def __init__(self, setup: PlaySetup, stdin: TextIO | None = None, console: Console | None = None) -> None:
        from ice_envs.agents import load_agent
        from ice_envs.agents.spec import AgentSpecError, parse_agent_spec

        self.setup = setup
        self.stdin = stdin if stdin is not None else sys.stdin
        self.console = console if console is not None else Console()
        self.echo = not bool(getattr(self.stdin, "isatty", lambda: False)())
        n = setup.num_players
        if not 0 <= setup.seat < n:
            raise OptionError(f"--seat {setup.seat} is not a seat of a {n}-player game (0-{n - 1})")
        self.raw = ice_envs.make(setup.game, num_players=n, raw=True, render_mode="ansi", **setup.options)
        self.key = spec_of(self.raw).name
        self.seat = setup.seat
        self.agents: dict[int, Any] = {}
        self.labels: dict[int, str] = {setup.seat: "you"}
        others = [p for p in range(n) if p != setup.seat]
        if len(setup.opponents) != len(others):
            raise OptionError(f"{len(setup.opponents)} opponents given for the {len(others)} other seats")
        try:
            for p, text in zip(others, setup.opponents, strict=True):
                spec = parse_agent_spec(text)
                seed = int(np.random.SeedSequence([setup.seed, p]).generate_state(1)[0])
                agent = load_agent(spec, self.key, seed=seed, num_players=n)
                agent.reset(seed=seed)
                self.agents[p] = agent
                self.labels[p] = spec.label
        except (AgentSpecError, ValueError) as exc:
            raise OptionError(str(exc)) from None
        self.view_rng = np.random.default_rng(np.random.SeedSequence([setup.seed, n, 7]))
        record_agents = ["human" if p == setup.seat else self.labels[p] for p in range(n)]
        self.recorder = GameRecorder(self.key, n, setup.options, setup.seed, record_agents)
        self.snapshot: _Snapshot | None = None

    # ------------------------------------------------------------------ main loop
    def run(self) -> int:
        """Play to the end (or until ``quit``); returns the exit status (0; 1 if input ended; 130 on Ctrl-C)."""
        s = self.setup
        self.raw.reset(seed=s.seed)
        names = ", ".join(f"player_{p} ({self.labels[p]})" for p in range(s.num_players))
        self.console.line(f"{self.key}: {names}; seed {s.seed}. You are player_{self.seat}.")
        self.console.line("Type help for the commands.")
        status = 0
        try:
            while not is_over(self.raw):
                if self.raw.current_seat == self.seat:
                    self._human_turn()
                else:
                    self._agent_turn()
            self._show_result()
        except _Quit as q:
            self.console.line(f"{q.reason} You left the game after {self.raw.num_steps} decisions.")
            status = 1 if q.reason.startswith("End of input") else 0
        except KeyboardInterrupt:
            self.console.line(f"\nInterrupted. You left the game after {self.raw.num_steps} decisions.")
            status = 130
        self._save_record()
        return status

    def _take(self, action: int) -> None:
        self.recorder.take(self.raw, action)

    def _agent_turn(self) -> None:
        from ice_envs.core.agent import make_view

        seat = self.raw.current_seat
        agent = self.agents[seat]
        obs = self.raw.observe(self.raw.agent_selection)
        view = make_view(self.raw, seat, self.view_rng) if agent.needs_view else None
        action = int(agent.act(obs, view))
        text = public_description(self.raw, action, self.seat)
        self._take(action)
        if text is not None:
            self.console.line(f"player_{seat} ({self.labels[seat]}): {text}")

    # ------------------------------------------------------------------ the person's turn
    def _human_turn(self) -> None:
        raw = self.raw
        if not in_selection(raw):
            self.snapshot = _Snapshot(raw, len(self.recorder.record.steps), self.recorder.totals)
        self._show_table()
        menu = MoveMenu(
            raw.legal_actions(), raw.describe_action, lambda a: group_path(raw, a), limit=self.setup.menu_limit
        )
        show_menu = True
        while True:
            if show_menu:
                self.console.menu(menu.title, menu.entries(), FOOTER)
                show_menu = False
            text = self._read()
            word = text.strip().lower()
            if word in COMMANDS["quit"]:
                raise _Quit("You quit.")
            if word in COMMANDS["help"]:
                self._help()
                show_menu = True
            elif word in COMMANDS["table"]:
                self._show_table()
                show_menu = True
            elif word in COMMANDS["back"]:
                if menu.back():
                    show_menu = True
                else:
                    self.console.error("Already at the top of the menu.")
            elif word in COMMANDS["undo"]:
                if self._undo():
                    return
            elif not word:
                self.console.error(f"Please type a move number (1-{len(menu.entries())}) or a command.")
            elif not word.isdigit():
                self.console.error(f"{text.strip()!r} is not a move number or a command. {FOOTER}")
            else:
                try:
                    action = menu.choose(int(word))
                except IndexError:
                    self.console.error(f"There is no move {int(word)}: choose 1-{len(menu.entries())}.")
                    continue
                if action is None:
                    show_menu = True
                    continue
                self.console.line(f"You (player_{self.seat}): {raw.describe_action(action)}")
                self._take(action)
                return

    def _undo(self) -> bool:
        """Restore the state before the selection began; ``False`` (with a message) if none."""
        if not in_selection(self.raw) or self.snapshot is None:
            what = selection_help(self.raw)
            if what:
                self.console.error(f"Nothing to undo: undo takes back {what}, before it is played.")
            else:
                self.console.error("Nothing to undo: in this game every move is final when taken.")
            return False
        snap = self.snapshot
        self.raw.load_state_dict(snap.state)
        self.recorder.truncate(snap.steps, snap.totals)
        self.console.line("Undone: your selection is taken back.")
        return True

    def _read(self) -> str:
        self.console.prompt("> ")
        line = self.stdin.readline()
        if not line:
            self.console.line("")
            raise _Quit("End of input.")
        if self.echo:
            self.console.line(line.rstrip("\n"))
        return line

    def _help(self) -> None:
        undo = selection_help(self.raw)
        lines = [
            "Type the number of a move (a line ending in '...' opens a group of moves). Commands:",
            "  help    this text",
            "  undo    "
            + (f"take back {undo}" if undo else "take back an uncommitted selection (not used in this game)"),
            "  back    close a group of moves",
            "  table   show the table again",
            "  quit    leave the game",
            f"Rules: docs/rules/{self.key}.md",
        ]
        for line in lines:
            self.console.line(line)

    def _show_table(self) -> None:
        title = f"player_{self.seat} (you) to move" if not is_over(self.raw) else "final table"
        self.console.table(title, str(self.raw.render_view(self.seat, "ansi")))

    # ------------------------------------------------------------------ the end
    def _show_result(self) -> None:
        raw = self.raw
        self._show_table()
        totals = self.recorder.totals
        rewards = np.array([totals.get(a, 0.0) for a in raw.possible_agents])
        scores = raw.scores()
        truncated = any(raw.truncations.values())
        if truncated:
            self.console.line(
                f"Game stopped after {raw.num_steps} decisions: truncated at the cap of {raw.max_game_length} "
                "decisions, no result.",
                style="bold",
            )
        else:
            won = raw.winners()
            winners = [f"player_{p}" + (" (you)" if p == self.seat else "") for p in won]
            if not winners:
                verdict = "nobody wins"
            elif len(winners) == 1:
                verdict = f"{winners[0]} wins"
            else:
                verdict = " and ".join(winners) + " share the win"
            mine = "You win!" if self.seat in won else "You lose."
            self.console.line(f"Game over after {raw.num_steps} decisions: {verdict}. {mine}", style="bold")
        for p in range(raw.num_players):
            who = "you" if p == self.seat else self.labels[p]
            self.console.line(f"  player_{p} ({who}): score {scores[p]:g}, reward {rewards[p]:+g}")

    def _save_record(self) -> None:
        if self.setup.record is None:
            return
        self.recorder.finish(self.raw)
        path = self.recorder.save(self.setup.record)
        self.console.line(f"Game record written to {path}")


def play(setup: PlaySetup, stdin: TextIO | None = None, out: TextIO | None = None, fancy: bool | None = None) -> int:
    """Play one game (see the module docstring); returns the exit status."""
    return TerminalGame(setup, stdin, Console(out, fancy)).run()
