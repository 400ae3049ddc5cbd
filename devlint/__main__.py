"""Allow ``python -m devlint``."""

from devlint.entry import main

main()
