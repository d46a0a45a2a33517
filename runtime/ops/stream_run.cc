// The executor of streamed ops (runtime/ops/op_util.h, tf_rt_run_streamed_units): one copy for
// every operator kind that streams (conv, dwconv, the pools); linked on demand. (Pipes' ops
// go to the pipe executor instead, runtime/ops/pipe_run.cc: RunStreamed, op_util.h.)
#include "op_util.h"

using namespace tinyforge::rt;  // NOLINT: the C symbol's types

extern "C" Status tf_rt_run_streamed_units(const StreamGeometry& g, const TensorRef& in,
                                           const TensorRef& out, const TensorRef& ring,
                                           ops::StreamUnitFn unit, const void* ctx) {
  const uint32_t out_unit = static_cast<uint32_t>(g.out_unit_bytes);
  const int32_t slots = static_cast<int32_t>(ring.size / out_unit);
  const int64_t in_base = static_cast<int64_t>(reinterpret_cast<uintptr_t>(in.data));
  const int64_t out_base = static_cast<int64_t>(reinterpret_cast<uintptr_t>(out.data));
  const bool ok = RunStream(
      g, in_base, out_base, slots,
      [&](int32_t u, int32_t slot) {
        const uint32_t first = static_cast<uint32_t>(StreamLo(g, u));
        unit(ctx, u, in.data + first * static_cast<uint32_t>(g.in_unit_bytes),
             ring.data + static_cast<uint32_t>(slot) * out_unit);
      },
      [&](int32_t v, int32_t slot) {
        ops::CopyForward(out.data + static_cast<uint32_t>(v) * out_unit,
                         ring.data + static_cast<uint32_t>(slot) * out_unit,
                         static_cast<uint32_t>(StreamUnitBytes(g, v)));
      });
  return ok ? Status::kOk : Status::kStreamOverrun;
}
