"""Training configs: YAML files validated into the typed schema of :mod:`train.config_schema`.

A config is a YAML mapping whose keys are the fields of :class:`TrainConfig` (the reference:
``docs/reference/config.md``, generated from the schema by :mod:`train.config_reference`); with
``backend: rllib`` they are those of :class:`RLlibTrainConfig` instead (``train.rllib_backend`` runs it;
docs/rllib.md). Loading checks every key and value and raises one :class:`ConfigError` naming the file
and the dotted key (``ppo.learning_rate: must be a finite number, got inf``) on an unknown key (with a
suggestion), a value of the wrong type or out of range, an unknown game, a player count the game does not
take or a game option the game rejects. Nothing in a config is evaluated or unpickled.

``--set key=value`` overrides (:func:`apply_overrides`) address the same dotted keys;
the value is read as YAML (``--set ppo.net_arch=[128,128]``).
"""

from __future__ import annotations

import copy
import typing
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ValidationError
from pydantic.fields import FieldInfo

from ice_envs.core.errors import OptionError, did_you_mean
from ice_envs.train.config_constraints import constraint_text, literal_values, unwrap
from ice_envs.train.config_schema import (
    BACKENDS,
    CONFIG_ERROR,
    EVAL_OPPONENTS,
    OPPONENT_KINDS,
    RLLIB_EVAL_OPPONENTS,
    TEACHERS,
    EvalConfig,
    GameConfig,
    ImitationConfig,
    LeagueConfig,
    ModelConfig,
    OpponentsConfig,
    PPOConfig,
    RayConfig,
    RLlibEvalConfig,
    RLlibPPOConfig,
    RLlibTrainConfig,
    RunConfig,
    SelfPlayConfig,
    ShapingConfig,
    TrainConfig,
    collection_workers,
)

__all__ = [
    "BACKENDS",
    "EVAL_OPPONENTS",
    "OPPONENT_KINDS",
    "RLLIB_EVAL_OPPONENTS",
    "TEACHERS",
    "ConfigError",
    "EvalConfig",
    "GameConfig",
    "ImitationConfig",
    "LeagueConfig",
    "ModelConfig",
    "OpponentsConfig",
    "PPOConfig",
    "RLlibEvalConfig",
    "RLlibPPOConfig",
    "RLlibTrainConfig",
    "RayConfig",
    "RunConfig",
    "SelfPlayConfig",
    "ShapingConfig",
    "TrainConfig",
    "apply_overrides",
    "backend_of",
    "collection_workers",
    "config_from_dict",
    "dump_config",
    "load_config",
    "parse_override",
    "read_config_data",
    "rllib_config_from_dict",
]


class ConfigError(OptionError):
    """A bad training config: the message names the offending key."""


# ---------------------------------------------------------------------------- loading


def load_config(path: str | Path, overrides: list[str] | None = None) -> TrainConfig | RLlibTrainConfig:
    """Read, override and validate the YAML config at ``path``.

    The file is read through :func:`ice_envs.core.files.load_yaml`: a regular file within
    the size cap, UTF-8 with or without a byte-order mark, plain YAML data only, nesting
    bounded. Every failure is a :class:`ConfigError` naming the file (and the line).
    """
    path = Path(path)
    data = read_config_data(path)
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: the config must be a mapping of keys, got {type(data).__name__}")
    data = apply_overrides(data, overrides or [])
    data.setdefault("name", path.stem)
    if backend_of(data, str(path)) == "rllib":
        return rllib_config_from_dict(data, source=str(path))  # type: ignore[return-value]
    data.pop("backend", None)
    return config_from_dict(data, source=str(path))


def backend_of(data: dict[str, Any], source: str = "config") -> str:
    """The ``backend`` key of a config: ``sb3`` (MaskablePPO, the default) or ``rllib`` (:mod:`train.rllib_backend`)."""
    backend = data.get("backend", "sb3")
    if backend not in BACKENDS:
        raise ConfigError(f"{source}: backend: {backend!r} is not one of {list(BACKENDS)}")
    return str(backend)


def read_config_data(path: str | Path) -> Any:
    """The YAML document of the config file ``path``, read safely; :class:`ConfigError` naming it if not."""
    from ice_envs.core.files import FileFormatError, load_yaml

    path = Path(path)
    if not path.exists():
        raise ConfigError(f"config file not found: {path}")
    try:
        return load_yaml(path, what="config file")
    except FileFormatError as exc:
        raise ConfigError(str(exc)) from None


def config_from_dict(data: dict[str, Any], source: str = "config") -> TrainConfig:
    """Validate plain data into a :class:`TrainConfig` (:class:`ConfigError` naming ``source`` and the key)."""
    return _validated(TrainConfig, data, source)


def rllib_config_from_dict(data: dict[str, Any], source: str = "config") -> RLlibTrainConfig:
    """Validate plain data (with ``backend: rllib``) into an :class:`RLlibTrainConfig`."""
    return _validated(RLlibTrainConfig, data, source)


def parse_override(text: str) -> tuple[list[str], Any]:
    """``a.b=value`` -> (``["a", "b"]``, value read as YAML)."""
    key, sep, raw = text.partition("=")
    key = key.strip()
    if not sep or not key:
        raise ConfigError(f"override {text!r} is not key=value (as in --set ppo.learning_rate=1e-4)")
    from ice_envs.core.files import FileFormatError, YamlSyntaxError, parse_yaml

    try:
        value = parse_yaml(raw, what="override", source=repr(key)) if raw.strip() else None
    except YamlSyntaxError:
        value = raw
    except FileFormatError as exc:
        raise ConfigError(str(exc)) from None
    return key.split("."), value


def apply_overrides(data: dict[str, Any], overrides: list[str]) -> dict[str, Any]:
    """A copy of ``data`` with each ``key=value`` override set (unknown keys fail later, by name)."""
    data = copy.deepcopy(data)
    for text in overrides:
        keys, value = parse_override(text)
        node = data
        for i, k in enumerate(keys[:-1]):
            child = node.get(k)
            if child is None:
                child = node[k] = {}
            if not isinstance(child, dict):
                raise ConfigError(f"override {text!r}: {'.'.join(keys[: i + 1])} is not a mapping")
            node = child
        node[keys[-1]] = value
    return data


def dump_config(cfg: TrainConfig | RLlibTrainConfig) -> str:
    """The resolved config as YAML."""
    return yaml.safe_dump(cfg.to_dict(), sort_keys=False)


# ---------------------------------------------------------------------------- one line per failure

_M = typing.TypeVar("_M", bound=BaseModel)

#: Messages of pydantic's own errors (the schema's checks word theirs, error type ``config``).
_TYPE_MESSAGES = {
    "model_type": "expected a mapping",
    "model_attributes_type": "expected a mapping",
    "dict_type": "expected a mapping",
    "list_type": "expected a list",
    "string_type": "expected a string",
    "bool_type": "expected true or false",
    "int_type": "expected an integer",
    "float_type": "expected a number",
    "finite_number": "must be a finite number",
}
_RANGE_ERRORS = ("greater_than", "greater_than_equal", "less_than", "less_than_equal")


def _validated(cls: type[_M], data: Any, source: str) -> _M:
    try:
        return cls.model_validate(data)
    except ValidationError as exc:
        errors = exc.errors()
        # an unknown key first (a typo, most likely the cause of what else failed), then in the schema's order
        first = next((e for e in errors if e["type"] == "extra_forbidden"), errors[0])
        raise ConfigError(f"{source}: {_one_line(cls, first)}") from None


def _dotted(loc: tuple[Any, ...] | list[Any]) -> str:
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += f".{part}" if out else str(part)
    return out


def _one_line(root: type[BaseModel], error: Any) -> str:
    """``dotted.key: problem, got value`` for one pydantic error of validating ``root``."""
    loc = tuple(error["loc"])
    kind = error["type"]
    got = repr(error.get("input"))
    if kind == CONFIG_ERROR:
        ctx = error["ctx"]
        where, below = _dotted(loc), str(ctx["key"])
        if below and where:
            where += below if below.startswith("[") else f".{below}"
        return f"{where or below or 'the config'}: {ctx['text']}"
    if loc and loc[-1] == "[key]":
        return f"{_dotted(loc[:-2])}: keys must be strings, got {loc[-2]!r}"
    where = _dotted(loc) or "the config"
    if kind == "extra_forbidden":
        section = unwrap(_field_at(root, loc[:-1])[1])
        names = list(section.model_fields) if isinstance(section, type) and issubclass(section, BaseModel) else []
        hint = did_you_mean(str(loc[-1]), names) or f"; known keys: {', '.join(names)}"
        return f"{where}: unknown key{hint}"
    info, annotation = _field_at(root, loc)
    if kind == "literal_error":
        return f"{where}: {error.get('input')!r} is not one of {literal_values(annotation)}"
    if kind in _RANGE_ERRORS and info is not None and constraint_text(info):
        return f"{where}: must be {constraint_text(info)}, got {got}"
    if kind in ("value_error", "assertion_error") and "error" in error.get("ctx", {}):
        return f"{where}: {error['ctx']['error']}"
    if kind in _TYPE_MESSAGES:
        return f"{where}: {_TYPE_MESSAGES[kind]}, got {got}"
    return f"{where}: {error['msg'].lower()}, got {got}"


def _field_at(root: type[BaseModel], loc: tuple[Any, ...]) -> tuple[FieldInfo | None, Any]:
    """The field (if ``loc`` ends at a model's field) and the annotation at ``loc`` below ``root``."""
    info: FieldInfo | None = None
    annotation: Any = root
    for part in loc:
        tp = unwrap(annotation)
        origin = typing.get_origin(tp)
        if isinstance(tp, type) and issubclass(tp, BaseModel) and part in tp.model_fields:
            info = tp.model_fields[part]
            annotation = info.annotation
        elif origin is list and isinstance(part, int):
            info, annotation = None, typing.get_args(tp)[0]
        elif origin is dict:
            info, annotation = None, typing.get_args(tp)[1]
        else:
            return None, None
    return info, annotation
