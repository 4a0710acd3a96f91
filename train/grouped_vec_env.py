"""Several training envs per worker process: ``vec_env: subproc`` with ``env_processes`` below ``n_envs``.

stable-baselines3's ``SubprocVecEnv`` runs one env per process. With more envs than cores (the
shipped configs run 4 envs on a 2-core machine) that costs a process switch and a pipe round
trip per env and step, more than the second core gives back (docs/training.md). A
:class:`GroupedSubprocVecEnv` splits the envs into ``processes`` contiguous groups; each worker
process holds one group in a ``DummyVecEnv`` and steps it in turn, so the learner's process
exchanges one message per group and step (RLlib's ``num_envs_per_env_runner`` and
sample-factory's envs per worker do the same). It pays where cores are to spare: on the project's
2-core machine two processes were slower than one with the shipped 4 envs and 8% faster with 16
(docs/training.md, "Several envs per worker process").

**The same run as a ``DummyVecEnv``.** Each worker's ``DummyVecEnv`` steps, auto-resets and
reports its envs exactly as one ``DummyVecEnv`` over all of them would (env ``i`` gets seed
``seed + i`` at the first reset, the same ``terminal_observation`` and ``TimeLimit.truncated``
infos), and the results come back in env order, so a run trains the same weights with
``dummy``, ``subproc`` and any ``env_processes`` (``tests/train/test_grouped_vec_env.py``).

**Action masks ride along.** MaskablePPO asks every env for its mask before each step
(``env_method("action_masks")``). Each worker computes its envs' masks right after a step or a
reset and sends them with the results; the next ``env_method("action_masks")`` over all envs is
answered from them, without a round trip. Any other call (``set_attr``, ``env_method``, ...)
may change an env, so it drops the stored masks and the next request asks the workers.

**Workers never outlive the learner, and never hang it.** Each worker watches the learner's
process and ends when it is gone (whatever the start method: with ``fork`` a worker inherits the
other workers' pipe ends and would never see its own pipe close). An exception in a worker is sent
back to the learner, which raises it as an :class:`EnvWorkerError` naming the worker and the error
on one line (the CLI's exit status 2); a worker that dies is noticed within a second.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any

import gymnasium as gym
import numpy as np
from stable_baselines3.common.vec_env import DummyVecEnv
from stable_baselines3.common.vec_env.base_vec_env import CloudpickleWrapper, VecEnv, VecEnvIndices

from ice_envs.core.errors import OptionError
from ice_envs.train.worker_start import worker_context

#: The env method whose results the workers send with every step and reset.
MASK_METHOD = "action_masks"


#: Seconds between a worker's checks that the learner is still there (and the learner's that a worker is).
WATCH_SECONDS = 0.5


class EnvWorkerError(OptionError):
    """An env worker process failed: its error, or its end, in one line."""


class _Failure:
    """What a worker sends back instead of an answer when a command raised: the error in one line."""

    def __init__(self, message: str) -> None:
        self.message = message


def _one_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # pragma: no cover - a pid of another user: not the learner any more
        return False
    return True


def _watch_learner(learner: int) -> None:
    """End this worker at once when the learner process is gone (or this worker was handed to another parent)."""
    parent = os.getppid()
    while True:
        time.sleep(WATCH_SECONDS)
        if os.getppid() != parent or not _alive(learner):
            os._exit(0)


def _worker(remote: Any, parent_remote: Any, fns: CloudpickleWrapper, learner: int | None = None) -> None:
    """Serve one group of envs, held in a ``DummyVecEnv``, until ``close`` or the learner's end."""
    parent_remote.close()
    if learner is not None:
        threading.Thread(target=_watch_learner, args=(learner,), daemon=True).start()
    try:
        venv = DummyVecEnv(fns.var)
    except Exception as exc:
        try:
            remote.send(_Failure(f"building the envs: {_one_line(exc)}"))
        except OSError:
            pass
        return
    has_masks = all(hasattr(env, MASK_METHOD) for env in venv.envs)

    def masks() -> list[Any] | None:
        return venv.env_method(MASK_METHOD) if has_masks else None

    while True:
        try:
            cmd, data = remote.recv()
        except (EOFError, OSError, KeyboardInterrupt):
            break
        try:
            if _serve(venv, remote, masks, cmd, data):
                break
        except (BrokenPipeError, ConnectionResetError):
            break  # the learner is gone
        except Exception as exc:
            try:
                remote.send(_Failure(f"{cmd}: {_one_line(exc)}"))
            except OSError:
                break


def _serve(venv: DummyVecEnv, remote: Any, masks: Callable[[], Any], cmd: str, data: Any) -> bool:
    """Answer one command of the learner; ``True`` after ``close``."""
    if cmd == "step":
        venv.step_async(data)
        obs, rewards, dones, infos = venv.step_wait()
        remote.send((obs, rewards, dones, infos, list(venv.reset_infos), masks()))
    elif cmd == "reset":
        venv._seeds, venv._options = list(data[0]), list(data[1])
        obs = venv.reset()
        remote.send((obs, list(venv.reset_infos), masks()))
    elif cmd == "env_method":
        name, args, kwargs, local = data
        remote.send(venv.env_method(name, *args, indices=local, **kwargs))
    elif cmd == "get_attr":
        remote.send(venv.get_attr(data[0], indices=data[1]))
    elif cmd == "set_attr":
        venv.set_attr(data[0], data[1], indices=data[2])
        remote.send(None)
    elif cmd == "is_wrapped":
        remote.send(venv.env_is_wrapped(data[0], indices=data[1]))
    elif cmd == "render":
        remote.send([env.render() for env in venv.envs])
    elif cmd == "get_spaces":
        remote.send((venv.observation_space, venv.action_space, venv.render_mode))
    elif cmd == "close":
        venv.close()
        remote.close()
        return True
    else:  # pragma: no cover - the parent sends only the commands above
        raise NotImplementedError(f"unknown worker command {cmd!r}")
    return False


def split_envs(n_envs: int, processes: int) -> list[list[int]]:
    """Contiguous groups of env indices, one per process, sizes differing by at most one (larger first)."""
    if not 1 <= processes <= n_envs:
        raise ValueError(f"processes must be between 1 and n_envs = {n_envs}, got {processes}")
    return [part.tolist() for part in np.array_split(np.arange(n_envs), processes)]


class GroupedSubprocVecEnv(VecEnv):
    """``n_envs`` envs in ``processes`` worker processes, each stepping its group in a ``DummyVecEnv``.

    Args:
        env_fns: one callable per env that builds it (pickled to the workers with cloudpickle).
        processes: how many worker processes; the envs are split into that many contiguous groups.
        start_method: the ``multiprocessing`` start method (``fork``, ``forkserver``, ``spawn``).
    """

    def __init__(self, env_fns: list[Callable[[], gym.Env]], processes: int, start_method: str = "fork") -> None:
        self.groups = split_envs(len(env_fns), processes)
        #: env index -> (process, index inside its group)
        self._where = [(p, j) for p, group in enumerate(self.groups) for j in range(len(group))]
        self.waiting = False
        self.closed = False
        self._masks: list[Any] | None = None
        ctx = worker_context(start_method)
        self.remotes = []
        self.processes = []
        for group in self.groups:
            parent, child = ctx.Pipe()  # one at a time: a forked worker inherits no later worker's pipe
            fns = CloudpickleWrapper([env_fns[i] for i in group])
            process = ctx.Process(target=_worker, args=(child, parent, fns, os.getpid()), daemon=True)
            process.start()
            self.remotes.append(parent)
            self.processes.append(process)
            child.close()
        self.remotes[0].send(("get_spaces", None))
        try:
            observation_space, action_space, render_mode = self._recv(0)
        except EnvWorkerError:
            self._terminate()
            raise
        super().__init__(len(env_fns), observation_space, action_space)
        self.render_mode = render_mode

    # ----------------------------------------------------------------- stepping
    def step_async(self, actions: np.ndarray) -> None:
        self._masks = None
        for remote, group in zip(self.remotes, self.groups, strict=True):
            remote.send(("step", actions[group[0] : group[-1] + 1]))
        self.waiting = True

    def step_wait(self) -> Any:
        self.waiting = False
        results = [self._recv(p) for p in range(len(self.remotes))]
        obs, rewards, dones, infos, reset_infos, masks = zip(*results, strict=True)
        self.reset_infos = [info for part in reset_infos for info in part]
        self._keep_masks(masks)
        flat_infos = [info for part in infos for info in part]
        return self._concat(obs), np.concatenate(rewards), np.concatenate(dones), flat_infos

    def reset(self) -> Any:
        self._masks = None
        for remote, group in zip(self.remotes, self.groups, strict=True):
            remote.send(("reset", ([self._seeds[i] for i in group], [self._options[i] for i in group])))
        results = [self._recv(p) for p in range(len(self.remotes))]
        obs, reset_infos, masks = zip(*results, strict=True)
        self.reset_infos = [info for part in reset_infos for info in part]
        self._keep_masks(masks)
        self._reset_seeds()
        self._reset_options()
        return self._concat(obs)

    def close(self) -> None:
        if self.closed:
            return
        self.closed = True
        try:
            if self.waiting:
                for p in range(len(self.remotes)):
                    self._recv(p, raise_failure=False)
            for remote in self.remotes:
                remote.send(("close", None))
            for process in self.processes:
                process.join(timeout=10)
        except (EnvWorkerError, OSError):
            pass
        self._terminate()

    def _terminate(self) -> None:
        """End every worker still running and close the pipes (nothing is left behind)."""
        for process in self.processes:
            if process.is_alive():
                process.kill()
            process.join(timeout=10)
        for remote in self.remotes:
            remote.close()
        self.closed = True

    def _recv(self, p: int, raise_failure: bool = True) -> Any:
        """Worker ``p``'s answer; an :class:`EnvWorkerError` if it failed or ended."""
        remote, process = self.remotes[p], self.processes[p]
        try:
            while not remote.poll(WATCH_SECONDS):
                if not process.is_alive():
                    raise EOFError
            answer = remote.recv()
        except (EOFError, OSError):
            code = process.exitcode
            raise EnvWorkerError(
                f"env worker {p} ended unexpectedly (exit status {code})"
                if code is not None
                else f"env worker {p} is gone"
            ) from None
        if isinstance(answer, _Failure):
            if raise_failure:
                raise EnvWorkerError(f"env worker {p} failed: {answer.message}")
            return None
        return answer

    # ----------------------------------------------------------------- envs' attributes and methods
    def env_method(
        self, method_name: str, *method_args: Any, indices: VecEnvIndices = None, **method_kwargs: Any
    ) -> list[Any]:
        if method_name == MASK_METHOD and indices is None and not method_args and not method_kwargs and self._masks:
            return list(self._masks)
        self._masks = None
        return self._route(indices, lambda local: ("env_method", (method_name, method_args, method_kwargs, local)))

    def get_attr(self, attr_name: str, indices: VecEnvIndices = None) -> list[Any]:
        return self._route(indices, lambda local: ("get_attr", (attr_name, local)))

    def set_attr(self, attr_name: str, value: Any, indices: VecEnvIndices = None) -> None:
        self._masks = None
        self._route(indices, lambda local: ("set_attr", (attr_name, value, local)), results=False)

    def env_is_wrapped(self, wrapper_class: type[gym.Wrapper], indices: VecEnvIndices = None) -> list[bool]:
        return self._route(indices, lambda local: ("is_wrapped", (wrapper_class, local)))

    def get_images(self) -> Sequence[np.ndarray | None]:
        for remote in self.remotes:
            remote.send(("render", None))
        return [image for p in range(len(self.remotes)) for image in self._recv(p)]

    # ----------------------------------------------------------------- helpers
    def _keep_masks(self, masks: Sequence[list[Any] | None]) -> None:
        self._masks = None if any(m is None for m in masks) else [mask for part in masks for mask in part]

    def _concat(self, parts: Sequence[Any]) -> Any:
        if isinstance(parts[0], dict):
            return {key: np.concatenate([part[key] for part in parts]) for key in parts[0]}
        if isinstance(parts[0], tuple):
            return tuple(np.concatenate([part[i] for part in parts]) for i in range(len(parts[0])))
        return np.concatenate(parts)

    def _route(
        self, indices: VecEnvIndices, message: Callable[[list[int]], tuple[str, Any]], results: bool = True
    ) -> Any:
        """Send ``message(local indices)`` to each process holding one of ``indices``; results in ``indices`` order."""
        order = list(self._get_indices(indices))
        per_process: dict[int, list[int]] = {}
        for i in order:
            process, local = self._where[i]
            per_process.setdefault(process, []).append(local)
        for process, local in per_process.items():
            self.remotes[process].send(message(local))
        answers = {process: iter(self._recv(process) or ()) for process in per_process}
        if not results:
            return None
        # each process answers for its local indices in the order they were sent, i.e. the order of ``indices``
        return [next(answers[self._where[i][0]]) for i in order]


__all__ = ["EnvWorkerError", "GroupedSubprocVecEnv", "MASK_METHOD", "split_envs"]
