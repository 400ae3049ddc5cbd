"""Where ``devlint`` and ``python -m devlint`` start: the CLI, loaded Ctrl-C-safely.

Loading the CLI (click, rich, the rules) takes a moment; Ctrl-C then must end the run
as it does later (``cli.guarded``), with one line and exit 130, not a traceback.
"""

import sys


def main() -> None:
    try:
        from devlint.cli import main as cli
    except KeyboardInterrupt:  # nothing was read or written yet
        sys.stderr.write("devlint: interrupted\n")
        sys.exit(130)
    cli()
