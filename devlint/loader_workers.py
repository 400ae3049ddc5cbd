"""Whether a call may make a data loader run the data pipeline in worker processes.

A Dataset's ``__getitem__`` and a collate function run in the process that iterates the
loader unless it was given workers: ``num_workers`` defaults to 0. Where no code of a
program gives any, a ``.cuda()`` there runs in the main process, on its current GPU. Both
walks (the ``ast`` skeleton and the libcst traversal) read calls with this predicate, so
they agree (``FileFacts.starts_loader_workers``).
"""

from __future__ import annotations

_LOADER_OPTIONS = 5
"""Positional arguments of ``torch.utils.data.DataLoader`` before ``num_workers``."""


_FRAMEWORK_LOADERS = ("Trainer", "TrainingArguments", "HfArgumentParser")
"""Ends of the names of classes that build loaders with workers from settings the project's
calls may not show (``--dataloader_num_workers 8``, a config file's)."""


def builds_loaders(last: str) -> bool:
    """A call whose name ends in ``last`` makes a data loader the project configures in
    the call (``DataLoader(dataset, ...)``)."""
    return last.endswith("DataLoader")


def may_start_workers(last: str, workers: bool | None, positional: int, unpacks: bool) -> bool:
    """A call whose name ends in ``last``, with a keyword argument naming workers
    (``num_workers=``, ``workers_per_gpu=``, ``dataloader_num_workers=``) whose value is not
    the literal 0 (``workers``: True; False for 0, None where none is given), or a loader
    (``...DataLoader``) given its options by ``**`` unpacking or ``num_workers``
    positionally."""
    if workers is not None:
        return workers
    return builds_loaders(last) and (unpacks or positional > _LOADER_OPTIONS)


def may_build_loaders(last: str) -> bool:
    """A call whose name ends in ``last`` may be a framework's trainer or loader builder
    (``Trainer``, ``HfArgumentParser``, ``build_detection_train_loader``), which gives its
    loaders workers the project's calls may not show: a library's, not the project's own
    class of that name (``ProjectIndex.runs_no_loader_workers`` asks)."""
    return last.endswith(_FRAMEWORK_LOADERS) or (
        "loader" in last.lower() and not builds_loaders(last)
    )


def names_workers(keyword: str) -> bool:
    """A keyword argument that gives a loader its worker processes."""
    return "workers" in keyword
