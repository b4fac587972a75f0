"""shard_map: a function written for one device's shard, run on every device of a mesh.

The body is traced once on per-device shapes with the mesh axes bound as names, so the
collectives of frontend.lax (psum, all_gather, ppermute, axis_index, ...) work across the
devices there, and lower to XLA's collectives (all-reduce, all-gather, collective-permute,
...): the same function batches under ``vmap(f, axis_name=...)`` and distributes under
``shard_map``. The check of ``out_specs`` (``check_vma``) follows JAX's: a result whose spec
leaves out a mesh axis must be the same on the devices along it.
"""
from __future__ import annotations

import functools

from ..core.arguments import abstractify, arg_names
from ..core.ir import Graph, Tracer
from ..core.params import intern_graph
from ..core.pytree import broadcast_prefix, key_paths, tree_flatten, tree_unflatten
from ..core.tracing import trace_pytree
from ..lax._convert import as_operand
from ..primitives.sharding import axes_of, local_shape, shard_map_p, tiling, varying_axes
from ..sharding import PartitionSpec, get_mesh


def shard_map(f=None, /, *, out_specs, in_specs=None, mesh=None, axis_names=frozenset(),
              check_vma=True):
    """``f`` (written for one shard) run on every device of ``mesh`` (default: the context
    mesh) on its shard of each argument, as ``in_specs`` says (a PartitionSpec, or a pytree
    prefix of the arguments of them); the results are the devices' pieces put together as
    ``out_specs`` says. Inside ``f``, ``lax.psum(x, "data")`` and the other collectives work
    across the devices along mesh axis "data".

    >>> import numpy as np
    >>> import frontend as fe
    >>> from frontend import lax
    >>> from frontend.sharding import PartitionSpec as P
    >>> mesh = fe.make_mesh((len(fe.devices()),), ("data",))
    >>> f = fe.shard_map(lambda x: lax.psum(x.sum(), "data"), mesh=mesh, in_specs=P("data"),
    ...                  out_specs=P())
    >>> f(np.arange(8.0, dtype=np.float32))
    Array(28., dtype=float32)
    """
    if f is None:
        return functools.partial(shard_map, out_specs=out_specs, in_specs=in_specs, mesh=mesh,
                                 axis_names=axis_names, check_vma=check_vma)
    if not callable(f):
        raise TypeError(f"shard_map requires a callable for its first argument, got {f!r}")

    @functools.wraps(f)
    def wrapped(*args, **kwargs):
        if kwargs:
            raise TypeError("shard_map-wrapped functions take positional arguments only, got "
                            f"keyword arguments {sorted(kwargs)}")
        m = mesh if mesh is not None else get_mesh()
        if m is None:
            raise ValueError("shard_map requires a mesh: pass mesh=, or call it under `with mesh:`")
        if axis_names and set(axis_names) != set(m.axis_names):
            raise NotImplementedError(
                f"shard_map over some of the mesh axes (axis_names={set(axis_names)}) is not "
                f"supported: every axis of {m!r} is manual")
        if in_specs is None:
            raise ValueError("shard_map requires in_specs (inferring them from the arguments' "
                             "shardings is not supported)")
        return _apply(f, m, in_specs, out_specs, check_vma, args)

    return wrapped


def _is_spec(p) -> bool:
    return isinstance(p, PartitionSpec)


def _dims(spec, ndim: int) -> tuple:
    return PartitionSpec(*spec)._normal() + ((),) * (ndim - len(spec))


def _fun_name(f) -> str:
    return getattr(f, "__name__", repr(f))


def _check_spec(spec, mesh, which: str):
    if not _is_spec(spec):
        if spec is None:
            spec = PartitionSpec()
        elif isinstance(spec, tuple):
            spec = PartitionSpec(*spec)
        else:
            raise TypeError(f"shard_map {which} entries must be PartitionSpecs, got {spec!r}")
    seen = set()
    for names in spec._normal():
        for n in names:
            if n not in mesh.axis_names:
                raise ValueError(
                    f"shard_map {which} argument must refer to an axis marked as manual "
                    f"({frozenset(mesh.axis_names)}), but:\n\n  {which} refers to {n!r}\n\nCheck the "
                    f"{which} values passed to shard_map.")
            if n in seen:
                raise ValueError(f"shard_map {which} entry {spec!r} uses the mesh axis {n!r} "
                                 "twice")
            seen.add(n)
    return spec


def _ty(a) -> str:
    """JAX's way of writing an array type: float32[8,2]."""
    return f"{a.dtype.name}[{','.join(map(str, a.shape))}]"


def _mesh_line(mesh) -> str:
    return (f"The mesh given has shape {mesh.devices.shape} with corresponding axis names "
            f"{mesh.axis_names}.")


def _apply(f, mesh, in_specs, out_specs, check_vma, args):
    leaves, td = tree_flatten(args)
    specs = [_check_spec(s, mesh, "in_specs") for s in
             broadcast_prefix(tuple(in_specs) if isinstance(in_specs, list) else in_specs,
                              td, "shard_map in_specs", is_leaf=_is_spec)]
    names = arg_names(f, len(args))
    paths = [f"args{p}" for p in key_paths(td)]
    params = {}
    for k, atd in enumerate(td.children):
        for p in key_paths(atd):
            params[f"args[{k}]{p}"] = names[k] + p
    avals, in_dims = [], []
    for x, spec, path in zip(leaves, specs, paths, strict=True):
        a = abstractify(x, path, f)
        bound = f"{path} is bound to {_fun_name(f)}'s parameter {params.get(path, path)!r}"
        if len(spec) > a.ndim:
            raise ValueError(
                f"shard_map applied to the function {_fun_name(f)!r} was given an in_specs "
                "entry which is too long to be compatible with the corresponding input value "
                f"from the function:\n\nin_specs is {spec!r} which has length {len(spec)}, but "
                f"the passed {path}, where {bound}, has shape {_ty(a)}, which has rank "
                f"{a.ndim} (and {a.ndim} < {len(spec)})\n\nEntries in in_specs must be of "
                "length no greater than the number of axes in the corresponding input value."
                "\n\nEither revise the spec to be shorter, or modify "
                f"{_fun_name(f)!r} so that its inputs have sufficient rank.")
        dims = _dims(spec, a.ndim)
        for ax, (n, t, axes) in enumerate(zip(a.shape, tiling(mesh, dims), dims, strict=True)):
            if n % t:
                ax_desc = (f"mesh axis {axes[0]!r} (of size {t})" if len(axes) == 1 else
                           f"mesh axes {axes} (of total size {t})")
                raise ValueError(
                    f"shard_map applied to the function {_fun_name(f)!r} was given argument "
                    "arrays with axis sizes that are not evenly divisible by the corresponding "
                    f"mesh axis sizes:\n\n{_mesh_line(mesh)}\n\nthe passed {path} of shape "
                    f"{_ty(a)}, where {bound}, corresponds to in_specs of value {spec!r}, which "
                    f"maps array axis {ax} (of size {n}) to {ax_desc}, but {t} does not evenly "
                    f"divide {n}\n\nArray arguments' axis sizes must be evenly divisible by "
                    "the mesh axis or axes indicated by the corresponding elements of the "
                    "argument's in_specs entry. Consider checking that in_specs are correct, "
                    "and if so consider changing the mesh axis sizes or else padding the input "
                    f"and adapting {_fun_name(f)!r} appropriately.")
        avals.append(a.update(shape=local_shape(a.shape, dims, mesh)))
        in_dims.append(dims)

    g, otd = trace_pytree(f, td, avals, mesh_axes=mesh.shape, check_vma=bool(check_vma))
    g, captured = _lift_traced_consts(g)
    g = intern_graph(g)  # the same body traced again is the same graph (eager executables)
    ospecs = [_check_spec(s, mesh, "out_specs") for s in
              broadcast_prefix(out_specs, otd, "shard_map out_specs", is_leaf=_is_spec)]
    out_dims = []
    for spec, v, p in zip(ospecs, g.outvars, key_paths(otd), strict=True):
        if len(spec) > v.aval.ndim:
            raise ValueError(
                f"shard_map applied to the function {_fun_name(f)!r} was given an out_specs "
                "entry which is too long to be compatible with the corresponding output value "
                f"from the function:\n\nout_specs{p} is {spec!r} which has length {len(spec)}, "
                f"but {_fun_name(f)}(*args){p} has shape {_ty(v.aval)}, which has rank "
                f"{v.aval.ndim} (and {v.aval.ndim} < {len(spec)})\n\nEntries in out_specs must "
                "be of length no greater than the number of axes in the corresponding output "
                f"value.\n\nEither revise the spec to be shorter, or modify {_fun_name(f)!r} "
                "so that its outputs have sufficient rank.")
        out_dims.append(_dims(spec, v.aval.ndim))
    if check_vma:
        vary = varying_axes(g, [frozenset()] * len(captured) +
                            [axes_of(dims) for dims in in_dims],
                            set(mesh.axis_names))
        for v, spec, dims, p in zip(vary, ospecs, out_dims, key_paths(otd), strict=True):
            allowed = axes_of(dims)
            extra = v - allowed
            if extra:
                fmt = lambda s: "{" + ", ".join(n for n in mesh.axis_names if n in s) + "}"  # noqa: E731
                raise ValueError(
                    f"shard_map applied to the function {_fun_name(f)!r} was given out_specs "
                    "which require replication which can't be statically inferred given the "
                    f"mesh:\n\n{_mesh_line(mesh)}\n\nout_specs{p} is {spec!r} which implies that "
                    "the corresponding output value is only varying across mesh axes "
                    f"{fmt(allowed)} and not {fmt(extra)}, but it was inferred to be possibly "
                    f"varying over {fmt(v)}\n\nCheck if these output values are meant to be "
                    "replicated over those mesh axes. If not, consider revising the "
                    "corresponding out_specs entries. If so, consider disabling the check by "
                    "passing the check_vma=False argument to `frontend.shard_map`.")
    ops = [as_operand(c) for c in captured] + [as_operand(x) for x in leaves]
    cap_dims = [((),) * len(getattr(c, "shape", ())) for c in captured]
    outs = shard_map_p.bind(*ops, body=g, mesh=mesh, in_specs=tuple(cap_dims + in_dims),
                            out_specs=tuple(out_dims))
    return tree_unflatten(otd, outs)


def _lift_traced_consts(g: Graph):
    """(g with the traced values it closes over as leading invars, those values): values of
    an enclosing trace are operands of the shard_map (replicated on every device); concrete
    constants stay in the body."""
    keep, lift = [], []
    for v, c in zip(g.constvars, g.consts, strict=True):
        (lift if isinstance(c, Tracer) else keep).append((v, c))
    if not lift:
        return g, []
    return Graph(tuple(v for v, _ in lift) + tuple(g.invars), tuple(v for v, _ in keep),
                 tuple(c for _, c in keep), g.eqns, g.outvars), [c for _, c in lift]


__all__ = ["shard_map"]
