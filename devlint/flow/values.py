"""The lattice of device origins: where a value's device comes from.

A value may have several origins (branches are joined, not chosen between), so a
``Value`` holds a set of them, the places where the CPU tensors it may hold were made,
and the parameters it derives from (what a summary of the function needs).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from enum import Enum

import libcst as cst


class Origin(Enum):
    FOLLOWS = "follows"
    """On the computation's device: inputs, parameters, buffers, submodule outputs,
    ``x.device``, ``self.device``, a ``device`` parameter, and what derives from them."""
    CPU = "cpu"
    """On the CPU: made there without ``device=``, or put there on purpose (``.cpu()``)."""
    LITERAL = "literal"
    """On a device the code names: ``"cuda"``, ``.cuda()``, ``torch.device("cuda")``."""
    HOST = "host"
    """Not a tensor on any device: Python numbers and data, shapes, ``.item()``, and 0-dim
    tensors such as ``torch.tensor(3.0)``, which PyTorch lets meet any device."""
    UNKNOWN = "unknown"


def _union(*groups: tuple[cst.CSTNode, ...]) -> tuple[cst.CSTNode, ...]:
    """Creation sites in first-seen order (deterministic, unlike a set of nodes)."""
    return tuple(dict.fromkeys(node for group in groups for node in group))


@dataclass(frozen=True)
class Value:
    origins: frozenset[Origin]
    made: tuple[cst.CSTNode, ...] = ()
    """Where the CPU tensors it may hold were made (a factory call), in order. A CPU origin
    without a site was chosen on purpose (``.cpu()``, ``device="cpu"``): never a finding."""
    sequence: bool = False
    """Host data that is a list or tuple: ``torch.tensor`` of it is not a 0-dim scalar."""
    params: frozenset[str] = frozenset()
    """The function's parameters it derives from: what a summary of the function reads."""
    tied: tuple[cst.CSTNode, ...] = ()
    """Creation sites (and calls of other files' functions, ``calls``) whose tensor's own
    device this value took (``x.device``, ``f(x.device)``, ``y.to(x.device)``): wherever
    that tensor is, this is too, so the two never meet on different devices."""
    calls: tuple[cst.CSTNode, ...] = ()
    """Calls of functions in other files whose results it may hold: where such a result
    meets the device, the callee's summary (in the project index) says whether it is CPU."""
    scalars: tuple[cst.CSTNode, ...] = ()
    """Where the 0-dim CPU tensors it may be were made (``torch.tensor(3)``): host values to
    arithmetic, which lets them meet any device, but not to a collective, which needs them
    on the process group's device."""
    factories: tuple[cst.CSTNode, ...] = ()
    """Where it names a torch factory without calling it (``window_fn=torch.hann_window``):
    a function that, called without ``device=``, makes a tensor on the CPU."""
    moved_sites: tuple[cst.CSTNode, ...] = ()
    """Creation sites of CPU tensors that a move (``.to(d)``, ``.cuda()``) put here on some
    path: a function that returns such a tensor moved on one path and as it was on another
    chooses its device itself (``return t.cuda() if nccl else t``), see ``as_returned``."""
    moved_params: frozenset[str] = frozenset()
    """The function's parameters whose tensors a move put here on some path (as
    ``moved_sites``)."""
    single: bool = False
    """A 0-dim tensor on the device (a full reduction: ``torch.argmax(x)``): as an index,
    PyTorch reads it as a Python number, so it may pick from a tensor on any device."""
    chosen: tuple[cst.CSTNode, ...] = ()
    """Where it was put on the CPU on purpose (``x.cpu()``): no factory is to blame where
    it meets the device, but it is on the CPU all the same, where a device index cannot
    pick from it (``feats.cpu()[idx]``)."""
    answers: tuple[cst.CSTNode, ...] = ()
    """Calls of a method of an object ``__init__`` made of a class this function's code
    does not see (``self.client.generate(...)``) whose result, or an element of it, it may
    be: where that method returns Python data (its summary, in the project index, says),
    ``torch.tensor`` of it makes a CPU tensor."""
    array: bool = False
    """Host data that is an array of a library keeping it in host memory (``np.zeros(n)``),
    on every path: a tensor written into it (``a[i] = t``) is copied to the host, so it stays
    host data, unlike a list or a dict, which holds the tensor itself."""

    @property
    def follows(self) -> bool:
        return Origin.FOLLOWS in self.origins

    @property
    def on_device(self) -> bool:
        """On an accelerator: following the computation, or on a device the code names."""
        return Origin.FOLLOWS in self.origins or Origin.LITERAL in self.origins

    @property
    def only_host(self) -> bool:
        return self.origins == {Origin.HOST}


def value(*origins: Origin, made: tuple[cst.CSTNode, ...] = ()) -> Value:
    return Value(frozenset(origins), made)


HOST = value(Origin.HOST)
HOST_SEQUENCE = Value(frozenset({Origin.HOST}), sequence=True)
HOST_ARRAY = Value(frozenset({Origin.HOST}), sequence=True, array=True)
UNKNOWN = value(Origin.UNKNOWN)
FOLLOWS = value(Origin.FOLLOWS)
LITERAL = value(Origin.LITERAL)
CHOSEN_CPU = value(Origin.CPU)
"""Put on the CPU on purpose: whatever it meets, no factory is to blame."""


def put_on_cpu(site: cst.CSTNode) -> Value:
    """A tensor put on the CPU on purpose at ``site`` (``x.cpu()``)."""
    return replace(CHOSEN_CPU, chosen=(site,))


def made_on_cpu(site: cst.CSTNode) -> Value:
    """A tensor a factory makes on the CPU at ``site``."""
    return value(Origin.CPU, made=(site,))


def scalar_on_cpu(site: cst.CSTNode) -> Value:
    """A 0-dim tensor a factory makes on the CPU at ``site``: host data, except to a
    collective."""
    return Value(frozenset({Origin.HOST}), scalars=(site,))


def element_of_cpu_vectors(tensor: Value) -> Value:
    """One element of ``tensor``, whose CPU tensors are all one-dimensional: each is a 0-dim
    tensor made where its vector was (host data, except to a collective); what else it may
    hold (an input, on the device) keeps its origin."""
    origins = (tensor.origins - {Origin.CPU}) | {Origin.HOST}
    scalars = _union(tensor.scalars, tensor.made)
    return Value(origins, (), False, tensor.params, tensor.tied, tensor.calls, scalars)


def stored_factory(site: cst.CSTNode) -> Value:
    """A torch factory named at ``site`` and not called there (stored or passed on)."""
    return Value(UNKNOWN.origins, factories=(site,))


def from_parameter(name: str) -> Value:
    return Value(frozenset({Origin.FOLLOWS}), params=frozenset({name}))


def join(*values: Value) -> Value:
    """Any of ``values``: what a variable holds after branches that each set it."""
    if len(values) == 1:
        return values[0]
    return Value(
        frozenset().union(*(v.origins for v in values)),
        _union(*(v.made for v in values)),
        any(v.sequence for v in values),
        frozenset().union(*(v.params for v in values)),
        _union(*(v.tied for v in values)),
        _union(*(v.calls for v in values)),
        _union(*(v.scalars for v in values)),
        _union(*(v.factories for v in values)),
        _union(*(v.moved_sites for v in values)),
        frozenset().union(*(v.moved_params for v in values)),
        all(v.single for v in values),
        _union(*(v.chosen for v in values)),
        _union(*(v.answers for v in values)),
        all(v.array for v in values),
    )


def combine(*values: Value, meets: bool = True) -> Value:
    """The result of an operation on ``values`` (``a + b``, ``torch.cat``): the tensors'
    origins; host operands (numbers, shapes) only count when there is no tensor. Where
    the operation ``meets`` and one operand is surely on a device, so is the result: a CPU
    operand is blamed there (a meeting), not again wherever the result goes. Where none is
    but one was put on the CPU on purpose (``lengths.cpu()``, CPU lengths), the result is
    on the CPU by that choice: a factory it combined is no more to blame than that."""
    tensors = [v for v in values if v.origins - {Origin.HOST}]
    params = frozenset().union(*(v.params for v in values))
    if not tensors:  # host data; with a 0-dim CPU tensor, one (`torch.tensor(1.0) / t`)
        scalars = _union(*(v.scalars for v in values))
        return Value(frozenset({Origin.HOST}), params=params, scalars=scalars)
    placed = [v for v in tensors if v.on_device and not v.made]
    chosen = [v for v in tensors if v.origins == CHOSEN_CPU.origins and not v.made]
    if meets and not placed and chosen:
        placed = chosen
    joined = join(*placed) if meets and placed else join(*tensors)
    return Value(
        joined.origins - {Origin.HOST},
        joined.made,
        False,
        params,
        tied=joined.tied,
        calls=joined.calls,
        moved_sites=joined.moved_sites,
        moved_params=joined.moved_params,
        single=all(v.single for v in tensors),
        chosen=joined.chosen,
    )


def moved(device: Value) -> Value:
    """A tensor moved to ``device`` (the value of the device expression): it now has that
    device's origins, whatever it had before; a device we cannot read is unknown. Moved to
    a tensor's device (``ret.to(seq)``), it is wherever that tensor is, also where the
    tensor may be one made on the CPU: tied to those sites."""
    origins = device.origins - {Origin.HOST}
    if not origins:
        return UNKNOWN
    tied = _union(device.tied, device.made, device.scalars)
    return Value(origins, device.made, False, device.params, tied)


def moved_from(found: Value, tensor: Value) -> Value:
    """``found``, the result of moving ``tensor`` (``tensor.to(d)``, ``tensor.cuda()``): it
    remembers which CPU tensors and parameters the move took (``Value.moved_sites``)."""
    return replace(
        found,
        moved_sites=_union(found.moved_sites, tensor.made, tensor.moved_sites),
        moved_params=found.moved_params | tensor.params | tensor.moved_params,
    )


def as_returned(found: Value) -> Value:
    """``found`` as its function returns it: a CPU tensor (or a parameter's tensor) that it
    returns moved on one path and as it was on another is placed by the function, which
    chose by a condition (``return t.cuda() if nccl else t``): its callers get no CPU tensor
    made there, and no parameter's tensor as they passed it."""
    made = tuple(site for site in found.made if site not in found.moved_sites)
    params = found.params - found.moved_params
    if len(made) == len(found.made) and params == found.params:
        return found
    return replace(found, made=made, params=params)


def as_passed(found: Value) -> Value:
    """``found`` as a function it is passed to sees it: a move its caller made on one path
    is the caller's choice (``as_returned`` there), so the callee, returning it, does not
    place it (``helper(t)`` after ``t = t.cuda() if nccl else t`` still follows ``t``)."""
    if not (found.moved_sites or found.moved_params):
        return found
    return replace(found, moved_sites=(), moved_params=frozenset())


def tied_to(found: Value, *sites: tuple[cst.CSTNode, ...]) -> Value:
    """``found``, also sharing the device of the tensors made at ``sites``."""
    return replace(found, tied=_union(found.tied, *sites))


def fixed_at_construction(found: Value, sites: tuple[cst.CSTNode, ...]) -> Value:
    """``found``, a tensor ``__init__`` made at ``sites`` and then placed somewhere: kept in
    a plain attribute it stays where it was put then, whatever the module's later
    ``.to()``, so it is still blamed on where it was made."""
    return replace(found, made=_union(found.made, sites))


def captured(*values: Value) -> Value:
    """A closure (``lambda x: (x - mean) / std``) over ``values``: it holds no tensor itself,
    but where it is called with a tensor on the device, the tensors it captured (their
    creation sites) meet that device."""
    sites = _union(*(v.made for v in values))
    return Value(UNKNOWN.origins, sites) if sites else UNKNOWN


def as_device(tensor: Value) -> Value:
    """``x.device``: the origins of ``x``, no longer blaming where ``x`` was made (asking
    a CPU tensor for its device is not a meeting, and ``device=`` then chooses the CPU);
    tied to where ``x`` was made and to the calls of other files' functions it holds the
    result of (``device=pil_to_tensor(img).device`` is wherever that result is)."""
    if tensor.only_host:
        return UNKNOWN
    tied = _union(tensor.made, tensor.calls)
    return Value(tensor.origins - {Origin.HOST}, (), False, tensor.params, tied)
