"""The test suite: a regular package, so no installed distribution with a top-level `tests` can shadow it."""
