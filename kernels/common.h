// Shared helpers of vmaplab's XLA FFI kernels: shape checks that return an ffi::Error (a
// kernel never crashes on bad input; XLA raises the message in Python) and the dtype switch.
#ifndef VMAPLAB_KERNELS_COMMON_H_
#define VMAPLAB_KERNELS_COMMON_H_

#include <cstdint>
#include <string>

#include "xla/ffi/api/ffi.h"

// The library is built with hidden symbols; these are the exported ones (a declaration ahead
// of XLA_FFI_DEFINE_HANDLER_SYMBOL gives the handler its visibility).
#if defined(_WIN32)
#define VMAPLAB_EXPORT extern "C" __declspec(dllexport)
#else
#define VMAPLAB_EXPORT extern "C" __attribute__((visibility("default")))
#endif
#define VMAPLAB_DECLARE_HANDLER(fn) VMAPLAB_EXPORT XLA_FFI_Error* fn(XLA_FFI_CallFrame* call_frame)

namespace vmaplab {

namespace ffi = xla::ffi;

inline std::string ShapeString(ffi::AnyBuffer::Dimensions dims) {
  std::string s = "(";
  for (size_t i = 0; i < dims.size(); ++i) {
    s += (i ? ", " : "") + std::to_string(dims[i]);
  }
  return s + (dims.size() == 1 ? ",)" : ")");
}

// The product of the first `n` dimensions (the batch of independent problems).
inline int64_t LeadingSize(ffi::AnyBuffer::Dimensions dims, size_t n) {
  int64_t p = 1;
  for (size_t i = 0; i < n; ++i) p *= dims[i];
  return p;
}

// Whether the first `n` dimensions of `a` and `b` agree.
inline bool SameLeading(ffi::AnyBuffer::Dimensions a, ffi::AnyBuffer::Dimensions b, size_t n) {
  if (a.size() < n || b.size() < n) return false;
  for (size_t i = 0; i < n; ++i) {
    if (a[i] != b[i]) return false;
  }
  return true;
}

inline ffi::Error Invalid(const std::string& kernel, const std::string& what) {
  return ffi::Error::InvalidArgument(kernel + ": " + what);
}

// Calls fn(T{}) with T = float or double after the element type; an error for other types.
template <typename Fn>
ffi::Error DispatchFloat(const std::string& kernel, ffi::DataType t, Fn&& fn) {
  switch (t) {
    case ffi::DataType::F32:
      return fn(float{});
    case ffi::DataType::F64:
      return fn(double{});
    default:
      return Invalid(kernel, "only float32 and float64 operands are supported");
  }
}

}  // namespace vmaplab

#endif  // VMAPLAB_KERNELS_COMMON_H_
