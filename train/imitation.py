"""Imitation warm start: behaviour cloning of a teacher agent before PPO.

Some games give a random policy no reward to learn from (Icebergs: a random ship never brings
Cargo home, so every return is 0). With ``imitation.teacher: heuristic`` the run first plays
``imitation.steps`` learner decisions with the teacher in the learner's seat, in the same
training env as PPO (same opponents, reward mode and shaping; self-play seats, whose pool is
still empty, are filled with the teacher), then fits the fresh policy to those decisions:

* the policy head by the masked cross-entropy of the teacher's action (``-log pi(a|s)`` over
  the legal actions only, exactly the distribution MaskablePPO samples from);
* the value head (weight ``value_coef``) by the squared error to the discounted return the
  learner's reward (shaping included) gave from each decision, so that PPO does not start
  with a value function that knows nothing and wrecks the cloned policy with noisy advantages.

PPO then starts from that policy (it is also the self-play pool's first snapshot and the
step-0 evaluation). The scalars ``imitation/*`` (loss, accuracy, value loss per epoch; the
teacher's win rate and return) go to TensorBoard under ``tb/imitation`` and to ``meta.json``.
``accuracy`` is measured on the training decisions themselves.

With ``imitation.holdout_steps`` > 0 the teacher also plays that many **held-out** decisions
(whole games, same env construction) that the fit never sees, and after every epoch the policy
is scored on them: ``holdout_accuracy`` (share of decisions where the most probable legal
action is the teacher's) and ``holdout_loss`` (the masked cross-entropy). Held-out worker ``i``
is seeded with ``eval.seed + i`` (:func:`holdout_seed`), in the validation seeds, so its games
are apart from the training collection's (``seed + i``, training seeds). The held-out set
changes nothing of the training: it is collected after the training decisions, scored without
gradients, in eval mode, by argmax (no sampling), and the global python, numpy and torch
generators are restored around both (:func:`_rng_untouched`), so the weights and everything
PPO does afterwards are bit-identical to a run without it.

With ``imitation.dagger_rounds`` > 0 the first fit is followed by DAgger rounds
(:func:`dagger_round`): the policy plays, the teacher labels the states it reaches, and the policy
is fitted again on every labelled decision so far, so that it learns what the teacher would do in
the states its own mistakes lead to, which the teacher's games never show.

Collection runs ``imitation.workers`` (default ``n_envs``) worker processes, worker ``i`` seeded with
``seed + i`` (DAgger round ``r``: ``seed + r * workers + i``); the minibatch order is drawn from ``seed`` (round ``r``:
``seed + r``). The same config, seed and thread count give the same weights.
"""

from __future__ import annotations

import multiprocessing as mp
import random
import time
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from ice_envs.agents.ppo_agent import PolicyNet, PPOAgent
from ice_envs.agents.spec import load_agent
from ice_envs.core.agent import make_view
from ice_envs.train.config import collection_workers


@dataclass
class Demonstrations:
    """The teacher's decisions in the learner's seat."""

    observations: np.ndarray  # (n, features) float32
    masks: np.ndarray  # (n, actions) bool
    actions: np.ndarray  # (n,) int64
    returns: np.ndarray  # (n,) float32, discounted, shaping included
    games: int
    wins: int
    game_returns: list[float]

    @staticmethod
    def concatenate(parts: list[Demonstrations]) -> Demonstrations:
        return Demonstrations(
            np.concatenate([p.observations for p in parts]),
            np.concatenate([p.masks for p in parts]),
            np.concatenate([p.actions for p in parts]),
            np.concatenate([p.returns for p in parts]),
            sum(p.games for p in parts),
            sum(p.wins for p in parts),
            [r for p in parts for r in p.game_returns],
        )


def collect(
    env_factory: Any, teacher: str, steps: int, gamma: float, seed: int, learner: PolicyNet | None = None
) -> Demonstrations:
    """At least ``steps`` teacher decisions in the env that ``env_factory()`` builds (whole games).

    With ``learner`` (a DAgger round, :func:`dagger_round`), the ``learner`` network plays the seat,
    sampling from its masked distribution with a generator of its own (seeded from ``seed``), and the
    teacher only labels: each row is a state the learner reached, with the action the teacher would
    take there; ``returns`` and ``wins`` are then the learner's.
    """
    env = env_factory()
    agent = load_agent(teacher, env.game, seed=seed, num_players=env.num_players)
    rng = np.random.default_rng(seed)
    actor = None if learner is None else PPOAgent(learner, seed=_learner_seed(seed), deterministic=False)
    obs_rows: list[np.ndarray] = []
    mask_rows: list[np.ndarray] = []
    actions: list[int] = []
    returns: list[np.ndarray] = []
    game_returns: list[float] = []
    games = wins = 0
    obs, _ = env.reset(seed=seed)
    while True:
        agent.reset(int(rng.integers(2**63 - 1)))
        rewards: list[float] = []
        done = False
        while not done:
            mask = env.action_masks()
            view = make_view(env.raw, env.seat, rng) if agent.needs_view else None
            observation = {"observation": obs, "action_mask": mask.astype(np.int8)}
            action = int(agent.act(observation, view))
            obs_rows.append(np.array(obs, dtype=np.float32))  # the env may reuse its buffers
            mask_rows.append(np.array(mask, dtype=bool))
            actions.append(action)
            if actor is not None:  # DAgger: the teacher's action is the label, the learner's is played
                action = actor.act(observation)
            obs, reward, terminated, truncated, info = env.step(action)
            rewards.append(float(reward))
            done = terminated or truncated
        games += 1
        wins += int(info["is_success"])
        game_returns.append(float(info["episode"]["r"]))
        returns.append(discounted(np.asarray(rewards, dtype=np.float64), gamma))
        if len(actions) >= steps:
            break
        obs, _ = env.reset()
    return Demonstrations(
        np.asarray(obs_rows, dtype=np.float32),
        np.asarray(mask_rows, dtype=bool),
        np.asarray(actions, dtype=np.int64),
        np.concatenate(returns).astype(np.float32),
        games,
        wins,
        game_returns,
    )


def discounted(rewards: np.ndarray, gamma: float) -> np.ndarray:
    """``G_t = r_t + gamma * G_{t+1}`` (0 after the last reward)."""
    out = np.empty_like(rewards)
    running = 0.0
    for t in range(len(rewards) - 1, -1, -1):
        running = rewards[t] + gamma * running
        out[t] = running
    return out


def _learner_seed(seed: int) -> int:
    """The seed of a DAgger round's learner draws in the collection worker seeded ``seed``."""
    return int(np.random.SeedSequence([seed, 0x44414747]).generate_state(2, np.uint64)[0] >> np.uint64(1))


def collect_parallel(
    env_factory: Any,
    teacher: str,
    steps: int,
    gamma: float,
    seed: int,
    workers: int,
    learner: PolicyNet | None = None,
) -> Demonstrations:
    """:func:`collect` split over ``workers`` processes (worker ``i``: seed ``seed + i``), in worker order."""
    share = [steps // workers + (1 if i < steps % workers else 0) for i in range(workers)]
    if workers == 1:
        return collect(env_factory, teacher, steps, gamma, seed, learner)
    context = mp.get_context("fork" if "fork" in mp.get_all_start_methods() else "spawn")
    with ProcessPoolExecutor(workers, mp_context=context) as pool:
        futures = [pool.submit(collect, env_factory, teacher, n, gamma, seed + i, learner) for i, n in enumerate(share)]
        return Demonstrations.concatenate([f.result() for f in futures])


def fit(
    policy: Any,
    demos: Demonstrations,
    epochs: int,
    batch_size: int,
    learning_rate: float,
    value_coef: float,
    seed: int,
    holdout: Demonstrations | None = None,
) -> list[dict[str, float]]:
    """Fit an SB3 ``MaskableActorCriticPolicy`` to ``demos``; one dict of scalars per epoch.

    With ``holdout``, each epoch's dict also holds :func:`score`'s ``holdout_accuracy`` and
    ``holdout_loss`` on it (measured after the epoch; the fit itself is the same as without).
    """
    import torch

    obs = torch.as_tensor(demos.observations)
    masks = torch.as_tensor(demos.masks)
    actions = torch.as_tensor(demos.actions)
    returns = torch.as_tensor(demos.returns)
    optimizer = torch.optim.Adam(policy.parameters(), lr=learning_rate)
    rng = np.random.default_rng(seed)
    n = len(actions)
    history = []
    policy.set_training_mode(True)
    for epoch in range(epochs):
        order = torch.as_tensor(rng.permutation(n))
        totals = {"loss": 0.0, "policy_loss": 0.0, "value_loss": 0.0, "accuracy": 0.0}
        for start in range(0, n, batch_size):
            idx = order[start : start + batch_size]
            values, log_prob, _ = policy.evaluate_actions(obs[idx], actions[idx], action_masks=masks[idx])
            policy_loss = -log_prob.mean()
            value_loss = torch.nn.functional.mse_loss(values.flatten(), returns[idx])
            loss = policy_loss + value_coef * value_loss
            optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(policy.parameters(), 0.5)
            optimizer.step()
            with torch.no_grad():
                greedy = policy.get_distribution(obs[idx], action_masks=masks[idx]).distribution.probs.argmax(dim=1)
            k = len(idx)
            totals["loss"] += loss.item() * k
            totals["policy_loss"] += policy_loss.item() * k
            totals["value_loss"] += value_loss.item() * k
            totals["accuracy"] += float((greedy == actions[idx]).float().sum())
        history.append({"epoch": epoch + 1, **{key: value / n for key, value in totals.items()}})
        if holdout is not None:
            with _rng_untouched():
                history[-1].update(score(policy, holdout))
    policy.set_training_mode(False)
    return history


#: Rows per forward pass of :func:`score` (a constant, so the figures do not depend on the batch size).
SCORE_CHUNK = 4096


def score(policy: Any, demos: Demonstrations) -> dict[str, float]:
    """``holdout_accuracy`` and ``holdout_loss`` of ``policy`` on ``demos``, changing nothing.

    Accuracy: the share of decisions where the policy's most probable legal action (argmax of
    the masked distribution) is the teacher's; loss: the mean masked cross-entropy
    ``-log pi(a|s)``. Computed under ``torch.no_grad()`` in eval mode (the policy's training
    mode is restored after); nothing is sampled.
    """
    import torch

    n = len(demos.actions)
    if n == 0:
        return {"holdout_accuracy": float("nan"), "holdout_loss": float("nan")}
    was_training = policy.training
    policy.set_training_mode(False)
    correct = 0
    nll = 0.0
    try:
        with torch.no_grad():
            for start in range(0, n, SCORE_CHUNK):
                rows = slice(start, start + SCORE_CHUNK)
                obs = torch.as_tensor(demos.observations[rows])
                actions = torch.as_tensor(demos.actions[rows])
                dist = policy.get_distribution(obs, action_masks=torch.as_tensor(demos.masks[rows]))
                greedy = dist.distribution.probs.argmax(dim=1)
                correct += int((greedy == actions).sum())
                nll -= float(dist.log_prob(actions).double().sum())
    finally:
        policy.set_training_mode(was_training)
    return {"holdout_accuracy": correct / n, "holdout_loss": nll / n}


def holdout_seed(eval_seed: int, worker: int) -> int:
    """The seed of held-out collection worker ``worker``: ``eval_seed + worker``.

    ``eval.seed`` lies in the validation seeds (``[2**63, 2**63 + 2**40)``, checked when the
    config is loaded, as is ``eval.seed + n_envs``), and the training collection's workers are
    seeded ``seed + i`` in the training seeds ``[0, 2**63)``: the two never share an env seed.
    The env draws its deals from its seeded generator, so the held-out games are not the
    evaluations' deals either.
    """
    return eval_seed + worker


@contextmanager
def _rng_untouched() -> Iterator[None]:
    """Restore the global python, numpy and torch CPU generators on exit (the ones PPO and SB3 use)."""
    import torch

    states = random.getstate(), np.random.get_state(), torch.random.get_rng_state()
    try:
        yield
    finally:
        random.setstate(states[0])
        np.random.set_state(states[1])
        torch.random.set_rng_state(states[2])


def collection_factory(factory: Any, teacher: str) -> Any:
    """The training env factory with self-play seats (an empty pool yet) filled by ``teacher``."""
    mix = dict(factory.mix)
    share = mix.pop("self_play", 0.0)
    if share > 0:
        mix[teacher] = mix.get(teacher, 0.0) + share
    return replace(factory, mix=mix, pool=())


def warm_start(model: Any, cfg: Any, factory: Any, run_dir: Path, echo: bool = True) -> dict[str, Any]:
    """Clone ``cfg.imitation.teacher`` into ``model``'s policy; what happened, for ``meta.json``."""
    im = cfg.imitation
    collection = collection_factory(factory, im.teacher)
    t0 = time.perf_counter()
    demos = collect_parallel(collection, im.teacher, im.steps, cfg.ppo.gamma, cfg.seed, collection_workers(cfg))
    t_collect = time.perf_counter() - t0
    if echo:
        print(
            f"[train] imitation: {len(demos.actions):,} {im.teacher} decisions from {demos.games} games "
            f"(teacher won {demos.wins}/{demos.games}) in {t_collect:.0f}s",
            flush=True,
        )
    holdout: Demonstrations | None = None
    holdout_meta: dict[str, Any] | None = None
    if im.holdout_steps > 0:
        t1 = time.perf_counter()
        first = holdout_seed(cfg.eval.seed, 0)
        with _rng_untouched():  # after the training decisions, and consuming nothing PPO draws from
            holdout = collect_parallel(
                collection, im.teacher, im.holdout_steps, cfg.ppo.gamma, first, collection_workers(cfg)
            )
        holdout_meta = {
            "decisions": int(len(holdout.actions)),
            "games": holdout.games,
            "teacher_wins": holdout.wins,
            "worker_seeds": [holdout_seed(cfg.eval.seed, i) for i in range(collection_workers(cfg))],
            "collect_seconds": time.perf_counter() - t1,
        }
        if echo:
            print(
                f"[train] imitation: {len(holdout.actions):,} held-out {im.teacher} decisions from {holdout.games} "
                f"games (seeds eval.seed + i) in {holdout_meta['collect_seconds']:.0f}s",
                flush=True,
            )
    t2 = time.perf_counter()
    history = fit(model.policy, demos, im.epochs, im.batch_size, im.learning_rate, im.value_coef, cfg.seed, holdout)
    t_fit = time.perf_counter() - t2
    if echo:
        _echo_fit(im.epochs, t_fit, history[-1])
    rounds: list[dict[str, Any]] = []
    aggregate = demos
    for r in range(1, im.dagger_rounds + 1):
        aggregate, row = dagger_round(model, cfg, collection, aggregate, r, holdout, echo)
        rounds.append(row)
    _log_tensorboard(run_dir / "tb" / "imitation", history, demos, rounds)
    report: dict[str, Any] = {
        "teacher": im.teacher,
        "decisions": int(len(demos.actions)),
        "games": demos.games,
        "teacher_wins": demos.wins,
        "teacher_mean_return": float(np.mean(demos.game_returns)),
        "collect_seconds": t_collect,
        "fit_seconds": t_fit,
    }
    if holdout_meta is not None:  # absent without a held-out set: meta.json as before
        report["holdout"] = holdout_meta
    report["epochs"] = history
    if rounds:  # absent without DAgger rounds: meta.json as before
        report["dagger"] = rounds
    return report


def dagger_seed(seed: int, workers: int, round_index: int) -> int:
    """The first collection worker seed of DAgger round ``round_index`` (>= 1): ``seed + round_index * workers``.

    Round 0 (the teacher's own decisions) uses ``seed + i``; each round gets the next ``workers`` seeds, all
    in the training seeds (the config check keeps ``seed + (dagger_rounds + 1) * workers`` below ``eval.seed``).
    """
    return seed + round_index * workers


def dagger_round(
    model: Any,
    cfg: Any,
    collection: Any,
    demos: Demonstrations,
    round_index: int,
    holdout: Demonstrations | None,
    echo: bool,
) -> tuple[Demonstrations, dict[str, Any]]:
    """One DAgger round (Ross, Gordon and Bagnell, AISTATS 2011): the current policy plays
    ``imitation.dagger_steps`` decisions (sampling, as PPO will), the teacher labels every state it reached,
    the labelled states join ``demos``, and the policy is fitted again on all of them for
    ``imitation.dagger_epochs`` epochs (minibatch order from ``seed + round_index``).

    Returns the aggregate and the round's figures; ``on_policy_accuracy`` is the policy's agreement with
    the teacher on the states it reached itself, measured before the refit (what behaviour cloning's
    held-out accuracy, on the teacher's own states, does not show).
    """
    from ice_envs.train.callbacks import policy_net  # here: callbacks loads stable-baselines3 and the run machinery

    im = cfg.imitation
    net = policy_net(model, cfg)
    t0 = time.perf_counter()
    first = dagger_seed(cfg.seed, collection_workers(cfg), round_index)
    visited = collect_parallel(
        collection, im.teacher, im.dagger_steps, cfg.ppo.gamma, first, collection_workers(cfg), net
    )
    t_collect = time.perf_counter() - t0
    with _rng_untouched():
        on_policy = score(model.policy, visited)
    demos = Demonstrations.concatenate([demos, visited])
    t1 = time.perf_counter()
    epochs = im.dagger_epochs
    history = fit(
        model.policy, demos, epochs, im.batch_size, im.learning_rate, im.value_coef, cfg.seed + round_index, holdout
    )
    t_fit = time.perf_counter() - t1
    row: dict[str, Any] = {
        "round": round_index,
        "decisions": int(len(visited.actions)),
        "games": visited.games,
        "learner_wins": visited.wins,
        "worker_seeds": [first + i for i in range(collection_workers(cfg))],
        "on_policy_accuracy": on_policy["holdout_accuracy"],
        "on_policy_loss": on_policy["holdout_loss"],
        "aggregate_decisions": int(len(demos.actions)),
        "collect_seconds": t_collect,
        "fit_seconds": t_fit,
        "epochs": history,
    }
    if echo:
        print(
            f"[train] imitation: DAgger round {round_index}: {len(visited.actions):,} states the policy reached in "
            f"{visited.games} games (it won {visited.wins}), its agreement with {im.teacher} there "
            f"{on_policy['holdout_accuracy']:.3f}, in {t_collect:.0f}s",
            flush=True,
        )
        _echo_fit(epochs, t_fit, history[-1])
    return demos, row


def _echo_fit(epochs: int, seconds: float, last: dict[str, float]) -> None:
    held_out = (
        f", held-out accuracy {last['holdout_accuracy']:.3f}, held-out loss {last['holdout_loss']:.3f}"
        if "holdout_accuracy" in last
        else ""
    )
    print(
        f"[train] imitation: {epochs} epochs in {seconds:.0f}s, accuracy {last['accuracy']:.3f}, "
        f"policy loss {last['policy_loss']:.3f}, value loss {last['value_loss']:.3f}{held_out}",
        flush=True,
    )


def _log_tensorboard(
    log_dir: Path, history: list[dict[str, float]], demos: Demonstrations, rounds: list[dict[str, Any]]
) -> None:
    """The epochs' scalars (DAgger rounds' epochs continue the count) and each round's on-policy agreement."""
    from torch.utils.tensorboard import SummaryWriter

    writer = SummaryWriter(str(log_dir))
    try:
        epoch = 0
        for rows in [history, *(r["epochs"] for r in rounds)]:
            for row in rows:
                epoch += 1
                for key in ("loss", "policy_loss", "value_loss", "accuracy", "holdout_accuracy", "holdout_loss"):
                    if key in row:
                        writer.add_scalar(f"imitation/{key}", row[key], epoch)
        for r in rounds:
            writer.add_scalar("imitation/dagger_on_policy_accuracy", r["on_policy_accuracy"], r["round"])
            writer.add_scalar("imitation/dagger_learner_win_rate", r["learner_wins"] / max(r["games"], 1), r["round"])
        writer.add_scalar("imitation/teacher_win_rate", demos.wins / max(demos.games, 1), 0)
        writer.add_scalar("imitation/teacher_mean_return", float(np.mean(demos.game_returns)), 0)
    finally:
        writer.close()
