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

// Whether one spatial dim's windows leave input rows (columns) unread: a gap between
// windows (stride above the extent, with more than one window) or input past the last
// window (floor-mode output sizes, a window smaller than the input). Such geometry is legal
// (PyTorch's max_pool2d over an odd size, a 1x1 conv at stride 2) and is declared with the
// op flag PARTIAL; without it, every input row and column is in some window, so a changed
// window or stride that keeps the output size is still refused.
inline bool WindowLeavesInputUnread(int64_t in, int64_t out, int64_t k, int64_t stride,
                                    int64_t dilation, int64_t before) {
  const int64_t extent = (k - 1) * dilation + 1;
  if (out > 1 && stride > extent) return true;
  return (out - 1) * stride - before + extent < in;
}

}  // namespace tinyforge::rt

#endif  // TINYFORGE_RUNTIME_WINDOW_H_
