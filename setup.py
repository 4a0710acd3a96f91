"""Package layout: the repository's top-level folders installed under the one import name ``ice_envs``.

``ice_envs/`` is the package itself; ``agents/``, ``train/`` and ``benchmarks/`` are installed as
``ice_envs.agents``, ``ice_envs.train`` and ``ice_envs.benchmarks`` (setuptools ``package_dir``), in
editable and wheel installs alike. Folders of data files only (maps, catalogs, configs: no
``__init__.py``) are declared as packages too, so that setuptools installs their files without
warning about them. Everything else is declared in ``pyproject.toml``.
"""

import warnings
from pathlib import Path

from setuptools import find_packages, setup

# An editable install of this layout (package_dir maps agents/ to ice_envs.agents) goes through
# setuptools' import finder, which tells every user to beware of folders named like the package in the
# working directory. Here ``ice_envs/`` is that package's own source, so the note only adds noise to
# `make evaluate`; setuptools' real warnings (configuration, deprecations) are untouched.
warnings.filterwarnings("ignore", message="Editable installation", module=r"setuptools\.command\.editable_wheel")

#: import name -> folder of the repository
PACKAGE_DIRS = {
    "ice_envs": "ice_envs",
    "ice_envs.agents": "agents",
    "ice_envs.train": "train",
    "ice_envs.benchmarks": "benchmarks",
}


#: the files a data folder ships (``[tool.setuptools.package-data]`` of ``pyproject.toml``; the web app's
#: templates and static files included)
DATA_SUFFIXES = {".txt", ".json", ".yaml", ".html", ".css", ".js"}


def _data_folders(folder: str, packages: list[str]) -> list[str]:
    """The sub-folders of ``folder`` without Python, holding data files, inside a package (dotted)."""
    found = []
    for path in sorted(Path(folder).rglob("*")):
        if not path.is_dir() or "__pycache__" in path.parts or (path / "__init__.py").exists():
            continue
        dotted = ".".join(path.relative_to(folder).parts)
        parent = dotted.rpartition(".")[0]
        inside = parent == "" or parent in packages or parent in found  # a data folder may hold data folders
        if inside and any(f.suffix in DATA_SUFFIXES for f in path.iterdir()):
            found.append(dotted)
    return found


def _packages() -> list[str]:
    names = []
    for name, folder in PACKAGE_DIRS.items():
        names.append(name)
        subs = find_packages(folder)
        names += [f"{name}.{sub}" for sub in subs + _data_folders(folder, subs) if f"{name}.{sub}" not in PACKAGE_DIRS]
    return names


setup(package_dir=PACKAGE_DIRS, packages=_packages())
