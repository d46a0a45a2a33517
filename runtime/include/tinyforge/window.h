// Window padding of conv, dwconv and pools: the one definition the emitter (compiler/emit:
// whether an op's padding needs the PADS flag) and the op validators (runtime/ops) both use
// (docs/program-format.md, "Consistency checks"). Freestanding C++17.
#ifndef TINYFORGE_RUNTIME_WINDOW_H_
#define TINYFORGE_RUNTIME_WINDOW_H_

#include <cstdint>

namespace tinyforge::rt {

// Whether one spatial dim of a window op has TFLite's SAME or VALID padding: `out` windows
// of extent (k - 1) * dilation + 1 at `stride` over `in` with `before` leading pad, as
// compiler/quant's TfliteOutputSize and TflitePadding compute them (SAME: out = ceil(in /
// stride), the total pad split with its smaller half before; VALID: no pad). Other
// paddings (explicit pads of a PyTorch or graph-file model) are declared with the op flag
// PADS (tinyforge/program_format.h).
inline bool TflitePadding(int64_t in, int64_t out, int64_t k, int64_t stride, int64_t dilation,
                          int64_t before) {
  if (stride < 1) return false;  // (callers on unchecked parameters: the emitter's tests)
  const int64_t extent = (k - 1) * dilation + 1;
  if (out == (in + stride - 1) / stride) {  // SAME
    int64_t total = (out - 1) * stride + extent - in;
    if (total < 0) total = 0;
    if (before == total / 2) return true;
  }
  return before == 0 && out == (in + stride - extent) / stride;  // VALID
}

}  // namespace tinyforge::rt

#endif  // TINYFORGE_RUNTIME_WINDOW_H_
