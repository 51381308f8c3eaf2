"""trusted-memory: long-term memory for AI agents over the Model Context Protocol."""

VERSION = "0.1.0"
__version__ = VERSION
