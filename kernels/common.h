// Shared helpers of vmaplab's XLA FFI kernels: shape checks that return an ffi::Error (a
// kernel never crashes on bad input; XLA raises the message in Python) and the dtype switch.
#ifndef VMAPLAB_KERNELS_COMMON_H_
#define VMAPLAB_KERNELS_COMMON_H_

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

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

// Offsets (in problems) of each output problem into an operand whose leading dims are
// `dims` (equal to `out` or 1).
inline std::vector<int64_t> BroadcastOffsets(ffi::AnyBuffer::Dimensions dims, const std::vector<int64_t>& out) {
  const size_t k = out.size();
  int64_t total = 1;
  for (int64_t d : out) total *= d;
  std::vector<int64_t> offsets(total), index(k, 0);
  for (int64_t p = 0; p < total; ++p) {
    int64_t off = 0;
    for (size_t a = 0; a < k; ++a) off = off * dims[a] + (dims[a] == 1 ? 0 : index[a]);
    offsets[p] = off;
    for (size_t a = k; a-- > 0;) {  // next multi-index, last axis fastest
      if (++index[a] < out[a]) break;
      index[a] = 0;
    }
  }
  return offsets;
}

// The broadcast of the first `lead` dims of the operands (each dim equal to the batch's or 1)
// into `batch`; false if they do not broadcast.
inline bool BroadcastLeading(std::initializer_list<ffi::AnyBuffer::Dimensions> operands,
                             size_t lead, std::vector<int64_t>* batch) {
  batch->assign(lead, 1);
  for (auto dims : operands) {
    if (dims.size() < lead) return false;
    for (size_t a = 0; a < lead; ++a) {
      if (dims[a] == 1) continue;
      if ((*batch)[a] != 1 && (*batch)[a] != dims[a]) return false;
      (*batch)[a] = dims[a];
    }
  }
  return true;
}

inline ffi::Error Invalid(const std::string& kernel, const std::string& what) {
  return ffi::Error::InvalidArgument(kernel + ": " + what);
}

// Runs fn(begin, end) over [0, n) in chunks of at least `grain`, on XLA's intra-op thread
// pool and the calling thread. The caller takes chunks too and waits only for chunks a pool
// thread has started, so a busy pool can never stall it; a task the pool starts late finds
// no chunk left and touches nothing but the shared counters.
template <typename Fn>
void ParallelFor(ffi::ThreadPool& pool, int64_t n, int64_t grain, Fn&& fn) {
  const int64_t workers = std::max<int64_t>(pool.num_threads(), 0);
  const int64_t chunks = std::min<int64_t>(std::max<int64_t>(n / std::max<int64_t>(grain, 1), 1),
                                           4 * (workers + 1));
  if (chunks <= 1 || workers == 0) {
    fn(int64_t{0}, n);
    return;
  }
  struct State {
    std::atomic<int64_t> next{0};
    int64_t done = 0;
    std::mutex mu;
    std::condition_variable cv;
    std::function<void(int64_t, int64_t)> work;
  };
  auto state = std::make_shared<State>();
  state->work = fn;
  auto run = [state, n, chunks]() {
    for (int64_t c; (c = state->next.fetch_add(1)) < chunks;) {
      state->work(n * c / chunks, n * (c + 1) / chunks);
      std::lock_guard<std::mutex> lock(state->mu);
      if (++state->done == chunks) state->cv.notify_all();
    }
  };
  for (int64_t w = 0; w < std::min(workers, chunks - 1); ++w) pool.Schedule(decltype(run)(run));
  run();
  std::unique_lock<std::mutex> lock(state->mu);
  state->cv.wait(lock, [&] { return state->done == chunks; });
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
