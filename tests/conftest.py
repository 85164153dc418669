"""Test-session settings.

Under CI (the ``CI`` environment variable set, as CI services do) the
property tests draw the same examples on every run, so that a run's result
depends on the commit only: a new counterexample is found by the random runs
made while developing (``pytest`` locally), then kept as an ``@example``.
"""
import os

from hypothesis import settings

settings.register_profile("ci", derandomize=True, print_blob=True)
if os.environ.get("CI"):
    settings.load_profile("ci")
