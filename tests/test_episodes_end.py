"""Every episode ends: degenerate policies and the shipped PPO agents against themselves, every game x players x variant.

A policy that always picks the lowest legal action (the first of the mask) once played Cardiceo forever ("keep the
middle dice"), one that always picks the highest did the same in Tip of the Diceberg (everyone passes). Each game
declares a maximum length (``env.unwrapped.max_game_length``): the episode must end, terminated or truncated, within it.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import yaml

import ice_envs
from ice_envs.agents import load_agent
from ice_envs.core.registry import all_cases

REPO = Path(__file__).resolve().parent.parent
CASES = [pytest.param(g, v, n, opts, id=f"{g}-{v}-{n}p") for g, v, n, opts in all_cases()]
#: A degenerate policy that never ends a game plays to the cap. The declared cap is played out at each game's
#: default variant with the fewest players; past this length the other cases play to a cap tightened by
#: ``max_decisions`` (the same truncation, at a tenth of Tip of the Diceberg's 60,000 decisions).
LONG_GAME = 6_000


def lowest(mask: np.ndarray) -> int:
    """The first legal action of the mask (the lowest id)."""
    return int(np.flatnonzero(mask)[0])


def highest(mask: np.ndarray) -> int:
    return int(np.flatnonzero(mask)[-1])


def middle(mask: np.ndarray) -> int:
    legal = np.flatnonzero(mask)
    return int(legal[legal.size // 2])


POLICIES = {"lowest": lowest, "highest": highest, "middle": middle}


def play_to_the_end(env, choose) -> int:
    """Decisions until every agent is done; fails if the env runs past its declared cap."""
    raw = env.unwrapped
    cap = raw.max_game_length
    done: dict[str, tuple[bool, bool]] = {}
    for agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            done[agent] = (bool(term), bool(trunc))
            env.step(None)
            continue
        env.step(choose(obs["action_mask"], agent))
        assert raw.num_steps <= cap, f"{raw.num_steps} decisions, past the declared cap of {cap}"
    assert set(done) == set(raw.possible_agents), "the agent loop stopped before every agent was done"
    assert raw.legal_actions() == [] and not raw.action_mask().any(), "moves listed after the end"
    if any(trunc for _, trunc in done.values()):  # by the cap, or by a game's own turn limit (Icebergs' max_turns)
        assert not raw.win_shares().any(), "a truncated game has no winner"
    return raw.num_steps


@pytest.mark.parametrize("policy", sorted(POLICIES))
@pytest.mark.parametrize("game,variant,n,opts", CASES)
def test_degenerate_policies_end_every_game(game, variant, n, opts, policy):
    choose = POLICIES[policy]
    env = ice_envs.make(game, num_players=n, **opts)
    played_out = variant == "default" and n == min(ice_envs.get_spec(game).players)
    if not played_out and env.unwrapped.max_game_length > LONG_GAME and "max_decisions" not in opts:
        env = ice_envs.make(game, num_players=n, max_decisions=LONG_GAME, **opts)
    env.reset(seed=5)
    play_to_the_end(env, lambda mask, agent: choose(mask))


def test_the_cap_truncates_cardiceos_endless_loop():
    """Always the lowest legal action in 2-player Cardiceo ends turns with the middle dice kept, forever: the cap
    ends it as a truncation, exactly at the declared length."""
    env = ice_envs.make("cardiceo", num_players=2)
    env.reset(seed=0)
    steps = play_to_the_end(env, lambda mask, agent: lowest(mask))
    assert steps == env.unwrapped.max_game_length == 5_000 and not env.unwrapped.win_shares().any()


def test_max_decisions_and_max_cycles_tighten_the_cap():
    env = ice_envs.make("cardiceo", num_players=2, max_decisions=40)
    env.reset(seed=0)
    assert play_to_the_end(env, lambda mask, agent: lowest(mask)) == 40
    env = ice_envs.make("cardiceo", num_players=2, max_decisions=40, max_cycles=5)
    assert env.unwrapped.max_game_length == 10


def _shipped_checkpoints() -> list:
    out = []
    for path in sorted(REPO.glob("checkpoints/*/final.npz")):
        cfg = yaml.safe_load((path.parent / "config.yaml").read_text())
        game = cfg["game"]["name"]
        spec = ice_envs.get_spec(game)
        options = dict(spec.variants[cfg["game"].get("variant") or "default"].options)
        options.update(cfg["game"].get("options") or {})
        counts = sorted({cfg["game"]["players"], min(spec.players)})
        out += [pytest.param(path, game, n, options, id=f"{game}-{n}p") for n in counts]
    return out


@pytest.mark.parametrize("path,game,n,options", _shipped_checkpoints())
def test_shipped_ppo_agents_against_themselves_end_every_game(path: Path, game: str, n: int, options: dict):
    """The shipped PPO agent in every seat (deterministic: the case that never ended in Cardiceo at 2 players)."""
    env = ice_envs.make(game, num_players=n, **options)
    agents = {
        a: load_agent(f"ppo:{path}?players=any", game, seed=i, num_players=n) for i, a in enumerate(env.possible_agents)
    }
    for seed in (0, 1):  # seed 0: Cardiceo's 2-player self-play loops until the cap
        env.reset(seed=seed)
        play_to_the_end(env, lambda mask, agent: int(agents[agent].act(env.observe(agent))))
