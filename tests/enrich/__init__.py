# A package, so tests/enrich/test_stage.py (generator/enrich/stage.py) and tests/site/test_stage.py
# (generator/site/stage.py) can both exist: pytest imports test files without a package by base name.
