"""The training config schema's types and ranges in words, for its error messages and its reference page.

One wording for both: ``ppo.gamma: must be in (0, 1], got 1.5`` on a bad value, ``in (0, 1]`` in the
reference table (:mod:`train.config_reference`).
"""

from __future__ import annotations

import types
import typing
from typing import Any, Literal

import annotated_types
from pydantic.fields import FieldInfo


def unwrap(annotation: Any) -> Any:
    """``annotation`` without ``Annotated[...]`` and without ``| None``."""
    while True:
        origin = typing.get_origin(annotation)
        if origin is typing.Annotated:
            annotation = typing.get_args(annotation)[0]
        elif origin in (typing.Union, types.UnionType):
            args = [a for a in typing.get_args(annotation) if a is not type(None)]
            if len(args) != 1:
                return annotation
            annotation = args[0]
        else:
            return annotation


def nullable(annotation: Any) -> bool:
    """Whether ``annotation`` takes ``null``."""
    while typing.get_origin(annotation) is typing.Annotated:
        annotation = typing.get_args(annotation)[0]
    return typing.get_origin(annotation) in (typing.Union, types.UnionType) and type(None) in typing.get_args(
        annotation
    )


def literal_values(annotation: Any) -> list[Any]:
    """The values a ``Literal`` annotation (or ``Literal | None``) allows."""
    tp = unwrap(annotation)
    return list(typing.get_args(tp)) if typing.get_origin(tp) is Literal else []


def _number(value: Any) -> str:
    return str(int(value)) if isinstance(value, float) and value.is_integer() else str(value)


def constraint_text(info: FieldInfo) -> str:
    """The field's range: ``> 0``, ``>= 1 or null``, ``in (0, 1]``, ``in 0..2`` (integers), or ``""``."""
    low = high = None
    for rule in info.metadata:
        if isinstance(rule, annotated_types.Gt):
            low = ("(", rule.gt)
        elif isinstance(rule, annotated_types.Ge):
            low = ("[", rule.ge)
        elif isinstance(rule, annotated_types.Lt):
            high = (")", rule.lt)
        elif isinstance(rule, annotated_types.Le):
            high = ("]", rule.le)
    if low and high:
        if unwrap(info.annotation) is int and low[0] == "[" and high[0] == "]":
            text = f"in {_number(low[1])}..{_number(high[1])}"
        else:
            text = f"in {low[0]}{_number(low[1])}, {_number(high[1])}{high[0]}"
    elif low:
        text = f"{'>' if low[0] == '(' else '>='} {_number(low[1])}"
    elif high:
        text = f"{'<' if high[0] == ')' else '<='} {_number(high[1])}"
    else:
        return ""
    return f"{text} or null" if nullable(info.annotation) else text
