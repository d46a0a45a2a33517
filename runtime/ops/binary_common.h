// ADD / MUL: shared validation of the broadcast shape and of aliasing (internal).
#ifndef TINYFORGE_RUNTIME_OPS_BINARY_COMMON_H_
#define TINYFORGE_RUNTIME_OPS_BINARY_COMMON_H_

#include "op_util.h"

namespace tinyforge::rt::ops {

// Checks `s` against the operands: output exactly prod(out_dims) elements of `dtype`
// (`elem` bytes each: int8, or float32 for the float fallback), each input of `dtype` and
// large enough for the largest index the strides reach. The output may be an input's exact
// bytes when that input is read densely (no broadcast), else disjoint.
inline Status ValidateBroadcast(const OpContext& op, const s8_broadcast_shape& s,
                                uint8_t dtype = fmt::kInt8, int64_t elem = 1) {
  int64_t elements = 1;
  int64_t dense[kS8BroadcastMaxDims];
  for (int i = kS8BroadcastMaxDims - 1; i >= 0; --i) {
    if (!InRange(s.out_dims[i], 1, kMaxDim)) return Status::kBadParams;
    dense[i] = elements;
    elements = Product(elements, s.out_dims[i]);
    if (elements < 0) return Status::kBadParams;
  }
  TF_RT_TRY(Expect(op, abi::kBinOut, dtype, Product(elements, elem), true));
  const TensorRef out = op.tensor(abi::kBinOut);
  const int32_t* strides[2] = {s.in1_strides, s.in2_strides};
  for (int k = 0; k < 2; ++k) {
    if (!op.has(k)) return Status::kBadOp;
    const TensorRef in = op.tensor(k);
    int64_t last = 0;
    bool identity = true;
    for (int i = 0; i < kS8BroadcastMaxDims; ++i) {
      if (!InRange(strides[k][i], 0, kMaxBytes)) return Status::kBadParams;
      last += int64_t{s.out_dims[i] - 1} * strides[k][i];
      if (last > kMaxBytes) return Status::kBadParams;
      if (s.out_dims[i] > 1 && strides[k][i] != dense[i]) identity = false;
    }
    if (in.dtype != dtype || int64_t{in.size} < (last + 1) * elem) return Status::kBadParams;
    if (in.Overlaps(out) && !(identity && in.SameBytes(out))) return Status::kBadAlias;
  }
  return Status::kOk;
}

}  // namespace tinyforge::rt::ops

#endif  // TINYFORGE_RUNTIME_OPS_BINARY_COMMON_H_
