"""The web app (Starlette): pages for playing, replaying and reading leagues; see :mod:`ice_envs.web`.

Pages are plain functions, which Starlette runs in its thread pool, and the form handlers hand their
work (agents thinking, a record being checked) to it too: a slow agent never stalls the other pages.

Every page is rendered on the server from Jinja2 templates (``templates/``) with a little plain
JavaScript (``static/app.js``) for clicks on the table and the replay's keys and slider; every
move is also a plain form button, so the app works without it. Forms are posted URL-encoded and
read with a size cap. A bad request is answered with a 4xx page holding one clear line (400 bad
input, 403 refused, 404 nothing there, 409 a move that is not legal now); an unexpected error is a
500 page without a traceback.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Iterable
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, quote

from jinja2 import Environment, FileSystemLoader, select_autoescape
from markupsafe import Markup
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, PlainTextResponse, RedirectResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

import ice_envs
from ice_envs.core.errors import IllegalActionError, OptionError
from ice_envs.evaluation.record import RecordError
from ice_envs.web.guard import LOCAL_NAMES, LocalGuard
from ice_envs.web.library import SHIPPED_CHECKPOINTS, BadName, Library, NotFound
from ice_envs.web.replays import ReplayCache
from ice_envs.web.reports import evaluation_view, league_view
from ice_envs.web.sessions import QUICK, NewGame, PlaySession, Refused, SessionStore, variant_players
from ice_envs.web.tables import move_groups, move_targets, table_picture

HERE = Path(__file__).resolve().parent
#: The largest form body read.
MAX_FORM_BYTES = 64 << 10
#: Agent specs offered in the new-game form (any spec may be typed).
BASE_AGENTS = ("heuristic", "random", "greedy", "mcts:sims=50,rollout=random")
#: The decisions listed around the current one on a replay page.
REPLAY_WINDOW = 40


class WebError(Exception):
    """A request answered with ``status`` and a one-line ``message``."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


def shipped_agents(game: str) -> list[str]:
    """The agent specs the form offers for ``game``: the base agents and its shipped PPO checkpoint."""
    agents = list(BASE_AGENTS)
    if (SHIPPED_CHECKPOINTS / f"{game}_ppo" / "final.npz").is_file():
        agents.append(f"ppo:checkpoints/{game}_ppo/final.npz")
    return agents


def create_app(
    runs: Path | None = None,
    allow_python_agents: bool = False,
    library: Library | None = None,
    hosts: Iterable[str] | None = LOCAL_NAMES,
) -> Starlette:
    """The app serving ``runs`` (``None``: only the shipped files); ``allow_python_agents`` lets ``python:`` agents
    play; ``hosts``: the names the server answers to (:class:`~ice_envs.web.guard.LocalGuard`; ``None``: any)."""
    lib = library if library is not None else Library(runs)
    runs_dir = lib.runs
    sessions = SessionStore()
    replays = ReplayCache()
    templates = Environment(loader=FileSystemLoader(HERE / "templates"), autoescape=select_autoescape(["html"]))
    templates.filters["num"] = lambda v, fmt=".3f": "–" if v is None else format(v, fmt)
    templates.filters["q"] = lambda v: quote(str(v), safe="/")

    def page(template: str, status: int = 200, **context: Any) -> HTMLResponse:
        body = templates.get_template(template).render(**context)
        return HTMLResponse(body, status_code=status)

    async def form(request: Request) -> dict[str, str]:
        body = b""
        async for chunk in request.stream():
            body += chunk
            if len(body) > MAX_FORM_BYTES:
                raise WebError(413, f"form larger than {MAX_FORM_BYTES} bytes")
        try:
            fields = parse_qs(body.decode("utf-8"), keep_blank_values=True, max_num_fields=200)
        except (UnicodeDecodeError, ValueError):
            raise WebError(400, "the form is not URL-encoded UTF-8 text") from None
        return {k: v[-1] for k, v in fields.items()}

    def integer(value: str | None, what: str, default: int | None = None) -> int:
        if value is None or value == "":
            if default is None:
                raise WebError(400, f"{what} is missing")
            return default
        if not value.strip().lstrip("-").isdigit() or len(value) > 18:
            raise WebError(400, f"{what} must be a whole number, got {value[:40]!r}")
        return int(value)

    def game_of(name: str | None) -> Any:
        if not name:
            raise WebError(400, "no game given")
        try:
            return ice_envs.get_spec(name)
        except (OptionError, KeyError, ValueError):
            raise WebError(404, f"unknown game {name[:40]!r}; games: {', '.join(ice_envs.GAMES)}") from None

    # ------------------------------------------------------------------ pages
    def home(request: Request) -> Response:
        games = [{"name": n, "summary": s.summary, "players": s.players} for n, s in ice_envs.GAMES.items()]
        return page("index.html", games=games, runs=runs_dir)

    def new_game(request: Request) -> Response:
        name = request.query_params.get("game") or next(iter(ice_envs.GAMES))
        spec = game_of(name)
        variants = {v: list(variant_players(spec, v)) for v in [*spec.variants, QUICK]}
        preset = [s for s in request.query_params.get("opponents", "").split("|") if s][:8]
        players = integer(request.query_params.get("players"), "players", min(spec.players))
        if players not in spec.players:
            raise WebError(400, f"{spec.name}: {players} players is not allowed; choose one of {list(spec.players)}")
        return page(
            "new_game.html",
            games=list(ice_envs.GAMES),
            spec=spec,
            variants=variants,
            agents=shipped_agents(spec.name),
            default_agent="heuristic" if spec.heuristic else "random",
            preset=preset,
            players=players,
        )

    async def create_game(request: Request) -> Response:
        fields = await form(request)
        spec = game_of(fields.get("game"))
        players = integer(fields.get("players"), "players")
        seat = integer(fields.get("seat"), "seat", 0)
        variant = fields.get("variant") or None
        if variant is not None and variant not in spec.variants and variant != QUICK:
            known = [*spec.variants, QUICK]
            raise WebError(400, f"{spec.name}: unknown variant {variant[:40]!r}; variants: {known}")
        opponents = [fields.get(f"opponent{p}", "").strip() for p in range(players) if p != seat]
        if not 1 <= players <= 8:
            raise WebError(400, f"{spec.name}: {players} players is not allowed; choose one of {list(spec.players)}")
        if any(not o for o in opponents):
            raise WebError(400, "give an agent spec for every other seat")
        # no seed given: a fresh one (a seed the person knows would let them work out the deal)
        seed = integer(fields.get("seed"), "seed", secrets.randbelow(2**31))
        if not 0 <= seed < 2**31:
            raise WebError(400, f"seed must be between 0 and {2**31 - 1}, got {seed}")
        setup = NewGame(spec.name, players, seat, opponents, variant, seed)
        session = await run_in_threadpool(PlaySession, setup, sessions.new_token(), runs_dir, allow_python_agents)
        sessions.add(session)
        save_if_over(session)
        return RedirectResponse(f"/play/{session.token}", status_code=303)

    def session_of(request: Request) -> PlaySession:
        session = sessions.get(request.path_params["token"])
        if session is None:
            raise WebError(404, "no such game (the server keeps the most recent games only): start a new one")
        return session

    def save_if_over(session: PlaySession) -> None:
        if session.over and runs_dir is not None:
            session.save(runs_dir)

    def play_page(request: Request) -> Response:
        session = session_of(request)
        with session.lock:
            return page("play.html", **play_context(session))

    def play_context(session: PlaySession) -> dict[str, Any]:
        raw = session.raw
        legal = session.legal()
        targets = move_targets(raw, legal) if legal else {}
        labels = {a: raw.describe_action(a) for a in legal}
        return {
            "s": session,
            "picture": Markup(table_picture(raw, session.seat)),
            "groups": move_groups(raw, legal) if legal else [],
            "targets_json": Markup(script_json({k: [[a, labels[a]] for a in v] for k, v in targets.items()})),
            "result": session.result(),
            "log": session.log[-200:],
            "saved": session.saved.relative_to(runs_dir).as_posix() if session.saved and runs_dir else None,
        }

    async def play_move(request: Request) -> Response:
        session = session_of(request)
        fields = await form(request)
        action = integer(fields.get("action"), "action")

        def move() -> None:
            with session.lock:
                session.move(action)
                save_if_over(session)

        await run_in_threadpool(move)
        return RedirectResponse(f"/play/{session.token}", status_code=303)

    def play_undo(request: Request) -> Response:
        session = session_of(request)
        with session.lock:
            session.undo()
        return RedirectResponse(f"/play/{session.token}", status_code=303)

    def play_record(request: Request) -> Response:
        session = session_of(request)
        with session.lock:
            if not session.over:
                raise WebError(409, "the game record holds every seat's moves: it is ready when the game is over")
            text = session.record_text()
        headers = {"Content-Disposition": f'attachment; filename="{session.key}-{session.token[:8]}.jsonl"'}
        return PlainTextResponse(text, headers=headers, media_type="application/x-ndjson")

    def replay_list(request: Request) -> Response:
        return page("replays.html", entries=lib.entries("record"), runs=runs_dir)

    def replay_page(request: Request) -> Response:
        source, name = request.path_params["source"], request.path_params["name"]
        view = replays.get(lib.path(source, name, "record"))
        step = integer(request.query_params.get("step"), "step", 0)
        if not 0 <= step <= view.steps:
            raise WebError(400, f"step {step} is outside this record (0-{view.steps})")
        seat_text = request.query_params.get("view", "full")
        viewer = None if seat_text == "full" else integer(seat_text, "view")
        if viewer is not None and not 0 <= viewer < view.num_players:
            raise WebError(400, f"view {viewer} is not a seat of this {view.num_players}-player game")
        with view.lock:
            env = view.env_at(step)
            picture = Markup(table_picture(env, viewer))
            over = step == view.steps
        lo = max(0, step - REPLAY_WINDOW // 2)
        return page(
            "replay.html",
            source=source,
            name=name,
            view=view,
            step=step,
            viewer=viewer,
            picture=picture,
            scores=view.scores[step],
            last=view.decisions[step - 1] if step > 0 else None,
            following=view.decisions[step] if step < view.steps else None,
            window=view.decisions[lo : lo + REPLAY_WINDOW],
            over=over,
        )

    def report_list(request: Request) -> Response:
        return page("leagues.html", entries=[e for e in lib.entries() if e.kind != "record"], runs=runs_dir)

    def league_page(request: Request) -> Response:
        source, name = request.path_params["source"], request.path_params["name"]
        data = lib.load_report(source, name, "league")
        tables_dir = lib.path(source, name, "league").parent / "tables" if source == "runs" else None
        return page("league.html", source=source, name=name, data=data, v=league_view(data, tables_dir))

    def evaluation_page(request: Request) -> Response:
        source, name = request.path_params["source"], request.path_params["name"]
        data = lib.load_report(source, name, "evaluation")
        return page(
            "evaluation.html",
            source=source,
            name=name,
            data=data,
            v=evaluation_view(data),
            records=lib.records_beside(source, name),
        )

    # ------------------------------------------------------------------ errors
    def error_page(status: int, message: str) -> Response:
        return page("error.html", status=status, code=status, message=message)

    async def on_web_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, WebError)
        return error_page(exc.status, exc.message)

    async def on_user_error(request: Request, exc: Exception) -> Response:
        if isinstance(exc, NotFound):
            status = 404
        elif isinstance(exc, Refused):
            status = 403
        elif isinstance(exc, IllegalActionError):
            status = 409
        else:
            status = 400
        return error_page(status, one_line(str(exc)))

    async def on_http_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, HTTPException)
        message = "no such page" if exc.status_code == 404 else str(exc.detail)
        return error_page(exc.status_code, message)

    async def on_crash(request: Request, exc: Exception) -> Response:
        return PlainTextResponse(f"500 internal error: {type(exc).__name__} (see the server's log)", status_code=500)

    routes = [
        Route("/", home),
        Route("/play", new_game, methods=["GET"]),
        Route("/play", create_game, methods=["POST"]),
        Route("/play/{token}", play_page, methods=["GET"]),
        Route("/play/{token}/move", play_move, methods=["POST"]),
        Route("/play/{token}/undo", play_undo, methods=["POST"]),
        Route("/play/{token}/record.jsonl", play_record, methods=["GET"]),
        Route("/replays", replay_list),
        Route("/replay/{source}/{name:path}", replay_page),
        Route("/leagues", report_list),
        Route("/league/{source}/{name:path}", league_page),
        Route("/evaluation/{source}/{name:path}", evaluation_page),
        Mount("/static", StaticFiles(directory=HERE / "static"), name="static"),
    ]
    handlers: dict[Any, Any] = {
        WebError: on_web_error,
        OptionError: on_user_error,
        IllegalActionError: on_user_error,
        RecordError: on_user_error,
        BadName: on_user_error,
        HTTPException: on_http_error,
        Exception: on_crash,
    }
    app = Starlette(routes=routes, exception_handlers=handlers, middleware=[Middleware(LocalGuard, hosts=hosts)])
    app.state.sessions = sessions
    app.state.library = lib
    return app


def script_json(value: Any) -> str:
    """``value`` as JSON that is safe inside a ``<script>`` element (no ``<``, ``>`` or ``&`` in it)."""
    text = json.dumps(value)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def one_line(text: str) -> str:
    """The first line of an error message (the rest of a long one is noise in a page)."""
    return text.strip().splitlines()[0] if text.strip() else "bad request"
