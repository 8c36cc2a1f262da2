"""GOBench's Scaled Proximity Score: how close a model's rating of an image is to the human experts' rating."""

from __future__ import annotations

SPS_DELTA = 0.5
"""The distance at which the score reaches 0 (GOBench: δ = 0.5 on each dimension's scale)."""


def scaled_proximity_score(model: float, human: float, delta: float = SPS_DELTA) -> float:
    """Return GOBench's Scaled Proximity Score max(0, 1 - |model - human| / delta)."""
    return max(0.0, 1.0 - abs(model - human) / delta)
