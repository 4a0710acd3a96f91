"""The compiled loops' disk cache: loaded by a later process, refreshed when a function they call changes (in
another file, another folder), shared by processes compiling at once, and kept where it can be written."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

pytest.importorskip("numba")

from ice_envs.core import compiled_cache, compiled_warmup

# A toy game: each game's state is one counter; the score is the counter times a step plus a bonus, both from
# another folder (the step from a third file, re-exported by the second).
RULES = """
import numpy as np

from ice_envs.core.compiled import njit
from parts.bonus import STEP, bonus


@njit
def new_game(s, rng, cfg):
    s[0] = 0


@njit
def legal(s, cfg, mask):
    mask[:] = 1


@njit
def apply(s, a, rng, cfg):
    s[0] += a


@njit
def deciding(s, cfg):
    return 0


@njit
def is_over(s, cfg):
    return s[0] >= 10


@njit
def scores(s, cfg, out):
    out[0] = s[0] * STEP + bonus()


@njit
def outcome(s, cfg, out):
    out[0] = 0.0


@njit
def encode(s, seat, cfg, obs):
    obs[0] = s[0]


@njit
def first_legal(s, cfg, mask, prng, memory):
    return 0
"""

BONUS = """
from ice_envs.core.compiled import njit
from parts.consts import STEP  # re-exported: the rules import it from here


@njit
def bonus():
    return {value}
"""

DRIVER = """
import json, sys
import numpy as np
from ice_envs.core.compiled import GameKernels
from ice_envs.core.compiled_cache import game_loops
from ice_envs.core.compiled_players import RANDOM, CompiledPlayer
import toy_rules as r

kernels = GameKernels(r.new_game, r.legal, r.apply, r.deciding, r.is_over, r.scores, r.outcome, r.encode)
loops = game_loops("toy", kernels, [RANDOM, CompiledPlayer("first", r.first_legal)], r.__file__)
state = np.array([[3], [5]], dtype=np.int32)
out = np.zeros((2, 1))
loops.all_scores(state, np.zeros(1, dtype=np.int64), out)
stats = loops.all_scores.stats
print(json.dumps({"scores": out[:, 0].tolist(), "hits": sum(stats.cache_hits.values()),
                  "misses": sum(stats.cache_misses.values()), "module": loops.__file__}))
"""


def _toy(root: Path, value: int, step: int = 1) -> None:
    (root / "parts").mkdir(exist_ok=True)
    (root / "parts" / "__init__.py").write_text("")
    (root / "parts" / "bonus.py").write_text(BONUS.format(value=value))
    (root / "parts" / "consts.py").write_text(f"STEP = {step}\n")
    (root / "toy_rules.py").write_text(textwrap.dedent(RULES))
    (root / "driver.py").write_text(DRIVER)


def _start(root: Path, cache: Path) -> subprocess.Popen:
    env = dict(os.environ, NUMBA_CACHE_DIR=str(cache), PYTHONPATH=str(root))
    return subprocess.Popen([sys.executable, "driver.py"], cwd=root, env=env, stdout=subprocess.PIPE, text=True)


def _result(process: subprocess.Popen) -> dict:
    out, _ = process.communicate(timeout=600)
    assert process.returncode == 0
    return json.loads(out.strip().splitlines()[-1])


def test_loops_are_compiled_once_loaded_later_and_refreshed_when_a_callee_or_a_constant_elsewhere_changes(tmp_path):
    _toy(tmp_path, 100)
    cache = tmp_path / "cache"
    first = _result(_start(tmp_path, cache))
    assert first["scores"] == [103.0, 105.0] and first["misses"] == 1 and first["hits"] == 0
    assert Path(first["module"]).parent == cache / compiled_cache.FOLDER
    again = _result(_start(tmp_path, cache))
    assert again == {**first, "hits": 1, "misses": 0}  # the same module, loaded from the disk cache
    (tmp_path / "parts" / "unrelated.py").write_text("X = 1\n")  # a file the compiled code does not read
    assert _result(_start(tmp_path, cache)) == again
    _toy(tmp_path, 7)  # only the callee's file, in another folder, changes
    edited = _result(_start(tmp_path, cache))
    assert edited["scores"] == [10.0, 12.0] and edited["misses"] == 1
    assert edited["module"] != first["module"]
    stem = Path(first["module"]).stem  # the older module and its machine code are gone
    assert not [path for path in cache.rglob("*") if path.name.startswith(stem)]
    assert [path for path in cache.rglob("*.nbi") if path.name.startswith(Path(edited["module"]).stem)]
    _toy(tmp_path, 7, step=2)  # only the constant's file, imported through the callee's, changes
    stepped = _result(_start(tmp_path, cache))
    assert stepped["scores"] == [13.0, 17.0] and stepped["misses"] == 1


def test_two_processes_compiling_the_same_loops_at_once_agree_and_leave_a_cache_both_can_load(tmp_path):
    _toy(tmp_path, 1)
    cache = tmp_path / "cache"
    results = [_result(p) for p in [_start(tmp_path, cache), _start(tmp_path, cache)]]
    assert results[0]["scores"] == results[1]["scores"] == [4.0, 6.0]
    assert results[0]["module"] == results[1]["module"]
    later = _result(_start(tmp_path, cache))
    assert later["scores"] == [4.0, 6.0] and later["hits"] == 1 and later["misses"] == 0


def test_the_loops_go_beside_the_engine_unless_numba_has_a_cache_folder_or_that_one_is_read_only(tmp_path, monkeypatch):
    anchor = tmp_path / "game" / "compiled.py"
    anchor.parent.mkdir()
    anchor.write_text("")
    monkeypatch.setattr(compiled_cache.numba.config, "CACHE_DIR", "")
    assert compiled_cache.cache_folder(anchor) == anchor.parent / "__pycache__" / compiled_cache.FOLDER
    monkeypatch.setattr(compiled_cache.numba.config, "CACHE_DIR", str(tmp_path / "numba"))
    assert compiled_cache.cache_folder(anchor) == tmp_path / "numba" / compiled_cache.FOLDER
    monkeypatch.setattr(compiled_cache.numba.config, "CACHE_DIR", "")
    user = tmp_path / "user"
    monkeypatch.setattr(compiled_cache, "_user_cache_root", lambda: user)
    real = compiled_cache._writable
    monkeypatch.setattr(
        compiled_cache, "_writable", lambda folder: not folder.is_relative_to(anchor.parent) and real(folder)
    )
    assert compiled_cache.cache_folder(anchor) == user / compiled_cache.FOLDER


def test_a_kernel_that_is_not_a_module_level_function_is_refused_by_name():
    from ice_envs.core.compiled import GameKernels, njit

    @njit
    def local(s, cfg):
        return 0

    kernels = GameKernels(local, local, local, local, local, local, local, local)
    with pytest.raises(TypeError, match="new_game .* must be a numba function defined at a module's top level"):
        compiled_cache.game_loops("toy", kernels, [], __file__)


def test_warming_an_unknown_game_is_one_line_and_exit_2(capsys):
    assert compiled_warmup.main(["nosuch"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "unknown game 'nosuch'" in err


PLAIN_TYPES = """
from ice_envs.core.compiled import njit


@njit
def step_up(k, by_two):
    return k + 2 if by_two else k + 1


@njit
def climb():
    k = 0
    for _ in range(3):
        k = step_up(k, True)  # k is Literal[int](0) before numba's inference widens it
    return step_up(k, False) + step_up(7, True)
"""


def test_calls_from_compiled_code_compile_one_machine_code_per_plain_argument_types(tmp_path, monkeypatch):
    (tmp_path / "plain_types_toy.py").write_text(PLAIN_TYPES)
    monkeypatch.syspath_prepend(str(tmp_path))
    import plain_types_toy as toy

    assert toy.climb() == 7 + 9
    # constants and a loop variable's first literal type would each compile a machine code of their own
    assert [tuple(str(t) for t in sig) for sig in toy.step_up.signatures] == [("int64", "bool")]
