"""Each game's ``env()`` / ``raw_env()`` shows its options: signature, defaults and docstring."""

from __future__ import annotations

import importlib
import inspect
import pydoc

import pytest

import ice_envs
from ice_envs.core.errors import OptionError
from ice_envs.core.registry import built_in_games
from ice_envs.core.wrapping import constructor_options

COMMON = (
    "render_mode",
    "illegal_action",
    "illegal_reward",
    "reward_mode",
    "max_cycles",
    "max_decisions",
    "skip_forced",
)
GAMES = sorted(built_in_games())


def _module(game: str):
    return importlib.import_module(ice_envs.get_spec(game).env_module)


@pytest.mark.parametrize("game", GAMES)
def test_the_factories_signatures_list_every_option_with_its_default(game):
    module = _module(game)
    cls = type(module.raw_env())
    init = inspect.signature(cls.__init__).parameters
    for factory in (module.env, module.raw_env):
        params = inspect.signature(factory).parameters
        assert tuple(params) == constructor_options(cls)
        assert params["num_players"].default == init["num_players"].default
        assert set(COMMON) <= set(params) and all(p.kind is p.KEYWORD_ONLY for p in params.values())
        for name, p in init.items():
            if name not in ("self", "common"):
                assert params[name].default == p.default, name
        assert params["illegal_reward"].default == -1.0 and params["max_decisions"].default is None


@pytest.mark.parametrize("game", GAMES)
def test_the_defaults_the_signature_shows_build_the_game(game):
    module = _module(game)
    defaults = {p.name: p.default for p in inspect.signature(module.env).parameters.values()}
    env = module.env(**defaults)
    env.reset(seed=0)
    assert env.unwrapped.num_players == defaults["num_players"]
    with pytest.raises(OptionError, match="bogus"):
        module.env(bogus=1)


@pytest.mark.parametrize("game", GAMES)
def test_help_shows_every_option(game):
    module = _module(game)
    text = pydoc.render_doc(module.env, renderer=pydoc.plaintext)
    for name in inspect.signature(module.env).parameters:
        assert f"{name}=" in text.split("Options", 1)[1], name
    assert "max_decisions: the episode is truncated" in text and "illegal_reward: reward for the offender" in text
    assert "OrderEnforcingWrapper" in text


def test_the_pettingzoo_module_name_has_the_same_signature():
    assert inspect.signature(ice_envs.cardiceo_v1.env) == inspect.signature(_module("cardiceo").env)
    assert "hand_size" in inspect.signature(ice_envs.cardiceo_v1.raw_env).parameters
