// Op glue shared by CONV_2D and DEPTHWISE_CONV_2D: the two parameter structs have the same
// geometry, quantization and streaming fields, so validation and execution differ only in
// the family's parameter check (s8_conv_check / s8_dwconv_check) and its weight tensor's size.
#ifndef TINYFORGE_RUNTIME_OPS_CONV_COMMON_H_
#define TINYFORGE_RUNTIME_OPS_CONV_COMMON_H_

#include "op_util.h"

namespace tinyforge::rt::ops::conv_common {

template <class P>
using KernelFn = void (*)(const P*, const int8_t*, const int8_t*, const int32_t*, int8_t*, void*);

// The checks both families share, after the family's parameter check `why` (nullptr: in
// range); `weights(p)` gives its weight tensor's element count (called on checked dims only).
template <OpKind kOp, class P, class Weights>
Status Validate(const OpContext& op, const P& p, const char* why, Weights weights) {
  using abi::kConvOperands;
  TF_RT_TRY(CheckParams(why));
  TF_RT_TRY(ExpectRounding(op, p));
  bool unpadded = true;
  TF_RT_TRY(CheckConvWindows(op, p, &unpadded));
  TF_RT_TRY(Expect(op, abi::kConvIn, fmt::kInt8, Product(p.batches, p.in_h, p.in_w, p.in_c)));
  TF_RT_TRY(Expect(op, abi::kConvWeights, fmt::kInt8, weights(p)));
  if (op.has(abi::kConvBias)) {
    TF_RT_TRY(Expect(op, abi::kConvBias, fmt::kInt32, Product(p.out_c, 4)));
  }
  TF_RT_TRY(Expect(op, abi::kConvMultiplier, fmt::kInt32, Product(p.out_c, 4)));
  TF_RT_TRY(Expect(op, abi::kConvShift, fmt::kInt32, Product(p.out_c, 4)));
  TF_RT_TRY(ExpectValues(op, abi::kConvShift, TF_LIMIT_SHIFT_MIN, TF_LIMIT_SHIFT_MAX));
  TF_RT_TRY(
      Expect(op, abi::kConvOut, fmt::kInt8, Product(p.batches, p.out_h, p.out_w, p.out_c), true));
  TF_RT_TRY(ExpectInputOffset(op, abi::kConvIn, p.input_offset, unpadded));
  TF_RT_TRY(ExpectZeroPoint(op, abi::kConvOut, p.output_offset));
  TF_RT_TRY(ExpectClamp(op, abi::kConvOut, p.act_min, p.act_max));
  const TensorRef in = op.tensor(abi::kConvIn), out = op.tensor(abi::kConvOut);
  const int32_t slots1[] = {abi::kConvWeights, abi::kConvBias, abi::kConvMultiplier,
                            abi::kConvShift};
  for (int32_t slot : slots1) {
    if (op.has(slot)) TF_RT_TRY(Disjoint(op.tensor(slot), out));
  }
  int64_t scratch = ScratchBytes<kOp>(op.kernel_id(), p);
  if (op.streamed()) {
    if (p.batches != 1) return Status::kBadParams;
    const StreamGeometry g = StreamedGeometry(op, ConvRows(p));
    TF_RT_TRY(ExpectLineBuffer(op, kConvOperands, g.out_unit_bytes, in, out));
    // Unit calls see out_h = the unit's rows (the last may have fewer) and a cut input.
    for (int32_t i = 0; i < 2; ++i) {  // the first unit, the last (maybe partial) unit
      const int64_t unit_scratch =
          ScratchBytes<kOp>(op.kernel_id(), StreamUnitParams(p, g, i == 0 ? 0 : g.units - 1));
      scratch = scratch > unit_scratch ? scratch : unit_scratch;
    }
    const int32_t slots2[] = {abi::kConvWeights, abi::kConvBias, abi::kConvMultiplier,
                              abi::kConvShift, abi::kConvScratch};
    for (int32_t slot : slots2) {
      if (op.has(slot)) TF_RT_TRY(Disjoint(op.tensor(slot), op.tensor(kConvOperands)));
    }
  } else {
    TF_RT_TRY(Disjoint(in, out));
  }
  if (scratch < 0) return Status::kUnknownKernel;  // the id is not a kernel of this family
  if (op.has(abi::kConvScratch)) {
    const TensorRef s = op.tensor(abi::kConvScratch);
    if (!s.in_arena() || int64_t{s.size} < scratch) return Status::kBadParams;
    TF_RT_TRY(Disjoint(s, in));
    TF_RT_TRY(Disjoint(s, out));
  } else if (scratch > 0) {
    return Status::kBadParams;
  }
  return Status::kOk;
}

template <class P>
Status Run(const OpContext& op) {
  P p{};
  abi::DecodeParams(op, &p);
  const TensorRef in = op.tensor(abi::kConvIn), out = op.tensor(abi::kConvOut);
  p.multiplier = reinterpret_cast<const int32_t*>(op.tensor(abi::kConvMultiplier).data);
  p.shift = reinterpret_cast<const int32_t*>(op.tensor(abi::kConvShift).data);
  const int8_t* weights = reinterpret_cast<const int8_t*>(op.tensor(abi::kConvWeights).data);
  const int32_t* bias = op.has(abi::kConvBias)
                            ? reinterpret_cast<const int32_t*>(op.tensor(abi::kConvBias).data)
                            : nullptr;
  void* scratch = op.has(abi::kConvScratch) ? op.tensor(abi::kConvScratch).data : nullptr;
  const KernelFn<P> kernel = reinterpret_cast<KernelFn<P>>(op.entry().kernel);
  if (!op.streamed()) {
    kernel(&p, reinterpret_cast<const int8_t*>(in.data), weights, bias,
           reinterpret_cast<int8_t*>(out.data), scratch);
    return Status::kOk;
  }
  return RunStreamed(p, StreamedGeometry(op, ConvRows(p)), in, out, op.tensor(abi::kConvOperands),
                     [&](const P& row, const uint8_t* row_in, uint8_t* row_out) {
                       kernel(&row, reinterpret_cast<const int8_t*>(row_in), weights, bias,
                              reinterpret_cast<int8_t*>(row_out), scratch);
                     });
}

}  // namespace tinyforge::rt::ops::conv_common

#endif  // TINYFORGE_RUNTIME_OPS_CONV_COMMON_H_
