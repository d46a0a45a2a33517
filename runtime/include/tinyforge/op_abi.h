// The op-record layout of every operator kind: which tensor goes in which operand slot, and
// the order of the int32 parameter words. The emitter encodes and the runtime decodes with
// the same VisitParams functions below, so the two cannot disagree on a field's position.
//
// Parameters are the kernel parameter struct's fields in declaration order, pointers left
// out (they are operands: multiplier and shift arrays are int32 constant tensors). Floats
// travel as their bit patterns. Freestanding C++17.
#ifndef TINYFORGE_RUNTIME_OP_ABI_H_
#define TINYFORGE_RUNTIME_OP_ABI_H_

#include <cstdint>

#include "kernels/concat/concat_limits.h"
#include "kernels/kernels.h"
#include "tinyforge/kernel_ids.h"

namespace tinyforge::rt::abi {

// Operand slots. Optional operands are kNoTensor (-1) in the record.
//   conv, dwconv, fc: input, weights, bias (optional), multiplier, shift, output,
//                     scratch (optional); + line buffer (conv, dwconv) with kOpFlagStream
//   f32_conv, f32_dwconv, f32_fc: the same slots; bias float32 and required, no multiplier,
//                     shift or scratch
//   avgpool, maxpool: input, output; + line buffer with kOpFlagStream
//   add, mul:         input1, input2, output
//   concat:           input 0 .. input n-1, output
//   lut:              input, table (256 int8, constant), output
//   resize:           input, table (int32 source coordinates, constant), output
//   bmm:              lhs, rhs, output, scratch (optional)
//   softmax:          input, output, scratch (optional)
//   gather:           input, indices (int32), output
//   layernorm:        input, scale, bias (int32 constants, depth or 1 entries), output
//   lstm:             input, w_x, w_h, bias (int8, int8, int32 constants), output, scratch
//   f32_layernorm:    input, weight, bias (float32, depth entries), output
//   f32_bmm:          lhs, rhs, output
//   others:           input, output
enum ConvSlot : int {
  kConvIn,
  kConvWeights,
  kConvBias,
  kConvMultiplier,
  kConvShift,
  kConvOut,
  kConvScratch,
  kConvOperands
};
enum PoolSlot : int { kPoolIn, kPoolOut, kPoolOperands };
enum BinarySlot : int { kBinIn1, kBinIn2, kBinOut, kBinOperands };
enum UnarySlot : int { kUnIn, kUnOut, kUnOperands };
enum LutSlot : int { kLutIn, kLutTable, kLutOut, kLutOperands };
enum ResizeSlot : int { kResizeIn, kResizeTable, kResizeOut, kResizeOperands };
enum BmmSlot : int { kBmmLhs, kBmmRhs, kBmmOut, kBmmScratch, kBmmOperands };
enum SoftmaxSlot : int { kSoftmaxIn, kSoftmaxOut, kSoftmaxScratch, kSoftmaxOperands };
enum LstmSlot : int { kLstmIn, kLstmWx, kLstmWh, kLstmBias, kLstmOut, kLstmScratch, kLstmOperands };
// The operand slot of a kind's scratch buffer (the emitter fills it when the kernel asks).
constexpr int ScratchSlot(OpKind k) {
  return k == OpKind::kBmm       ? static_cast<int>(kBmmScratch)
         : k == OpKind::kSoftmax ? static_cast<int>(kSoftmaxScratch)
         : k == OpKind::kLstm    ? static_cast<int>(kLstmScratch)
                                 : static_cast<int>(kConvScratch);
}
enum NormSlot : int { kNormIn, kNormScale, kNormBias, kNormOut, kNormOperands };
inline constexpr int kMaxConcatInputs = TF_LIMIT_CONCAT_INPUTS;

// ---- Parameter visitors: v(int32_t&) / v(float&) for each field, in record order. -------

template <class V>
constexpr void VisitParams(s8_conv_params& p, V& v) {
  v(p.batches);
  v(p.in_h);
  v(p.in_w);
  v(p.in_c);
  v(p.out_h);
  v(p.out_w);
  v(p.out_c);
  v(p.k_h);
  v(p.k_w);
  v(p.filter_in_c);
  v(p.stride_h);
  v(p.stride_w);
  v(p.dilation_h);
  v(p.dilation_w);
  v(p.pad_top);
  v(p.pad_left);
  v(p.input_offset);
  v(p.output_offset);
  v(p.act_min);
  v(p.act_max);
  v(p.rounding);
}
template <class V>
constexpr void VisitParams(s8_dwconv_params& p, V& v) {
  v(p.batches);
  v(p.in_h);
  v(p.in_w);
  v(p.in_c);
  v(p.out_h);
  v(p.out_w);
  v(p.out_c);
  v(p.depth_multiplier);
  v(p.k_h);
  v(p.k_w);
  v(p.stride_h);
  v(p.stride_w);
  v(p.dilation_h);
  v(p.dilation_w);
  v(p.pad_top);
  v(p.pad_left);
  v(p.input_offset);
  v(p.output_offset);
  v(p.act_min);
  v(p.act_max);
  v(p.rounding);
}
template <class V>
constexpr void VisitParams(s8_fc_params& p, V& v) {
  v(p.batches);
  v(p.in_features);
  v(p.out_features);
  v(p.input_offset);
  v(p.output_offset);
  v(p.per_channel);
  v(p.act_min);
  v(p.act_max);
  v(p.rounding);
}
template <class V>
constexpr void VisitParams(s8_bmm_params& p, V& v) {
  v(p.batches);
  v(p.lhs_batches);
  v(p.rhs_batches);
  v(p.rows);
  v(p.depth);
  v(p.cols);
  v(p.lhs_transposed);
  v(p.rhs_transposed);
  v(p.lhs_offset);
  v(p.rhs_offset);
  v(p.output_offset);
  v(p.multiplier);
  v(p.shift);
  v(p.act_min);
  v(p.act_max);
  v(p.rounding);
}
template <class V>
constexpr void VisitParams(s8_pool_params& p, V& v) {
  v(p.batches);
  v(p.in_h);
  v(p.in_w);
  v(p.channels);
  v(p.out_h);
  v(p.out_w);
  v(p.filter_h);
  v(p.filter_w);
  v(p.stride_h);
  v(p.stride_w);
  v(p.pad_top);
  v(p.pad_left);
  v(p.act_min);
  v(p.act_max);
}
template <class V>
constexpr void VisitShape(s8_broadcast_shape& s, V& v) {
  for (int i = 0; i < kS8BroadcastMaxDims; ++i) v(s.out_dims[i]);
  for (int i = 0; i < kS8BroadcastMaxDims; ++i) v(s.in1_strides[i]);
  for (int i = 0; i < kS8BroadcastMaxDims; ++i) v(s.in2_strides[i]);
}
template <class V>
constexpr void VisitParams(s8_add_params& p, V& v) {
  VisitShape(p.shape, v);
  v(p.input1_offset);
  v(p.input2_offset);
  v(p.left_shift);
  v(p.input1_multiplier);
  v(p.input1_shift);
  v(p.input2_multiplier);
  v(p.input2_shift);
  v(p.output_multiplier);
  v(p.output_shift);
  v(p.output_offset);
  v(p.act_min);
  v(p.act_max);
  v(p.rounding);
  v(p.lin_alpha);
  v(p.lin_beta);
  v(p.lin_gamma);
  v(p.lin_shift);
}
template <class V>
constexpr void VisitParams(s8_mul_params& p, V& v) {
  VisitShape(p.shape, v);
  v(p.input1_offset);
  v(p.input2_offset);
  v(p.output_multiplier);
  v(p.output_shift);
  v(p.output_offset);
  v(p.act_min);
  v(p.act_max);
  v(p.rounding);
}
template <class V>
constexpr void VisitParams(s8_gather_params& p, V& v) {
  v(p.outer);
  v(p.axis_size);
  v(p.count);
  v(p.inner);
  v(p.wrap_negative);
}
template <class V>
constexpr void VisitParams(s8_argmax_params& p, V& v) {
  v(p.outer);
  v(p.axis_size);
  v(p.inner);
  v(p.is_min);
}
template <class V>
constexpr void VisitParams(s8_prelu_params& p, V& v) {
  VisitShape(p.shape, v);
  v(p.input_offset);
  v(p.alpha_offset);
  v(p.output_multiplier_1);
  v(p.output_shift_1);
  v(p.output_multiplier_2);
  v(p.output_shift_2);
  v(p.output_offset);
  v(p.rounding);
}
template <class V>
constexpr void VisitParams(s8_minmax_params& p, V& v) {
  VisitShape(p.shape, v);
}
template <class V>
constexpr void VisitParams(s8_mean_params& p, V& v) {
  v(p.outer);
  v(p.reduce_size);
  v(p.inner);
  v(p.input_zero_point);
  v(p.output_zero_point);
  v(p.multiplier);
  v(p.shift);
  v(p.rounding);
}
template <class V>
constexpr void VisitParams(s8_reduce_max_params& p, V& v) {
  v(p.outer);
  v(p.reduce_size);
  v(p.inner);
}
// CONCAT: outer, num_inputs, output_zero_point, then per input the s8_concat_input fields
// (VisitConcatInput), num_inputs times.
template <class V>
constexpr void VisitParams(s8_concat_params& p, V& v) {
  v(p.outer);
  v(p.num_inputs);
  v(p.output_zero_point);
  v(p.rounding);
}
template <class V>
constexpr void VisitConcatInput(s8_concat_input& in, V& v) {
  v(in.axis_inner);
  v(in.requantize);
  v(in.input_zero_point);
  v(in.multiplier);
  v(in.shift);
}
template <class V>
constexpr void VisitParams(s8_softmax_params& p, V& v) {
  v(p.rows);
  v(p.depth);
  v(p.input_multiplier);
  v(p.input_left_shift);
  v(p.diff_min);
}
template <class V>
constexpr void VisitParams(s8_layernorm_params& p, V& v) {
  v(p.rows);
  v(p.depth);
  v(p.rms);
  v(p.input_zero_point);
  v(p.eps_lo);
  v(p.eps_hi);
  v(p.scale_exp);
  v(p.per_channel);
}
template <class V>
constexpr void VisitParams(s8_lstm_params& p, V& v) {
  v(p.steps);
  v(p.in_features);
  v(p.units);
  for (int i = 0; i < 8; ++i) v(p.gate_multiplier[i]);
  for (int i = 0; i < 8; ++i) v(p.gate_shift[i]);
  v(p.hidden_multiplier);
  v(p.hidden_shift);
  v(p.hidden_offset);
  v(p.hidden_init);
  v(p.cell_log2);
  v(p.cell_clip);
}
template <class V>
constexpr void VisitParams(s8_logistic_params& p, V& v) {
  v(p.size);
  v(p.input_zero_point);
  v(p.input_range_radius);
  v(p.input_multiplier);
  v(p.input_left_shift);
}
template <class V>
constexpr void VisitParams(s8_tanh_params& p, V& v) {
  v(p.size);
  v(p.input_zero_point);
  v(p.input_range_radius);
  v(p.input_multiplier);
  v(p.input_left_shift);
}
template <class V>
constexpr void VisitParams(s8_lut_params& p, V& v) {
  v(p.size);
}
template <class V>
constexpr void VisitParams(s8_pad_params& p, V& v) {
  for (int i = 0; i < kS8PadMaxDims; ++i) v(p.input_dims[i]);
  for (int i = 0; i < kS8PadMaxDims; ++i) v(p.pad_before[i]);
  for (int i = 0; i < kS8PadMaxDims; ++i) v(p.pad_after[i]);
  v(p.pad_value);
}
template <class V>
constexpr void VisitParams(s8_transpose_params& p, V& v) {
  for (int i = 0; i < kS8TransposeMaxDims; ++i) v(p.input_dims[i]);
  for (int i = 0; i < kS8TransposeMaxDims; ++i) v(p.perm[i]);
}
template <class V>
constexpr void VisitParams(s8_slice_params& p, V& v) {
  for (int i = 0; i < kS8SliceMaxDims; ++i) v(p.input_dims[i]);
  for (int i = 0; i < kS8SliceMaxDims; ++i) v(p.output_dims[i]);
  for (int i = 0; i < kS8SliceMaxDims; ++i) v(p.begin[i]);
  for (int i = 0; i < kS8SliceMaxDims; ++i) v(p.stride[i]);
}
template <class V>
constexpr void VisitParams(s8_resize_params& p, V& v) {
  v(p.batches);
  v(p.input_h);
  v(p.input_w);
  v(p.channels);
  v(p.output_h);
  v(p.output_w);
  v(p.bilinear);
}
template <class V>
constexpr void VisitParams(s8_quantize_params& p, V& v) {
  v(p.size);
  v(p.scale);
  v(p.zero_point);
}
template <class V>
constexpr void VisitParams(s8_requantize_params& p, V& v) {
  v(p.size);
  v(p.input_zero_point);
  v(p.output_zero_point);
  v(p.multiplier);
  v(p.shift);
  v(p.act_min);
  v(p.act_max);
  v(p.rounding);
}
template <class V>
constexpr void VisitParams(s8_dequantize_params& p, V& v) {
  v(p.size);
  v(p.scale);
  v(p.zero_point);
}

template <class V>
constexpr void VisitParams(f32_unary_params& p, V& v) {
  v(p.size);
  v(p.fn);
}
template <class V>
constexpr void VisitParams(f32_binary_params& p, V& v) {
  VisitShape(p.shape, v);
  v(p.fn);
}
template <class V>
constexpr void VisitParams(f32_cumsum_params& p, V& v) {
  v(p.outer);
  v(p.length);
  v(p.inner);
}
template <class V>
constexpr void VisitParams(f32_conv_params& p, V& v) {
  v(p.batches);
  v(p.in_h);
  v(p.in_w);
  v(p.in_c);
  v(p.out_h);
  v(p.out_w);
  v(p.out_c);
  v(p.k_h);
  v(p.k_w);
  v(p.stride_h);
  v(p.stride_w);
  v(p.dilation_h);
  v(p.dilation_w);
  v(p.pad_top);
  v(p.pad_left);
  v(p.act_min);
  v(p.act_max);
}
template <class V>
constexpr void VisitParams(f32_fc_params& p, V& v) {
  v(p.batches);
  v(p.in_features);
  v(p.out_features);
  v(p.act_min);
  v(p.act_max);
}
template <class V>
constexpr void VisitParams(f32_pool_params& p, V& v) {
  v(p.batches);
  v(p.in_h);
  v(p.in_w);
  v(p.channels);
  v(p.out_h);
  v(p.out_w);
  v(p.filter_h);
  v(p.filter_w);
  v(p.stride_h);
  v(p.stride_w);
  v(p.pad_top);
  v(p.pad_left);
}

template <class V>
constexpr void VisitParams(f32_reduce_params& p, V& v) {
  v(p.outer);
  v(p.length);
  v(p.inner);
  v(p.op);
}
template <class V>
constexpr void VisitParams(f32_softmax_params& p, V& v) {
  v(p.outer);
  v(p.length);
  v(p.inner);
}
template <class V>
constexpr void VisitParams(f32_layernorm_params& p, V& v) {
  v(p.rows);
  v(p.depth);
  v(p.eps);
  v(p.rms);
}
template <class V>
constexpr void VisitParams(f32_bmm_params& p, V& v) {
  v(p.batches);
  v(p.rows);
  v(p.depth);
  v(p.cols);
  v(p.a_broadcast);
  v(p.b_broadcast);
}
template <class V>
constexpr void VisitParams(f32_argmax_params& p, V& v) {
  v(p.outer);
  v(p.axis_size);
  v(p.inner);
  v(p.is_min);
}

template <class V>
constexpr void VisitParams(f32_resize_params& p, V& v) {
  v(p.batches);
  v(p.input_h);
  v(p.input_w);
  v(p.channels);
  v(p.output_h);
  v(p.output_w);
}

struct FieldCounter {
  int n = 0;
  constexpr void operator()(int32_t&) { ++n; }
  constexpr void operator()(float&) { ++n; }
};
// Number of parameter words of P's fixed part.
template <class P>
constexpr int ParamCount() {
  P p{};
  FieldCounter c;
  VisitParams(p, c);
  return c.n;
}
inline constexpr int kConcatInputWords = [] {
  s8_concat_input in{};
  FieldCounter c;
  VisitConcatInput(in, c);
  return c.n;
}();

// Writes the fields to w[0..ParamCount<P>()) (encoder side).
struct FieldWriter {
  int32_t* w;
  int n = 0;
  void operator()(int32_t& f) { w[n++] = f; }
  void operator()(float& f) {
    int32_t bits;
    __builtin_memcpy(&bits, &f, 4);
    w[n++] = bits;
  }
};
// Reads the fields from a source `int32_t src(int index)` (decoder side).
template <class Src>
struct FieldReader {
  const Src& src;
  int n = 0;
  void operator()(int32_t& f) { f = src(n++); }
  void operator()(float& f) {
    const int32_t bits = src(n++);
    __builtin_memcpy(&f, &bits, 4);
  }
};

template <class P>
inline int EncodeParams(P p, int32_t* w) {
  FieldWriter fw{w};
  VisitParams(p, fw);
  return fw.n;
}
template <class P, class Src>
inline int DecodeParams(const Src& src, P* p, int first = 0) {
  FieldReader<Src> fr{src, first};
  VisitParams(*p, fr);
  return fr.n;
}

// The parameter struct of each operator kind (kernels/families.def).
template <OpKind kOp>
struct ParamsOf;
#define TF_OP_KIND(op, Kind, Params) \
  template <>                        \
  struct ParamsOf<OpKind::k##Kind> { \
    using type = Params;             \
  };
#include "kernels/families.def"

}  // namespace tinyforge::rt::abi

#endif  // TINYFORGE_RUNTIME_OP_ABI_H_
