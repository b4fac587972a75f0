"""Every primitive is one full row: abstract eval, batching rule (when it takes operands),
lowering rule (collectives: to XLA's collectives inside shard_map; under vmap, the vmap
naming their axis resolves them first), all stored on the primitive object.
(Whether the op-table tests exercise each lowering and batching rule is checked at the end
of a full test run by tests/conftest.py.)"""
import pytest
from harness import project_primitives, takes_operands

import frontend  # noqa: F401
import lowering.emit  # noqa: F401

PRIMS = project_primitives()
NAMES = sorted(PRIMS)


def test_the_table_is_not_empty():
    assert len(NAMES) > 70


@pytest.mark.parametrize("name", NAMES)
def test_primitive_has_every_column(name):
    p = PRIMS[name]
    assert p.abstract_eval_rule is not None, f"{name}: no abstract evaluation rule"
    assert p.lowering_rule is not None, f"{name}: no lowering rule (lowering/emit)"
    if takes_operands(p):
        assert p.batching_rule is not None, f"{name}: no batching rule"


def test_rows_are_module_globals_named_after_the_primitive():
    """``foo_p`` is the primitive named foo, so a row is found by grepping its name."""
    import sys
    for name, p in PRIMS.items():
        homes = [m for m, mod in list(sys.modules.items())
                 if m.startswith("frontend") and getattr(mod, f"{name}_p", None) is p]
        assert homes, f"primitive {name} is not bound to a module global {name}_p"
