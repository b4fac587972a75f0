// The operand checks of each kernel, shared by the CPU handlers (kernels/*.cc) and the CUDA
// ones (kernels/cuda/*.cu): the same shapes accepted and the same error messages on both.
#ifndef VMAPLAB_KERNELS_CHECKS_H_
#define VMAPLAB_KERNELS_CHECKS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "common.h"

namespace vmaplab {

// rms_norm(x) -> y of x's shape and dtype: `rows` independent rows of `n` elements.
inline ffi::Error CheckRmsNorm(const std::string& name, const ffi::AnyBuffer& x,
                               const ffi::AnyBuffer& y, int64_t* rows, int64_t* n) {
  auto dims = x.dimensions();
  if (dims.size() == 0) return Invalid(name, "x must have rank >= 1, got shape ()");
  if (y.element_type() != x.element_type() || !(y.dimensions() == dims)) {
    return Invalid(name, "the result must have the shape and dtype of x, got shape " +
                             ShapeString(y.dimensions()) + " for x of shape " + ShapeString(dims));
  }
  *n = dims.back();
  *rows = LeadingSize(dims, dims.size() - 1);
  return ffi::Error::Success();
}

// segment_sum(data [..., n, r], ids [..., n]) -> out [..., num_segments, r]: the broadcast
// leading axes in `batch`.
inline ffi::Error CheckSegmentSum(const std::string& name, int64_t num_segments,
                                  const ffi::AnyBuffer& data, const ffi::AnyBuffer& ids,
                                  const ffi::AnyBuffer& out, std::vector<int64_t>* batch,
                                  int64_t* n, int64_t* r) {
  auto dd = data.dimensions(), id = ids.dimensions(), od = out.dimensions();
  if (dd.size() < 2 || id.size() + 1 != dd.size()) {
    return Invalid(name, "data must be [..., n, r] and segment_ids [..., n], got shapes " +
                             ShapeString(dd) + " and " + ShapeString(id));
  }
  if (ids.element_type() != ffi::DataType::S32) return Invalid(name, "segment_ids must be int32");
  const size_t lead = dd.size() - 2;
  *n = dd[lead];
  *r = dd[lead + 1];
  if (id[lead] != *n) {
    return Invalid(name, "segment_ids must have one id per row of data, got shapes " +
                             ShapeString(dd) + " and " + ShapeString(id));
  }
  if (!BroadcastLeading({dd, id}, lead, batch)) {
    return Invalid(name, "the leading axes of data and segment_ids do not broadcast: " +
                             ShapeString(dd) + " and " + ShapeString(id));
  }
  bool out_ok = od.size() == dd.size() && od[lead] == num_segments && od[lead + 1] == *r &&
                out.element_type() == data.element_type();
  for (size_t a = 0; out_ok && a < lead; ++a) out_ok = od[a] == (*batch)[a];
  if (num_segments < 0 || !out_ok) {
    return Invalid(name, "the result must have shape [..., num_segments, r] and the dtype of "
                         "data, got " + ShapeString(od));
  }
  return ffi::Error::Success();
}

// tridiagonal_solve(dl, d, du [..., m], b [..., m, n]) -> x [..., m, n]: the broadcast
// leading axes in `batch`.
inline ffi::Error CheckTridiagonalSolve(const std::string& name, const ffi::AnyBuffer& dl,
                                        const ffi::AnyBuffer& d, const ffi::AnyBuffer& du,
                                        const ffi::AnyBuffer& b, const ffi::AnyBuffer& x,
                                        std::vector<int64_t>* batch, int64_t* m, int64_t* n) {
  auto bd = b.dimensions(), xd = x.dimensions();
  if (bd.size() < 2) {
    return Invalid(name, "b must have rank >= 2 ([..., m, n]), got shape " + ShapeString(bd));
  }
  const size_t lead = bd.size() - 2;
  *m = bd[lead];
  *n = bd[lead + 1];
  for (const ffi::AnyBuffer* diag : {&dl, &d, &du}) {
    auto dd = diag->dimensions();
    if (dd.size() != lead + 1 || dd[lead] != *m) {
      return Invalid(name, "dl, d and du must have shape [..., m] for b of shape [..., m, n], got " +
                               ShapeString(dd) + " for b of shape " + ShapeString(bd));
    }
    if (diag->element_type() != b.element_type()) {
      return Invalid(name, "dl, d, du and b must have the same dtype");
    }
  }
  if (!BroadcastLeading({dl.dimensions(), d.dimensions(), du.dimensions(), bd}, lead, batch)) {
    return Invalid(name, "the leading axes of dl, d, du and b do not broadcast");
  }
  bool out_ok = x.element_type() == b.element_type() && xd.size() == bd.size() &&
                xd[lead] == *m && xd[lead + 1] == *n;
  for (size_t a = 0; out_ok && a < lead; ++a) out_ok = xd[a] == (*batch)[a];
  if (!out_ok) return Invalid(name, "the result must have shape [..., m, n] and the dtype of b");
  return ffi::Error::Success();
}

}  // namespace vmaplab

#endif  // VMAPLAB_KERNELS_CHECKS_H_
