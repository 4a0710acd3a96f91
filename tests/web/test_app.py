"""Every route of the web app and every refusal, through Starlette's test client."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest

import ice_envs

pytest.importorskip("starlette", reason="the web extra is not installed: pip install 'ice-envs[web]'")
pytest.importorskip("jinja2", reason="the web extra is not installed: pip install 'ice-envs[web]'")

from ice_envs.evaluation.record import parse_record
from ice_envs.evaluation.replay import replay
from ice_envs.play.games import in_selection
from ice_envs.web.library import SHIPPED_LEAGUES, SHIPPED_RECORDS, BadName, Library, NotFound, check_name

GAMES = list(ice_envs.GAMES)


def new_game(client, **fields) -> str:
    """Start a game; returns its page's path."""
    form = {"seat": "0", "seed": "1", **{k: str(v) for k, v in fields.items()}}
    r = client.post("/play", data=form, follow_redirects=False)
    assert r.status_code == 303, r.text
    return r.headers["location"]


def session_of(app, path: str):
    return app.state.sessions.get(path.rsplit("/", 1)[-1])


def message(r) -> str:
    found = re.search(r'id="error-message">([^<]*)<', r.text)
    assert found, r.text[:500]
    return found.group(1)


def test_home_lists_every_game_and_the_sections(client):
    r = client.get("/")
    assert r.status_code == 200
    for game in GAMES:
        assert f'href="/play?game={game}"' in r.text
    assert 'href="/replays"' in r.text and 'href="/leagues"' in r.text


@pytest.mark.parametrize("game", GAMES)
def test_the_new_game_form_offers_the_game_s_variants_seats_and_agents(client, game):
    spec = ice_envs.get_spec(game)
    r = client.get(f"/play?game={game}&players={max(spec.players)}")
    assert r.status_code == 200
    for variant in [*spec.variants, "quick"]:
        assert f'value="{variant}"' in r.text
    assert r.text.count('name="opponent') == max(spec.players)
    for agent in ("heuristic", "random", "greedy"):
        assert f'<option value="{agent}">' in r.text
    if (Path("checkpoints") / f"{game}_ppo" / "final.npz").exists():
        assert f"ppo:checkpoints/{game}_ppo/final.npz" in r.text


@pytest.mark.parametrize(
    ("query", "status", "words"),
    [
        ("game=chess", 404, "unknown game"),
        ("game=cardiceo&players=two", 400, "whole number"),
        ("game=cubemelt&players=6", 400, "6 players is not allowed"),
    ],
)
def test_a_bad_new_game_query_is_a_clear_4xx(client, query, status, words):
    r = client.get(f"/play?{query}")
    assert r.status_code == status and words in message(r)
    assert "Traceback" not in r.text


@pytest.mark.parametrize(
    ("fields", "status", "words"),
    [
        ({"game": "chess", "players": 2, "opponent1": "random"}, 404, "unknown game"),
        ({"game": "cardiceo", "players": 9, "opponent1": "random"}, 400, "players"),
        ({"game": "cardiceo", "players": 7, **{f"opponent{p}": "random" for p in range(1, 7)}}, 400, "7 players"),
        ({"game": "cardiceo", "players": 2, "seat": 2, "opponent0": "random", "opponent1": "random"}, 400, "seat 2"),
        ({"game": "cardiceo", "players": 2, "opponent1": ""}, 400, "agent spec for every other seat"),
        ({"game": "cardiceo", "players": 2, "opponent1": "alphazero"}, 400, "alphazero"),
        ({"game": "cardiceo", "players": 2, "opponent1": "random", "variant": "huge"}, 400, "unknown variant"),
        ({"game": "icebergs", "players": 2, "opponent1": "random", "variant": "solo"}, 400, "2 players"),
        ({"game": "cardiceo", "players": 2, "opponent1": "random", "seed": -1}, 400, "seed"),
        ({"game": "cardiceo", "players": 2, "opponent1": "random", "seed": "x"}, 400, "whole number"),
        ({"game": "cardiceo", "players": "", "opponent1": "random"}, 400, "players is missing"),
        ({"game": "cardiceo", "players": 2, "opponent1": "python:os:system"}, 403, "--allow-python-agents"),
        ({"game": "cardiceo", "players": 2, "opponent1": "ppo:/etc/passwd"}, 403, "checkpoints/"),
        ({"game": "cardiceo", "players": 2, "opponent1": "ppo:no/such.npz"}, 400, "no such file"),
    ],
)
def test_a_bad_new_game_is_a_clear_4xx_and_starts_nothing(app, client, fields, status, words):
    before = len(app.state.sessions._sessions)
    r = client.post("/play", data={k: str(v) for k, v in fields.items()}, follow_redirects=False)
    assert r.status_code == status, r.text[-400:]
    assert words in message(r) and "Traceback" not in r.text
    assert len(app.state.sessions._sessions) == before


def test_a_form_that_is_too_large_or_not_text_is_refused(client):
    r = client.post("/play", content=b"game=" + b"x" * (70 << 10), headers={"content-type": "x"})
    assert r.status_code == 413 and "larger than" in message(r)
    r = client.post("/play", content=b"game=\xff\xfe", headers={"content-type": "x"})
    assert r.status_code == 400 and "URL-encoded" in message(r)


def test_python_agents_play_only_with_the_flag(runs_dir):
    from starlette.testclient import TestClient

    from ice_envs.web.app import create_app

    app = create_app(runs_dir, allow_python_agents=True)
    client = TestClient(app, base_url="http://localhost:8000", raise_server_exceptions=False)
    form = {"game": "cardiceo", "players": "2", "seat": "0", "opponent1": "python:no_such_module_here:make"}
    r = client.post("/play", data=form, follow_redirects=False)
    assert r.status_code == 400 and "no_such_module_here" in message(r)  # tried: refused only for the missing module


def test_a_shipped_ppo_checkpoint_plays(client, app):
    path = Path("checkpoints/cubemelt_ppo/final.npz")
    if not path.exists():
        pytest.skip("no shipped checkpoint in this checkout")
    page = new_game(client, game="cubemelt", players=2, opponent1=f"ppo:{path}?players=any")
    assert client.get(page).status_code == 200
    assert session_of(app, page).labels[1] == "ppo:final.npz"


@pytest.mark.parametrize("game", GAMES)
def test_a_whole_game_is_played_recorded_saved_and_replays(app, client, runs_dir, game):
    spec = ice_envs.get_spec(game)
    players = min(spec.quick.players or spec.players)
    page = new_game(
        client,
        game=game,
        players=players,
        variant="quick",
        seed=3,
        **{f"opponent{p}": "random" for p in range(1, players)},
    )
    session = session_of(app, page)
    rng = np.random.default_rng(0)
    moves = 0
    while not session.over:
        r = client.get(page)
        assert r.status_code == 200 and 'id="move-list"' in r.text
        legal = session.legal()
        for action in legal:
            assert f'value="{action}"' in r.text  # every legal move is a button
        r = client.post(page + "/move", data={"action": str(int(rng.choice(legal)))}, follow_redirects=False)
        assert r.status_code == 303
        moves += 1
    r = client.get(page)
    assert 'id="verdict"' in r.text and ("Game over" in r.text or "stopped" in r.text)
    assert 'id="move-list"' not in r.text
    record = parse_record(client.get(page + "/record.jsonl").text.splitlines())
    assert record.game == game and record.outcome is not None and record.header["agents"][0] == "human"
    assert replay(record, gif=False).checked_outcome
    saved = runs_dir / session.saved.relative_to(runs_dir)
    assert saved.read_text() == client.get(page + "/record.jsonl").text
    link = re.search(r'id="replay-link" href="([^"]+)"', r.text).group(1)
    assert client.get(link).status_code == 200
    r = client.post(page + "/move", data={"action": "0"})
    assert r.status_code == 409 and "game is over" in message(r)


def test_a_move_is_refused_unless_legal_and_refused_moves_change_nothing(app, client):
    page = new_game(client, game="cardiceo", players=2, opponent1="random")
    session = session_of(app, page)
    state = json.dumps(session.raw.state_dict(), sort_keys=True)
    illegal = next(a for a in range(session.raw.action_space("player_0").n) if a not in session.legal())
    for action, status, words in [
        (str(illegal), 409, "not legal"),
        ("99999", 409, "not legal"),
        ("-1", 409, "not legal"),
        ("one", 400, "whole number"),
        ("", 400, "action is missing"),
    ]:
        r = client.post(page + "/move", data={"action": action})
        assert r.status_code == status and words in message(r), (action, r.text[-300:])
    assert json.dumps(session.raw.state_dict(), sort_keys=True) == state
    assert 'id="undo" disabled' in client.get(page).text
    r = client.post(page + "/undo")
    assert r.status_code == 409 and "nothing to undo" in message(r)


@pytest.mark.parametrize("path", ["/play/nope", "/play/nope/move", "/play/nope/undo", "/play/nope/record.jsonl"])
def test_an_unknown_game_is_404(client, path):
    r = client.post(path) if path.endswith(("move", "undo")) else client.get(path)
    assert r.status_code == 404 and "no such game" in message(r)


@pytest.mark.parametrize("game", ["iceberg_rummy", "tip_of_the_diceberg"])
def test_undo_takes_back_the_move_being_composed(app, client, game):
    spec = ice_envs.get_spec(game)
    players = min(spec.quick.players or spec.players)
    rng = np.random.default_rng(2)
    for seed in range(20):
        page = new_game(
            client,
            game=game,
            players=players,
            variant="quick",
            seed=seed,
            **{f"opponent{p}": "random" for p in range(1, players)},
        )
        session = session_of(app, page)
        for _ in range(200):
            if session.over:
                break
            before = (json.dumps(session.raw.state_dict(), sort_keys=True), len(session.recorder.record.steps))
            composing = [a for a in session.legal() if _starts_selection(session, a)]
            if composing and not in_selection(session.raw):
                client.post(page + "/move", data={"action": str(composing[0])}, follow_redirects=False)
                assert session.can_undo and 'id="undo" disabled' not in client.get(page).text
                r = client.post(page + "/undo", follow_redirects=False)
                assert r.status_code == 303
                assert (
                    json.dumps(session.raw.state_dict(), sort_keys=True),
                    len(session.recorder.record.steps),
                ) == before
                return
            client.post(page + "/move", data={"action": str(int(rng.choice(session.legal())))}, follow_redirects=False)
    pytest.fail("no position found where a move is composed")


def _starts_selection(session, action: int) -> bool:
    probe = ice_envs.make(session.key, num_players=session.raw.num_players, raw=True, **session.options)
    probe.reset(seed=0)
    probe.load_state_dict(session.raw.state_dict())
    probe.step(action)
    return not probe.agents == [] and in_selection(probe) and probe.current_seat == session.seat


def test_the_replay_list_names_shipped_and_runs_records(client):
    r = client.get("/replays")
    assert r.status_code == 200
    for path in sorted(SHIPPED_RECORDS.glob("*.jsonl")):
        assert f'href="/replay/shipped/{path.name}"' in r.text
    assert 'href="/replay/runs/games/cardiceo.jsonl"' in r.text
    assert 'href="/replay/runs/eval/records/game_00000.jsonl"' in r.text


@pytest.mark.parametrize("name", sorted(p.name for p in SHIPPED_RECORDS.glob("*.jsonl")))
def test_every_shipped_record_replays_at_every_view(client, name):
    record = parse_record((SHIPPED_RECORDS / name).read_text().splitlines())
    steps = len(record.steps)
    for step in sorted({0, 1, steps // 2, steps}):
        for view in ["full", *range(record.num_players)]:
            r = client.get(f"/replay/shipped/{name}?step={step}&view={view}")
            assert r.status_code == 200, r.text[-300:]
            assert f'data-step="{step}"' in r.text and f"decision {step} / {steps}" in r.text
    last = record.steps[-1]["description"]
    assert last.replace("'", "&#39;") in client.get(f"/replay/shipped/{name}?step={steps}").text
    assert "End of the record" in client.get(f"/replay/shipped/{name}?step={steps}").text


@pytest.mark.parametrize(
    ("url", "status", "words"),
    [
        ("/replay/shipped/cardiceo.jsonl?step=9999", 400, "outside this record"),
        ("/replay/shipped/cardiceo.jsonl?step=-1", 400, "outside this record"),
        ("/replay/shipped/cardiceo.jsonl?view=7", 400, "not a seat"),
        ("/replay/shipped/cardiceo.jsonl?view=me", 400, "whole number"),
        ("/replay/shipped/chess.jsonl", 404, "no record"),
        ("/replay/elsewhere/cardiceo.jsonl", 404, "unknown source"),
        ("/replay/runs/..%2F..%2Fetc%2Fpasswd", 400, "bad file name"),
        ("/replay/runs/games/..%2F..%2Fsecret.jsonl", 400, "bad file name"),
        ("/replay/runs/%2Fetc%2Fpasswd", 400, "bad file name"),
        ("/replay/runs/games%5Ccardiceo.jsonl", 400, "bad file name"),
        ("/replay/runs/.hidden.jsonl", 400, "bad file name"),
        ("/replay/runs/league/league.json", 404, "not a record"),
        ("/replay/runs/league.yaml", 404, "not a record"),
    ],
)
def test_a_bad_replay_request_is_a_clear_4xx(client, url, status, words):
    r = client.get(url)
    assert r.status_code == status and words in message(r), r.text[-300:]
    assert "Traceback" not in r.text


def test_a_record_that_does_not_check_is_refused_with_its_line(client, runs_dir):
    lines = (SHIPPED_RECORDS / "cardiceo.jsonl").read_text().splitlines()
    step = json.loads(lines[3])
    step["action"] = 999
    (runs_dir / "games" / "broken.jsonl").write_text("\n".join([*lines[:3], json.dumps(step), *lines[4:]]) + "\n")
    r = client.get("/replay/runs/games/broken.jsonl")
    assert r.status_code == 400 and "line 4" in message(r) and "not legal" in message(r)
    (runs_dir / "games" / "garbage.jsonl").write_text("{not json\n")
    r = client.get("/replay/runs/games/garbage.jsonl")
    assert r.status_code == 400 and "not JSON" in message(r)


def test_a_link_out_of_the_runs_folder_is_not_followed(client, runs_dir, tmp_path):
    outside = tmp_path / "outside.jsonl"
    outside.write_text((SHIPPED_RECORDS / "cardiceo.jsonl").read_text())
    (runs_dir / "games" / "link.jsonl").symlink_to(outside)
    r = client.get("/replay/runs/games/link.jsonl")
    assert r.status_code == 404
    assert "link.jsonl" not in client.get("/replays").text


def test_names_are_plain_relative_parts():
    assert check_name("eval/records/game_00000.jsonl") == ["eval", "records", "game_00000.jsonl"]
    for bad in ["", "/abs.jsonl", "a/../b.jsonl", "a//b.jsonl", "./a.jsonl", "a\\b.jsonl", ".hidden", "a/\x00.jsonl"]:
        with pytest.raises(BadName):
            check_name(bad)
    with pytest.raises(NotFound, match="--runs"):
        Library(None).path("runs", "a.jsonl", "record")


def test_the_report_list_names_shipped_and_runs_reports(client):
    r = client.get("/leagues")
    assert r.status_code == 200
    for path in sorted(SHIPPED_LEAGUES.glob("*.json")):
        assert f'href="/league/shipped/{path.name}"' in r.text
    assert 'href="/league/runs/league/league.json"' in r.text
    assert 'href="/evaluation/runs/eval/evaluation.json"' in r.text


@pytest.mark.parametrize("name", sorted(p.name for p in SHIPPED_LEAGUES.glob("*.json")))
def test_every_shipped_league_shows_ratings_heat_map_and_tables(client, name):
    data = json.loads((SHIPPED_LEAGUES / name).read_text())
    r = client.get(f"/league/shipped/{name}")
    assert r.status_code == 200
    for row in data["ratings"]:
        assert f"<td>{row['agent']}</td>" in r.text
        assert f"[{row['mu_ci95'][0]:.1f}, {row['mu_ci95'][1]:.1f}]" in r.text
    agents = data["pairwise"]["agents"]
    assert r.text.count('<td style="background:') == len(agents) ** 2
    assert r.text.count("play against this table") == len(data["tables"])


def test_a_runs_league_shows_each_table_s_win_shares(client, runs_dir):
    r = client.get("/league/runs/league/league.json")
    assert r.status_code == 200
    table = json.loads((runs_dir / "league" / "tables" / "random__greedy.json").read_text())
    share = np.mean([g["win_share"][1] for g in table["results"]])
    assert f'greedy <span class="dim">({share:.2f})</span>' in r.text


def test_an_evaluation_links_its_sample_games_to_their_replays(client, runs_dir):
    data = json.loads((runs_dir / "eval" / "evaluation.json").read_text())
    r = client.get("/evaluation/runs/eval/evaluation.json")
    assert r.status_code == 200
    for row in data["per_agent"]:
        assert f"<td>{row['win_rate']:.3f}</td>" in r.text
    links = re.findall(r'href="(/replay/runs/eval/records/[^"]+)"', r.text)
    assert len(links) == 2
    assert all(client.get(link).status_code == 200 for link in links)


@pytest.mark.parametrize(
    ("url", "status", "words"),
    [
        ("/league/runs/eval/evaluation.json", 404, "not a league"),
        ("/evaluation/runs/league/league.json", 404, "not a evaluation"),
        ("/league/runs/nowhere/league.json", 404, "no league"),
        ("/league/runs/..%2Fleague.json", 400, "bad file name"),
        ("/league/runs/bogus/league.json", 400, "not a league report"),
        ("/league/runs/broken/league.json", 400, "not valid JSON"),
        ("/no/such/page", 404, "no such page"),
    ],
)
def test_a_bad_report_request_is_a_clear_4xx(client, runs_dir, url, status, words):
    (runs_dir / "bogus").mkdir(exist_ok=True)
    (runs_dir / "bogus" / "league.json").write_text(json.dumps({"game": "cardiceo", "ratings": 3}))
    (runs_dir / "broken").mkdir(exist_ok=True)
    (runs_dir / "broken" / "league.json").write_text("{")
    r = client.get(url)
    assert r.status_code == status and words in message(r), r.text[-300:]


def test_the_static_files_are_served(client):
    assert "setUpTable" in client.get("/static/app.js").text
    assert client.get("/static/style.css").status_code == 200
    assert client.get("/static/..%2F..%2Fapp.py").status_code == 404


def test_serve_listens_on_localhost_by_default(monkeypatch, runs_dir, capsys):
    import uvicorn

    from ice_envs.cli import main

    seen = {}
    monkeypatch.setattr(uvicorn, "run", lambda app, host, port, **kw: seen.update(host=host, port=port))
    assert main(["serve", "--runs", str(runs_dir)]) == 0
    assert seen == {"host": "127.0.0.1", "port": 8000}
    assert main(["serve", "--port", "9123", "--host", "0.0.0.0"]) == 0
    assert seen == {"host": "0.0.0.0", "port": 9123}
    assert main(["serve", "--runs", str(runs_dir / "league.yaml")]) == 2
    assert "not a folder" in capsys.readouterr().err
    fresh = runs_dir.parent / "fresh-clone-runs"
    assert main(["serve", "--runs", str(fresh)]) == 0 and fresh.is_dir()  # made on first use
    assert main(["serve", "--port", "70000"]) == 2
    assert "a port is a number from 1 to 65535" in capsys.readouterr().err


def test_a_missing_web_extra_is_one_line(monkeypatch, capsys):
    import importlib.util

    from ice_envs.cli import main

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "uvicorn" else real(name, *a))
    assert main(["serve"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "pip install 'ice-envs[web]'" in err[0] and "uvicorn" in err[0]


def test_requests_from_other_sites_are_refused(app, client):
    from starlette.testclient import TestClient

    before = len(app.state.sessions._sessions)
    form = {"game": "cardiceo", "players": "2", "seat": "0", "opponent1": "random"}
    r = client.post("/play", data=form, headers={"origin": "http://evil.example"}, follow_redirects=False)
    assert r.status_code == 403 and "another site" in r.text
    r = client.post("/play", data=form, headers={"origin": "null"}, follow_redirects=False)
    assert r.status_code == 403
    assert len(app.state.sessions._sessions) == before
    r = client.post("/play", data=form, headers={"origin": "http://127.0.0.1:8000"}, follow_redirects=False)
    assert r.status_code == 303
    rebound = TestClient(app, base_url="http://evil.example:8000")
    r = rebound.get("/")
    assert r.status_code == 400 and "Host" in r.text


def test_the_table_s_move_places_reach_the_page_as_json(app, client, monkeypatch):
    import ice_envs.web.app as app_module

    page = new_game(client, game="cardiceo", players=2, opponent1="random")
    legal = session_of(app, page).legal()
    places = {"card-0": legal[:1], 'x"</script><b>&': legal[1:3]}
    monkeypatch.setattr(app_module, "move_targets", lambda raw, moves: places)
    text = client.get(page).text
    found = re.search(r'<script type="application/json" id="targets">(.*?)</script>', text, re.S)
    data = json.loads(found.group(1))
    raw = session_of(app, page).raw
    assert data == {k: [[a, raw.describe_action(a)] for a in v] for k, v in places.items()}


def test_the_seed_is_fresh_unless_given_and_shown_only_at_the_end(app, client):
    form = {"game": "cubemelt", "players": "2", "seat": "0", "opponent1": "random"}
    seeds = set()
    for _ in range(3):
        r = client.post("/play", data=form, follow_redirects=False)
        session = session_of(app, r.headers["location"])
        seeds.add(session.setup.seed)
        assert f"seed {session.setup.seed}" not in client.get(r.headers["location"]).text or session.over
    assert len(seeds) == 3


def test_an_unexpected_error_is_a_500_without_a_traceback(app, client, monkeypatch):
    import ice_envs.web.app as app_module

    page = new_game(client, game="cardiceo", players=2, opponent1="random")

    def broken(raw, moves):
        raise RuntimeError("a bug with /secret/path in it")

    monkeypatch.setattr(app_module, "move_targets", broken)
    r = client.get(page)
    assert r.status_code == 500 and "internal error" in r.text
    assert "Traceback" not in r.text and "/secret/path" not in r.text
