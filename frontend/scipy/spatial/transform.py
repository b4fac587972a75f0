"""frontend.scipy.spatial.transform: ``Rotation`` (3-D rotations stored as unit quaternions
``(x, y, z, w)``, one or a stack: leading axes broadcast) and ``Slerp`` (spherical linear
interpolation between rotations), as jax.scipy.spatial.transform: pytrees (NamedTuples).

>>> from frontend.scipy.spatial.transform import Rotation
>>> Rotation.from_euler("z", 90.0, degrees=True).as_rotvec()
Array([0.       , 0.       , 1.5707964], dtype=float32)
"""
from __future__ import annotations

import re
import typing

import numpy as np

from ... import numpy as fnp
from ...core.ir import aval_of

__all__ = ["Rotation", "Slerp"]


def _norm(v):
    return fnp.sqrt(fnp.sum(v * v, axis=-1))


def _normalize(q):
    return q / _norm(q)[..., None]


def _parts(q):
    return q[..., 0], q[..., 1], q[..., 2], q[..., 3]


def _compose(p, q):
    """The quaternion product p q (apply q, then p)."""
    px, py, pz, pw = _parts(p)
    qx, qy, qz, qw = _parts(q)
    cx, cy, cz = py * qz - pz * qy, pz * qx - px * qz, px * qy - py * qx
    return fnp.stack([pw * qx + qw * px + cx, pw * qy + qw * py + cy,
                      pw * qz + qw * pz + cz, pw * qw - px * qx - py * qy - pz * qz], axis=-1)


def _as_matrix(q):
    x, y, z, w = _parts(q)
    x2, y2, z2, w2 = x * x, y * y, z * z, w * w
    xy, zw, xz, yw, yz, xw = x * y, z * w, x * z, y * w, y * z, x * w
    rows = [[x2 - y2 - z2 + w2, 2 * (xy - zw), 2 * (xz + yw)],
            [2 * (xy + zw), -x2 + y2 - z2 + w2, 2 * (yz - xw)],
            [2 * (xz - yw), 2 * (yz + xw), -x2 - y2 + z2 + w2]]
    return fnp.stack([fnp.stack(r, axis=-1) for r in rows], axis=-2)


def _from_matrix(m):
    """The quaternion of a rotation matrix, from its largest diagonal entry or its trace."""
    m = fnp.asarray(m)
    trace = m[..., 0, 0] + m[..., 1, 1] + m[..., 2, 2]
    decision = fnp.stack([m[..., 0, 0], m[..., 1, 1], m[..., 2, 2], trace], axis=-1)
    choice = fnp.argmax(decision, axis=-1)
    out = fnp.stack([m[..., 2, 1] - m[..., 1, 2], m[..., 0, 2] - m[..., 2, 0],
                     m[..., 1, 0] - m[..., 0, 1], 1 + trace], axis=-1)
    for i in (0, 1, 2):
        j, k = (i + 1) % 3, (i + 2) % 3
        comp = [None] * 4
        comp[i] = 1 - trace + 2 * m[..., i, i]
        comp[j] = m[..., j, i] + m[..., i, j]
        comp[k] = m[..., k, i] + m[..., i, k]
        comp[3] = m[..., k, j] - m[..., j, k]
        out = fnp.where((choice == i)[..., None], fnp.stack(comp, axis=-1), out)
    return _normalize(out)


def _from_rotvec(v, degrees):
    v = fnp.asarray(v)
    if degrees:
        v = fnp.deg2rad(v)
    angle = _norm(v)
    a2 = angle * angle
    small = 0.5 - a2 / 48 + a2 * a2 / 3840
    scale = fnp.where(angle <= 1e-3, small, fnp.sin(angle / 2) / angle)
    return fnp.concatenate([scale[..., None] * v, fnp.cos(angle / 2)[..., None]], axis=-1)


def _as_rotvec(q, degrees):
    q = fnp.where((q[..., 3] < 0)[..., None], -q, q)  # w >= 0: the angle in [0, pi]
    angle = 2.0 * fnp.arctan2(_norm(q[..., :3]), q[..., 3])
    a2 = angle * angle
    small = 2 + a2 / 12 + 7 * a2 * a2 / 2880
    scale = fnp.where(angle <= 1e-3, small, angle / fnp.sin(angle / 2))
    if degrees:
        scale = fnp.rad2deg(scale)
    return scale[..., None] * q[..., :3]


def _from_mrp(p):
    p = fnp.asarray(p)
    s = fnp.sum(p * p, axis=-1, keepdims=True) + 1
    return fnp.concatenate([2 * p[..., :3], 2 - s], axis=-1) / s


def _as_mrp(q):
    sign = fnp.where(q[..., 3] < 0, -1.0, 1.0)
    return (sign / (1.0 + sign * q[..., 3]))[..., None] * q[..., :3]


def _canonical(q):
    """q or -q: the one whose first nonzero entry of (w, x, y, z) is positive."""
    neg, zero = q < 0, q == 0
    flip = (neg[..., 3] | (zero[..., 3] & neg[..., 0]) | (zero[..., 3] & zero[..., 0] & neg[..., 1])
            | (zero[..., 3] & zero[..., 0] & zero[..., 1] & neg[..., 2]))
    return fnp.where(flip[..., None], -q, q)


def _check_seq(seq, lengths):
    if len(seq) not in lengths:
        if lengths == (3,):
            raise ValueError(f"Expected 3 axes, got {seq}.")
        raise ValueError("Expected axis specification to be a non-empty string of upto 3 "
                         f"characters, got {seq}")
    intrinsic = re.match(r"^[XYZ]{1,3}$", seq) is not None
    extrinsic = re.match(r"^[xyz]{1,3}$", seq) is not None
    if not (intrinsic or extrinsic):
        raise ValueError("Expected axes from `seq` to be from ['x', 'y', 'z'] or "
                         f"['X', 'Y', 'Z'], got {seq}")
    if any(seq[i] == seq[i + 1] for i in range(len(seq) - 1)):
        raise ValueError(f"Expected consecutive axes to be different, got {seq}")
    return ["xyz".index(a) for a in seq.lower()], intrinsic


def _elementary(axis, angle):
    parts = [fnp.zeros(aval_of(angle).shape, aval_of(angle).dtype)] * 4
    parts[3], parts[axis] = fnp.cos(angle / 2.0), fnp.sin(angle / 2.0)
    return fnp.stack(parts, axis=-1)


def _euler_angles(q, axes, extrinsic, degrees):
    """Euler angles (extrinsic or intrinsic ``axes``) of quaternions: the angle of the middle
    axis from the quaternion's parts, the outer two from half sums and differences."""
    if not extrinsic:
        axes = axes[::-1]
    i, j, k = axes
    symmetric = i == k
    if symmetric:
        k = 3 - i - j
    sign = (i - j) * (j - k) * (k - i) // 2
    w = q[..., 3]
    if symmetric:
        a, b, c, d = w, q[..., i], q[..., j], q[..., k] * sign
    else:
        a, b = w - q[..., j], q[..., i] + q[..., k] * sign
        c, d = q[..., j] + w, q[..., k] * sign - q[..., i]
    middle = 2 * fnp.arctan2(fnp.hypot(c, d), fnp.hypot(a, b))
    eps = 1e-7
    case = fnp.where(fnp.abs(middle) <= eps, 1, fnp.where(fnp.abs(middle - np.pi) <= eps, 2, 0))
    half_sum, half_diff = fnp.arctan2(b, a), fnp.arctan2(d, c)
    first, third = (0, 2) if extrinsic else (2, 0)
    angles = [fnp.zeros(aval_of(middle).shape, aval_of(q).dtype)] * 3
    angles[1] = middle
    angles[0] = fnp.where(case == 1, 2 * half_sum, 2 * half_diff * (-1 if extrinsic else 1))
    angles[first] = fnp.where(case == 0, half_sum - half_diff, angles[first])
    angles[third] = fnp.where(case == 0, half_sum + half_diff, angles[third])
    if not symmetric:
        angles[third] = angles[third] * sign
        angles[1] = angles[1] - np.pi / 2
    out = (fnp.stack(angles, axis=-1) + np.pi) % (2 * np.pi) - np.pi
    return fnp.rad2deg(out) if degrees else out


class Rotation(typing.NamedTuple):
    """Rotations in 3 dimensions, as unit quaternions ``quat`` (..., 4) in (x, y, z, w) order."""
    quat: typing.Any

    @classmethod
    def concatenate(cls, rotations):
        """One stack of rotations from several."""
        return cls(fnp.concatenate([r.quat for r in rotations]))

    @classmethod
    def from_euler(cls, seq, angles, degrees=False):
        """From Euler angles about the axes of ``seq`` ('xyz': extrinsic, 'XYZ': intrinsic)."""
        axes, intrinsic = _check_seq(seq, (1, 2, 3))
        angles = fnp.atleast_1d(angles)
        if degrees:
            angles = fnp.deg2rad(angles)
        q = _elementary(axes[0], angles[..., 0])
        for n in range(1, len(axes)):
            e = _elementary(axes[n], angles[..., n])
            q = _compose(q, e) if intrinsic else _compose(e, q)
        return cls(q)

    @classmethod
    def from_matrix(cls, matrix):
        """From rotation matrices (..., 3, 3)."""
        return cls(_from_matrix(matrix))

    @classmethod
    def from_mrp(cls, mrp):
        """From modified Rodrigues parameters (..., 3)."""
        return cls(_from_mrp(mrp))

    @classmethod
    def from_quat(cls, quat):
        """From quaternions (..., 4) in (x, y, z, w) order (normalized)."""
        return cls(_normalize(fnp.asarray(quat)))

    @classmethod
    def from_rotvec(cls, rotvec, degrees=False):
        """From rotation vectors (..., 3): the axis scaled by the angle."""
        return cls(_from_rotvec(rotvec, degrees))

    @classmethod
    def identity(cls, num=None, dtype=float):
        """The identity rotation (JAX's: ``num`` must be None)."""
        if num is not None:
            raise AssertionError("Rotation.identity: num must be None, as JAX's")
        return cls(fnp.array([0.0, 0.0, 0.0, 1.0], dtype=dtype))

    @classmethod
    def random(cls, random_key, num=None):
        """Not implemented, as in JAX."""
        raise NotImplementedError()

    def __getitem__(self, indexer):
        if self.single:
            raise TypeError("Single rotation is not subscriptable.")
        return Rotation(self.quat[indexer])

    def __len__(self):
        if self.single:
            raise TypeError("Single rotation has no len().")
        return aval_of(self.quat).shape[0]

    def __mul__(self, other):
        """The composition: ``other`` first, then ``self``."""
        return Rotation.from_quat(_compose(self.quat, other.quat))

    def apply(self, vectors, inverse=False):
        """Rotate vectors (..., 3) (by the inverse rotation with ``inverse``)."""
        m = self.as_matrix()
        if inverse:
            m = fnp.swapaxes(m, -1, -2)
        return fnp.matmul(m, fnp.asarray(vectors)[..., None])[..., 0]

    def as_euler(self, seq, degrees=False):
        """Euler angles (..., 3) about the three axes of ``seq``."""
        axes, intrinsic = _check_seq(seq, (3,))
        return _euler_angles(self.quat, axes, not intrinsic, degrees)

    def as_matrix(self):
        """Rotation matrices (..., 3, 3)."""
        return _as_matrix(self.quat)

    def as_mrp(self):
        """Modified Rodrigues parameters (..., 3)."""
        return _as_mrp(self.quat)

    def as_rotvec(self, degrees=False):
        """Rotation vectors (..., 3)."""
        return _as_rotvec(self.quat, degrees)

    def as_quat(self, canonical=False, scalar_first=False):
        """Quaternions (..., 4): (x, y, z, w), or (w, x, y, z) with ``scalar_first``;
        ``canonical``: w >= 0 (the first nonzero of w, x, y, z positive)."""
        q = _canonical(self.quat) if canonical else self.quat
        return fnp.roll(q, shift=1, axis=-1) if scalar_first else q

    def inv(self):
        """The inverse rotations."""
        return Rotation(self.quat * fnp.array([-1, -1, -1, 1], dtype=aval_of(self.quat).dtype))

    def magnitude(self):
        """The rotation angles in radians."""
        q = self.quat
        return 2.0 * fnp.arctan2(_norm(q[..., :3]), fnp.abs(q[..., 3]))

    def mean(self, weights=None):
        """The (weighted) mean rotation: the top eigenvector of sum w q q^T."""
        q = self.quat
        d = aval_of(q).dtype
        w = fnp.ones(aval_of(q).shape[0], dtype=d) if weights is None else \
            fnp.asarray(weights, dtype=d)
        if aval_of(w).ndim != 1:
            raise ValueError(f"Expected `weights` to be 1 dimensional, got shape "
                             f"{aval_of(w).shape}.")
        if aval_of(w).shape[0] != len(self):
            raise ValueError("Expected `weights` to have number of values equal to number of "
                             f"rotations, got {aval_of(w).shape[0]} values and {len(self)} "
                             "rotations.")
        k = fnp.dot(w[None, :] * q.T, q)
        return Rotation(fnp.linalg.eigh(k)[1][:, -1])

    @property
    def single(self):
        """Whether this is one rotation (not a stack)."""
        return aval_of(self.quat).ndim == 1


class Slerp(typing.NamedTuple):
    """Spherical linear interpolation of rotations at increasing ``times`` (build it with
    ``Slerp.init(times, rotations)``; call it with the times to interpolate at)."""
    times: typing.Any
    timedelta: typing.Any
    rotations: Rotation
    rotvecs: typing.Any

    @classmethod
    def init(cls, times, rotations):
        if not isinstance(rotations, Rotation):
            raise TypeError("`rotations` must be a `Rotation` instance.")
        if rotations.single or len(rotations) == 1:
            raise ValueError("`rotations` must be a sequence of at least 2 rotations.")
        times = fnp.asarray(times, dtype=aval_of(rotations.quat).dtype)
        if aval_of(times).ndim != 1:
            raise ValueError("Expected times to be specified in a 1 dimensional array, got "
                             f"{aval_of(times).ndim} dimensions.")
        if aval_of(times).shape[0] != len(rotations):
            raise ValueError("Expected number of rotations to be equal to number of timestamps "
                             f"given, got {len(rotations)} rotations and "
                             f"{aval_of(times).shape[0]} timestamps.")
        q = rotations.as_quat()
        starts = Rotation(q[:-1])
        return cls(times=times, timedelta=fnp.diff(times), rotations=starts,
                   rotvecs=(starts.inv() * Rotation(q[1:])).as_rotvec())

    def __call__(self, times):
        t = fnp.asarray(times, dtype=aval_of(self.times).dtype)
        if aval_of(t).ndim > 1:
            raise ValueError("`times` must be at most 1-dimensional.")
        single = aval_of(t).ndim == 0
        t = fnp.atleast_1d(t)
        ind = fnp.maximum(fnp.searchsorted(self.times, t) - 1, 0)
        alpha = (t - self.times[ind]) / self.timedelta[ind]
        out = self.rotations[ind] * Rotation.from_rotvec(self.rotvecs[ind] * alpha[:, None])
        return out[0] if single else out


def __getattr__(name):
    from ...core import jax_names
    raise jax_names.missing(__name__, name)
