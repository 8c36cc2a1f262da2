"""Studies: several models × arms × benchmarks in one command (`mcot study STUDY.toml --out DIR`).

`config` reads and checks STUDY.toml, `run` runs one resumable run directory per model and scores it, `report`
writes DIR/study.md and DIR/study.html from the runs' scores (docs/study.md).
"""
