"""What a result was computed on: CPU, the SIMD paths numpy dispatches to, BLAS, library versions.

Every evaluation report, league, suite run and training run records :func:`machine_info`, so a
number can be traced to the machine that made it. The agents' decisions do not depend on any of
it (values are quantised before they are compared; see the CubeMelt heuristic and the PPO agent),
which CI checks by re-running one CubeMelt evaluation with numpy's SIMD dispatch cut down
(``NPY_DISABLE_CPU_FEATURES``) and OpenBLAS forced to another kernel (``OPENBLAS_CORETYPE``).
"""

from __future__ import annotations

import os
import platform
from functools import lru_cache
from importlib import metadata
from typing import Any

import numpy as np

#: Distributions whose versions are recorded (absent ones are recorded as "not installed").
PACKAGES = (
    "ice-envs",
    "numpy",
    "gymnasium",
    "pettingzoo",
    "openskill",
    "torch",
    "stable-baselines3",
    "sb3-contrib",
    "tensorboard",
    "PyYAML",
    "threadpoolctl",
)
#: Environment variables that change numeric code paths.
NUMERIC_ENVIRONMENT = (
    "NPY_DISABLE_CPU_FEATURES",
    "NPY_ENABLE_CPU_FEATURES",
    "OPENBLAS_CORETYPE",
    "OMP_NUM_THREADS",
    "ATEN_CPU_CAPABILITY",  # torch's CPU kernels (training)
    "MKL_CBWR",  # MKL's code path (torch's BLAS)
)


def cpu_model() -> str:
    """The CPU's model name (``/proc/cpuinfo`` on Linux, else :func:`platform.processor`)."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.lower().startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def numpy_simd() -> dict[str, Any]:
    """numpy's SIMD baseline, the dispatch targets it found on this CPU, and what is switched on."""
    try:
        from numpy._core import _multiarray_umath as umath
    except ImportError:  # numpy < 2
        from numpy.core import _multiarray_umath as umath  # type: ignore[no-redef]
    features = getattr(umath, "__cpu_features__", {})
    dispatch = list(getattr(umath, "__cpu_dispatch__", []))
    return {
        "baseline": list(getattr(umath, "__cpu_baseline__", [])),
        "dispatch_available": [f for f in dispatch if features.get(f)],
        "dispatch_missing": [f for f in dispatch if not features.get(f)],
    }


def blas() -> str:
    """numpy's BLAS: name, version and build configuration."""
    try:
        info = np.show_config(mode="dicts")["Build Dependencies"]["blas"]
    except Exception:  # an older numpy or a custom build
        return "unknown"
    return " ".join(str(info.get(k, "")) for k in ("name", "version", "openblas configuration")).strip()


def package_versions() -> dict[str, str]:
    versions = {"python": platform.python_version()}
    for name in PACKAGES:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = "not installed"
    return versions


@lru_cache(maxsize=1)
def _static_info() -> dict[str, Any]:
    return {
        "cpu": cpu_model(),
        "cpu_count": os.cpu_count(),
        "platform": platform.platform(),
        "numpy_simd": numpy_simd(),
        "blas": blas(),
        "versions": package_versions(),
    }


def machine_info() -> dict[str, Any]:
    """The machine a result is computed on (see the module docstring); JSON-able."""
    env = {k: os.environ[k] for k in NUMERIC_ENVIRONMENT if k in os.environ}
    return {**_static_info(), "numeric_environment": env}
