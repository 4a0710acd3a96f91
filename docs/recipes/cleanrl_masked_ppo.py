"""CleanRL-style single-file PPO with action masks over a Gymnasium id (torch only, no RL library).

    python docs/recipes/cleanrl_masked_ppo.py            # 40k steps on Cardiceo, 2 players vs random
    python docs/recipes/cleanrl_masked_ppo.py --smoke    # a tiny budget (also: ICE_ENVS_RECIPE_SMOKE=1)

The loop is CleanRL's ``ppo.py`` with one change, the mask: illegal actions get a logit of -1e8
before the categorical is built, both when acting and in the update (the masks are stored with the
rollout). Masks come from ``envs.call("action_masks")``; ``autoreset_mode=SAME_STEP`` makes the
observation and mask after a finished game those of the next game, so a stored mask always belongs
to its stored observation. Prints one JSON line: steps, updates, the mean return of the episodes
seen in the last update and the greedy policy's win rate against random afterwards.
"""

from __future__ import annotations

import argparse
import json
import os

import gymnasium as gym
import numpy as np
import torch
from torch import nn

import ice_envs  # noqa: F401  (registers the ids)

ENV_ID, PLAYERS = "ice_envs/Cardiceo-v1", 2


class Agent(nn.Module):
    def __init__(self, obs_size: int, n_actions: int, hidden: int = 64) -> None:
        super().__init__()
        self.critic = nn.Sequential(nn.Linear(obs_size, hidden), nn.Tanh(), nn.Linear(hidden, 1))
        self.actor = nn.Sequential(nn.Linear(obs_size, hidden), nn.Tanh(), nn.Linear(hidden, n_actions))

    def dist(self, obs: torch.Tensor, mask: torch.Tensor) -> torch.distributions.Categorical:
        logits = self.actor(obs).masked_fill(~mask, -1e8)  # the one change: illegal actions never sampled
        return torch.distributions.Categorical(logits=logits)


def make_envs(n: int, seed: int) -> gym.vector.SyncVectorEnv:
    envs = gym.vector.SyncVectorEnv(
        [lambda: gym.make(ENV_ID, num_players=PLAYERS, opponents="random") for _ in range(n)],
        autoreset_mode=gym.vector.AutoresetMode.SAME_STEP,
    )
    envs.reset(seed=seed)
    return envs


def masks(envs: gym.vector.SyncVectorEnv) -> torch.Tensor:
    return torch.as_tensor(np.stack(envs.call("action_masks")), dtype=torch.bool)


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--smoke", action="store_true", help="a tiny budget (CI)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    smoke = args.smoke or os.environ.get("ICE_ENVS_RECIPE_SMOKE") == "1"
    num_envs, num_steps, total = (2, 64, 256) if smoke else (4, 256, 40_000)
    gamma, lam, clip, epochs, minibatches, lr = 0.99, 0.95, 0.2, 4, 4, 2.5e-4
    torch.manual_seed(args.seed)

    envs = make_envs(num_envs, args.seed)
    obs_size, n_actions = envs.single_observation_space.shape[0], int(envs.single_action_space.n)
    agent = Agent(obs_size, n_actions)
    optimizer = torch.optim.Adam(agent.parameters(), lr=lr, eps=1e-5)
    obs_buf = torch.zeros((num_steps, num_envs, obs_size))
    mask_buf = torch.zeros((num_steps, num_envs, n_actions), dtype=torch.bool)
    act_buf, logp_buf, rew_buf, done_buf, val_buf = (torch.zeros((num_steps, num_envs)) for _ in range(5))

    obs, _ = envs.reset(seed=args.seed)
    next_obs, next_done, step, updates, returns = torch.as_tensor(obs), torch.zeros(num_envs), 0, 0, []
    while step < total:
        returns = []
        for t in range(num_steps):
            obs_buf[t], mask_buf[t], done_buf[t] = next_obs, masks(envs), next_done
            with torch.no_grad():
                d = agent.dist(next_obs, mask_buf[t])
                action = d.sample()
                logp_buf[t], val_buf[t] = d.log_prob(action), agent.critic(next_obs).squeeze(-1)
            act_buf[t] = action
            obs, reward, terminated, truncated, info = envs.step(action.numpy())
            rew_buf[t] = torch.as_tensor(reward, dtype=torch.float32)
            next_obs, next_done = torch.as_tensor(obs), torch.as_tensor(terminated | truncated, dtype=torch.float32)
            final = info.get("final_info", {})  # SAME_STEP: a finished game's last info
            if "episode" in final:
                returns += [float(r) for r, ok in zip(final["episode"]["r"], final["_episode"]) if ok]
            step += num_envs
        with torch.no_grad():  # generalised advantage estimation
            adv, last = torch.zeros_like(rew_buf), torch.zeros(num_envs)
            next_value = agent.critic(next_obs).squeeze(-1)
            for t in reversed(range(num_steps)):
                nonterminal = 1.0 - (next_done if t == num_steps - 1 else done_buf[t + 1])
                value_after = next_value if t == num_steps - 1 else val_buf[t + 1]
                delta = rew_buf[t] + gamma * value_after * nonterminal - val_buf[t]
                adv[t] = last = delta + gamma * lam * nonterminal * last
            ret = adv + val_buf
        b_obs, b_mask = obs_buf.reshape(-1, obs_size), mask_buf.reshape(-1, n_actions)
        b_act, b_logp, b_adv, b_ret = act_buf.reshape(-1), logp_buf.reshape(-1), adv.reshape(-1), ret.reshape(-1)
        size = num_steps * num_envs
        for _ in range(epochs):
            for idx in torch.randperm(size).split(size // minibatches):
                d = agent.dist(b_obs[idx], b_mask[idx])
                ratio = (d.log_prob(b_act[idx]) - b_logp[idx]).exp()
                a = (b_adv[idx] - b_adv[idx].mean()) / (b_adv[idx].std() + 1e-8)
                pg_loss = torch.max(-a * ratio, -a * ratio.clamp(1 - clip, 1 + clip)).mean()
                v_loss = 0.5 * ((agent.critic(b_obs[idx]).squeeze(-1) - b_ret[idx]) ** 2).mean()
                loss = pg_loss + 0.5 * v_loss - 0.01 * d.entropy().mean()
                optimizer.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(agent.parameters(), 0.5)
                optimizer.step()
        updates += 1
    envs.close()

    games, wins = (10 if smoke else 200), 0  # the greedy policy against random, seats drawn
    env = gym.make(ENV_ID, num_players=PLAYERS, opponents="random")
    obs, _ = env.reset(seed=args.seed + 1)
    for _ in range(games):
        done = False
        while not done:
            mask = torch.as_tensor(env.get_wrapper_attr("action_masks")())
            with torch.no_grad():
                action = int(agent.dist(torch.as_tensor(obs), mask).probs.argmax())
            obs, _, terminated, truncated, info = env.step(action)
            done = terminated or truncated
        wins += int(info["is_success"])
        obs, _ = env.reset()
    summary = {
        "steps": step,
        "updates": updates,
        "mean_return_last_update": float(np.mean(returns)) if returns else None,
        "win_rate_vs_random": wins / games,
        "games": games,
    }
    print(json.dumps(summary))
    return summary


if __name__ == "__main__":
    main()
