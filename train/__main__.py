"""``python -m ice_envs.train CONFIG [--set key=value ...]`` — see :mod:`train.cli`."""

from ice_envs.train.cli import main

raise SystemExit(main())
