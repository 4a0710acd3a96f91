"""Results record the machine they were computed on."""

from __future__ import annotations

import json

from ice_envs.core.machine import machine_info


def test_machine_info_names_cpu_simd_blas_and_versions(monkeypatch) -> None:
    monkeypatch.setenv("OPENBLAS_CORETYPE", "Haswell")
    info = json.loads(json.dumps(machine_info()))
    assert info["cpu"] and info["cpu_count"] >= 1 and info["blas"]
    assert {"baseline", "dispatch_available", "dispatch_missing"} <= set(info["numpy_simd"])
    assert info["versions"]["numpy"] and info["versions"]["ice-envs"]
    assert info["numeric_environment"] == {"OPENBLAS_CORETYPE": "Haswell"}


def test_torch_kernel_choice_is_recorded(monkeypatch) -> None:
    monkeypatch.setenv("ATEN_CPU_CAPABILITY", "default")
    assert machine_info()["numeric_environment"]["ATEN_CPU_CAPABILITY"] == "default"
