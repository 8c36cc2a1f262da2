"""Faithfulness probes (`mcot probe`): does an answer depend on what the model drew?

`conversation` rebuilds a finished pair's final request from its trace and marks the images the model saw after
its first drawing; `kinds` says what each probe (blank, shuffle, perturb) puts in their place; `asker` asks one
probe of the run's model and reads its answer; `run` drives a session (resume, budget, circuit breaker) into
RUN/probes.jsonl (`mcot.core.rundir.probes`). The figures are `mcot.eval.probes`.
"""
