"""Stands in for PyTorch in the suites run without it (tests/python/CMakeLists.txt): importing it
fails as on a machine where PyTorch is not installed."""
raise ImportError("PyTorch is hidden from this test run (tests/python/without_torch)")
