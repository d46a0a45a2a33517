// Kernel parameter structs of lowered ops (docs/lowered-ops.md), built only from what a
// lowered op holds: its attrs, its constant inputs, tensor shapes and zero points. The host
// executor runs the kernels with them; the program emitter encodes the same structs. (Here,
// not in exec/, so that passes and the emitter use it without the executor.)
//
// Multipliers: an op that carries its `multiplier, shift` inputs (after the
// compute-multipliers pass) uses them and needs no float. An op without them (right after
// fold-qdq) gets them computed from the tensors' float scales with compiler/quant, exactly
// as TensorFlow Lite Micro's Prepare() computes them; ComputeRequantConstants is that
// computation and the compute-multipliers pass stores its result.
//
// Geometry is in the kernels' terms (NHWC, OHWI, 1HWC) whatever the op's layout: an NCHW op
// gets the same sizes; the executor transposes its data around the kernel.
#pragma once

#include <cstdint>
#include <vector>

#include "ir/graph.h"
#include "kernels/f32/f32.h"
#include "quant/kernel_params.h"
#include "support/expected.h"

namespace tinyforge::quant {

// The int32 constants an op's requantization needs, in the order the op's `multiplier` and
// `shift` inputs hold them: per output channel (qconv2d, qdwconv2d, qfc: 1 entry when the
// weights are per-tensor), [input1, input2, output] (qadd), one entry otherwise (qmul, qbmm,
// [x >= 0, x < 0] (qprelu), qmean with 1/count folded in, qsoftmax input scaling, requantize).
struct RequantConstants {
  std::vector<int32_t> multiplier;
  std::vector<int32_t> shift;
};

// Number of inputs before the optional multiplier/shift pair, or 0 for ops that never
// rescale (pools, qconcat, qpad, transpose, reshape, quantize, dequantize, v1 ops).
size_t RequantBaseInputs(ir::OpType type);
// True if `op` rescales and already carries its multiplier and shift inputs.
bool HasRequantInputs(const ir::Op& op);

// Computes the constants from the float scales (what compute-multipliers stores).
Expected<RequantConstants> ComputeRequantConstants(const ir::Graph& g, const ir::Op& op);

// One builder per kernel family. Errors name the field ("conv: ...").
Expected<quant::ConvKernelParams> ConvParams(const ir::Graph& g, const ir::Op& op);
Expected<quant::DwConvKernelParams> DwConvParams(const ir::Graph& g, const ir::Op& op);
Expected<quant::FcKernelParams> FcParams(const ir::Graph& g, const ir::Op& op);
Expected<s8_pool_params> PoolParams(const ir::Graph& g, const ir::Op& op);
// qadd and qsub (the same parameters).
Expected<s8_add_params> AddParams(const ir::Graph& g, const ir::Op& op);
Expected<s8_mul_params> MulParams(const ir::Graph& g, const ir::Op& op);
// qprelu: multiplier / shift [x >= 0, x < 0].
Expected<s8_prelu_params> PreluParams(const ir::Graph& g, const ir::Op& op);
// qbmm: the batch dims flattened (an operand repeating, see BmmSpec).
Expected<s8_bmm_params> BmmParams(const ir::Graph& g, const ir::Op& op);
// qsquared_difference (s8_add_params with TFLite's squared-difference constants).
Expected<s8_add_params> SquaredDifferenceParams(const ir::Graph& g, const ir::Op& op);
// qmaximum / qminimum.
Expected<s8_minmax_params> MinMaxParams(const ir::Graph& g, const ir::Op& op);
// qmean and qsum (the mean kernel; sum without the 1/count fold).
Expected<s8_mean_params> MeanParams(const ir::Graph& g, const ir::Op& op);
// Their parameters are for x as the kernel reads it: x itself when the reduced dims are one
// run (always after the layout pass), else x transposed by ReductionPerm (kept dims first,
// then the reduced ones), which the caller does (the host runner; the emitter refuses).
Expected<s8_reduce_max_params> ReduceMaxParams(const ir::Graph& g, const ir::Op& op);
// The transpose a qmean / qsum / qreduce_max input needs first, or {} when none.
Expected<std::vector<int64_t>> ReductionPerm(const ir::Graph& g, const ir::Op& op);
Expected<s8_softmax_params> SoftmaxParams(const ir::Graph& g, const ir::Op& op);
Expected<s8_lut_params> LutParams(const ir::Graph& g, const ir::Op& op);
// qlstm: from the op's attrs (what the .tflite importer computed) and shapes, checked.
Expected<s8_lstm_params> LstmParams(const ir::Graph& g, const ir::Op& op);
// qlayernorm (scale and bias pointers left null: they are the op's inputs 1 and 2).
Expected<s8_layernorm_params> LayerNormParams(const ir::Graph& g, const ir::Op& op);
Expected<s8_requantize_params> RequantizeParams(const ir::Graph& g, const ir::Op& op);
Expected<quant::ConcatKernelParams> ConcatParams(const ir::Graph& g, const ir::Op& op);
Expected<s8_pad_params> PadParams(const ir::Graph& g, const ir::Op& op);
Expected<s8_transpose_params> TransposeParams(const ir::Graph& g, const ir::Op& op);
Expected<s8_slice_params> SliceParams(const ir::Graph& g, const ir::Op& op);
// gather of an int8 input by int32 indices (outer, axis, count, inner).
Expected<s8_gather_params> GatherParams(const ir::Graph& g, const ir::Op& op);
// argmax of an int8 input (the kernel's view: outer, axis, inner).
Expected<s8_argmax_params> ArgMaxParams(const ir::Graph& g, const ir::Op& op);
// The op's input and output as NHWC (layout=NCHW: the permuted dims).
Expected<quant::ResizeKernelParams> ResizeParams(const ir::Graph& g, const ir::Op& op);
Expected<s8_quantize_params> QuantizeParams(const ir::Graph& g, const ir::Op& op);
Expected<s8_dequantize_params> DequantizeParams(const ir::Graph& g, const ir::Op& op);
// The float fallback ops (unary, binary, cumsum): kernels/f32, float32 tensors.
Expected<f32_unary_params> F32UnaryParams(const ir::Graph& g, const ir::Op& op);
Expected<f32_binary_params> F32BinaryParams(const ir::Graph& g, const ir::Op& op);
Expected<f32_cumsum_params> F32CumsumParams(const ir::Graph& g, const ir::Op& op);
Expected<f32_conv_params> F32ConvParams(const ir::Graph& g, const ir::Op& op);  // + fdwconv2d
Expected<f32_fc_params> F32FcParams(const ir::Graph& g, const ir::Op& op);
Expected<f32_pool_params> F32PoolParams(const ir::Graph& g, const ir::Op& op);
// A float model's other ops (docs/decisions.md 68): mean / sum / amax (for x as the kernel
// reads it, as MeanParams), softmax, layer_norm, matmul, argmax of a float32 input. The data
// movement builders above (concat of a cat, pad of a pad, transpose, slice, gather, resize)
// view a float32 tensor as int8 bytes with an innermost dim of 4.
Expected<f32_reduce_params> F32ReduceParams(const ir::Graph& g, const ir::Op& op);
Expected<f32_softmax_params> F32SoftmaxParams(const ir::Graph& g, const ir::Op& op);
Expected<f32_layernorm_params> F32LayerNormParams(const ir::Graph& g, const ir::Op& op);
Expected<f32_bmm_params> F32BmmParams(const ir::Graph& g, const ir::Op& op);
Expected<f32_argmax_params> F32ArgMaxParams(const ir::Graph& g, const ir::Op& op);
// A bilinear resize of float32 (nearest neighbour moves bytes: ResizeParams): the geometry in
// NHWC terms and the coordinate table (ResizeFloatTaps, the weights as float32 bits).
struct F32ResizeKernelParams {
  f32_resize_params params;
  std::vector<int32_t> table;
};
Expected<F32ResizeKernelParams> F32ResizeParams(const ir::Graph& g, const ir::Op& op);

// A per-tensor int8 tensor's parameters as the kernels take them (float32 scale).
quant::TensorQuant TensorQuantOf(const ir::Tensor& t);

}  // namespace tinyforge::quant
