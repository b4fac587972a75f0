"""Every primitive is one full row: abstract eval, batching rule, StableHLO emitter, and a
public wrapper. (Whether the op-table tests exercise each emitter and batching rule is checked
at the end of a full test run by tests/conftest.py.)"""
import pytest

import frontend  # noqa: F401
import lowering.backend  # noqa: F401
from frontend.core import PRIMITIVES, Primitive
from lowering.hlo import EMITTERS

# primitives of the project (tests may define their own, e.g. one without a batching rule)
NAMES = sorted(n for n, p in PRIMITIVES.items() if type(p).__module__.startswith("frontend."))


def test_the_table_is_not_empty():
    assert len(NAMES) > 40


@pytest.mark.parametrize("name", NAMES)
def test_primitive_has_every_column(name):
    p = PRIMITIVES[name]
    assert type(p).abstract_eval is not Primitive.abstract_eval, f"{name}: no abstract_eval"
    assert p.has_batch_rule(), f"{name}: no batching rule"
    assert name in EMITTERS, f"{name}: no StableHLO emitter in lowering/emit"


def test_no_emitter_without_primitive():
    assert set(EMITTERS) <= set(PRIMITIVES)
    assert set(NAMES) <= set(EMITTERS)
