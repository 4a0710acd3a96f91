"""RLlib (new API stack) adapters of ice-envs games: multi-agent env, observation keys, fixed opponents.

    from ray.rllib.algorithms.ppo import PPOConfig
    from ice_envs.wrappers.rllib import IceMultiAgentEnv, rllib_env_name

    name = rllib_env_name()                       # registers the env creator with Ray's tune registry
    config = (
        PPOConfig()
        .environment(name, env_config={"game": "cardiceo", "num_players": 2}, disable_env_checking=True)
        .multi_agent(policies={"shared"}, policy_mapping_fn=lambda agent_id, episode, **kw: "shared")
        ...
    )

Three things stand between a PettingZoo AEC env of ice-envs and RLlib's PPO with
``ActionMaskingTorchRLModule``, and this module handles all three:

* **Observation keys.** The masking module reads ``obs["observations"]`` and
  ``obs["action_mask"]``; ice-envs (like every PettingZoo env) uses ``observation``.
  :class:`RLlibObservationKeys` is an AEC wrapper that renames the key (and gives the mask as
  ``float32``, which the module takes the log of); wrap an env with it before RLlib's own
  ``PettingZooEnv`` if you want that class. :class:`IceMultiAgentEnv` applies it itself.
* **The env check.** RLlib checks a new env by stepping *unmasked* random actions; an ice-envs
  env raises :class:`~ice_envs.core.errors.IllegalActionError` on an illegal one, which RLlib
  reports as the misleading "does not abide to the new gymnasium-style API". An illegal action is
  an error on purpose (a masked policy never takes one), so the check is switched off:
  ``.environment(..., disable_env_checking=True)``, as :func:`ice_envs.train.rllib_backend.build_algorithm`
  does. The adapter is checked by this package's tests instead.
* **The length cap.** Every ice-envs game ends at its own cap (``max_decisions``, the game's
  declared maximum length, stopping as a *truncation*); ``env_config["max_decisions"]`` lowers it,
  so no episode — a greedy policy looping over a reversible move, say — can run on forever.

:class:`IceMultiAgentEnv` is a ``MultiAgentEnv`` over one AEC game that follows RLlib's own
``PettingZooEnv`` turn by turn (only the agent to move gets an observation; each seat's reward is
what it earned since its last move; every seat gets a last observation when the game ends) and adds
*fixed opponents*: ``env_config["opponents"]`` lists agent specs (``random``, ``heuristic``,
``greedy``, ``ppo:PATH``, ``rllib:PATH``...) that play seats inside the env, so RLlib sees only the
learning seats. Heuristic and greedy agents read a :class:`~ice_envs.core.agent.PlayerView` (the game
state with the hidden part resampled), which exists only next to the env, never in an RLModule's
tensor batch; so fixed opponents play here, and every seat RLlib sees maps to a learning policy.
The opponents take different seats every episode (drawn from the episode's seed).

Agent ids are the env's own (``player_0`` ...). ``env_config`` keys: ``game`` (required),
``num_players`` (default: the game's first player count), ``options`` (the game's constructor
options), ``opponents`` (default none: every seat learns), ``max_decisions`` (default: the game's cap).
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
from pettingzoo.utils.wrappers import BaseWrapper
from ray.rllib.env.multi_agent_env import MultiAgentEnv

import ice_envs
from ice_envs.core.agent import make_view
from ice_envs.core.errors import OptionError

__all__ = ["ENV_CONFIG_KEYS", "IceMultiAgentEnv", "RLlibObservationKeys", "env_creator", "rllib_env_name"]

#: The keys an ``env_config`` of :class:`IceMultiAgentEnv` may hold.
ENV_CONFIG_KEYS = ("game", "num_players", "options", "opponents", "max_decisions")
#: The name :func:`rllib_env_name` registers with Ray's tune registry.
RLLIB_ENV_NAME = "ice_envs_multi_agent"


class RLlibObservationKeys(BaseWrapper):
    """An AEC wrapper giving observations as ``{"observations": ..., "action_mask": float32}``.

    That is the observation ``ActionMaskingTorchRLModule`` (ray.rllib.examples) reads; the
    game and its rewards are unchanged.
    """

    def __init__(self, env: Any) -> None:
        super().__init__(env)
        self._spaces: dict[str, gym.spaces.Dict] = {}

    def observation_space(self, agent: str) -> gym.spaces.Dict:
        """The renamed space: ``observations`` as the env's, ``action_mask`` a ``float32`` 0/1 box."""
        if agent not in self._spaces:
            space = self.env.observation_space(agent)
            mask = space["action_mask"]
            self._spaces[agent] = gym.spaces.Dict(
                {
                    "action_mask": gym.spaces.Box(0.0, 1.0, mask.shape, np.float32),
                    "observations": space["observation"],
                }
            )
        return self._spaces[agent]

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        """The observation of ``agent`` under the keys the masking module reads."""
        obs = self.env.observe(agent)
        return {
            "action_mask": np.asarray(obs["action_mask"], dtype=np.float32),
            "observations": obs["observation"],
        }


def check_env_config(config: dict[str, Any]) -> dict[str, Any]:
    """``config`` with its defaults filled in; :class:`OptionError` naming an unknown or bad key."""
    unknown = sorted(set(config) - set(ENV_CONFIG_KEYS))
    if unknown:
        raise OptionError(f"unknown env_config key(s) {unknown}; known keys: {list(ENV_CONFIG_KEYS)}")
    if "game" not in config:
        raise OptionError("env_config needs the key 'game' (a registered game, see `ice-envs list`)")
    spec = ice_envs.get_spec(config["game"])
    players = int(config.get("num_players") or spec.players[0])
    opponents = list(config.get("opponents") or [])
    if len(opponents) >= players:
        raise OptionError(
            f"env_config opponents: {len(opponents)} fixed opponents leave no learning seat at {players} players"
        )
    cap = config.get("max_decisions")
    if cap is not None and (isinstance(cap, bool) or not isinstance(cap, int) or cap < 1):
        raise OptionError(f"env_config max_decisions must be an integer >= 1 or None, got {cap!r}")
    return {
        "game": spec.name,
        "num_players": players,
        "options": dict(config.get("options") or {}),
        "opponents": opponents,
        "max_decisions": cap,
    }


class IceMultiAgentEnv(MultiAgentEnv):
    """One ice-envs game as an RLlib ``MultiAgentEnv``, turn by turn, with optional fixed opponents.

    ``env_config``: see the module docstring. Observations are ``{"observations", "action_mask"}``
    dicts (:class:`RLlibObservationKeys`); actions are the env's discrete action ids.
    """

    def __init__(self, config: dict[str, Any] | None = None) -> None:
        super().__init__()
        from ice_envs.agents.spec import load_agent

        cfg = check_env_config(dict(config or {}))
        self.game: str = cfg["game"]
        self.num_players: int = cfg["num_players"]
        options = dict(cfg["options"])
        if cfg["max_decisions"] is not None:
            options["max_decisions"] = cfg["max_decisions"]
        self.env = RLlibObservationKeys(ice_envs.make(self.game, num_players=self.num_players, **options))
        self.possible_agents = list(self.env.possible_agents)
        self.agents = list(self.possible_agents)
        self.observation_spaces = {a: self.env.observation_space(a) for a in self.possible_agents}
        self.action_spaces = {a: self.env.action_space(a) for a in self.possible_agents}
        self.observation_space = gym.spaces.Dict(self.observation_spaces)
        self.action_space = gym.spaces.Dict(self.action_spaces)
        self.opponent_specs: list[str] = list(cfg["opponents"])
        self._opponents = [load_agent(s, self.game, num_players=self.num_players) for s in self.opponent_specs]
        #: Seat -> fixed opponent agent, for this episode.
        self._seated: dict[str, Any] = {}
        self._rng = np.random.default_rng()

    # ------------------------------------------------------------------ MultiAgentEnv API
    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[dict, dict]:
        """Deal a new game (``seed`` seats the opponents too) and play up to the first learning seat.

        RLlib seeds each env's first reset (``debugging(seed=...)``); later resets draw from that seed's
        generator, so the episodes of a seeded run repeat.
        """
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        self.env.reset(seed=None if seed is None else int(seed))
        seats = self._rng.permutation(self.num_players)[: len(self._opponents)]
        self._seated = {}
        for k, (agent, seat) in enumerate(zip(self._opponents, seats)):
            agent.reset(seed=int(self._rng.integers(2**63)) + k)
            self._seated[self.possible_agents[int(seat)]] = agent
        self.agents = [a for a in self.possible_agents if a not in self._seated]
        obs, _, _, _, _ = self._advance()
        return obs, {a: {} for a in obs}

    def step(self, action_dict: dict[str, Any]) -> tuple[dict, dict, dict, dict, dict]:
        """Play the action of the learning seat to move, then every fixed opponent's, up to the next learning seat."""
        mover = self.env.agent_selection
        if mover not in action_dict:
            raise OptionError(f"step() needs the action of {mover!r}, the seat to move; got {sorted(action_dict)}")
        self.env.step(int(action_dict[mover]))
        return self._advance()

    def close(self) -> None:
        self.env.close()

    # ------------------------------------------------------------------ the turn loop
    def _advance(self) -> tuple[dict, dict, dict, dict, dict]:
        """Play fixed opponents and finished seats until a learning seat is to move or the game is over."""
        obs: dict[str, Any] = {}
        rewards: dict[str, float] = {}
        terms: dict[str, bool] = {}
        truncs: dict[str, bool] = {}
        infos: dict[str, dict] = {}
        while self.env.agents:
            agent_id = self.env.agent_selection
            ob, reward, term, trunc, info = self.env.last()
            opponent = self._seated.get(agent_id)
            if opponent is None:
                obs[agent_id] = ob
                rewards[agent_id] = rewards.get(agent_id, 0.0) + float(reward)
                terms[agent_id] = bool(term)
                truncs[agent_id] = bool(trunc)
                infos[agent_id] = dict(info)
            if term or trunc:
                self.env.step(None)
                continue
            if opponent is None:
                break
            seat = self.possible_agents.index(agent_id)
            agent_obs = {"observation": ob["observations"], "action_mask": ob["action_mask"].astype(np.int8)}
            view = make_view(self.env, seat, self._rng) if opponent.needs_view else None
            self.env.step(int(opponent.act(agent_obs, view)))
        over = not self.env.agents
        terms["__all__"] = over and not any(truncs.values())
        truncs["__all__"] = over and any(truncs.values())
        return obs, rewards, terms, truncs, infos


def env_creator(env_config: Any) -> IceMultiAgentEnv:
    """The env creator Ray's tune registry calls (``env_config`` is RLlib's ``EnvContext``, a dict)."""
    return IceMultiAgentEnv(dict(env_config))


def rllib_env_name() -> str:
    """Register :func:`env_creator` with Ray's tune registry and return its name."""
    from ray.tune.registry import register_env

    register_env(RLLIB_ENV_NAME, env_creator)
    return RLLIB_ENV_NAME
