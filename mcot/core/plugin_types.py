"""The types of the plugin API and the module that defines each: one list, re-exported by `mcot` and
`mcot.core.declare` on first use (names only here: importing this module loads nothing)."""

PLUGIN_TYPES = {
    "Context": "mcot.tools.registry",
    "Output": "mcot.tools.registry",
    "Tally": "mcot.benchmarks.loaders._types",
    "LoadedItem": "mcot.benchmarks.loaders._types",
    "Skip": "mcot.benchmarks.loaders._types",
    "Scorer": "mcot.eval.protocols.scorer",
    "ScoringProtocol": "mcot.eval.protocols.scorer",
    "Score": "mcot.core.rundir.scores",
    "Result": "mcot.core.rundir.results",
    "Strategy": "mcot.agents.offline.strategies",
    "OfflineView": "mcot.agents.offline.strategies",
    "Move": "mcot.agents.offline.strategies",
}
"""The types of the plugin API, by the module that defines each (imported on first use)."""
