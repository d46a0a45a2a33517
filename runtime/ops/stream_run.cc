// The executor of streamed ops (runtime/ops/op_util.h, tf_rt_run_streamed_units): one copy for
// every operator kind that streams (conv, dwconv, the pools), and of pipes (tinyforge/pipe.h);
// linked on demand.
#include "op_util.h"

using namespace tinyforge::rt;  // NOLINT: the C symbol's types

namespace {

// Moves `bytes` from `src` down to `dst` (dst < src; the ranges may overlap): a window's
// rows its consumer still needs, to the window's start.
void CopyDown(uint8_t* dst, const uint8_t* src, uint32_t bytes) {
  if (((reinterpret_cast<uintptr_t>(dst) | reinterpret_cast<uintptr_t>(src) | bytes) & 3) == 0) {
    uint32_t* d = reinterpret_cast<uint32_t*>(dst);
    const uint32_t* s = reinterpret_cast<const uint32_t*>(src);
    for (uint32_t n = bytes / 4; n != 0; --n) *d++ = *s++;
    return;
  }
  for (uint32_t i = 0; i < bytes; ++i) dst[i] = src[i];
}

// The last member of a pipe: runs the schedule over every member's recorded stage.
// Out of line: its frame (the pipe state) stays off the single streamed op's stack.
[[gnu::noinline]] Status RunPipeStages(const PipeRun& st) {
  const int32_t n = st.stages;
  Pipe p;
  p.stages = n;
  for (int32_t s = 0; s < n; ++s) {
    p.g[s] = st.stage[s].g;
    if (s + 1 < n) {
      p.window_rows[s] = static_cast<int32_t>(st.stage[s].out_size / PipeRowBytes(p.g[s]));
    }
  }
  const PipeRun::Stage& last = st.stage[n - 1];
  const uint32_t out_unit = static_cast<uint32_t>(last.g.out_unit_bytes);
  const int32_t slots = static_cast<int32_t>(last.ring_size / out_unit);
  const int64_t in_base = static_cast<int64_t>(reinterpret_cast<uintptr_t>(st.stage[0].in));
  const int64_t out_base = static_cast<int64_t>(reinterpret_cast<uintptr_t>(last.out));
  if (st.dry) return PipeFits(p, in_base, out_base, slots) ? Status::kOk : Status::kStreamOverrun;
  const bool ok = RunPipe(
      p, in_base, out_base, slots,
      [&](int32_t s, int32_t u, int32_t in_row, int32_t out_row) {
        const PipeRun::Stage& x = st.stage[s];
        const uint8_t* src = (s == 0 ? x.in : st.stage[s - 1].out) +
                             static_cast<uint32_t>(in_row) * static_cast<uint32_t>(x.g.in_unit_bytes);
        uint8_t* dst = s + 1 < n ? x.out + static_cast<uint32_t>(out_row) *
                                                    static_cast<uint32_t>(PipeRowBytes(x.g))
                                 : last.ring + static_cast<uint32_t>(out_row) * out_unit;
        x.unit(x.ctx, u, src, dst);
      },
      [&](int32_t s, int32_t from, int32_t rows) {
        const uint32_t row = static_cast<uint32_t>(PipeRowBytes(st.stage[s].g));
        uint8_t* w = st.stage[s].out;
        CopyDown(w, w + static_cast<uint32_t>(from) * row, static_cast<uint32_t>(rows) * row);
      },
      [&](int32_t v, int32_t slot) {
        __builtin_memcpy(last.out + static_cast<uint32_t>(v) * out_unit,
                         last.ring + static_cast<uint32_t>(slot) * out_unit,
                         static_cast<uint32_t>(StreamUnitBytes(last.g, v)));
      });
  return ok ? Status::kOk : Status::kStreamOverrun;
}

}  // namespace

extern "C" Status tf_rt_run_streamed_units(const OpContext& op, const StreamGeometry& g,
                                           const TensorRef& in, const TensorRef& out,
                                           const TensorRef& ring, ops::StreamUnitFn unit,
                                           const void* ctx) {
  if (op.pipe() != nullptr) {
    PipeRun& st = *op.pipe();
    if (st.stages >= kMaxPipeStages) return Status::kBadOp;
    st.stage[st.stages++] = {g, in.data, out.data, ring.data, out.size, ring.size, unit, ctx};
    return op.pipe_out() ? op.model().RunPipeNext(st) : RunPipeStages(st);
  }
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
        __builtin_memcpy(out.data + static_cast<uint32_t>(v) * out_unit,
                         ring.data + static_cast<uint32_t>(slot) * out_unit,
                         static_cast<uint32_t>(StreamUnitBytes(g, v)));
      });
  return ok ? Status::kOk : Status::kStreamOverrun;
}
