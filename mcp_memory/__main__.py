"""`python -m mcp_memory` runs the server, like the `mcp-memory` command."""

import sys

from .cli.serve import main

sys.exit(main())
