"""`python -m trusted_memory` runs the server, like the `trusted-memory` command."""

import sys

from .cli.serve import main

sys.exit(main())
