"""Every primitive is one full row: abstract eval, batching rule (when it takes operands),
lowering rule (collectives: to XLA's collectives inside shard_map; under vmap, the vmap
naming their axis resolves them first), jvp rule, and a transpose rule for the linear ones,
all stored on the primitive object. (Whether the tests exercise each lowering, batching, jvp
and transpose rule is checked at the end of a full test run by tests/conftest.py.)"""
import pytest
from harness import project_primitives, takes_operands

import frontend  # noqa: F401
import lowering.emit  # noqa: F401
from frontend.core.ir import LOWERING_PLATFORMS

PRIMS = project_primitives()
NAMES = sorted(PRIMS)

# Primitives linear in some of their operands (given the others): reverse mode transposes
# them, so each needs a transpose rule. while's rule raises JAX's error (reverse mode through
# a loop of unknown trip count); the call primitives transpose their graphs.
LINEAR = {
    "neg", "add", "sub", "mul", "div", "select", "convert_element_type",
    "broadcast_in_dim", "reshape", "transpose", "squeeze", "rev", "reduce_sum", "cumsum",
    "slice", "pad", "concatenate", "dynamic_slice", "dynamic_update_slice", "gather",
    "scatter", "scatter_add", "scatter_mul", "dot_general",
    "cond", "scan", "while", "custom_jvp_call", "custom_vjp_call", "custom_lin", "checkpoint",
    # collectives over named axes (tests/test_collectives.py differentiates them under vmap)
    "psum", "all_gather", "reduce_scatter", "all_to_all", "ppermute",
    # programs over a mesh: the constraint, and shard_map (its body's backward pass)
    "sharding_constraint", "shard_map",
    # issue 14's families
    "real", "imag", "conj", "complex", "reduce_precision", "conv_general_dilated", "fft",
    "reduce_window_sum", "triangular_solve", "optimization_barrier",
    "tridiagonal_solve",
}


def test_the_table_is_not_empty():
    assert len(NAMES) > 70


@pytest.mark.parametrize("name", NAMES)
def test_primitive_has_every_column(name):
    p = PRIMS[name]
    assert p.abstract_eval_rule is not None, f"{name}: no abstract evaluation rule"
    assert all(p.lowering_for(q) is not None for q in LOWERING_PLATFORMS), \
        f"{name}: no lowering rule (lowering/emit) for some platform"
    if takes_operands(p):
        assert p.batching_rule is not None, f"{name}: no batching rule"
    assert p.jvp_rule is not None, f"{name}: no jvp rule"
    if name in LINEAR:
        assert p.transpose_rule is not None, f"{name}: linear, but no transpose rule"


def test_linear_primitives_are_declared():
    """A transpose rule belongs to a primitive declared linear here (in some operands, given
    the others), so the list above stays true."""
    extra = sorted(n for n, p in PRIMS.items() if p.transpose_rule is not None and n not in LINEAR)
    assert not extra, f"primitives with a transpose rule that are not declared linear: {extra}"
    assert LINEAR <= set(PRIMS), f"unknown primitives in LINEAR: {sorted(LINEAR - set(PRIMS))}"


def test_rows_are_module_globals_named_after_the_primitive():
    """``foo_p`` is the primitive named foo, so a row is found by grepping its name."""
    import sys
    for name, p in PRIMS.items():
        homes = [m for m, mod in list(sys.modules.items())
                 if m.startswith("frontend") and getattr(mod, f"{name}_p", None) is p]
        assert homes, f"primitive {name} is not bound to a module global {name}_p"
