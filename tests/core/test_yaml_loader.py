"""The one YAML loader (``ice_envs.core.files.parse_yaml`` / ``load_yaml``): plain data, measured before it is built."""

from __future__ import annotations

import pytest

from ice_envs.core.files import (
    MAX_YAML_NODES,
    FileFormatError,
    YamlSyntaxError,
    load_yaml,
    parse_yaml,
)
from ice_envs.train.config import ConfigError, parse_override

LEVELS = "abcdefghi"
ALIAS_BOMB = 'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]\n' + "".join(
    f"{b}: &{b} [{','.join([f'*{a}'] * 9)}]\n" for a, b in zip(LEVELS, LEVELS[1:])
)


def _parse(text: str):
    return parse_yaml(text, what="config", source="c.yaml")


def test_plain_data_anchors_and_merge_keys_load_as_before() -> None:
    text = "base: &base {lr: 0.1, arch: [32, 32]}\nrun: {<<: *base, lr: 0.2}\nflag: yes\nnone:\n"
    assert _parse(text) == {
        "base": {"lr": 0.1, "arch": [32, 32]},
        "run": {"lr": 0.2, "arch": [32, 32]},
        "flag": True,
        "none": None,
    }
    assert _parse("") is None and _parse("# only a comment\n") is None


def test_an_alias_bomb_is_refused_before_it_is_built() -> None:
    assert len(ALIAS_BOMB) < 400
    with pytest.raises(FileFormatError, match=rf"c.yaml: more than {MAX_YAML_NODES} values once its aliases"):
        _parse(ALIAS_BOMB)


def test_aliases_count_every_time_they_are_used() -> None:
    # 150 uses of a 200-value list: 30,000 values once expanded, from a document of a few hundred values
    text = "x: &x [" + ",".join(["1"] * 199) + "]\ny: [" + ",".join(["*x"] * 150) + "]\n"
    with pytest.raises(FileFormatError, match="once its aliases are expanded"):
        _parse(text)
    assert len(_parse("x: &x [1, 2]\ny: [*x, *x]\n")["y"]) == 2


@pytest.mark.parametrize("text", ["&a [*a]", "a: &a {b: *a}\n"])
def test_a_recursive_alias_is_refused(text: str) -> None:
    with pytest.raises(FileFormatError, match="recursive alias"):
        _parse(text)


@pytest.mark.parametrize(
    "text",
    ["[" * 33 + "]" * 33, "[" * 400_000, "a:\n" + "".join(" " * (i + 1) + "a:\n" for i in range(40))],
    ids=["33-levels", "400k-open-brackets", "block-nesting"],
)
def test_deep_nesting_is_refused(text: str) -> None:
    with pytest.raises(FileFormatError, match="nested deeper than 32 levels"):
        _parse(text)
    assert _parse("[" * 32 + "1" + "]" * 32) is not None


def test_too_many_values_are_refused_while_composing() -> None:
    with pytest.raises(FileFormatError, match=f"more than {MAX_YAML_NODES} values"):
        _parse("- 1\n" * 200_000)


@pytest.mark.parametrize("text", ["a: !!python/object/apply:os.system ['true']\n", "a: !!python/name:os.system\n"])
def test_tags_that_build_objects_are_refused(text: str) -> None:
    with pytest.raises(YamlSyntaxError, match=r"c.yaml, line 1: not valid YAML"):
        _parse(text)


def test_syntax_errors_name_the_line() -> None:
    with pytest.raises(YamlSyntaxError, match=r"c.yaml, line 2: not valid YAML"):
        _parse("a: 1\nb: c: d\n")
    with pytest.raises(YamlSyntaxError, match="not valid YAML"):
        _parse("--- 1\n--- 2\n")


def test_load_yaml_reads_through_the_capped_reader(tmp_path) -> None:
    path = tmp_path / "c.yaml"
    path.write_text(ALIAS_BOMB)
    with pytest.raises(FileFormatError, match=f"{path}: more than"):
        load_yaml(path, what="config")
    path.write_text("a: 1\n" + "#" * (300 << 10))
    with pytest.raises(FileFormatError, match="larger than the limit"):
        load_yaml(path, what="config")


def test_command_line_overrides_go_through_the_same_loader() -> None:
    assert parse_override("ppo.n_steps=256") == (["ppo", "n_steps"], 256)
    assert parse_override("name=[unclosed") == (["name"], "[unclosed")  # not YAML: kept as text
    with pytest.raises(ConfigError, match="'x': more than"):
        parse_override("x=" + ALIAS_BOMB)
    with pytest.raises(ConfigError, match="nested deeper"):
        parse_override("x=" + "[" * 40 + "]" * 40)
