"""Tianshou: its own ``PettingZooEnv`` over an ice-envs AEC game, a DQN seat against a masked random seat.

    python docs/recipes/tianshou_dqn.py            # 20 epochs on Cardiceo, 2 players
    python docs/recipes/tianshou_dqn.py --smoke    # a tiny budget (also: ICE_ENVS_RECIPE_SMOKE=1)

No wrapper of ice-envs is needed: ``tianshou.env.PettingZooEnv(ice_envs.make(...))`` turns the
observation dict into Tianshou's ``obs`` / ``mask`` / ``agent_id`` and steps whichever seat the game
asks (off-turn decisions included). Tianshou's DQN policy reads ``batch.obs.mask``, and
``MARLRandomDiscreteMaskedOffPolicyAlgorithm`` plays uniformly among the legal actions (Tianshou's
plain ``RandomActionPolicy`` ignores the mask, and an ice-envs game raises ``IllegalActionError`` on
an illegal action). The structure follows Tianshou's own tic-tac-toe example (Tianshou 2.x API).
Prints one JSON line: epochs, env steps and the DQN seat's win rate against the random seat.
"""

from __future__ import annotations

import argparse
import json
import logging
import os

import numpy as np
import torch
from tianshou.algorithm import DQN, MARLRandomDiscreteMaskedOffPolicyAlgorithm, MultiAgentOffPolicyAlgorithm
from tianshou.algorithm.modelfree.dqn import DiscreteQLearningPolicy
from tianshou.algorithm.optim import AdamOptimizerFactory
from tianshou.data import Collector, CollectStats, VectorReplayBuffer
from tianshou.env import DummyVectorEnv
from tianshou.env.pettingzoo_env import PettingZooEnv
from tianshou.trainer import OffPolicyTrainerParams
from tianshou.utils.net.common import Net

import ice_envs

GAME, PLAYERS, OPTIONS = "cardiceo", 2, {"hand_size": 5}
LEARNER = 0  # the DQN's seat (player_0); player_1 plays uniformly among its legal actions


def make_env() -> PettingZooEnv:
    return PettingZooEnv(ice_envs.make(GAME, num_players=PLAYERS, **OPTIONS))


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--smoke", action="store_true", help="a tiny budget (CI)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    smoke = args.smoke or os.environ.get("ICE_ENVS_RECIPE_SMOKE") == "1"
    # the returns are per seat (one column each); Tianshou's stats note that at every collect
    logging.getLogger("tianshou.data.stats").setLevel(logging.ERROR)
    epochs, epoch_steps, n_envs, test_episodes = (1, 200, 2, 10) if smoke else (20, 2000, 4, 100)
    np.random.seed(args.seed)
    torch.manual_seed(args.seed)

    env = make_env()
    obs_space = env.observation_space["observation"]
    net = Net(state_shape=obs_space.shape, action_shape=int(env.action_space.n), hidden_sizes=[128, 128])
    policy = DiscreteQLearningPolicy(model=net, action_space=env.action_space, eps_training=0.1, eps_inference=0.0)
    learner = DQN(policy=policy, optim=AdamOptimizerFactory(lr=1e-3), gamma=0.95, target_update_freq=100)
    opponent = MARLRandomDiscreteMaskedOffPolicyAlgorithm(action_space=env.action_space)
    seats = [learner, opponent] if LEARNER == 0 else [opponent, learner]
    algorithm = MultiAgentOffPolicyAlgorithm(algorithms=seats, env=env)

    train_envs = DummyVectorEnv([make_env for _ in range(n_envs)])
    test_envs = DummyVectorEnv([make_env for _ in range(n_envs)])
    train_envs.seed(args.seed)
    test_envs.seed(args.seed + 1000)
    train = Collector[CollectStats](algorithm, train_envs, VectorReplayBuffer(20_000, n_envs), exploration_noise=True)
    test = Collector[CollectStats](algorithm, test_envs, exploration_noise=False)
    train.reset()
    train.collect(n_step=64 * n_envs)

    result = algorithm.run_training(
        OffPolicyTrainerParams(
            training_collector=train,
            test_collector=test,
            max_epochs=epochs,
            epoch_num_steps=epoch_steps,
            collection_step_num_env_steps=10,
            test_step_num_episodes=test_episodes,
            batch_size=64,
            update_step_num_gradient_steps_per_sample=0.1,
            multi_agent_return_reduction=lambda rews: rews[:, LEARNER],  # the learner's return
            show_progress=False,
            verbose=False,
        )
    )

    test.reset()
    stats = test.collect(n_episode=test_episodes)
    returns = np.asarray(stats.returns)
    learner_returns = returns[:, LEARNER] if returns.ndim == 2 else returns
    summary = {
        "epochs": int(result.epoch if hasattr(result, "epoch") else epochs),
        "env_steps": int(train.collect_step),
        "win_rate_vs_random": float(np.mean(learner_returns > 0)),
        "test_episodes": int(len(learner_returns)),
    }
    print(json.dumps(summary))
    return summary


if __name__ == "__main__":
    main()
