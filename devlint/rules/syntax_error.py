"""DEV000: a file devlint cannot read or parse."""

from __future__ import annotations

from devlint.rules.base import Invalid, Rule


class SyntaxErrorRule(Rule):
    """## What it does
    Reports a file that cannot be read, decoded or parsed as Python, at the
    position the parser gave up.

    ## Why is this bad?
    devlint cannot check what it cannot parse, so every other rule is silent for
    that file. Reporting it (instead of crashing or skipping it quietly) keeps the
    rest of the run going and tells you which file was not checked.

    ## Example
    ```python
    def forward(self, x:
        return x
    ```

    ## Use instead
    Fix the syntax error, or exclude the file with `extend-exclude` in
    `[tool.devlint]` if it is not Python (a template, a Python 2 script).

    A file Python accepts but devlint's parser (libcst) cannot read (a form feed
    before an indent, tab-indented lines under space-indented ones) is no DEV000:
    nothing is wrong with the code. devlint reports it on stderr as its own error
    (`devlint: error: <file>: not checked: ...`) and exits with code 2.

    ## Fix safety
    There is no fix. This finding cannot be ignored or disabled: a file that is
    not checked is never silently "clean".
    """

    code = "DEV000"
    name = "syntax-error"
    summary = "File cannot be read, decoded or parsed"

    VALID = ("def forward(self, x):\n    return x\n",)
    INVALID = (Invalid("def forward(self, x:\n    return x\n", line=1, column=12),)
