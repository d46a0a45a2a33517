// Float32 fallback kernels: what has no int8 lowering runs in float32 between a DEQUANTIZE
// and a QUANTIZE (docs/numerics.md "Float ops", docs/decisions.md 47).
//   f32_unary:  y[i] = fn(x[i]) for a function of one input (kernels/f32/f32_fns.def)
//   f32_binary: y = fn(a, b), NumPy broadcasting (kernels/common/broadcast.h, strides in
//               elements)
//   f32_cumsum: y = cumulative sum of x along one axis: x viewed as [outer, length, inner],
//               accumulated in double and stored as float32 after each step (PyTorch's CPU
//               cumsum does the same)
// Float models (an export without calibration, docs/decisions.md 52), NHWC like the int8
// kinds:
//   f32_conv:    convolution, weights OHWI [out_c, k_h, k_w, in_c] (no groups), bias[out_c]
//   f32_dwconv:  depthwise convolution, weights 1HWC [1, k_h, k_w, out_c], out_c = in_c * m
//   f32_fc:      y[b, o] = x[b, :] . w[o, :] + bias[o], weights [out, in]
//   f32_avgpool, f32_maxpool: 2-D pooling; the average divides by the taps inside the input
// and the rest of a float model's ops (docs/decisions.md 68; data movement runs on the int8
// kernels, which move bytes: a float32 element is 4 of them):
//   f32_reduce:    sum, mean or max of x viewed as [outer, length, inner] over length
//   f32_softmax:   softmax of x viewed as [outer, length, inner] along length
//   f32_layernorm: each row of `depth` normalized, times weight[depth] plus bias[depth]
//   f32_bmm:       y[b] = a[b] @ b[b], matrices [rows, depth] @ [depth, cols], a batch of 1
//                  broadcast
//   f32_argmax:    index of the first largest (smallest) element along the axis
//   f32_resize:    bilinear resize of NHWC over H and W from a coordinate table (nearest
//                  neighbour moves bytes on s8_resize)
// Each clamps its output to [act_min, act_max] (a fused ReLU / ReLU6; -inf..inf for none).
// Sums are float32 in one fixed order (taps row by row, then channels; then + bias), and
// every product, sum and quotient of these layers is computed in Arm's standard FPSCR mode
// (flush to zero, default NaN: kernels/f32/f32_arith.h), so __ref, any faster variant, the
// host executor and every board agree bit for bit (the max pool only compares and copies).
// Numerics of the fallback ops: + - * / are IEEE float32; the other functions are computed in double with the
// kernels' own series (kernels/f32/f32_math.h: no libm, whose results differ between the
// host's glibc and the device's newlib) and rounded to float32 once. The host executor
// runs these very kernels and they are compiled with -ffp-contract=off, so host and board
// results are bit-identical.
#ifndef TINYFORGE_KERNELS_F32_F32_H_
#define TINYFORGE_KERNELS_F32_F32_H_

#include <cstdint>

#include "kernels/common/broadcast.h"

// The function codes: position in f32_fns.def.
enum f32_fn : int32_t {
#define TF_F32_FN(Enum, name, arity) kF32##Enum,
#include "kernels/f32/f32_fns.def"
  kF32NumFns
};

struct f32_unary_params {
  int32_t size;  // elements, >= 1
  int32_t fn;    // an f32_fn of arity 1
};

struct f32_binary_params {
  s8_broadcast_shape shape;  // strides in elements
  int32_t fn;                // an f32_fn of arity 2
};

struct f32_cumsum_params {
  int32_t outer;   // product of the dims before the axis, >= 1
  int32_t length;  // the axis' extent, >= 1
  int32_t inner;   // product of the dims after the axis, >= 1
};

struct f32_conv_params {  // f32_conv and f32_dwconv
  int32_t batches;
  int32_t in_h, in_w, in_c;
  int32_t out_h, out_w, out_c;
  int32_t k_h, k_w;
  int32_t stride_h, stride_w;      // >= 1
  int32_t dilation_h, dilation_w;  // >= 1
  int32_t pad_top, pad_left;       // >= 0, input pixels
  float act_min, act_max;          // output clamp, act_min <= act_max
};

struct f32_fc_params {
  int32_t batches;
  int32_t in_features;
  int32_t out_features;
  float act_min, act_max;
};

struct f32_pool_params {
  int32_t batches;
  int32_t in_h, in_w, channels;
  int32_t out_h, out_w;
  int32_t filter_h, filter_w;  // >= 1
  int32_t stride_h, stride_w;  // >= 1
  int32_t pad_top, pad_left;   // >= 0
};

struct f32_reduce_params {
  int32_t outer;   // product of the dims before the reduced run, >= 1
  int32_t length;  // elements reduced, >= 1
  int32_t inner;   // product of the dims after it, >= 1
  int32_t op;      // 0: sum, 1: mean (the sum / length), 2: max
};

struct f32_softmax_params {
  int32_t outer;   // >= 1
  int32_t length;  // the softmax axis' extent, >= 1
  int32_t inner;   // >= 1: elements after the axis (1: the last axis)
};

struct f32_layernorm_params {
  int32_t rows;   // >= 1
  int32_t depth;  // >= 1, elements normalized together (the last dim)
  float eps;      // >= 0, finite
  int32_t rms;    // 0: layer norm (x - mean); 1: RMS norm (no mean subtracted)
};

struct f32_bmm_params {
  int32_t batches;        // >= 1
  int32_t rows, depth, cols;  // each >= 1: a [rows, depth], b [depth, cols], y [rows, cols]
  int32_t a_broadcast;    // 0: a holds `batches` matrices; 1: one, read by every batch
  int32_t b_broadcast;    // the same for b
};

struct f32_argmax_params {
  int32_t outer;      // >= 1
  int32_t axis_size;  // >= 1
  int32_t inner;      // >= 1
  int32_t is_min;     // 0: arg max, 1: arg min
};

struct f32_resize_params {
  int32_t batches, input_h, input_w, channels;  // each >= 1
  int32_t output_h, output_w;                   // each >= 1
};
// int32 entries of its table: (lo, hi, w) per output row, then per output column; lo and hi
// inside the input, w the float32 bit pattern of hi's weight in [0, 1] (the compiler's
// quant::ResizeFloatTaps, TFLite's and PyTorch's float source coordinates).
inline constexpr int64_t f32_resize_table_entries(const f32_resize_params& p) {
  return 3 * (static_cast<int64_t>(p.output_h) + p.output_w);
}

extern "C" {
// x and y may be the same bytes (element i is read before it is written).
void f32_unary__ref(const f32_unary_params* params, const float* x, float* y);
// y may be an input's bytes when that input is not broadcast.
void f32_binary__ref(const f32_binary_params* params, const float* a, const float* b, float* y);
// y may be x's bytes.
void f32_cumsum__ref(const f32_cumsum_params* params, const float* x, float* y);
// Float models. y must not overlap x (the weights and bias are constants).
void f32_conv__ref(const f32_conv_params* params, const float* x, const float* w,
                   const float* bias, float* y);
void f32_dwconv__ref(const f32_conv_params* params, const float* x, const float* w,
                     const float* bias, float* y);
void f32_fc__ref(const f32_fc_params* params, const float* x, const float* w, const float* bias,
                 float* y);
void f32_avgpool__ref(const f32_pool_params* params, const float* x, float* y);
void f32_maxpool__ref(const f32_pool_params* params, const float* x, float* y);
// The rest of a float model (decision 68). y must not overlap the inputs.
// Sums in element order; sum and mean in the standard mode (f32_arith.h) as the layers; max
// propagates NaN (torch.amax).
void f32_reduce__ref(const f32_reduce_params* params, const float* x, float* y);
// Per row: m = max, e_i = exp(x_i - m) in double rounded to float32, s = their sum in double
// in order, y_i = e_i / s in double rounded once. A row of -inf gives NaN (torch).
void f32_softmax__ref(const f32_softmax_params* params, const float* x, float* y);
// Mean and variance (biased, as PyTorch) in double in element order, y = (x - mean) / sqrt(var
// + eps) * weight + bias in double, rounded once. y may be x's bytes (a row is read first).
void f32_layernorm__ref(const f32_layernorm_params* params, const float* x, const float* weight,
                        const float* bias, float* y);
// Each output the float32 sum of its depth products in order, standard mode (as f32_fc).
void f32_bmm__ref(const f32_bmm_params* params, const float* a, const float* b, float* y);
// Ties go to the lowest index; a NaN counts as the largest and the smallest (torch).
void f32_argmax__ref(const f32_argmax_params* params, const float* x, int32_t* y);
// IEEE float32: top = x[y0,x0] * (1 - wx) + x[y0,x1] * wx, bottom likewise on row y1,
// y = top * (1 - wy) + bottom * wy (the host executor's float resize).
void f32_resize__ref(const f32_resize_params* params, const float* x, const int32_t* table,
                     float* y);
// Any core (FPU or soft-float): __ref's arithmetic in __ref's order, bit-identical, without
// its per-tap bounds tests.
void f32_conv__scalar(const f32_conv_params* params, const float* x, const float* w,
                      const float* bias, float* y);
void f32_dwconv__scalar(const f32_conv_params* params, const float* x, const float* w,
                        const float* bias, float* y);
// Cortex-M4F / M7 / M33 (FPU): __ref's sums in __ref's order, 2 pixels x 4 channels per block.
void f32_conv__dsp(const f32_conv_params* params, const float* x, const float* w,
                   const float* bias, float* y);
// ... and depthwise, 4 channels' sums in registers; fc, 4 outputs' sums in registers.
void f32_dwconv__dsp(const f32_conv_params* params, const float* x, const float* w,
                     const float* bias, float* y);
void f32_fc__dsp(const f32_fc_params* params, const float* x, const float* w, const float* bias,
                 float* y);
// Cortex-M55 (MVE-F): __ref's sums in __ref's order, one output channel per lane.
void f32_conv__mve(const f32_conv_params* params, const float* x, const float* w,
                   const float* bias, float* y);
void f32_dwconv__mve(const f32_conv_params* params, const float* x, const float* w,
                     const float* bias, float* y);
void f32_fc__mve(const f32_fc_params* params, const float* x, const float* w, const float* bias,
                 float* y);
}

#endif  // TINYFORGE_KERNELS_F32_F32_H_
