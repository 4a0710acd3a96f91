"""Plain-JSON encoding of engine states.

Engine states are dataclasses holding ints, lists, tuples, dicts and small numpy
arrays. :func:`to_jsonable` turns such a value into data that ``json.dumps`` accepts
and :func:`from_jsonable` restores it exactly (same types, same dtypes), so that
``state_dict()`` / ``load_state_dict()`` round-trip a game without pickle.

Only dataclasses defined inside the ``ice_envs`` package or the package of a registered
game (a plug-in the user installed) are restored, so that a state file cannot make the
loader import arbitrary code.
"""

from __future__ import annotations

import dataclasses
import importlib
from typing import Any

import numpy as np

from ice_envs.core.registry import GAMES


def _trusted(module_name: str) -> bool:
    """Whether ``module_name`` lies in ``ice_envs`` or in a registered game's package."""
    packages = {"ice_envs", *(spec.package for spec in GAMES.values())}
    return any(module_name == p or module_name.startswith(p + ".") for p in packages)


def to_jsonable(value: Any) -> Any:
    """Encode ``value`` as JSON-able data (dicts, lists, str, int, float, bool, None)."""
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        return float(value)
    if isinstance(value, np.ndarray):
        return {"__ndarray__": value.tolist(), "dtype": str(value.dtype), "shape": list(value.shape)}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        cls = type(value)
        fields = {f.name: to_jsonable(getattr(value, f.name)) for f in dataclasses.fields(value)}
        return {"__dataclass__": f"{cls.__module__}:{cls.__qualname__}", "fields": fields}
    if isinstance(value, tuple):
        return {"__tuple__": [to_jsonable(v) for v in value]}
    if isinstance(value, (set, frozenset)):
        return {"__set__": sorted((to_jsonable(v) for v in value), key=repr)}
    if isinstance(value, list):
        return [to_jsonable(v) for v in value]
    if isinstance(value, dict):
        if all(isinstance(k, str) and not k.startswith("__") for k in value):
            return {k: to_jsonable(v) for k, v in value.items()}
        return {"__items__": [[to_jsonable(k), to_jsonable(v)] for k, v in value.items()]}
    raise TypeError(f"cannot encode {type(value).__name__} as JSON-able state")


def _load_dataclass(path: str) -> type:
    module_name, _, qualname = path.partition(":")
    if not _trusted(module_name):
        raise ValueError(f"refusing to load state class {path!r} from outside ice_envs and the registered games")
    obj: Any = importlib.import_module(module_name)
    for part in qualname.split("."):
        obj = getattr(obj, part)
    if not dataclasses.is_dataclass(obj):
        raise ValueError(f"{path!r} is not a dataclass")
    return obj


def from_jsonable(data: Any) -> Any:
    """Inverse of :func:`to_jsonable`."""
    if isinstance(data, list):
        return [from_jsonable(v) for v in data]
    if not isinstance(data, dict):
        return data
    if "__ndarray__" in data:
        arr = np.array(data["__ndarray__"], dtype=np.dtype(data["dtype"]))
        return arr.reshape(data["shape"])
    if "__dataclass__" in data:
        cls = _load_dataclass(data["__dataclass__"])
        kwargs = {k: from_jsonable(v) for k, v in data["fields"].items()}
        init_names = {f.name for f in dataclasses.fields(cls) if f.init}
        obj = cls(**{k: v for k, v in kwargs.items() if k in init_names})
        for k, v in kwargs.items():
            if k not in init_names:
                object.__setattr__(obj, k, v)
        return obj
    if "__tuple__" in data:
        return tuple(from_jsonable(v) for v in data["__tuple__"])
    if "__set__" in data:
        return {from_jsonable(v) for v in data["__set__"]}
    if "__items__" in data:
        return {_hashable(from_jsonable(k)): from_jsonable(v) for k, v in data["__items__"]}
    return {k: from_jsonable(v) for k, v in data.items()}


def _hashable(key: Any) -> Any:
    return tuple(key) if isinstance(key, list) else key
