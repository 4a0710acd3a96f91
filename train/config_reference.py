"""The training config's reference page, generated from its schema (:mod:`train.config_schema`).

``python -m ice_envs.train.config_reference`` writes ``docs/reference/config.md`` (``--check``: exit 1
if the committed page differs from the schema, as ``tests/train/test_config_reference.py`` does). Each
key's row gives its type, its default, its constraint (a ``Field`` range and, for a rule over several
keys, the rule's text) and its ``Field(description=...)``.
"""

from __future__ import annotations

import argparse
import re
import sys
import types
import typing
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel
from pydantic.fields import FieldInfo

from ice_envs.train.config_constraints import constraint_text, nullable, unwrap
from ice_envs.train.config_schema import RLlibTrainConfig, TrainConfig

#: Where the page lives in the repository.
PAGE = Path("docs") / "reference" / "config.md"

_INTRO = """\
# Training config reference

<!-- Generated from train/config_schema.py by `python -m ice_envs.train.config_reference`: do not edit. -->

A training config is a YAML mapping of these keys; every key is optional (its default applies) and
`--set key.sub=value` sets one from the command line, the value read as YAML (`--set ppo.net_arch=[128,128]`).
Types are strict: `true`/`false` for a flag, a number for a number (`"5"` in quotes is a string), a list
for a list. A number may be written `3e-4`, `1e5` or `1_000_000`; an integer key also takes a whole float
(`3e5`); every float must be finite. An unknown key, a value of the wrong type or out of range, or a
rule broken is one line naming the key, and `ice-envs train` exits with status 2:

```text
cfg.yaml: ppo.learnig_rate: unknown key (did you mean 'learning_rate'?)
cfg.yaml: ppo.learning_rate: must be a finite number, got inf
```

A section given as `null` takes its defaults. How to use the keys: [Training agents](../training.md);
the RLlib backend: [RLlib](../rllib.md).
"""


def _type_text(annotation: Any) -> str:
    """A type in words: ``int``, ``float or null``, ``list of str``, ``one of `a`, `b```."""
    if nullable(annotation):
        return f"{_type_text(unwrap(annotation))} or null"
    tp = unwrap(annotation)
    origin = typing.get_origin(tp)
    if origin is Literal:
        values = ", ".join(f"`{v}`" for v in typing.get_args(tp))
        return f"one of {values}" if len(typing.get_args(tp)) > 1 else values
    if origin in (typing.Union, types.UnionType):
        return ", or ".join(_type_text(a) for a in typing.get_args(tp))
    if origin is list:
        return f"list of {_type_text(typing.get_args(tp)[0])}"
    if origin is dict:
        value = typing.get_args(tp)[1]
        return "mapping" if value is Any else f"mapping of str to {_type_text(value)}"
    if isinstance(tp, type) and issubclass(tp, BaseModel):
        return "mapping"
    return getattr(tp, "__name__", str(tp))


def _default_text(info: FieldInfo) -> str:
    value = info.get_default(call_default_factory=True)
    if isinstance(value, BaseModel):
        return ""
    text = yaml.safe_dump(value, default_flow_style=True, width=1000).strip()
    return f"`{text.removesuffix('...').strip()}`"


def _markdown(text: str) -> str:
    """``text`` safe in a table cell: ``|`` escaped, and ``*`` outside code spans."""
    parts = text.split("`")
    for i in range(0, len(parts), 2):
        parts[i] = parts[i].replace("*", r"\*")
    return "`".join(parts).replace("|", r"\|")


def _constraint(info: FieldInfo) -> str:
    rule = (info.json_schema_extra or {}).get("rule") if isinstance(info.json_schema_extra, dict) else None
    return "; ".join(t for t in (constraint_text(info), str(rule) if rule else "") if t)


def _sections(model: type[BaseModel], prefix: str = "") -> list[tuple[str, type[BaseModel], FieldInfo | None]]:
    """``model`` and every section below it, depth first: (dotted name, model, the field holding it)."""
    out: list[tuple[str, type[BaseModel], FieldInfo | None]] = [(prefix, model, None)] if not prefix else []
    for name, info in model.model_fields.items():
        tp = unwrap(info.annotation)
        if isinstance(tp, type) and issubclass(tp, BaseModel):
            key = f"{prefix}{name}"
            out.append((key, tp, info))
            out.extend(_sections(tp, f"{key}."))
    return out


def _table(prefix: str, model: type[BaseModel]) -> list[str]:
    lines = ["| key | type | default | constraint | description |", "|---|---|---|---|---|"]
    for name, info in model.model_fields.items():
        tp = unwrap(info.annotation)
        if isinstance(tp, type) and issubclass(tp, BaseModel):
            continue
        cells = [
            f"`{prefix}{name}`",
            _type_text(info.annotation),
            _default_text(info),
            _constraint(info),
            info.description or "",
        ]
        lines.append("| " + " | ".join(_markdown(c) for c in cells) + " |")
    return lines


def _backend(title: str, model: type[BaseModel]) -> list[str]:
    lines = [f"## {title}", ""]
    for key, section, holder in _sections(model):
        if not any(
            not (isinstance(unwrap(i.annotation), type) and issubclass(unwrap(i.annotation), BaseModel))
            for i in section.model_fields.values()
        ):
            continue
        doc = (section.__doc__ or "").strip().split("\n\n")[0].replace("\n", " ")
        if holder is not None and holder.description:
            doc = holder.description
        heading = f"`{key}`" if key else "Top-level keys"
        if key and nullable(holder.annotation if holder else None):
            heading += " (or `null`)"
        lines += [f"### {heading}", "", _markdown(_plain(doc)), "", *_table(f"{key}." if key else "", section), ""]
    return lines


def _plain(docstring: str) -> str:
    """A docstring line without Sphinx roles (``:mod:`train.league``` -> ```train.league```)."""
    return re.sub(r":[a-z]+:`~?([^`]+)`", r"`\1`", docstring).replace("``", "`")


def render() -> str:
    """The reference page's Markdown."""
    lines = [
        _INTRO,
        *_backend("SB3 backend (the default): `TrainConfig`", TrainConfig),
        *_backend("RLlib backend (`backend: rllib`): `RLlibTrainConfig`", RLlibTrainConfig),
    ]
    return "\n".join(lines).rstrip("\n") + "\n"


def main(argv: list[str] | None = None) -> int:
    """Write the page (or, with ``--check``, compare it); the repository root is the working directory."""
    parser = argparse.ArgumentParser(prog="python -m ice_envs.train.config_reference", description=__doc__)
    parser.add_argument("--check", action="store_true", help="exit 1 if the page differs from the schema")
    parser.add_argument("--out", type=Path, default=PAGE, help=f"the page (default: {PAGE})")
    args = parser.parse_args(argv)
    text = render()
    if args.check:
        from ice_envs.core.files import read_text

        same = args.out.is_file() and read_text(args.out, what="config reference page") == text
        if not same:
            print(f"{args.out} differs from the schema: run python -m ice_envs.train.config_reference", file=sys.stderr)
        return 0 if same else 1
    from ice_envs.core.files import write_atomic

    args.out.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(args.out, text)
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
