"""The device-flow model: where each tensor's device comes from, and where devices meet.

``values`` is the lattice of device origins, ``meetings`` the places where PyTorch needs
two tensors on one device, ``classes`` what a class's ``__init__`` says about its
attributes, ``inference`` the per-function analysis, and ``cache`` computes it once per
function of a file for every rule that asks.
"""
