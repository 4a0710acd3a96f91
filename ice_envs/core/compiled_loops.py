"""The batch loops of a compiled engine and of its in-engine players, as the source of one module per game.

Every loop here calls a game's kernels (``new_game``, ``legal``, ``apply_action``, ... of its
:class:`~ice_envs.core.compiled.GameKernels`) and its compiled players (``dispatch``) by **module-level
names**, which this file leaves unbound. :mod:`ice_envs.core.compiled_cache` writes, per game, a module
that is this file's text followed by imports binding those names to that game's functions, and imports
it. Numba caches a function on disk only when what it calls is reached through module globals (a
function closed over other functions is compiled anew in every process), so the loops, decorated
``cache=True`` in that generated module, are compiled once and then loaded from the cache by every
later process: a training run's workers, a league's, a test run's.

The loops:

* :func:`restart`, :func:`step`, :func:`loaded`, :func:`observe`, :func:`all_scores`, :func:`first_bad`
  and :func:`playout` (uniformly random legal actions): :class:`~ice_envs.core.compiled.CompiledEngine`'s;
* :func:`advance` and :func:`seat_playout`: :class:`~ice_envs.core.compiled_opponents.SeatPlayers`'
  (player ``kinds[seat_player[i, seat]]`` of the game's players decides, through ``dispatch``).
"""

from __future__ import annotations

from typing import Any

from ice_envs.core.compiled import below, njit

# ---------------------------------------------------------------------------------------------------------------
# A game's kernels and players. Unbound here: the generated module rebinds every name after this text.
new_game: Any = None
legal: Any = None
apply_action: Any = None
deciding: Any = None
is_over: Any = None
scores: Any = None
outcome: Any = None
encode: Any = None
undecided: Any = None
opening_scores: Any = None
#: The names of the game's compiled players, in the order ``dispatch`` numbers them.
PLAYERS: tuple[str, ...] = ()


def dispatch(kind, s, cfg, mask, prng, memory):  # rebound: the action of player ``kind`` of ``PLAYERS``
    return -1


# ---------------------------------------------------------------------------------------------------------------
# The engine's loops.
@njit
def refresh(i, state, cfg, mask, seat, obs):
    """Game ``i``'s mask, deciding seat and that seat's observation."""
    s = state[i]
    legal(s, cfg, mask[i])
    who = deciding(s, cfg)
    seat[i] = who
    row = obs[i]
    row[:] = 0.0
    encode(s, who, cfg, row)


@njit
def deal(i, state, rng, cfg, mark, num_steps, last_scores, mask, seat, obs):
    """Deal game ``i`` anew from its stream and refresh it."""
    r = rng[i]
    mark[i] = r[1]
    new_game(state[i], r, cfg)
    num_steps[i] = 0
    opening_scores(state[i], cfg, last_scores[i])
    refresh(i, state, cfg, mask, seat, obs)


@njit
def restart(rows, state, rng, cfg, mark, num_steps, last_scores, mask, seat, obs):
    """Deal the games ``rows`` anew."""
    for j in range(rows.shape[0]):
        i = rows[j]
        rng[i, 1] = 0
        deal(i, state, rng, cfg, mark, num_steps, last_scores, mask, seat, obs)


@njit
def transition(
    i, a, state, rng, cfg, score_mode, max_length, illegal_reward, mark, num_steps, last_scores, mask, seat, obs,
    rewards, terminated, truncated, illegal, fin_index, fin_obs, fin_rewards, fin_scores, fin_outcome,
    fin_length, scratch, k,
):  # fmt: skip
    """Game ``i`` takes action ``a`` (penalised if illegal): rewards, end, and at an end the final row
    ``k`` and a new deal; otherwise the next mask, seat and observation. Returns the next final row."""
    players = rewards.shape[1]
    rewards[i, :] = 0.0
    terminated[i] = False
    truncated[i] = False
    illegal[i] = False
    s = state[i]
    r = rng[i]
    mark[i] = -1
    if mask[i, a] == 0:
        rewards[i, seat[i]] = illegal_reward
        terminated[i] = True
        illegal[i] = True
    else:
        apply_action(s, a, r, cfg)
        num_steps[i] += 1
        if score_mode:
            scores(s, cfg, scratch)
            for p in range(players):
                rewards[i, p] = scratch[p] - last_scores[i, p]
                last_scores[i, p] = scratch[p]
        if is_over(s, cfg) and undecided(s, cfg):
            truncated[i] = True
        elif is_over(s, cfg):
            terminated[i] = True
            if not score_mode:
                outcome(s, cfg, scratch)
                for p in range(players):
                    rewards[i, p] += scratch[p]
        elif num_steps[i] >= max_length:
            truncated[i] = True
    if terminated[i] or truncated[i]:
        fin_index[k] = i
        for p in range(players):
            row = fin_obs[k, p]
            row[:] = 0.0
            encode(s, p, cfg, row)
            fin_rewards[k, p] = rewards[i, p]
        scores(s, cfg, fin_scores[k])
        fin_outcome[k, :] = 0.0
        if terminated[i] and not illegal[i]:
            outcome(s, cfg, fin_outcome[k])
        fin_length[k] = num_steps[i]
        deal(i, state, rng, cfg, mark, num_steps, last_scores, mask, seat, obs)
        return k + 1
    refresh(i, state, cfg, mask, seat, obs)
    return k


@njit
def step(
    actions, active, state, rng, cfg, score_mode, max_length, illegal_reward, mark, num_steps, last_scores,
    mask, seat, obs, rewards, terminated, truncated, illegal, fin_index, fin_obs, fin_rewards, fin_scores,
    fin_outcome, fin_length, scratch,
):  # fmt: skip
    """One decision in every active game; returns the number of games that ended (final rows)."""
    n = state.shape[0]
    k = 0
    for i in range(n):
        if not active[i]:
            rewards[i, :] = 0.0
            terminated[i] = False
            truncated[i] = False
            illegal[i] = False
            continue
        rng[i, 1] = 0
        k = transition(
            i, actions[i], state, rng, cfg, score_mode, max_length, illegal_reward, mark, num_steps,
            last_scores, mask, seat, obs, rewards, terminated, truncated, illegal, fin_index, fin_obs,
            fin_rewards, fin_scores, fin_outcome, fin_length, scratch, k,
        )  # fmt: skip
    return k


@njit
def first_bad(actions, active, mask, n_actions, check_legal):
    """The first active game whose action is outside the action space (``-2 - i``) or, with
    ``check_legal``, illegal (``i``); ``-1`` when every action may be applied."""
    for i in range(actions.shape[0]):
        if active[i]:
            a = actions[i]
            if a < 0 or a >= n_actions:
                return -2 - i
            if check_legal and mask[i, a] == 0:
                return i
    return -1


@njit
def loaded(state, cfg, num_steps, last_scores, mask, seat, obs):
    """Every game's bookkeeping, mask, seat and observation after its state row was written."""
    for i in range(state.shape[0]):
        num_steps[i] = 0
        scores(state[i], cfg, last_scores[i])
        refresh(i, state, cfg, mask, seat, obs)


@njit
def playout(state, rng, cfg, mask, first, max_length, out_scores, out_outcome, lengths, actions):
    """Every game from its row to its end: ``first[i]`` (if >= 0) and then uniformly random legal
    actions from the game's own stream; ``actions[i, t]`` records them where ``actions`` is wide enough."""
    for i in range(state.shape[0]):
        s = state[i]
        r = rng[i]
        r[1] = 0
        m = mask[i]
        steps = 0
        while not is_over(s, cfg) and steps < max_length:
            legal(s, cfg, m)
            if steps == 0 and first[i] >= 0:
                a = first[i]
            else:
                k = 0
                for b in range(m.shape[0]):
                    if m[b]:
                        k += 1
                pick = below(r, k)
                a = 0
                for b in range(m.shape[0]):
                    if m[b]:
                        if pick == 0:
                            a = b
                            break
                        pick -= 1
            if steps < actions.shape[1]:
                actions[i, steps] = a
            apply_action(s, a, r, cfg)
            steps += 1
        scores(s, cfg, out_scores[i])
        outcome(s, cfg, out_outcome[i])
        lengths[i] = steps


@njit
def observe(state, cfg, seats, out):
    """Seat ``seats[i]``'s observation of every game ``i`` into ``out`` (zeroed first)."""
    for i in range(state.shape[0]):
        row = out[i]
        row[:] = 0.0
        encode(state[i], seats[i], cfg, row)


@njit
def all_scores(state, cfg, out):
    """Every game's running scores into ``out``."""
    for i in range(state.shape[0]):
        scores(state[i], cfg, out[i])


# ---------------------------------------------------------------------------------------------------------------
# The in-engine players' loops (SeatPlayers).
@njit
def advance(
    active, seat_player, kinds, prng, memory, acc, ended, state, rng, cfg, score_mode, max_length, illegal_reward,
    mark, num_steps, last_scores, mask, seat, obs, rewards, terminated, truncated, illegal, fin_index, fin_obs,
    fin_rewards, fin_scores, fin_outcome, fin_length, scratch,
):  # fmt: skip
    """Every active game through the turns of its in-engine seats (``seat_player >= 0``: player
    ``kinds[seat_player]``) until a seat played outside decides or the game ends; rewards summed into
    ``acc``, ``ended[i]`` the final row of a game that ended. Returns the number of final rows, or
    ``-2 - i`` when a player chose an illegal action in game ``i``."""
    n = state.shape[0]
    players_n = acc.shape[1]
    k = 0
    for i in range(n):
        ended[i] = -1
        for p in range(players_n):
            acc[i, p] = 0.0
        if not active[i]:
            continue
        while True:
            who = seat[i]
            kind = seat_player[i, who]
            if kind < 0:
                break
            if kind >= kinds.shape[0]:
                return -2 - i
            a = dispatch(kinds[kind], state[i], cfg, mask[i], prng[i, who], memory[i, who])
            if a < 0 or a >= mask.shape[1] or mask[i, a] == 0:
                return -2 - i
            rng[i, 1] = 0
            nk = transition(
                i, a, state, rng, cfg, score_mode, max_length, illegal_reward, mark, num_steps, last_scores,
                mask, seat, obs, rewards, terminated, truncated, illegal, fin_index, fin_obs, fin_rewards,
                fin_scores, fin_outcome, fin_length, scratch, k,
            )  # fmt: skip
            for p in range(players_n):
                acc[i, p] += rewards[i, p]
            if nk > k:
                ended[i] = k
                k = nk
                memory[i, :, :] = 0
                break
    return k


@njit
def seat_playout(
    state, rng, cfg, mask, seat_player, kinds, prng, memory, first, max_length, out_scores, out_outcome, lengths
):
    """Every game from its row to its end, ``first[i]`` first (if >= 0), then player
    ``kinds[seat_player[i, seat]]`` at every seat; ``i`` of the first game whose player chose an illegal
    action, else ``-1``."""
    for i in range(state.shape[0]):
        s = state[i]
        r = rng[i]
        r[1] = 0
        m = mask[i]
        steps = 0
        while not is_over(s, cfg) and steps < max_length:
            legal(s, cfg, m)
            if steps == 0 and first[i] >= 0:
                a = first[i]
            else:
                who = deciding(s, cfg)
                kind = seat_player[i, who]
                if kind >= kinds.shape[0]:
                    return i
                a = dispatch(kinds[kind], s, cfg, m, prng[i, who], memory[i, who])
                if a < 0 or a >= m.shape[0] or m[a] == 0:
                    return i
            apply_action(s, a, r, cfg)
            steps += 1
        scores(s, cfg, out_scores[i])
        outcome(s, cfg, out_outcome[i])
        lengths[i] = steps
    return -1
