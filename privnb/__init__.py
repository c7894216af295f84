"""privnb: a research workbench for privacy-preserving classification."""

__version__ = "0.1.0"
