"""Proof at run time, without a GPU: ``check_devices`` runs a module on a virtual second GPU.

Needs torch (``pip install 'devlint[runtime]'``); the linter itself never imports
this package.
"""

from devlint.testing.check import check_devices, find_device_mixes
from devlint.testing.mix import DeviceMixError
from devlint.testing.watch import VIRTUAL

__all__ = ["VIRTUAL", "DeviceMixError", "check_devices", "find_device_mixes"]
