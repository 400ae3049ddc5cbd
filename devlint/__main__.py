"""Allow ``python -m devlint``."""

from devlint.cli import main

main()
