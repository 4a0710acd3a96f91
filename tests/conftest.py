"""Test-wide settings.

Hypothesis: its timing health check and per-example deadline measure the machine, not the code;
on a loaded machine (CI shares its cores) they fail tests whose examples are correct, so neither
is used. Every other health check stays on.
"""

from hypothesis import HealthCheck, settings

settings.register_profile("ice-envs", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("ice-envs")
