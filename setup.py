"""The package layout: the rooms are top-level folders of the repository but install as mcot.<room>.

`agents/`, `canvas/`, `tools/`, `benchmarks/` and `eval/` (the design card) become `mcot.agents`, `mcot.canvas`,
`mcot.tools`, `mcot.benchmarks` and `mcot.eval`, so the wheel holds one top-level package, `mcot`. Everything
else about the project is in pyproject.toml.
"""

from setuptools import find_packages, setup

ROOMS = ("agents", "canvas", "tools", "benchmarks", "eval")

packages = find_packages(include=["mcot", "mcot.*"])
for room in ROOMS:
    packages += [f"mcot.{name}" for name in find_packages(include=[room, f"{room}.*"])]

setup(packages=packages, package_dir={"mcot": "mcot", **{f"mcot.{room}": room for room in ROOMS}})
