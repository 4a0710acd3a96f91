"""The PPO agent's draw is numpy's ``Generator.choice`` draw, without its checks."""

from __future__ import annotations

import numpy as np

from ice_envs.agents.ppo_agent import sample_index


def _distributions(count: int) -> list[np.ndarray]:
    """Masked softmax distributions like ``PolicyNet.probabilities`` gives: zeros, near-ties, one legal action."""
    rng = np.random.default_rng(11)
    out = []
    for k in range(count):
        size = int(rng.integers(1, 230))
        logits = rng.normal(scale=float(rng.choice([0.01, 1.0, 30.0])), size=size)
        legal = rng.random(size) < rng.random()
        legal[int(rng.integers(size))] = True
        if k % 7 == 0:
            logits[legal] = 0.5  # exact ties
        z = np.where(legal, logits, -np.inf)
        z = np.exp(z - z.max())
        out.append(z / z.sum())
    return out


def test_sample_index_draws_what_choice_draws_and_leaves_the_generator_alike() -> None:
    for seed, probs in enumerate(_distributions(3000)):
        ours, numpy_rng = np.random.default_rng(seed), np.random.default_rng(seed)
        for _ in range(3):
            assert sample_index(ours, probs) == int(numpy_rng.choice(probs.size, p=probs))
        assert ours.bit_generator.state == numpy_rng.bit_generator.state


def test_sample_index_never_draws_an_action_of_probability_zero() -> None:
    rng = np.random.default_rng(0)
    probs = np.array([0.0, 0.25, 0.0, 0.75, 0.0])
    drawn = {sample_index(rng, probs) for _ in range(2000)}
    assert drawn == {1, 3}
