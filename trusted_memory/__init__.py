"""trusted-memory: long-term memory for AI agents over the Model Context Protocol."""

__version__ = "0.1.0"
