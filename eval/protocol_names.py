"""The names of a benchmark's two scoring protocols, on eval's ground floor (the registry and the Scorer read them).

`official` reproduces the benchmark's published scoring (the default); `robust` is mcot's own extraction and
matching, documented rule by rule in docs/scoring.md. A benchmark with one protocol serves it under both names.
"""

from __future__ import annotations

OFFICIAL = "official"
ROBUST = "robust"
PROTOCOLS = (OFFICIAL, ROBUST)
"""Every protocol name, the default first."""
