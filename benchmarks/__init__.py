"""symrel benchmarks: each module has ``run() -> list[dict]`` rows measured side by side
in one process, as ratios against a baseline; ``python -m benchmarks`` runs them all."""
