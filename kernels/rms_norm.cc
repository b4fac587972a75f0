// rms_norm: y = x / sqrt(mean(x * x) + eps) over the last axis, every leading axis an
// independent row (so a vmapped call is the same kernel on more rows).
#include <algorithm>
#include <cmath>
#include <cstdint>

#include "checks.h"
#include "common.h"

namespace vmaplab {
namespace {

template <typename T>
void RmsNormRows(const T* x, T* y, int64_t rows, int64_t n, double eps) {
  constexpr int kLanes = 8;  // independent partial sums, so the compiler can vectorize
  for (int64_t r = 0; r < rows; ++r) {
    const T* xr = x + r * n;
    T* yr = y + r * n;
    T acc[kLanes] = {};
    int64_t i = 0;
    for (; i + kLanes <= n; i += kLanes) {
      for (int j = 0; j < kLanes; ++j) acc[j] += xr[i + j] * xr[i + j];
    }
    T total = 0;
    for (int j = 0; j < kLanes; ++j) total += acc[j];
    for (; i < n; ++i) total += xr[i] * xr[i];
    const T scale = T(1) / std::sqrt(total / T(n) + T(eps));
    for (int64_t k = 0; k < n; ++k) yr[k] = xr[k] * scale;
  }
}

ffi::Error RmsNorm(ffi::ThreadPool pool, double eps, ffi::AnyBuffer x,
                   ffi::Result<ffi::AnyBuffer> y) {
  const std::string name = "vmaplab_rms_norm";
  int64_t rows = 0, n = 0;
  if (auto e = CheckRmsNorm(name, x, *y, &rows, &n); e.failure()) return e;
  if (n == 0 || rows == 0) return ffi::Error::Success();
  return DispatchFloat(name, x.element_type(), [&](auto t) {
    using T = decltype(t);
    const T* px = x.typed_data<T>();
    T* py = y->typed_data<T>();
    ParallelFor(pool, rows, std::max<int64_t>(1, (1 << 16) / n), [&](int64_t r0, int64_t r1) {
      RmsNormRows<T>(px + r0 * n, py + r0 * n, r1 - r0, n, eps);
    });
    return ffi::Error::Success();
  });
}

}  // namespace
}  // namespace vmaplab

VMAPLAB_DECLARE_HANDLER(VmaplabRmsNorm);
XLA_FFI_DEFINE_HANDLER_SYMBOL(VmaplabRmsNorm, vmaplab::RmsNorm,
                              xla::ffi::Ffi::Bind()
                                  .Ctx<xla::ffi::ThreadPool>()
                                  .Attr<double>("eps")
                                  .Arg<xla::ffi::AnyBuffer>()
                                  .Ret<xla::ffi::AnyBuffer>());
