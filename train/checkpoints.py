"""Resumable checkpoints: the MaskablePPO model plus the declared state of everything else a run needs.

A checkpoint is two files in ``<run>/checkpoints/``, each written atomically
(:func:`ice_envs.core.files.write_atomic`: a temporary file, fsync, ``os.replace``):

* ``step_<N>.zip`` — ``MaskablePPO.save``: the policy and optimizer ``state_dict`` s (read back with
  ``torch.load(weights_only=True)``) and SB3's settings (also a ``ppo:PATH`` agent for evaluation);
* ``step_<N>.state.json`` — written second, so it marks the checkpoint complete: the SHA-256 of the
  ``.zip``, the run's config, the global random generators (torch as its state tensor's bytes,
  numpy and python as their plain states), each training env's declared state
  (:meth:`~ice_envs.train.training_env.TrainingEnv.training_state`: where its game started, the
  learner's actions since, its opponents as the pool's policy files or the league's members, and
  the game's own ``state_dict()`` as a check), the self-play pool and league (policy files named
  inside the run directory), the evaluations not yet logged, the rows of ``evaluations.jsonl``
  so far, the SB3 logger values not yet written and the model's runtime values (last observations,
  episode buffers).

Nothing in a checkpoint names a class: arrays are saved as dtype, shape and values, generators as
their bit-generator states, envs as what they declare. So any registered game, built-in or
plug-in, trains and resumes exactly, and resuming imports nothing named in the files. The
``.state.json`` is read through :func:`ice_envs.core.files.load_json` and every field is checked
before it is used (a bad one is a :class:`~train.config.ConfigError` naming the file and the field).

The ``.zip`` is never unpickled either (:func:`load_model`): its ``data`` member is read as plain
JSON, and every ``":serialized:"`` (cloudpickled) entry in it gets its value from elsewhere, handed
to ``MaskablePPO.load`` as ``custom_objects`` so that SB3 never deserializes it — the static ones
(:data:`STATIC_KEYS`) from a fresh model built from the run's config, the runtime ones
(:data:`RUNTIME_KEYS`) from the ``.state.json``. A serialized entry with no such value refuses the resume.

A checkpoint is complete when its state parses and checks and the ``.zip`` has the SHA-256 the
state records (:func:`checkpoint_problem`); ``--resume`` of a run directory takes the newest
complete one and names the newer ones it skips (a kill in the middle of writing one).

Checkpoints are taken at rollout boundaries, after a PPO update, so a resumed run continues with
the very same updates as an uninterrupted one (same machine, same thread count).
"""

from __future__ import annotations

import base64
import collections
import hashlib
import io
import json
import math
import random
import re
import zipfile
from pathlib import Path
from typing import Any

import numpy as np

CHECKPOINTS = "checkpoints"
_NAME = re.compile(r"^step_(\d+)\.zip$")
STATE_FORMAT = 4
STATE_KIND = "ice-envs training state"
#: Size cap of a ``.state.json`` (read through :func:`ice_envs.core.files.load_json`).
MAX_STATE_BYTES = 256 << 20
#: Size cap of a run's append-only logs (``evaluations.jsonl``) when they are read back on resume.
MAX_LOG_BYTES = 64 << 20
#: Nesting bound of a ``.state.json`` (a game's ``state_dict()`` nests a few levels per dataclass).
MAX_STATE_DEPTH = 128
STATE_KEYS = frozenset(
    (
        "kind",
        "format",
        "num_timesteps",
        "model_sha256",
        "config",
        "rng",
        "envs",
        "pool",
        "league",
        "pending_evals",
        "evaluations",
        "logger",
        "last_event",
        "model",
    )
)
#: Attributes of the model that change while it trains and that SB3 pickles into the ``.zip``'s
#: ``data``: the ``.state.json`` holds them as plain JSON (field ``model``) and a resume takes
#: them from there.
RUNTIME_KEYS = ("_last_obs", "_last_episode_starts", "_last_original_obs", "ep_info_buffer", "ep_success_buffer")
#: Attributes of the model that its config fixes: a resume takes the pickled ones from a fresh
#: model built from the run's config (as ``train()`` builds it).
STATIC_KEYS = (
    "policy_class",
    "policy_kwargs",
    "observation_space",
    "action_space",
    "rollout_buffer_class",
    "rollout_buffer_kwargs",
    "clip_range",
    "clip_range_vf",
    "lr_schedule",
    "learning_rate",
    "action_noise",
    "ice_envs",
)
#: The ``torch.save`` member of a MaskablePPO ``.zip`` that holds plain torch variables (not state dicts).
_TORCH_VARIABLES = "pytorch_variables.pth"
#: How a policy file inside the run directory is named in a checkpoint's env states (``run:pool/snap_....npz``).
_IN_RUN = "run:"
EVALUATIONS = "evaluations.jsonl"


def checkpoint_path(run_dir: Path, step: int) -> Path:
    """``<run>/checkpoints/step_<step>.zip``."""
    return run_dir / CHECKPOINTS / f"step_{step:012d}.zip"


def state_path(zip_path: Path) -> Path:
    """The ``.state.json`` that goes with a checkpoint ``.zip``."""
    return zip_path.with_name(zip_path.name.removesuffix(".zip") + ".state.json")


def save_checkpoint(
    model: Any,
    run_dir: Path,
    pool: Any | None,
    events_done: bool = True,
    league: Any | None = None,
    pending_evals: list[dict[str, Any]] | None = None,
    config: dict[str, Any] | None = None,
) -> Path:
    """Write the model and the run state at ``model.num_timesteps``; returns the ``.zip`` path.

    ``events_done`` says whether the scheduled events of this step (evaluation, promotion
    check, league events) have already run; a resumed run runs them if not. ``league`` is the
    run's :class:`~train.league.League` (its state is saved under ``league``), or ``None``;
    ``pending_evals`` the training callback's evaluations not yet come back from its worker
    (``step``, ``policy`` file, ``games`` and the pool's scalars and state at that step);
    ``config`` the run's resolved config (``TrainConfig.to_dict()``).
    """
    import torch

    from ice_envs.core.files import write_atomic

    path = checkpoint_path(run_dir, model.num_timesteps)
    path.parent.mkdir(parents=True, exist_ok=True)
    buffer = io.BytesIO()
    model.save(buffer)
    archive = buffer.getvalue()
    venv = model.get_env()
    indices = [0] if _one_state(venv) else None
    envs = [_portable(s, run_dir) for s in venv.env_method("training_state", indices=indices)]
    np_state = np.random.get_state(legacy=False)
    py_state = random.getstate()
    state = {
        "kind": STATE_KIND,
        "format": STATE_FORMAT,
        "num_timesteps": int(model.num_timesteps),
        "model_sha256": hashlib.sha256(archive).hexdigest(),
        "config": config,
        "rng": {
            "torch": base64.b64encode(torch.get_rng_state().numpy().tobytes()).decode("ascii"),
            "numpy": {
                "bit_generator": np_state["bit_generator"],
                "key": [int(k) for k in np_state["state"]["key"]],
                "pos": int(np_state["state"]["pos"]),
                "has_gauss": int(np_state["has_gauss"]),
                "gauss": float(np_state["gauss"]),
            },
            "python": {"version": py_state[0], "state": list(py_state[1]), "gauss_next": py_state[2]},
        },
        "envs": envs,
        "pool": pool.state_dict() if pool is not None else None,
        "league": league.state_dict() if league is not None else None,
        "pending_evals": [
            {**e, "policy": Path(e["policy"]).name, "pool_scalars": {k: float(v) for k, v in e["pool_scalars"].items()}}
            for e in pending_evals or []
        ],
        "evaluations": len(complete_rows(run_dir / EVALUATIONS)),
        "logger": encode_state(_pending_logs(model)),
        "last_event": int(model.num_timesteps if events_done else model.num_timesteps - 1),
        "model": model_runtime_state(model),
    }
    text = json.dumps(state, separators=(",", ":"), allow_nan=False)
    write_atomic(path, archive)
    write_atomic(state_path(path), text)  # last: the checkpoint is complete from here on
    return path


def _log_bytes(path: Path) -> bytes:
    """The bytes of a run's append-only log (empty if it does not exist), through the capped reader."""
    from ice_envs.core.files import read_bytes

    if not path.exists():
        return b""
    return read_bytes(path, what="run log", max_bytes=MAX_LOG_BYTES)


def complete_rows(path: Path) -> list[bytes]:
    """The complete lines (ending in a newline) of an append-only log; a torn last line is left out."""
    lines = _log_bytes(path).split(b"\n")
    return [line + b"\n" for line in lines[:-1]]


def truncate_log(path: Path, rows: int) -> int:
    """Keep the first ``rows`` complete lines of ``path`` (written atomically); returns the lines dropped."""
    from ice_envs.core.files import write_atomic

    if not path.exists():
        return 0
    data = _log_bytes(path)
    lines = [line + b"\n" for line in data.split(b"\n")[:-1]]
    kept = b"".join(lines[:rows])
    if kept != data:
        write_atomic(path, kept)
    return max(0, len(lines) - rows)


def _portable(env_state: dict[str, Any], run_dir: Path) -> dict[str, Any]:
    """``env_state`` with the policy files inside ``run_dir`` named relative to it (``run:pool/...``),
    so that a run directory can move; :func:`_local` reverses it."""
    return _map_sources(env_state, lambda p: _relative(p, run_dir))


def _local(env_state: Any, run_dir: Path, source: str, where: str) -> Any:
    """``env_state`` with its ``run:`` names as paths in ``run_dir`` (names leading outside it refused)."""

    def absolute(name: str) -> str:
        if not name.startswith(_IN_RUN):
            return name
        relative = Path(name[len(_IN_RUN) :])
        if relative.is_absolute() or ".." in relative.parts:
            raise _fail(source, where, f"names a policy file outside the run directory: {name!r}")
        return str(run_dir / relative)

    return _map_sources(env_state, absolute)


def _relative(path: str, run_dir: Path) -> str:
    try:
        return _IN_RUN + Path(path).resolve().relative_to(run_dir.resolve()).as_posix()
    except ValueError:
        return path


def _map_sources(env_state: Any, fn: Any) -> Any:
    """Apply ``fn`` to every policy file path of the opponent sources of a training env state."""
    if not isinstance(env_state, dict) or "start" not in env_state:
        return env_state  # a batched env: no policy files

    def source(src: Any) -> Any:
        if not isinstance(src, dict):
            return src
        out = dict(src)
        if isinstance(src.get("pool"), list):
            out["pool"] = [fn(p) if isinstance(p, str) else p for p in src["pool"]]
        if isinstance(src.get("members"), list):
            out["members"] = [
                [m[0], m[1], fn(m[2])] if isinstance(m, list) and len(m) == 3 and m[1] == "snapshot" else m
                for m in src["members"]
            ]
        return out

    out = dict(env_state)
    out["opponents"] = source(env_state.get("opponents"))
    if isinstance(env_state.get("start"), dict):
        out["start"] = {**env_state["start"], "opponents": source(env_state["start"].get("opponents"))}
    return out


def model_runtime_state(model: Any) -> dict[str, Any]:
    """The :data:`RUNTIME_KEYS` of ``model`` as plain JSON (arrays as dtype, shape and values; deques as items and maxlen)."""
    out: dict[str, Any] = {}
    for key in RUNTIME_KEYS:
        value = getattr(model, key, None)
        if isinstance(value, collections.deque):
            out[key] = {"maxlen": value.maxlen, "items": encode_state(list(value))}
        elif key.endswith("_buffer") and value is not None:
            raise TypeError(f"cannot save the model's {key} ({type(value).__name__}) in a checkpoint state")
        else:
            out[key] = encode_state(value)
    return out


def pending_logger_values(logger: Any) -> dict[str, Any]:
    """What SB3's logger holds but has not written yet (saved with a checkpoint)."""
    return {
        "values": dict(logger.name_to_value),
        "counts": dict(logger.name_to_count),
        "excluded": dict(logger.name_to_excluded),
    }


def restore_logger(logger: Any, pending: dict[str, Any]) -> None:
    """Put :func:`pending_logger_values` back into a fresh logger."""
    logger.name_to_value.update(pending["values"])
    logger.name_to_count.update(pending["counts"])
    logger.name_to_excluded.update(pending["excluded"])


def _pending_logs(model: Any) -> dict[str, Any] | None:
    logger = getattr(model, "_logger", None)
    return pending_logger_values(logger) if logger is not None else None


def list_checkpoints(run_dir: Path) -> list[tuple[int, Path]]:
    """The checkpoints of a run whose two files are both present, oldest first (complete or not:
    :func:`checkpoint_problem` tells)."""
    found = []
    for p in (run_dir / CHECKPOINTS).glob("step_*.zip"):
        m = _NAME.match(p.name)
        state = state_path(p)
        if m and (state.exists() or state.is_symlink()):  # any kind of file: checkpoint_problem names a bad one
            found.append((int(m.group(1)), p))
    return sorted(found)


def checkpoint_problem(zip_path: Path) -> str | None:
    """Why the checkpoint ``zip_path`` is not complete (one line), or ``None`` when it is: its state
    parses and checks, and the ``.zip`` is the one the state records (SHA-256) and opens as a zip."""
    from ice_envs.train.config import ConfigError

    try:
        state = read_state(zip_path)
    except ConfigError as exc:
        return str(exc)
    from ice_envs.agents.ppo_agent import MAX_CHECKPOINT_BYTES
    from ice_envs.core.files import FileFormatError, read_bytes

    try:  # a regular file of bounded size only (never a FIFO or a device)
        archive = read_bytes(zip_path, what="checkpoint", max_bytes=MAX_CHECKPOINT_BYTES)
    except FileFormatError as exc:
        return str(exc)
    if hashlib.sha256(archive).hexdigest() != state["model_sha256"]:
        return f"checkpoint {zip_path}: is not the model its state {state_path(zip_path).name} records (SHA-256)"
    try:
        with zipfile.ZipFile(io.BytesIO(archive)) as handle:
            if "data" not in handle.namelist():
                return f"checkpoint {zip_path}: has no 'data' member"
    except zipfile.BadZipFile as exc:
        return f"checkpoint {zip_path}: is not a zip file ({exc})"
    return None


def checkpoint_step(zip_path: Path) -> int:
    """The training step a checkpoint was saved at (from its checked ``.state.json``)."""
    return int(read_state(zip_path)["num_timesteps"])


class NoCheckpoint(Exception):
    """A run directory holds no complete checkpoint (``resume`` may then start the run again in place)."""


def resolve_checkpoint(target: str | Path, echo: bool = True) -> tuple[Path, Path]:
    """(run directory, checkpoint ``.zip``) for a run directory (its newest complete checkpoint) or a ``.zip``.

    Newer checkpoints that are not complete are skipped, each named on one line (with ``echo``).

    Raises:
        NoCheckpoint: a run directory without any checkpoint state (killed before its first one).
        ConfigError: ``target`` is neither, a named ``.zip`` is not complete, or no checkpoint of a
            run directory is (nothing is started again then: the files are left for a look).
    """
    from ice_envs.train.config import ConfigError

    target = Path(target)
    if target.is_dir():
        found = list_checkpoints(target)
        if not found:  # killed before its first checkpoint was written (a lone .zip or temporary file at most)
            raise NoCheckpoint(f"--resume: no checkpoint in {target / CHECKPOINTS}")
        problems = []
        for step, path in reversed(found):
            problem = checkpoint_problem(path)
            if problem is None:
                return target, path
            problems.append(problem)
            if echo:
                print(f"[train] skipping the incomplete checkpoint at {step:,} steps: {problem}", flush=True)
        raise ConfigError(f"--resume: no complete checkpoint in {target / CHECKPOINTS}; the newest: {problems[0]}")
    if target.suffix != ".zip" or not target.is_file():
        raise ConfigError(f"--resume: {target} is neither a run directory nor a checkpoint .zip")
    if not state_path(target).is_file():
        raise ConfigError(f"--resume: {state_path(target)} is missing; the checkpoint cannot be resumed")
    problem = checkpoint_problem(target)
    if problem is not None:
        raise ConfigError(f"--resume: {problem}")
    return target.parent.parent, target


def read_state(zip_path: Path) -> dict[str, Any]:
    """The ``.state.json`` of ``zip_path``, read safely, with its top-level fields checked.

    The env states are checked by the envs that load them, the logger values by
    :func:`restore_state`; everything else is checked here. Errors are
    :class:`~train.config.ConfigError` naming the file and the field.
    """
    from ice_envs.core.files import FileFormatError, load_json
    from ice_envs.train.config import ConfigError

    path = state_path(zip_path)
    try:
        state = load_json(path, what="checkpoint state", max_bytes=MAX_STATE_BYTES, limit=MAX_STATE_DEPTH)
    except FileFormatError as exc:
        raise ConfigError(str(exc)) from None
    src = str(path)
    if not isinstance(state, dict):
        raise ConfigError(f"checkpoint state {src}: must be a JSON object, got {type(state).__name__}")
    if state.get("kind") != STATE_KIND:
        raise ConfigError(f"checkpoint state {src}: field 'kind' must be {STATE_KIND!r}, got {state.get('kind')!r}")
    if type(state.get("format")) is int and state["format"] < STATE_FORMAT:
        raise ConfigError(
            f"checkpoint state {src}: format {state['format']} was written by an earlier ice-envs (envs saved as "
            f"object graphs), which this version does not resume; its .zip still plays as a ppo: agent"
        )
    if state.get("format") != STATE_FORMAT:
        raise ConfigError(
            f"checkpoint state {src}: unknown format {state.get('format')!r} (this version reads {STATE_FORMAT})"
        )
    missing = sorted(STATE_KEYS - set(state))
    unknown = sorted(set(state) - STATE_KEYS)
    if missing or unknown:
        raise ConfigError(f"checkpoint state {src}: missing fields {missing}, unknown fields {unknown}")
    _check_int(src, "num_timesteps", state["num_timesteps"], low=0)
    _check_int(src, "last_event", state["last_event"], low=-1)
    _check_int(src, "evaluations", state["evaluations"], low=0)
    if not isinstance(state["model_sha256"], str) or not re.fullmatch(r"[0-9a-f]{64}", state["model_sha256"]):
        raise _fail(src, "model_sha256", "must be a SHA-256 in hex")
    if state["config"] is not None and not isinstance(state["config"], dict):
        raise _fail(src, "config", "must be null or an object")
    _check_rng(src, state["rng"])
    if not isinstance(state["envs"], list) or not state["envs"] or not all(isinstance(e, dict) for e in state["envs"]):
        raise ConfigError(f"checkpoint state {src}: field 'envs' must be a non-empty list of objects")
    if state["pool"] is not None:
        _check_pool(src, state["pool"])
    if state["league"] is not None:
        _check_league(src, state["league"])
    _check_pending_evals(src, state["pending_evals"])
    if not isinstance(state["model"], dict) or set(state["model"]) != set(RUNTIME_KEYS):
        raise ConfigError(f"checkpoint state {src}: field 'model' must be an object with exactly {list(RUNTIME_KEYS)}")
    return state


def read_runtime(zip_path: Path, n_envs: int) -> dict[str, Any]:
    """The :data:`RUNTIME_KEYS` of the model saved at ``zip_path``, from its checked ``.state.json``."""
    state = read_state(zip_path)
    src = str(state_path(zip_path))
    saved = state["model"]
    out: dict[str, Any] = {}
    for key in ("_last_obs", "_last_original_obs"):
        value = decode_state(saved[key], source=src, where=f"model.{key}")
        arrays = list(value.values()) if isinstance(value, dict) else [value]
        if value is not None and not all(
            isinstance(a, np.ndarray) and a.ndim >= 1 and len(a) == n_envs for a in arrays
        ):
            raise _fail(src, f"model.{key}", f"must be null or observations of {n_envs} envs (arrays)")
        out[key] = value
    starts = decode_state(saved["_last_episode_starts"], source=src, where="model._last_episode_starts")
    if starts is not None and not (
        isinstance(starts, np.ndarray) and starts.dtype == np.bool_ and starts.shape == (n_envs,)
    ):
        raise _fail(src, "model._last_episode_starts", f"must be null or a bool array of {n_envs} values")
    out["_last_episode_starts"] = starts
    for key in ("ep_info_buffer", "ep_success_buffer"):
        out[key] = _decode_deque(src, f"model.{key}", saved[key], info=key == "ep_info_buffer")
    return out


def _decode_deque(source: str, field: str, data: Any, info: bool) -> collections.deque | None:
    if data is None:
        return None
    if not isinstance(data, dict) or set(data) != {"maxlen", "items"}:
        raise _fail(source, field, "must be null or an object with 'maxlen' and 'items'")
    maxlen = data["maxlen"]
    if maxlen is not None:
        _check_int(source, f"{field}.maxlen", maxlen, low=1)
    items = decode_state(data["items"], source=source, where=f"{field}.items")
    if not isinstance(items, list) or (maxlen is not None and len(items) > maxlen):
        raise _fail(source, f"{field}.items", f"must be a list of at most {maxlen} entries")
    scalar = (bool, int, float, str, np.generic)
    for i, item in enumerate(items):
        ok = (
            isinstance(item, dict) and all(isinstance(k, str) and isinstance(v, scalar) for k, v in item.items())
            if info
            else isinstance(item, scalar)
        )
        if not ok:
            raise _fail(source, f"{field}.items[{i}]", "must be " + ("an episode's numbers" if info else "a number"))
    return collections.deque(items, maxlen=maxlen)


def load_model(zip_path: Path, fresh: Any, venv: Any) -> Any:
    """The MaskablePPO model of checkpoint ``zip_path`` on ``venv``, without unpickling anything.

    ``fresh`` is a model built from the run's config exactly as ``train()`` builds it: it
    gives the values of the :data:`STATIC_KEYS`; the ``.state.json`` gives those of the
    :data:`RUNTIME_KEYS`. The ``data`` JSON of the ``.zip`` is read here; each of its
    ``":serialized:"`` (pickled) entries is replaced by one of those values (``custom_objects``)
    and one with no such value, or whose recorded type differs, refuses the resume
    (:class:`~train.config.ConfigError` naming the file and the key). The weights are read with
    ``torch.load(..., weights_only=True)`` and SB3 loads an archive rebuilt in memory from the
    checked parts only, so what it reads is exactly what was checked.
    """
    import torch
    from sb3_contrib import MaskablePPO

    from ice_envs.train.config import ConfigError

    src = str(zip_path)
    data, raw_data, members = _read_zip(zip_path, fresh)
    runtime = read_runtime(zip_path, venv.num_envs)
    custom: dict[str, Any] = {key: runtime[key] for key in RUNTIME_KEYS if key in data}
    for key, item in data.items():
        if not (isinstance(item, dict) and ":serialized:" in item):
            continue
        if key in RUNTIME_KEYS:
            value = runtime[key]
        elif key in STATIC_KEYS and hasattr(fresh, key):
            value = getattr(fresh, key)
        else:
            raise ConfigError(
                f"checkpoint {src}: its data holds {key!r} only as a pickled (':serialized:') value, and this "
                "version has no safe value for it (it never unpickles); the checkpoint cannot be resumed"
            )
        recorded, built = _type_name(item.get(":type:")), type(value).__name__
        if recorded != built:
            raise ConfigError(
                f"checkpoint {src}: its data records {key!r} as a {item.get(':type:')!r}, "
                f"the run's config and state give a value of type {built}; the checkpoint cannot be resumed"
            )
        custom[key] = value
    archive = io.BytesIO()
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as out:
        out.writestr("data", raw_data)
        for name, value in members.items():
            blob = io.BytesIO()
            torch.save(value, blob)
            out.writestr(name, blob.getvalue())
    archive.seek(0)
    try:
        return MaskablePPO.load(archive, env=venv, device="cpu", custom_objects=custom, force_reset=False)
    except (KeyError, ValueError, TypeError, RuntimeError, AssertionError) as exc:
        raise ConfigError(f"checkpoint {src}: cannot be loaded on the run's envs: {exc}") from None


def _type_name(text: Any) -> str | None:
    """``'ndarray'`` for SB3's ``":type:"`` text ``"<class 'numpy.ndarray'>"``."""
    m = re.fullmatch(r"<class '([\w.]+)'>", text) if isinstance(text, str) else None
    return m.group(1).rsplit(".", 1)[-1] if m else None


def _read_zip(zip_path: Path, fresh: Any) -> tuple[dict[str, Any], bytes, dict[str, Any]]:
    """(the ``data`` JSON, its bytes, the ``.pth`` members loaded with ``weights_only=True``) of a checkpoint."""
    import torch

    from ice_envs.agents.ppo_agent import MAX_CHECKPOINT_BYTES, MAX_DATA_BYTES, _check_zip_members, _read_member
    from ice_envs.core.errors import AgentSpecError
    from ice_envs.core.files import FileFormatError, decode_text, parse_json, read_bytes
    from ice_envs.train.config import ConfigError

    src = str(zip_path)
    state_dicts, variables = fresh._get_torch_save_params()
    expected = {f"{name}.pth" for name in state_dicts} | {_TORCH_VARIABLES}
    try:
        archive = zipfile.ZipFile(io.BytesIO(read_bytes(zip_path, what="checkpoint", max_bytes=MAX_CHECKPOINT_BYTES)))
        infos = _check_zip_members(archive, zip_path, MAX_CHECKPOINT_BYTES)
        if "data" not in infos:
            raise ConfigError(f"checkpoint {src}: no 'data' in the archive")
        if infos["data"].file_size > MAX_DATA_BYTES:
            raise ConfigError(f"checkpoint {src}: its 'data' is larger than the limit of {MAX_DATA_BYTES} bytes")
        unknown = sorted(n for n in infos if n.endswith(".pth") and n not in expected)
        missing = sorted(n for n in expected - {_TORCH_VARIABLES} if n not in infos)
        if unknown or missing:
            raise ConfigError(f"checkpoint {src}: unexpected weight files {unknown}, missing weight files {missing}")
        raw_data = _read_member(archive, infos["data"])
        raw_members = {n: _read_member(archive, infos[n]) for n in sorted(expected) if n in infos}
        data = parse_json(
            decode_text(raw_data, what="checkpoint data", source=f"{src}:data"),
            what="checkpoint data",
            source=f"{src}:data",
        )
    except ConfigError:
        raise
    except (FileFormatError, AgentSpecError) as exc:
        raise ConfigError(str(exc)) from None
    except (zipfile.BadZipFile, EOFError, KeyError, ValueError, OSError, RuntimeError) as exc:
        raise ConfigError(f"checkpoint {src} is not a MaskablePPO checkpoint: {exc}") from None
    if not isinstance(data, dict):
        raise ConfigError(f"checkpoint {src}: its data is not a JSON object")
    members: dict[str, Any] = {}
    for name, blob in raw_members.items():
        try:
            value = torch.load(io.BytesIO(blob), map_location="cpu", weights_only=True)
        except Exception as exc:  # weights_only refuses anything but tensors and plain containers
            raise ConfigError(f"checkpoint {src}: {name} cannot be read as plain weights: {exc}") from None
        if not isinstance(value, dict) or not all(isinstance(k, str) for k in value):
            raise ConfigError(f"checkpoint {src}: {name} is not a dict of named weights")
        if name == _TORCH_VARIABLES and not set(value) <= set(variables):
            raise ConfigError(f"checkpoint {src}: {name} names unknown variables {sorted(set(value) - set(variables))}")
        members[name] = value
    return data, raw_data, members


def restore_state(model: Any, zip_path: Path, pool: Any | None, league: Any | None = None) -> dict[str, Any] | None:
    """Put the envs, the pool, the league and the random generators back as they were when ``zip_path`` was saved.

    Returns what the callback needs to continue: ``logger`` (SB3 logger values pending at
    that moment), ``last_event`` (the last step whose scheduled events have run),
    ``pending_evals`` and ``evaluations`` (the rows of ``evaluations.jsonl`` at that moment).
    The state file is checked before anything is changed; an env that cannot replay its game
    is a :class:`~train.config.ConfigError` naming the env.
    """
    import torch

    from ice_envs.train.config import ConfigError

    state = read_state(zip_path)
    src = str(state_path(zip_path))
    run_dir = zip_path.parent.parent
    venv = model.get_env()
    if state["num_timesteps"] != model.num_timesteps:
        raise ConfigError(
            f"checkpoint state {src}: field 'num_timesteps' is {state['num_timesteps']}, "
            f"the checkpoint .zip is at {model.num_timesteps}"
        )
    expected = 1 if _one_state(venv) else venv.num_envs
    if len(state["envs"]) != expected:
        raise ConfigError(
            f"checkpoint state {src}: field 'envs' has {len(state['envs'])} env states, the config asks for {expected}"
        )
    envs = [_local(e, run_dir, src, f"envs[{i}]") for i, e in enumerate(state["envs"])]
    logger = decode_state(state["logger"], source=src, where="logger")
    if logger is not None:
        _check_logger(src, logger)
    rng = state["rng"]
    torch_state = torch.frombuffer(bytearray(base64.b64decode(rng["torch"])), dtype=torch.uint8).clone()
    if torch_state.numel() != torch.get_rng_state().numel():
        raise ConfigError(f"checkpoint state {src}: field 'rng.torch' is not a torch generator state of this torch")
    numpy_state = {
        "bit_generator": "MT19937",
        "state": {"key": np.asarray(rng["numpy"]["key"], dtype=np.uint32), "pos": rng["numpy"]["pos"]},
        "has_gauss": rng["numpy"]["has_gauss"],
        "gauss": float(rng["numpy"]["gauss"]),
    }
    py = rng["python"]
    python_state = (py["version"], tuple(py["state"]), py["gauss_next"])

    if league is not None and state["league"] is None:
        raise ConfigError(f"checkpoint state {src}: the config has a league (opponents.league), the state has none")
    if league is not None:
        league.load_state_dict(state["league"])
    if pool is not None and state["pool"] is not None:
        pool.load_state_dict(state["pool"])
        venv.env_method("set_pool", pool.paths())
    venv.reset()  # the envs must have started before their state can be replaced
    for i, env_state in enumerate(envs):
        try:
            venv.env_method("load_training_state", env_state, indices=[i])
        except (ValueError, OSError) as exc:
            raise ConfigError(f"checkpoint state {src}: field 'envs[{i}]' cannot be restored: {exc}") from None
    torch.set_rng_state(torch_state)
    np.random.set_state(numpy_state)
    random.setstate(python_state)
    return {
        "logger": logger,
        "last_event": state["last_event"],
        "pending_evals": state["pending_evals"],
        "evaluations": state["evaluations"],
    }


def _one_state(venv: Any) -> bool:
    """Whether ``venv`` keeps all its games in one state (a batched engine: one training_state call)."""
    return bool(getattr(venv, "one_state", False))


# ---------------------------------------------------------------------- field checks
def _fail(source: str, field: str, problem: str) -> Exception:
    from ice_envs.train.config import ConfigError

    return ConfigError(f"checkpoint state {source}: field {field!r} {problem}")


def _check_int(source: str, field: str, value: Any, low: int | None = None, high: int | None = None) -> int:
    if type(value) is not int or (low is not None and value < low) or (high is not None and value > high):
        bounds = f" in [{low}, {high}]" if high is not None else f" >= {low}" if low is not None else ""
        raise _fail(source, field, f"must be an integer{bounds}, got {value!r}")
    return value


def _check_uint32_list(source: str, field: str, value: Any, length: int) -> None:
    if not isinstance(value, list) or len(value) != length:
        raise _fail(source, field, f"must be a list of {length} integers")
    if not all(type(v) is int and 0 <= v < 2**32 for v in value):
        raise _fail(source, field, "must hold 32-bit unsigned integers only")


def _check_rng(source: str, rng: Any) -> None:
    if not isinstance(rng, dict) or set(rng) != {"torch", "numpy", "python"}:
        raise _fail(source, "rng", "must be an object with 'torch', 'numpy' and 'python'")
    if not isinstance(rng["torch"], str):
        raise _fail(source, "rng.torch", "must be a base64 string")
    try:
        base64.b64decode(rng["torch"], validate=True)
    except ValueError:
        raise _fail(source, "rng.torch", "is not valid base64") from None
    npy = rng["numpy"]
    if not isinstance(npy, dict) or set(npy) != {"bit_generator", "key", "pos", "has_gauss", "gauss"}:
        raise _fail(source, "rng.numpy", "must be an object with bit_generator, key, pos, has_gauss, gauss")
    if npy["bit_generator"] != "MT19937":
        raise _fail(source, "rng.numpy.bit_generator", f"must be 'MT19937', got {npy['bit_generator']!r}")
    _check_uint32_list(source, "rng.numpy.key", npy["key"], 624)
    _check_int(source, "rng.numpy.pos", npy["pos"], 0, 624)
    _check_int(source, "rng.numpy.has_gauss", npy["has_gauss"], 0, 1)
    if type(npy["gauss"]) not in (int, float) or not math.isfinite(npy["gauss"]):
        raise _fail(source, "rng.numpy.gauss", f"must be a finite number, got {npy['gauss']!r}")
    py = rng["python"]
    if not isinstance(py, dict) or set(py) != {"version", "state", "gauss_next"}:
        raise _fail(source, "rng.python", "must be an object with version, state, gauss_next")
    _check_int(source, "rng.python.version", py["version"], 3, 3)
    _check_uint32_list(source, "rng.python.state", py["state"], 625)
    if py["state"][-1] > 624:
        raise _fail(source, "rng.python.state", "has a position past 624")
    g = py["gauss_next"]
    if g is not None and (type(g) not in (int, float) or not math.isfinite(g)):
        raise _fail(source, "rng.python.gauss_next", f"must be null or a finite number, got {g!r}")


def _check_pool(source: str, pool: Any) -> None:
    if not isinstance(pool, dict) or set(pool) != {"snapshots", "promotions", "checks", "last_check"}:
        raise _fail(source, "pool", "must be an object with snapshots, promotions, checks, last_check")
    if not isinstance(pool["snapshots"], list):
        raise _fail(source, "pool.snapshots", "must be a list")
    for i, snap in enumerate(pool["snapshots"]):
        where = f"pool.snapshots[{i}]"
        if not isinstance(snap, dict) or set(snap) != {"step", "path"}:
            raise _fail(source, where, "must be an object with 'step' and 'path'")
        _check_int(source, f"{where}.step", snap["step"], low=0)
        name = snap["path"]
        if not isinstance(name, str) or not name or Path(name).name != name or name in (".", ".."):
            raise _fail(source, f"{where}.path", f"must be a file name inside the pool directory, got {name!r}")
    _check_int(source, "pool.promotions", pool["promotions"], low=0)
    _check_int(source, "pool.checks", pool["checks"], low=0)
    if pool["last_check"] is not None and not isinstance(pool["last_check"], dict):
        raise _fail(source, "pool.last_check", "must be null or an object")


_LEAGUE_KEYS = {
    "members",
    "stats",
    "weights",
    "snapshots_taken",
    "gate_promotions",
    "scheduled",
    "games_since_snapshot",
    "history",
}


def _check_league(source: str, league: Any) -> None:
    """The ``league`` field: members (snapshot files inside the pool directory), estimates and weights."""
    if not isinstance(league, dict) or set(league) != _LEAGUE_KEYS:
        raise _fail(source, "league", f"must be an object with exactly {sorted(_LEAGUE_KEYS)}")
    members = league["members"]
    if not isinstance(members, list) or not members:
        raise _fail(source, "league.members", "must be a non-empty list")
    names = []
    for i, m in enumerate(members):
        where = f"league.members[{i}]"
        if not isinstance(m, dict) or set(m) != {"name", "kind", "ref", "step"}:
            raise _fail(source, where, "must be an object with name, kind, ref, step")
        if not all(isinstance(m[k], str) and m[k] for k in ("name", "kind", "ref")):
            raise _fail(source, where, "name, kind and ref must be non-empty strings")
        if m["kind"] not in ("agent", "snapshot"):
            raise _fail(source, f"{where}.kind", f"must be agent or snapshot, got {m['kind']!r}")
        if m["kind"] == "snapshot" and (Path(m["ref"]).name != m["ref"] or not m["ref"].endswith(".npz")):
            raise _fail(source, f"{where}.ref", f"must be a .npz file name inside the pool directory, got {m['ref']!r}")
        _check_int(source, f"{where}.step", m["step"], low=0)
        names.append(m["name"])
    stats, weights = league["stats"], league["weights"]
    if not isinstance(stats, dict) or sorted(stats) != sorted(names) or len(set(names)) != len(names):
        raise _fail(source, "league.stats", "must hold one entry per member (distinct names)")
    for name, v in stats.items():
        ok = isinstance(v, list) and len(v) == 3 and all(type(x) in (int, float) and math.isfinite(x) for x in v)
        if not ok or v[0] < 0 or v[1] < v[0] or type(v[2]) is not int or v[2] < 0:
            raise _fail(source, f"league.stats.{name}", "must be [wins, games, count] with 0 <= wins <= games")
    if not isinstance(weights, list) or len(weights) != len(names):
        raise _fail(source, "league.weights", "must hold one integer per member")
    for i, w in enumerate(weights):
        _check_int(source, f"league.weights[{i}]", w, low=0)
    if sum(weights) <= 0:
        raise _fail(source, "league.weights", "must not all be 0")
    for key in ("snapshots_taken", "gate_promotions", "scheduled", "games_since_snapshot"):
        _check_int(source, f"league.{key}", league[key], low=0)
    history = league["history"]
    if not isinstance(history, list) or not all(
        isinstance(h, dict) and set(h) == {"step", "member", "reason"} for h in history
    ):
        raise _fail(source, "league.history", "must be a list of {step, member, reason}")


def _check_pending_evals(source: str, pending: Any) -> None:
    """The ``pending_evals`` field: evaluations of policy files inside the run's ``policies/``."""
    if not isinstance(pending, list):
        raise _fail(source, "pending_evals", "must be a list")
    for i, e in enumerate(pending):
        where = f"pending_evals[{i}]"
        if not isinstance(e, dict) or set(e) != {"step", "policy", "games", "pool_scalars", "pool_state"}:
            raise _fail(source, where, "must be an object with step, policy, games, pool_scalars, pool_state")
        _check_int(source, f"{where}.step", e["step"], low=0)
        _check_int(source, f"{where}.games", e["games"], low=1)
        name = e["policy"]
        if not isinstance(name, str) or Path(name).name != name or not name.endswith(".npz"):
            raise _fail(source, f"{where}.policy", f"must be a .npz file name inside policies/, got {name!r}")
        scalars = e["pool_scalars"]
        if not isinstance(scalars, dict) or not all(
            isinstance(k, str) and type(v) in (int, float) and math.isfinite(v) for k, v in scalars.items()
        ):
            raise _fail(source, f"{where}.pool_scalars", "must map names to finite numbers")
        state = e["pool_state"]
        if state is not None and not (
            isinstance(state, dict) and all(isinstance(k, str) and type(v) is int for k, v in state.items())
        ):
            raise _fail(source, f"{where}.pool_state", "must be null or map names to integers")


def _check_logger(source: str, logger: Any) -> None:
    if not isinstance(logger, dict) or set(logger) != {"values", "counts", "excluded"}:
        raise _fail(source, "logger", "must hold values, counts and excluded")
    for part in ("values", "counts", "excluded"):
        if not isinstance(logger[part], dict) or not all(isinstance(k, str) for k in logger[part]):
            raise _fail(source, f"logger.{part}", "must be an object keyed by metric names")
    for key, value in logger["values"].items():
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating, str)):
            raise _fail(source, f"logger.values[{key!r}]", f"must be a number or a string, got {type(value).__name__}")
    for key, value in logger["counts"].items():
        if type(value) is not int or value < 0:
            raise _fail(source, f"logger.counts[{key!r}]", f"must be a count, got {value!r}")
    for key, value in logger["excluded"].items():
        if value is not None and not (isinstance(value, tuple) and all(isinstance(v, str) for v in value)):
            raise _fail(source, f"logger.excluded[{key!r}]", f"must be null or a tuple of strings, got {value!r}")


# ---------------------------------------------------------------------- plain values
def encode_state(value: Any) -> Any:
    """A model's runtime values and logger values as plain JSON; :func:`decode_state` reverses it.

    JSON values as they are; numpy arrays as ``{"$array": dtype, "shape", "data"}``, numpy scalars as
    ``{"$scalar": dtype, "value"}`` (their dtype kept: the logger averages in it), tuples as
    ``{"$tuple": [...]}`` and non-finite floats as ``{"$float": "nan"}``. Nothing else: an object
    is a :class:`TypeError` (a checkpoint saves declared state, never objects).
    """
    if value is None or type(value) in (bool, str, int):
        return value
    if type(value) is float:
        return value if math.isfinite(value) else {"$float": repr(value)}
    if isinstance(value, np.generic):
        if value.dtype.kind not in _DTYPE_KINDS:
            raise TypeError(f"cannot save a numpy {value.dtype} scalar in a checkpoint state")
        return {"$scalar": value.dtype.str, "value": encode_state(value.item())}
    if isinstance(value, np.ndarray):
        if value.dtype.kind not in _DTYPE_KINDS:
            raise TypeError(f"cannot save a numpy array of {value.dtype} in a checkpoint state")
        flat = value.ravel().tolist()
        data = [encode_state(v) for v in flat] if value.dtype.kind == "f" else flat
        return {"$array": value.dtype.str, "shape": list(value.shape), "data": data}
    if type(value) is tuple:
        return {"$tuple": [encode_state(v) for v in value]}
    if type(value) is list:
        return [encode_state(v) for v in value]
    if type(value) is dict and all(type(k) is str and not k.startswith("$") for k in value):
        return {k: encode_state(v) for k, v in value.items()}
    raise TypeError(f"cannot save a {type(value).__module__}.{type(value).__qualname__} in a checkpoint state")


_DTYPE_KINDS = "biuf"  # bool, signed, unsigned, float: no object, string, void or datetime dtypes


def decode_state(data: Any, *, source: str, where: str) -> Any:
    """Rebuild what :func:`encode_state` wrote; a bad value is a ConfigError naming ``source`` and the field."""
    if data is None or type(data) in (bool, int, str):
        return data
    if type(data) is float:
        if not math.isfinite(data):
            raise _fail(source, where, "holds a non-finite number")
        return data
    if type(data) is list:
        return [decode_state(v, source=source, where=f"{where}[{i}]") for i, v in enumerate(data)]
    if type(data) is not dict:
        raise _fail(source, where, f"holds an unexpected {type(data).__name__}")
    tags = [k for k in data if k.startswith("$")]
    if not tags:
        return {k: decode_state(v, source=source, where=f"{where}.{k}") for k, v in data.items()}
    tag = tags[0] if len(tags) == 1 else None
    if tag == "$float" and set(data) == {"$float"} and data["$float"] in ("nan", "inf", "-inf"):
        return float(data["$float"])
    if tag == "$tuple" and set(data) == {"$tuple"} and isinstance(data["$tuple"], list):
        return tuple(decode_state(v, source=source, where=f"{where}[{i}]") for i, v in enumerate(data["$tuple"]))
    if tag == "$scalar" and set(data) == {"$scalar", "value"}:
        dtype = _dtype(data["$scalar"], source, where)
        value = decode_state(data["value"], source=source, where=where)
        if type(value) not in (bool, int, float):
            raise _fail(source, where, f"is not a number ({value!r})")
        try:
            return dtype.type(value)
        except (OverflowError, ValueError, TypeError) as exc:
            raise _fail(source, where, f"is not a {dtype}: {exc}") from None
    if tag == "$array" and set(data) == {"$array", "shape", "data"}:
        return _array(data, source, where)
    raise _fail(source, where, f"has an unknown tag {tags}")


def _dtype(text: Any, source: str, where: str) -> np.dtype:
    if not isinstance(text, str) or not re.fullmatch(r"[<>|=]?[biuf][1248]", text):
        raise _fail(source, where, f"names an unsupported dtype {text!r}")
    return np.dtype(text)


def _array(data: dict[str, Any], source: str, where: str) -> np.ndarray:
    dtype = _dtype(data["$array"], source, where)
    shape = data["shape"]
    if not isinstance(shape, list) or not all(type(s) is int and s >= 0 for s in shape) or len(shape) > 32:
        raise _fail(source, where, f"has a bad shape {shape!r}")
    flat = data["data"]
    if not isinstance(flat, list) or len(flat) != math.prod(shape):
        raise _fail(source, where, f"must hold {math.prod(shape)} values")
    values = [decode_state(v, source=source, where=where) if isinstance(v, dict) else v for v in flat]
    if not all(type(v) in (bool, int, float) for v in values):
        raise _fail(source, where, "must hold numbers only")
    try:
        return np.asarray(values, dtype=dtype).reshape(shape)
    except (OverflowError, ValueError, TypeError) as exc:
        raise _fail(source, where, f"is not a {dtype} array: {exc}") from None
