"""Everything the plugin adds to mcot, declared through mcot's public API when mcot imports this module.

Functions and modules are named by string, so declaring imports none of them: mcot imports the generator
when `mcot gen arith` runs, the protocol when a run is scored, the backend when `--model calculator:…` is used.
"""

import mcot

mcot.declare_benchmark(
    "arith",
    description="arith: What is A + B? (a small picture of the sum, integer answers)",
    prompt="mcot_arith:task.txt",
    answer="boxed",
    protocols="mcot_arith.protocol",
    loader="mcot_arith.loader",
    generator="mcot_arith.generator",
)
mcot.declare_tools("mcot_arith.tools")
mcot.declare_backend(
    "calculator",
    "mcot_arith.backend:build",
    usage="calculator:exact",
    description="adds the two numbers of an arith question (with the add tool when the arm offers it)",
)
