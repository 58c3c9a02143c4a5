"""qualm's benchmarks, grouped by what they measure (the index: benchmarks/README.md).

Each benchmark is a module run from the repository's root, ``.venv/bin/python -m
benchmarks.<group>.<name> ...``; importing one runs nothing."""
