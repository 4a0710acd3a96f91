"""Package layout: the repository's top-level folders installed under the one import name ``ice_envs``.

``ice_envs/`` is the package itself; ``agents/``, ``train/`` and ``benchmarks/`` are installed as
``ice_envs.agents``, ``ice_envs.train`` and ``ice_envs.benchmarks`` (setuptools ``package_dir``), in
editable and wheel installs alike. Everything else is declared in ``pyproject.toml``.
"""

from setuptools import find_packages, setup

#: import name -> folder of the repository
PACKAGE_DIRS = {
    "ice_envs": "ice_envs",
    "ice_envs.agents": "agents",
    "ice_envs.train": "train",
    "ice_envs.benchmarks": "benchmarks",
}


def _packages() -> list[str]:
    names = []
    for name, folder in PACKAGE_DIRS.items():
        names.append(name)
        names += [f"{name}.{sub}" for sub in find_packages(folder) if f"{name}.{sub}" not in PACKAGE_DIRS]
    return names


setup(package_dir=PACKAGE_DIRS, packages=_packages())
