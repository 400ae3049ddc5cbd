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


def may_start_workers(last: str, workers: bool | None, positional: int, unpacks: bool) -> bool:
    """A call whose name ends in ``last``, with a keyword argument naming workers
    (``num_workers=``, ``workers_per_gpu=``, ``dataloader_num_workers=``) whose value is not
    the literal 0 (``workers``: True; False for 0, None where none is given), or a loader
    (``...DataLoader``) given its options by ``**`` unpacking or ``num_workers``
    positionally."""
    if workers is not None:
        return workers
    return last.endswith("DataLoader") and (unpacks or positional > _LOADER_OPTIONS)


def names_workers(keyword: str) -> bool:
    """A keyword argument that gives a loader its worker processes."""
    return "workers" in keyword
