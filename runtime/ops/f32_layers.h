// Float model layers (kernels/f32, docs/decisions.md 52): validation and execution shared by
// f32_conv / f32_dwconv (one parameter struct, weights OHWI or 1HWC), f32_fc and the two
// float pools. Internal to the runtime.
#ifndef TINYFORGE_RUNTIME_OPS_F32_LAYERS_H_
#define TINYFORGE_RUNTIME_OPS_F32_LAYERS_H_

#include "kernels/f32/f32_limits.h"
#include "op_util.h"

namespace tinyforge::rt::ops::f32_layers {

// The weighted ops' operands: input, weights, bias, output (float32); no multiplier, shift
// or scratch. The output overlaps nothing.
inline Status ExpectWeighted(const OpContext& op, int64_t in, int64_t weights, int64_t bias,
                             int64_t out) {
  TF_RT_TRY(Expect(op, abi::kConvIn, fmt::kFloat32, Product(in, 4)));
  TF_RT_TRY(Expect(op, abi::kConvWeights, fmt::kFloat32, Product(weights, 4)));
  TF_RT_TRY(Expect(op, abi::kConvBias, fmt::kFloat32, Product(bias, 4)));
  if (op.has(abi::kConvMultiplier) || op.has(abi::kConvShift) || op.has(abi::kConvScratch)) {
    return Status::kBadOp;
  }
  TF_RT_TRY(Expect(op, abi::kConvOut, fmt::kFloat32, Product(out, 4), true));
  const TensorRef y = op.tensor(abi::kConvOut);
  const int32_t slots[] = {abi::kConvIn, abi::kConvWeights, abi::kConvBias};
  for (int32_t slot : slots) TF_RT_TRY(Disjoint(op.tensor(slot), y));
  return Status::kOk;
}

template <OpKind kKind>
Status ValidateConv(const OpContext& op, bool depthwise) {
  f32_conv_params p{};
  TF_RT_TRY((DecodeWhole<kKind>(op, abi::kConvOperands,
                                depthwise ? f32_dwconv_check : f32_conv_check, &p)));
  bool unpadded = true;
  TF_RT_TRY(CheckConvWindows(op, p, &unpadded));
  const int64_t taps = Product(p.k_h, p.k_w);
  return ExpectWeighted(op, Product(p.batches, p.in_h, p.in_w, p.in_c),
                        depthwise ? Product(taps, p.out_c) : Product(p.out_c, taps, p.in_c),
                        p.out_c, Product(p.batches, p.out_h, p.out_w, p.out_c));
}

template <class P>
Status RunWeighted(const OpContext& op) {
  using Fn = void (*)(const P*, const float*, const float*, const float*, float*);
  P p{};
  abi::DecodeParams(op, &p);
  auto f = [&](int32_t slot) { return reinterpret_cast<const float*>(op.data(slot)); };
  reinterpret_cast<Fn>(op.entry().kernel)(&p, f(abi::kConvIn), f(abi::kConvWeights),
                                          f(abi::kConvBias),
                                          reinterpret_cast<float*>(op.data(abi::kConvOut)));
  return Status::kOk;
}

template <OpKind kKind>
Status ValidatePool(const OpContext& op) {
  f32_pool_params p{};
  TF_RT_TRY((DecodeWhole<kKind>(op, abi::kPoolOperands, f32_pool_check, &p)));
  bool unpadded = true;
  TF_RT_TRY(CheckPoolWindows(op, p, &unpadded));
  TF_RT_TRY(Expect(op, abi::kPoolIn, fmt::kFloat32,
                   Product(p.batches, p.in_h, p.in_w, p.channels, 4)));
  TF_RT_TRY(Expect(op, abi::kPoolOut, fmt::kFloat32,
                   Product(p.batches, p.out_h, p.out_w, p.channels, 4), true));
  return Disjoint(op.tensor(abi::kPoolIn), op.tensor(abi::kPoolOut));
}

inline Status RunPool(const OpContext& op) {
  return RunUnary<f32_pool_params, float, float>(op);
}

}  // namespace tinyforge::rt::ops::f32_layers

#endif  // TINYFORGE_RUNTIME_OPS_F32_LAYERS_H_
