// segment_sum: out[..., s, :] = sum of data[..., i, :] over the i with segment_ids[..., i] == s,
// as jax.ops.segment_sum on data flattened to [..., n, r] (ids outside [0, num_segments)
// are dropped). Leading axes are independent problems and broadcast: a size-1 leading axis
// of data or segment_ids is shared by the whole batch (what vmap_method="expand_dims" gives
// an unbatched operand), so unbatched segment ids are never copied per example.
#include <cstdint>
#include <vector>

#include "checks.h"
#include "common.h"

namespace vmaplab {
namespace {

// problems [p0, p1)
template <typename T>
void SegmentSum(const T* data, const int32_t* ids, T* out, const std::vector<int64_t>& data_off,
                const std::vector<int64_t>& ids_off, int64_t n, int64_t r, int64_t segments,
                int64_t p0, int64_t p1) {
  for (int64_t p = p0; p < p1; ++p) {
    const T* dp = data + data_off[p] * n * r;
    const int32_t* ip = ids + ids_off[p] * n;
    T* op = out + p * segments * r;
    std::fill(op, op + segments * r, T(0));
    for (int64_t i = 0; i < n; ++i) {
      const int64_t s = ip[i];
      if (s < 0 || s >= segments) continue;  // dropped, as JAX's segment_sum
      const T* row = dp + i * r;
      T* acc = op + s * r;
      for (int64_t j = 0; j < r; ++j) acc[j] += row[j];
    }
  }
}

ffi::Error SegmentSumImpl(ffi::ThreadPool pool, int64_t num_segments, ffi::AnyBuffer data, ffi::AnyBuffer ids,
                          ffi::Result<ffi::AnyBuffer> out) {
  const std::string name = "vmaplab_segment_sum";
  std::vector<int64_t> batch;
  int64_t n = 0, r = 0;
  if (auto e = CheckSegmentSum(name, num_segments, data, ids, *out, &batch, &n, &r); e.failure()) {
    return e;
  }
  auto dd = data.dimensions(), id = ids.dimensions();
  const auto data_off = BroadcastOffsets(dd, batch);
  const auto ids_off = BroadcastOffsets(id, batch);
  return DispatchFloat(name, data.element_type(), [&](auto t) {
    using T = decltype(t);
    const T* pd = data.typed_data<T>();
    const int32_t* pi = ids.typed_data<int32_t>();
    T* po = out->typed_data<T>();
    const int64_t problems = static_cast<int64_t>(data_off.size());
    ParallelFor(pool, problems, std::max<int64_t>(1, (1 << 16) / std::max<int64_t>(n * r, 1)),
                [&](int64_t p0, int64_t p1) {
                  SegmentSum<T>(pd, pi, po, data_off, ids_off, n, r, num_segments, p0, p1);
                });
    return ffi::Error::Success();
  });
}

}  // namespace
}  // namespace vmaplab

VMAPLAB_DECLARE_HANDLER(VmaplabSegmentSum);
XLA_FFI_DEFINE_HANDLER_SYMBOL(VmaplabSegmentSum, vmaplab::SegmentSumImpl,
                              xla::ffi::Ffi::Bind()
                                  .Ctx<xla::ffi::ThreadPool>()
                                  .Attr<int64_t>("num_segments")
                                  .Arg<xla::ffi::AnyBuffer>()
                                  .Arg<xla::ffi::AnyBuffer>()
                                  .Ret<xla::ffi::AnyBuffer>());
