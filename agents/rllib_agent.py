"""The RLlib agent: plays the policy of an RLlib training run (``ice-envs train`` with ``backend: rllib``).

    agent = RLlibAgent.load("runs/train/cardiceo_rllib_ppo-seed0", game="cardiceo", num_players=2)
    action = agent.act(observation)          # observation = env.last()[0]

``rllib:PATH`` agent specs (``ice-envs evaluate ... --agents rllib:PATH,random``) build one. ``PATH``
is a run directory of the RLlib backend (its ``final.npz`` is played) or one of its policy files
(``final.npz``, ``policies/iter_<N>.npz``).

Why not RLlib's own checkpoint folders: every state file in an RLlib 2.60 checkpoint
(``algorithm_state.pkl``, ``learner_group/learner/rl_module/<id>/module_state.pkl``,
``class_and_ctor_args.pkl`` ...) is a pickle, and nothing loaded from a file is ever unpickled
here. So the backend (:mod:`ice_envs.train.rllib_backend`) exports the shared policy's actor —
``encoder.actor_encoder`` (or the shared ``encoder``) then the ``pi`` head of RLlib's default
PPO module, dense layers with one activation — as the same ``.npz`` layout a PPO snapshot uses
(:meth:`ice_envs.agents.ppo_agent.PolicyNet.save_npz`): weights and biases, the activation as text
and the meta data as JSON, read back with ``allow_pickle=False`` and every part checked. The agent
then runs a numpy forward pass: no torch, no Ray. Its choices are those of RLlib's
``ActionMaskingTorchRLModule`` at inference (greedy over the masked logits, logits quantised as for
PPO agents, ties to the lowest action id; ``deterministic=False`` samples the masked distribution).
The RLlib checkpoint folders stay in the run directory for continuing a run under RLlib.
"""

from __future__ import annotations

from pathlib import Path

from ice_envs.agents.ppo_agent import PPOAgent, _check_compatible, load_policy_net
from ice_envs.core.errors import AgentSpecError

__all__ = ["FINAL_POLICY", "RLlibAgent", "resolve_policy_file"]

#: The policy file of a run directory that ``rllib:RUN_DIR`` plays.
FINAL_POLICY = "final.npz"


def resolve_policy_file(path: str | Path) -> Path:
    """The ``.npz`` policy file that ``rllib:PATH`` names; :class:`AgentSpecError` if there is none."""
    p = Path(path)
    if p.is_dir():
        if (p / "rllib_checkpoint.json").is_file():
            raise AgentSpecError(
                f"rllib agent {path}: this is an RLlib checkpoint folder (pickled state, never loaded here); "
                f"give the run directory or its {FINAL_POLICY} / policies/iter_<N>.npz"
            )
        p = p / FINAL_POLICY
        if not p.is_file():
            raise AgentSpecError(f"rllib agent {path}: the run directory has no {FINAL_POLICY} (is the run finished?)")
    elif not p.exists():
        raise AgentSpecError(f"rllib policy not found: {path}")
    if p.suffix != ".npz":
        raise AgentSpecError(f"rllib agent {path}: give a run directory of the RLlib backend or a policy .npz")
    return p


class RLlibAgent(PPOAgent):
    """Plays the exported actor of an RLlib PPO policy (a :class:`~ice_envs.agents.ppo_agent.PolicyNet`)."""

    name = "rllib"

    @classmethod
    def load(
        cls,
        path: str | Path,
        game: str | None = None,
        num_players: int | None = None,
        seed: int | None = None,
        deterministic: bool = True,
        check_meta: bool = True,
    ) -> RLlibAgent:
        """Load a run directory's policy (or a policy ``.npz``); with ``game`` given, check that it fits."""
        file = resolve_policy_file(path)
        net = load_policy_net(file)
        if net.meta.get("backend") != "rllib":
            raise AgentSpecError(
                f"{file} is not a policy of the RLlib backend (its meta data has no backend: rllib); "
                "play a PPO snapshot as ppo:PATH"
            )
        indices = None
        if game is not None:
            indices = _check_compatible(net, file, game, num_players, check_meta)
        label = f"rllib:{Path(path).name}"
        return cls(net, seed, deterministic, label=label, observation_indices=indices)
