"""Config-driven MaskablePPO training for the ice-envs games.

    python -m ice_envs.train train/configs/cardiceo_ppo.yaml          (or: ice-envs train CONFIG)

Modules, one job each: :mod:`train.config` (YAML + validation), :mod:`train.single_agent`
(the learner's Gymnasium view of an AEC game), :mod:`train.opponents` (random, heuristic
and self-play opponents), :mod:`train.run` (run directory, model, resume),
:mod:`train.callbacks` (evaluations, promotions, checkpoints, TensorBoard),
:mod:`train.checkpoints`, :mod:`train.evaluation`, :mod:`train.plot_curves` and
:mod:`train.cli`. Guide: ``docs/training.md``.
"""
