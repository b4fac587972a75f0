// tridiagonal_solve: solves A x = b for tridiagonal A, as jax.lax.linalg.tridiagonal_solve:
// dl, d, du of shape [..., m] (dl[0] and du[m-1] are ignored), b and x of shape [..., m, n].
// The Thomas algorithm (no pivoting: for diagonally dominant or positive definite systems,
// like JAX's portable implementation). Leading axes index independent systems and
// broadcast: a size-1 leading axis of an operand is shared by the whole batch (what
// vmap_method="expand_dims" gives an unbatched operand, e.g. one matrix, many right-hand sides).
#include <algorithm>
#include <cstdint>
#include <vector>

#include "checks.h"
#include "common.h"

namespace vmaplab {
namespace {

template <typename T>
void ThomasSolve(const T* dl, const T* d, const T* du, const T* b, T* x, int64_t m, int64_t n,
                 T* c) {
  // forward sweep: c holds the modified super-diagonal, the rows of x the modified b
  T denom = d[0];
  c[0] = m > 1 ? du[0] / denom : T(0);
  for (int64_t j = 0; j < n; ++j) x[j] = b[j] / denom;
  for (int64_t i = 1; i < m; ++i) {
    denom = d[i] - dl[i] * c[i - 1];
    c[i] = i + 1 < m ? du[i] / denom : T(0);
    const T* prev = x + (i - 1) * n;
    T* row = x + i * n;
    const T* brow = b + i * n;
    for (int64_t j = 0; j < n; ++j) row[j] = (brow[j] - dl[i] * prev[j]) / denom;
  }
  // back substitution
  for (int64_t i = m - 2; i >= 0; --i) {
    T* row = x + i * n;
    const T* next = x + (i + 1) * n;
    for (int64_t j = 0; j < n; ++j) row[j] -= c[i] * next[j];
  }
}

ffi::Error TridiagonalSolve(ffi::ThreadPool pool, ffi::AnyBuffer dl, ffi::AnyBuffer d, ffi::AnyBuffer du,
                            ffi::AnyBuffer b, ffi::Result<ffi::AnyBuffer> x) {
  const std::string name = "vmaplab_tridiagonal_solve";
  std::vector<int64_t> batch;
  int64_t m = 0, n = 0;
  if (auto e = CheckTridiagonalSolve(name, dl, d, du, b, *x, &batch, &m, &n); e.failure()) return e;
  auto bd = b.dimensions();
  if (m == 0 || n == 0) return ffi::Error::Success();
  const auto o_dl = BroadcastOffsets(dl.dimensions(), batch);
  const auto o_d = BroadcastOffsets(d.dimensions(), batch);
  const auto o_du = BroadcastOffsets(du.dimensions(), batch);
  const auto o_b = BroadcastOffsets(bd, batch);
  return DispatchFloat(name, b.element_type(), [&](auto t) {
    using T = decltype(t);
    const T *pdl = dl.typed_data<T>(), *pd = d.typed_data<T>(), *pdu = du.typed_data<T>();
    const T* pb = b.typed_data<T>();
    T* px = x->typed_data<T>();
    const int64_t systems = static_cast<int64_t>(o_b.size());
    ParallelFor(pool, systems, std::max<int64_t>(1, (1 << 14) / (m * n)), [&](int64_t s0, int64_t s1) {
      std::vector<T> c(m);
      for (int64_t s = s0; s < s1; ++s) {
        ThomasSolve<T>(pdl + o_dl[s] * m, pd + o_d[s] * m, pdu + o_du[s] * m, pb + o_b[s] * m * n,
                       px + s * m * n, m, n, c.data());
      }
    });
    return ffi::Error::Success();
  });
}

}  // namespace
}  // namespace vmaplab

VMAPLAB_DECLARE_HANDLER(VmaplabTridiagonalSolve);
XLA_FFI_DEFINE_HANDLER_SYMBOL(VmaplabTridiagonalSolve, vmaplab::TridiagonalSolve,
                              xla::ffi::Ffi::Bind()
                                  .Ctx<xla::ffi::ThreadPool>()
                                  .Arg<xla::ffi::AnyBuffer>()
                                  .Arg<xla::ffi::AnyBuffer>()
                                  .Arg<xla::ffi::AnyBuffer>()
                                  .Arg<xla::ffi::AnyBuffer>()
                                  .Ret<xla::ffi::AnyBuffer>());
