"""One BLAS thread for the PPO agents' numpy products: the same bits, and where it applies."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from threadpoolctl import threadpool_limits

import ice_envs
from ice_envs.agents.ppo_agent import load_policy_net
from ice_envs.agents.random_agent import RandomAgent
from ice_envs.core.threads import blas_threads, one_blas_thread
from ice_envs.evaluation import tournament

TIP_CHECKPOINT = Path(__file__).resolve().parents[2] / "checkpoints" / "tip_of_the_diceberg_ppo" / "final.npz"


def _observations(count: int) -> list[np.ndarray]:
    """Observations of a random Tip of the Diceberg game (the largest network input of the shipped agents)."""
    env = ice_envs.make("tip_of_the_diceberg", raw=True, num_players=4)
    env.reset(seed=5)
    rng = np.random.default_rng(5)
    out = []
    while len(out) < count and not any(env.terminations.values()):
        out.append(np.array(env.observe(env.agent_selection)["observation"]))
        env.step(int(rng.choice(env.legal_actions())))
    return out


def test_one_thread_gives_the_same_logits_as_several() -> None:
    net = load_policy_net(TIP_CHECKPOINT)
    observations = _observations(60)
    with threadpool_limits(limits=2, user_api="blas"):
        several = [net.logits(x) for x in observations]
    with one_blas_thread():
        assert blas_threads() == 1
        one = [net.logits(x) for x in observations]
    for a, b in zip(several, one, strict=True):
        assert a.tobytes() == b.tobytes()


def test_the_limit_is_lifted_after_the_block() -> None:
    with threadpool_limits(limits=2, user_api="blas"):
        before = blas_threads()
        with one_blas_thread():
            assert blas_threads() == 1
        assert blas_threads() == before


def test_evaluation_games_run_with_one_blas_thread(monkeypatch) -> None:
    seen = []

    def fake_play_game(match, index, agents):
        seen.append(blas_threads())
        return {"game_index": index}

    monkeypatch.setattr(tournament, "play_game", fake_play_game)
    agents = (RandomAgent(), RandomAgent())
    match = tournament.Match(game="cubemelt", num_players=2, options={}, agents=agents, seed=0)
    with threadpool_limits(limits=2, user_api="blas"):
        tournament._play_batch((match, [0, 1]))
        assert blas_threads() == 2
    assert seen == [1, 1]


def test_a_training_env_worker_runs_with_one_blas_thread() -> None:
    from ice_envs.train.run import EnvFactory

    factory = EnvFactory("cardiceo", 2, {"hand_size": 5}, {"random": 1.0}, True, (), 0.5, False, None)
    with threadpool_limits(limits=2, user_api="blas"):
        factory()  # as a SubprocVecEnv worker builds its env
        assert blas_threads() == 1
