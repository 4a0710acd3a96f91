"""``python -m ice_envs.train CONFIG [--set key=value ...]`` — see :mod:`train.cli`."""

from ice_envs.train.cli import main

if __name__ == "__main__":
    raise SystemExit(main())
