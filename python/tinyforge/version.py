"""Package version (also written into every graph file's ``producer``)."""

__version__ = "0.1.0"
