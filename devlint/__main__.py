"""Allow ``python -m devlint``."""

import sys

try:
    from devlint.cli import main
except KeyboardInterrupt:  # Ctrl-C while starting up: nothing was read or written yet
    sys.exit(130)

main()
