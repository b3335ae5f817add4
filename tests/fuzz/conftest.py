"""Hypothesis profiles of the property-based fuzz tests.

``ci`` (default): small, so this directory runs in well under a minute;
``long``: ``HYPOTHESIS_PROFILE=long python -m pytest tests/fuzz`` for a real
search (a few thousand examples per property).
"""
import os
from datetime import timedelta

from hypothesis import HealthCheck, settings

settings.register_profile(
    "ci", max_examples=40, deadline=timedelta(seconds=5), print_blob=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.register_profile(
    "long", max_examples=3000, deadline=timedelta(seconds=30), print_blob=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))
