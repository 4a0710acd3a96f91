"""``python -m train CONFIG [--set key=value ...]`` — see :mod:`train.cli`."""

from train.cli import main

raise SystemExit(main())
