"""Hostile artifacts and modules: malformed headers, crafted custom calls and fuzzed bytes
(bit flips, truncations, mutations with a recomputed checksum) are ValueErrors/TypeErrors
with a message, never a crash of the process. The fuzzing runs in child processes, many
mutations per child; a child killed by a signal fails the test naming the mutation."""
import hashlib
import json
import os
import signal
import subprocess
import sys

import numpy as np
import pytest

import frontend as fe
import frontend.numpy as fnp
from frontend import export as fx

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
X = np.linspace(-1, 1, 12, dtype=np.float32).reshape(4, 3)
A = (np.eye(3) * 2 + 0.1).astype(np.float32)


def _rewrap(blob: bytes, body_edit) -> bytes:
    """Edit the body of a vmaplab artifact and recompute its checksum (which is integrity,
    not authentication: anyone can)."""
    n = len(fx.MAGIC)
    body = body_edit(bytes(blob[n + 32:]))
    return fx.MAGIC + hashlib.sha256(body).digest() + body


def _with_header(blob: bytes, edit) -> bytes:
    def body_edit(body):
        n = int.from_bytes(body[:4], "big")
        h = json.loads(body[4:4 + n])
        edit(h)
        new = json.dumps(h).encode() if not isinstance(h, bytes) else h
        return len(new).to_bytes(4, "big") + new + body[4 + n:]
    return _rewrap(blob, body_edit)


@pytest.fixture(scope="module")
def blob():
    return bytes(fx.export(fe.jit(lambda x, y: (fnp.tanh(x) * y, x.sum())))(X, 2.0).serialize())


def _set(key, value):
    return lambda h: h.__setitem__(key, value)


HEADERS = [
    ("format_version as a string", _set("format_version", "1"),
     "format_version must be an int, got the string '1'"),
    ("format_version missing", lambda h: h.pop("format_version"), "has no format_version"),
    ("fun_name missing", lambda h: h.pop("fun_name"), "the header has no fun_name"),
    ("fun_name not a string", _set("fun_name", 3), "fun_name must be a string"),
    ("in_tree leaf count", lambda h: h["in_tree"]["tuple"][0]["tuple"].append("*"),
     "in_tree has 3 leaves but in_avals has 2 types"),
    ("out_tree leaf count", _set("out_tree", "*"), "out_tree has 1 leaves but out_avals has 2"),
    ("in_tree no args pair", _set("in_tree", {"list": ["*", "*"]}), "in_tree must be a pair"),
    ("unknown node", _set("in_tree", {"set": []}), "which is no pytree node"),
    ("children not a list", _set("out_tree", {"tuple": 5}), "has children 5, not a list"),
    ("deep tree", _set("out_tree", json.loads('{"tuple": [' * 400 + ']}' * 400)),
     "nested deeper than"),
    ("aval not a triple", lambda h: h["in_avals"].__setitem__(0, [4, 3]),
     r"in_avals\[0\] must be \[shape, dtype, weak_type\]"),
    ("negative dim", lambda h: h["in_avals"][0].__setitem__(0, [-4, 3]), "non-negative ints"),
    ("object dtype", lambda h: h["in_avals"][0].__setitem__(1, "object"), "unknown dtype 'object'"),
    ("dtype not a string", lambda h: h["out_avals"][0].__setitem__(1, 7), "unknown dtype 7"),
    ("weak not a bool", lambda h: h["in_avals"][0].__setitem__(2, 1), "weak_type 1"),
    ("kept index out of range", _set("module_kept_var_idx", [0, 5]), "module_kept_var_idx"),
    ("kept not a list", _set("module_kept_var_idx", "01"), "module_kept_var_idx must be"),
    ("platforms empty", _set("platforms", []), "platforms must be a non-empty list"),
    ("header a list", lambda h: (h.clear()), "has no format_version"),
    ("dict keys repeated", _set("out_tree", {"dict": [["a", "*"], ["a", "*"]]}), "distinct"),
]


@pytest.mark.parametrize("name,edit,message", HEADERS, ids=[h[0] for h in HEADERS])
def test_malformed_headers_are_corrupt_artifact_errors(blob, name, edit, message):
    with pytest.raises(ValueError, match=f"corrupt artifact: .*{message}"):
        fx.deserialize(_with_header(blob, edit))


def test_deeply_nested_header_json(blob):
    deep = b"[" * 100000 + b"]" * 100000

    def body_edit(body):
        return len(deep).to_bytes(4, "big") + deep + body[4 + int.from_bytes(body[:4], "big"):]
    with pytest.raises(ValueError, match="corrupt artifact: unreadable header"):
        fx.deserialize(_rewrap(blob, body_edit))


# ----------------------------------------------------------------------------- custom calls

GETRF = """func.func @main(%a: tensor<4x4xf32>) -> tensor<{out}xf32> {{
  %0:3 = stablehlo.custom_call @lapack_sgetrf_ffi(%a) {{api_version = 4 : i32,
    operand_layouts = [dense<[0, 1]> : tensor<2xindex>], result_layouts = [dense<[0, 1]> :
    tensor<2xindex>, dense<0> : tensor<1xindex>, dense<> : tensor<0xindex>]{alias}}} :
    (tensor<4x4xf32>) -> (tensor<{out}xf32>, tensor<{piv}xi32>, tensor<i32>)
  return %0#0 : tensor<{out}xf32>
}}"""
ALIAS = (", output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = "
         "[0], operand_index = 0, operand_tuple_indices = []>]")
CALLBACK = """func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.custom_call @xla_ffi_python_cpu_callback(%a) {api_version = 4 : i32,
    backend_config = {index = 123456 : ui64}, has_side_effect = true} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}"""
UNKNOWN = CALLBACK.replace("xla_ffi_python_cpu_callback", "lapack_sgeqp3_ffi")
RMS = """func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.custom_call @vmaplab_rms_norm(%a) {api_version = 4 : i32,
    backend_config = {eps = 1 : i64}} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}"""

CRAFTED = [
    ("getrf small result", GETRF.format(out="1x1", piv="1", alias=""),
     r"'lapack_sgetrf_ffi': operands \(f32\[4,4\]\) give the results \(f32\[4,4\], i32\[4\], "
     r"i32\[\]\), the module says \(f32\[1,1\], i32\[1\], i32\[\]\)"),
    ("getrf no aliases", GETRF.format(out="4x4", piv="4", alias=""),
     "'lapack_sgetrf_ffi': output_operand_aliases"),
    ("getrf layouts", GETRF.format(out="4x4", piv="4", alias=ALIAS).replace("[0, 1]", "[1, 0]"),
     "'lapack_sgetrf_ffi': layouts"),
    ("python callback", CALLBACK, "'xla_ffi_python_cpu_callback' refused: a Python callback"),
    ("unknown target", UNKNOWN, "'lapack_sgeqp3_ffi' refused: not a target vmaplab emits"),
    ("kernel attribute type", RMS, "'vmaplab_rms_norm' does not match its signature: .*eps "
                                   "must be float64"),
]


@pytest.mark.parametrize("name,text,message", CRAFTED, ids=[c[0] for c in CRAFTED])
def test_crafted_custom_calls_are_refused(name, text, message):
    with pytest.raises(ValueError, match=f"compile_stablehlo: custom call to {message}"):
        fe.compile_stablehlo(text)


def test_custom_calls_vmaplab_emits_pass_the_check():
    f = fe.jit(lambda a: (fnp.linalg.det(a), fnp.linalg.svd(a)[1], fnp.linalg.qr(a)[1],
                          fnp.linalg.eigh(a)[0], fnp.linalg.cholesky(a @ a.T),
                          fnp.linalg.solve(a, a)))
    exp = fx.export(f)(A)
    back = fx.deserialize(exp.serialize())
    for got, want in zip(back.call(A), f(A), strict=True):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    good = GETRF.format(out="4x4", piv="4", alias=ALIAS)
    np.testing.assert_allclose(fe.compile_stablehlo(good)(np.eye(4, dtype=np.float32)), np.eye(4))


def test_crafted_custom_call_in_an_artifact(blob):
    """An artifact whose module calls LAPACK with too small results, re-checksummed."""
    exp = fx.export(fe.jit(lambda a: a * 2))(np.eye(4, dtype=np.float32))
    text = GETRF.format(out="1x1", piv="1", alias="")
    crafted = fx.Exported("f", exp.in_tree, exp.in_avals, exp.out_tree,
                          [exp.out_avals[0].update(shape=(1, 1))], ("cpu",), text)
    with pytest.raises(ValueError, match="the artifact of f: custom call to 'lapack_sgetrf_ffi'"):
        fx.deserialize(crafted.serialize())
    crafted = fx.Exported("g", exp.in_tree, [exp.in_avals[0].update(shape=(4,))],
                          exp.out_tree, [exp.in_avals[0].update(shape=(4,))], ("cpu",), CALLBACK)
    with pytest.raises(ValueError, match="the artifact of g: custom call to "
                                         "'xla_ffi_python_cpu_callback' refused"):
        fx.deserialize(crafted.serialize())


# ----------------------------------------------------------------------------- fuzzing

FUZZ_WORKER = r"""
import hashlib, json, random, sys, numpy as np
import frontend as fe, frontend.numpy as fnp
from frontend import export as fx
seed, count = int(sys.argv[1]), int(sys.argv[2])
X = np.linspace(-1, 1, 12, dtype=np.float32).reshape(4, 3)
A = (np.eye(3) * 2 + 0.1).astype(np.float32)
bases = [(bytes(fx.export(fe.jit(lambda x: fnp.tanh(x @ x.T).sum(0)))(X).serialize()), X),
         (bytes(fx.export(fe.jit(lambda a: (fnp.linalg.det(a), fnp.linalg.svd(a)[1])))(A)
                .serialize()), A)]
rng = random.Random(seed)
n = len(fx.MAGIC)
bad = []
for i in range(count):
    which = rng.randrange(len(bases))
    blob, arg = bases[which]
    body = bytearray(blob[n + 32:])
    kind = rng.choice(["flip", "truncate", "rechecksum", "rechecksum", "rechecksum", "splice"])
    if kind == "flip":
        m = bytearray(blob)
        for _ in range(rng.randint(1, 4)):
            m[rng.randrange(len(m))] ^= 1 << rng.randrange(8)
    elif kind == "truncate":
        m = blob[:rng.randrange(len(blob))]
    else:
        if kind == "splice":  # copy a run of bytes over another place
            a, b = rng.randrange(len(body)), rng.randrange(len(body))
            k = rng.randint(1, 16)
            body[a:a + k] = body[b:b + k]
        else:
            for _ in range(rng.randint(1, 3)):
                body[rng.randrange(len(body))] = rng.randrange(256)
        m = fx.MAGIC + hashlib.sha256(bytes(body)).digest() + bytes(body)
    desc = f"seed {seed} mutation {i} ({kind} of base {which}, sha256 {hashlib.sha256(m).hexdigest()[:16]})"
    print("TRY", desc, flush=True)
    try:
        fx.deserialize(m).call(arg)
        outcome = "ok"
    except (ValueError, TypeError) as e:
        outcome = type(e).__name__
        if not str(e).strip():
            bad.append(f"{desc}: {type(e).__name__} without a message")
    except Exception as e:
        bad.append(f"{desc}: {type(e).__name__}: {str(e)[:300]}")
    print("DONE", outcome, flush=True)
print("RESULT", json.dumps({"bad": bad}), flush=True)
"""


def _fuzz(tmp_path, seeds, count):
    script = tmp_path / "fuzz_worker.py"
    script.write_text(FUZZ_WORKER)
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    procs = [subprocess.Popen([sys.executable, str(script), str(s), str(count)], env=env,
                              cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True) for s in seeds]
    outcomes: dict = {}
    for p in procs:
        out, err = p.communicate(timeout=1800)
        lines = out.splitlines()
        tries = [ln[4:] for ln in lines if ln.startswith("TRY ")]
        if p.returncode != 0:
            why = signal.Signals(-p.returncode).name if p.returncode < 0 else p.returncode
            pytest.fail(f"fuzz child died ({why}) on {tries[-1] if tries else 'startup'}\n"
                        f"{err[-2000:]}")
        result = json.loads([ln for ln in lines if ln.startswith("RESULT ")][0][7:])
        assert result["bad"] == [], result["bad"][:10]
        for ln in lines:
            if ln.startswith("DONE "):
                outcomes[ln[5:]] = outcomes.get(ln[5:], 0) + 1
    assert sum(outcomes.values()) == len(seeds) * count
    return outcomes


def test_fuzzed_artifacts_never_crash(tmp_path):
    outcomes = _fuzz(tmp_path, seeds=(1, 2), count=60)
    assert outcomes.get("ValueError", 0) > 0


@pytest.mark.slow
def test_fuzzed_artifacts_never_crash_many(tmp_path):
    outcomes = _fuzz(tmp_path, seeds=tuple(range(100, 108)), count=250)  # 2,000 artifacts
    print("fuzz outcomes:", outcomes)
