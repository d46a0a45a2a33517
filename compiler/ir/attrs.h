// Typed attributes of ops: one struct per attribute set, held in the ir::Attrs variant.
//
// Each struct lists its fields once, in `Fields(self, f)`, which calls f("name", field) for
// every field in file order. The graph-file reader and writer and the IR printer/parser
// walk that list, so a new attribute is added in exactly one place. Field types are limited
// to: int64_t, double, bool, Vec2, Pad4, std::vector<int64_t>, Layout, FloatFn.
//
// Value ranges (stride >= 1, ...) are checked by the verifier (ir/shape_inference.h), not
// here: a struct may hold any value while a pass rewrites it.
#pragma once

#include <array>
#include <cstdint>
#include <limits>
#include <optional>
#include <string_view>
#include <variant>
#include <vector>

namespace tinyforge::ir {

using Vec2 = std::array<int64_t, 2>;  // [height, width]
using Pad4 = std::array<int64_t, 4>;  // [top, left, bottom, right], elements of zero padding

// Memory layout of rank-4 activations (and, for the ops that carry it, of their weights):
//   kNCHW  activations [N,C,H,W]; conv weights OIHW [O,C/groups,kh,kw]; depthwise weights
//          [C*mult,1,kh,kw] (PyTorch)
//   kNHWC  activations [N,H,W,C]; conv weights OHWI [O,kh,kw,C/groups]; depthwise weights
//          1HWC [1,kh,kw,C*mult] (TFLite, the kernels)
// Spelled "NCHW" / "NHWC" in IR text and graph files.
enum class Layout : uint8_t { kNCHW, kNHWC };
std::string_view LayoutName(Layout layout);
std::optional<Layout> ParseLayout(std::string_view name);

// How a lowered int8 graph rounds when it requantizes (kernels/common/rounding.h): kSingle,
// one rounding of the exact product (PyTorch's arithmetic; graphs from PyTorch), or kDouble,
// TensorFlow Lite Micro's two roundings (.tflite models, for bit-exactness with TFLM).
enum class Rounding : uint8_t { kSingle, kDouble };
std::string_view RoundingName(Rounding rounding);  // "single" / "double"
std::optional<Rounding> ParseRounding(std::string_view name);

// A float32 elementwise function of the float fallback (`unary`, `binary`): the list of
// kernels/f32/f32_fns.def, in its order (the value is the kernels' function code). Spelled
// by its name ("exp", "atan2") in IR text and graph files.
enum class FloatFn : int32_t {
#define TF_F32_FN(Enum, name, arity) k##Enum,
#include "../../kernels/f32/f32_fns.def"
};
std::string_view FloatFnName(FloatFn fn);
std::optional<FloatFn> ParseFloatFn(std::string_view name);
int FloatFnArity(FloatFn fn);  // 1 (`unary`) or 2 (`binary`)

struct NoAttrs {
  template <class S, class F>
  static void Fields(S&, F&&) {}
  friend bool operator==(const NoAttrs&, const NoAttrs&) = default;
};

struct Conv2dAttrs {
  Vec2 stride{1, 1};
  Pad4 padding{0, 0, 0, 0};
  Vec2 dilation{1, 1};
  int64_t groups = 1;  // depthwise: groups == C
  template <class S, class F>
  static void Fields(S& s, F&& f) {
    f("stride", s.stride);
    f("padding", s.padding);
    f("dilation", s.dilation);
    f("groups", s.groups);
  }
  friend bool operator==(const Conv2dAttrs&, const Conv2dAttrs&) = default;
};

struct HardtanhAttrs {
  double min = -1.0;  // applied as float32, like PyTorch's Scalar on a float tensor
  double max = 1.0;
  template <class S, class F>
  static void Fields(S& s, F&& f) {
    f("min", s.min);
    f("max", s.max);
  }
  friend bool operator==(const HardtanhAttrs&, const HardtanhAttrs&) = default;
};

// The float activations that lower to a table (qlut): attributes as PyTorch names them.
struct LeakyReluAttrs {
  double negative_slope = 0.01;  // y = x > 0 ? x : x * negative_slope (as float32)
  template <class S, class F>
  static void Fields(S& s, F&& f) {
    f("negative_slope", s.negative_slope);
  }
  friend bool operator==(const LeakyReluAttrs&, const LeakyReluAttrs&) = default;
};

struct EluAttrs {
  // y = x > 0 ? x * scale : (exp(x * input_scale) - 1) * alpha * scale (aten.elu; SELU and
  // CELU are the same function with other constants).
  double alpha = 1.0;
  double scale = 1.0;
  double input_scale = 1.0;
  template <class S, class F>
  static void Fields(S& s, F&& f) {
    f("alpha", s.alpha);
    f("scale", s.scale);
    f("input_scale", s.input_scale);
  }
  friend bool operator==(const EluAttrs&, const EluAttrs&) = default;
};

struct SoftplusAttrs {
  // y = x * beta > threshold ? x : log(1 + exp(x * beta)) / beta (aten.softplus)
  double beta = 1.0;
  double threshold = 20.0;
  template <class S, class F>
  static void Fields(S& s, F&& f) {
    f("beta", s.beta);
    f("threshold", s.threshold);
  }
  friend bool operator==(const SoftplusAttrs&, const SoftplusAttrs&) = default;
};

struct ShrinkAttrs {
  // hardshrink: |x| > lambd ? x : 0; softshrink: x > lambd ? x - lambd : x < -lambd ?
  // x + lambd : 0 (aten.hardshrink / softshrink)
  double lambd = 0.5;
  template <class S, class F>
  static void Fields(S& s, F&& f) {
    f("lambd", s.lambd);
  }
  friend bool operator==(const ShrinkAttrs&, const ShrinkAttrs&) = default;
};

struct ThresholdAttrs {
  // y = x > threshold ? x : value (aten.threshold)
  double threshold = 0.0;
  double value = 0.0;
  template <class S, class F>
  static void Fields(S& s, F&& f) {
    f("threshold", s.threshold);
    f("value", s.value);
  }
  friend bool operator==(const ThresholdAttrs&, const ThresholdAttrs&) = default;
};

struct GeluAttrs {
  bool approximate_tanh = false;  // PyTorch's approximate='tanh' (else the exact erf form)
  template <class S, class F>
  static void Fields(S& s, F&& f) {
    f("approximate_tanh", s.approximate_tanh);
  }
  friend bool operator==(const GeluAttrs&, const GeluAttrs&) = default;
};

struct MaxPool2dAttrs {
  Vec2 kernel{1, 1};
  Vec2 stride{1, 1};
  Pad4 padding{0, 0, 0, 0};  // padded positions never win (-inf)
  Vec2 dilation{1, 1};
  bool ceil_mode = false;
  template <class S, class F>
  static void Fields(S& s, F&& f) {
    f("kernel", s.kernel);
    f("stride", s.stride);
    f("padding", s.padding);
    f("dilation", s.dilation);
    f("ceil_mode", s.ceil_mode);
  }
  friend bool operator==(const MaxPool2dAttrs&, const MaxPool2dAttrs&) = default;
};

struct AvgPool2dAttrs {
  Vec2 kernel{1, 1};
  Vec2 stride{1, 1};
  Pad4 padding{0, 0, 0, 0};
  bool ceil_mode = false;
  bool count_include_pad = true;
  int64_t divisor_override = 0;  // 0 = none
  template <class S, class F>
  static void Fields(S& s, F&& f) {
    f("kernel", s.kernel);
    f("stride", s.stride);
    f("padding", s.padding);
    f("ceil_mode", s.ceil_mode);
    f("count_include_pad", s.count_include_pad);
    f("divisor_override", s.divisor_override);
  }
  friend bool operator==(const AvgPool2dAttrs&, const AvgPool2dAttrs&) = default;
};

struct MeanAttrs {
  std::vector<int64_t> dims;  // non-empty, distinct; negative counts from the end
  bool keepdim = false;
  template <class S, class F>
  static void Fields(S& s, F&& f) {
    f("dims", s.dims);
    f("keepdim", s.keepdim);
  }
  friend bool operator==(const MeanAttrs&, const MeanAttrs&) = default;
};

// gather: y = x[..., idx, ...] along `axis`, the axis replaced by idx's dims (torch
// index_select / embedding, .tflite GATHER with batch_dims 0); idx int32.
struct GatherAttrs {
  int64_t axis = 0;  // negative counts from the end
  bool wrap_negative = false;  // an index in [-size, 0) counts from the end (.tflite/Keras)
  template <class S, class F>
  static void Fields(S& s, F&& f) {
    f("axis", s.axis);
    f("wrap_negative", s.wrap_negative);
  }
  friend bool operator==(const GatherAttrs&, const GatherAttrs&) = default;
};

struct ArgMaxAttrs {
  int64_t axis = -1;     // negative counts from the end
  bool keepdim = false;  // keep the reduced dim as 1
  bool min = false;      // arg min instead of arg max
  template <class S, class F>
  static void Fields(S& s, F&& f) {
    f("axis", s.axis);
    f("keepdim", s.keepdim);
    f("min", s.min);
  }
  friend bool operator==(const ArgMaxAttrs&, const ArgMaxAttrs&) = default;
};

struct ReshapeAttrs {
  std::vector<int64_t> shape;  // the output shape; at most one -1 (inferred)
  template <class S, class F>
  static void Fields(S& s, F&& f) {
    f("shape", s.shape);
  }
  friend bool operator==(const ReshapeAttrs&, const ReshapeAttrs&) = default;
};

struct CatAttrs {
  int64_t axis = 0;  // negative counts from the end
  template <class S, class F>
  static void Fields(S& s, F&& f) {
    f("axis", s.axis);
  }
  friend bool operator==(const CatAttrs&, const CatAttrs&) = default;
};

// unary / binary (the float fallback): y = fn(x) or fn(a, b) with NumPy broadcasting.
struct FloatFnAttrs {
  FloatFn fn = FloatFn::kNeg;
  template <class S, class F>
  static void Fields(S& s, F&& f) {
    f("fn", s.fn);
  }
  friend bool operator==(const FloatFnAttrs&, const FloatFnAttrs&) = default;
};

// cumsum: y[..., i, ...] = sum of x[..., 0..i, ...] along `axis` (torch.cumsum).
struct CumsumAttrs {
  int64_t axis = 0;  // negative counts from the end
  template <class S, class F>
  static void Fields(S& s, F&& f) {
    f("axis", s.axis);
  }
  friend bool operator==(const CumsumAttrs&, const CumsumAttrs&) = default;
};

struct SoftmaxAttrs {
  int64_t axis = -1;  // negative counts from the end
  template <class S, class F>
  static void Fields(S& s, F&& f) {
    f("axis", s.axis);
  }
  friend bool operator==(const SoftmaxAttrs&, const SoftmaxAttrs&) = default;
};

// layer_norm / rms_norm over the last dim (aten.layer_norm, aten.rms_norm): y = (x - mean) /
// sqrt(var + eps) * weight + bias, or x / sqrt(mean(x^2) + eps) * weight (rms).
struct LayerNormAttrs {
  double eps = 1e-5;
  bool rms = false;
  template <class S, class F>
  static void Fields(S& s, F&& f) {
    f("eps", s.eps);
    f("rms", s.rms);
  }
  friend bool operator==(const LayerNormAttrs&, const LayerNormAttrs&) = default;
};

// ---- Lowered (int8) ops: docs/lowered-ops.md ------------------------------------------
// act_min/act_max: the fused activation as a clamp of the int8 output, -128 <= act_min <=
// act_max <= 127 (TFLite Micro's CalculateActivationRangeQuantized).
// input_zp_folded: the int32 bias already holds -input_zp * sum(w[o]) (precompute-bias pass),
// so the kernel runs with input_offset 0; only allowed without padding.

struct QConv2dAttrs {
  Vec2 stride{1, 1};
  Pad4 padding{0, 0, 0, 0};
  Vec2 dilation{1, 1};
  int64_t groups = 1;
  int64_t act_min = -128;
  int64_t act_max = 127;
  Layout layout = Layout::kNCHW;
  bool input_zp_folded = false;
  template <class S, class F>
  static void Fields(S& s, F&& f) {
    f("stride", s.stride);
    f("padding", s.padding);
    f("dilation", s.dilation);
    f("groups", s.groups);
    f("act_min", s.act_min);
    f("act_max", s.act_max);
    f("layout", s.layout);
    f("input_zp_folded", s.input_zp_folded);
  }
  friend bool operator==(const QConv2dAttrs&, const QConv2dAttrs&) = default;
};

struct QDwConv2dAttrs {
  Vec2 stride{1, 1};
  Pad4 padding{0, 0, 0, 0};
  Vec2 dilation{1, 1};
  int64_t depth_multiplier = 1;
  int64_t act_min = -128;
  int64_t act_max = 127;
  Layout layout = Layout::kNCHW;
  bool input_zp_folded = false;
  template <class S, class F>
  static void Fields(S& s, F&& f) {
    f("stride", s.stride);
    f("padding", s.padding);
    f("dilation", s.dilation);
    f("depth_multiplier", s.depth_multiplier);
    f("act_min", s.act_min);
    f("act_max", s.act_max);
    f("layout", s.layout);
    f("input_zp_folded", s.input_zp_folded);
  }
  friend bool operator==(const QDwConv2dAttrs&, const QDwConv2dAttrs&) = default;
};

struct QFcAttrs {
  int64_t act_min = -128;
  int64_t act_max = 127;
  bool input_zp_folded = false;
  template <class S, class F>
  static void Fields(S& s, F&& f) {
    f("act_min", s.act_min);
    f("act_max", s.act_max);
    f("input_zp_folded", s.input_zp_folded);
  }
  friend bool operator==(const QFcAttrs&, const QFcAttrs&) = default;
};

// qavgpool2d / qmaxpool2d. Padding is never counted (TFLite); bottom/right padding may be
// larger than the top/left to express PyTorch's ceil_mode. Every window overlaps the input.
struct QPool2dAttrs {
  Vec2 kernel{1, 1};
  Vec2 stride{1, 1};
  Pad4 padding{0, 0, 0, 0};
  int64_t act_min = -128;
  int64_t act_max = 127;
  Layout layout = Layout::kNCHW;
  template <class S, class F>
  static void Fields(S& s, F&& f) {
    f("kernel", s.kernel);
    f("stride", s.stride);
    f("padding", s.padding);
    f("act_min", s.act_min);
    f("act_max", s.act_max);
    f("layout", s.layout);
  }
  friend bool operator==(const QPool2dAttrs&, const QPool2dAttrs&) = default;
};

// Float model layers (fconv2d, fdwconv2d, ffc; docs/decisions.md 52): a float32 output
// clamp [act_min, act_max] holds a fused ReLU / ReLU6 / hardtanh; -inf..inf for none.
struct FConv2dAttrs {  // fconv2d (no groups) and fdwconv2d (depth multiplier from shapes)
  Vec2 stride{1, 1};
  Pad4 padding{0, 0, 0, 0};
  Vec2 dilation{1, 1};
  double act_min = -std::numeric_limits<double>::infinity();
  double act_max = std::numeric_limits<double>::infinity();
  Layout layout = Layout::kNCHW;
  template <class S, class F>
  static void Fields(S& s, F&& f) {
    f("stride", s.stride);
    f("padding", s.padding);
    f("dilation", s.dilation);
    f("act_min", s.act_min);
    f("act_max", s.act_max);
    f("layout", s.layout);
  }
  friend bool operator==(const FConv2dAttrs&, const FConv2dAttrs&) = default;
};

struct FFcAttrs {
  double act_min = -std::numeric_limits<double>::infinity();
  double act_max = std::numeric_limits<double>::infinity();
  template <class S, class F>
  static void Fields(S& s, F&& f) {
    f("act_min", s.act_min);
    f("act_max", s.act_max);
  }
  friend bool operator==(const FFcAttrs&, const FFcAttrs&) = default;
};

// favgpool2d / fmaxpool2d: padding never counted, bottom/right padding may be larger (ceil
// mode), as QPool2dAttrs.
struct FPool2dAttrs {
  Vec2 kernel{1, 1};
  Vec2 stride{1, 1};
  Pad4 padding{0, 0, 0, 0};
  Layout layout = Layout::kNCHW;
  template <class S, class F>
  static void Fields(S& s, F&& f) {
    f("kernel", s.kernel);
    f("stride", s.stride);
    f("padding", s.padding);
    f("layout", s.layout);
  }
  friend bool operator==(const FPool2dAttrs&, const FPool2dAttrs&) = default;
};

// qadd, qmul, requantize: an output clamp only.
struct ClampAttrs {
  int64_t act_min = -128;
  int64_t act_max = 127;
  template <class S, class F>
  static void Fields(S& s, F&& f) {
    f("act_min", s.act_min);
    f("act_max", s.act_max);
  }
  friend bool operator==(const ClampAttrs&, const ClampAttrs&) = default;
};

// qbmm: y[..., M, N] = op(a) @ op(b), op = transposed over the last two dims when adj_* is
// set (a stored [..., K, M], b stored [..., N, K]: TFLite BATCH_MATMUL's adj_x / adj_y);
// an output clamp.
struct QBmmAttrs {
  bool adj_x = false;
  bool adj_y = false;
  int64_t act_min = -128;
  int64_t act_max = 127;
  template <class S, class F>
  static void Fields(S& s, F&& f) {
    f("adj_x", s.adj_x);
    f("adj_y", s.adj_y);
    f("act_min", s.act_min);
    f("act_max", s.act_max);
  }
  friend bool operator==(const QBmmAttrs&, const QBmmAttrs&) = default;
};

// qlstm: TFLite's int8x8_16 UNIDIRECTIONAL_SEQUENCE_LSTM over the whole sequence
// (kernels/lstm/lstm.h): the integer parameters TFLite's Prepare computes. x [1, T, F] or
// [T, 1, F] int8, w_x [4H, F] and w_h [4H, H] int8 (gates i, f, g, o), bias [8H] int32 (the
// zero points folded in); y [.., H] with x's leading dims.
struct QLstmAttrs {
  std::vector<int64_t> gate_multiplier;  // 8: input-side i, f, g, o, recurrent-side i, f, g, o
  std::vector<int64_t> gate_shift;       // 8
  int64_t hidden_multiplier = 0;
  int64_t hidden_shift = 0;
  int64_t hidden_offset = 0;
  int64_t hidden_init = 0;
  int64_t cell_log2 = -15;
  int64_t cell_clip = 0;
  template <class S, class F>
  static void Fields(S& s, F&& f) {
    f("gate_multiplier", s.gate_multiplier);
    f("gate_shift", s.gate_shift);
    f("hidden_multiplier", s.hidden_multiplier);
    f("hidden_shift", s.hidden_shift);
    f("hidden_offset", s.hidden_offset);
    f("hidden_init", s.hidden_init);
    f("cell_log2", s.cell_log2);
    f("cell_clip", s.cell_clip);
  }
  friend bool operator==(const QLstmAttrs&, const QLstmAttrs&) = default;
};

struct QPadAttrs {
  std::vector<int64_t> padding;  // [before_0, after_0, before_1, after_1, ...], one pair per dim
  int64_t value = 0;             // the int8 pad value (PAD: the zero point)
  template <class S, class F>
  static void Fields(S& s, F&& f) {
    f("padding", s.padding);
    f("value", s.value);
  }
  friend bool operator==(const QPadAttrs&, const QPadAttrs&) = default;
};

// Constant padding (torch.nn.functional.pad, mode "constant") in float terms; fold-qdq
// quantizes `value` with the input's parameters into qpad's int8 value.
struct PadAttrs {
  std::vector<int64_t> padding;  // [before_0, after_0, before_1, after_1, ...], one pair per dim
  double value = 0.0;
  template <class S, class F>
  static void Fields(S& s, F&& f) {
    f("padding", s.padding);
    f("value", s.value);
  }
  friend bool operator==(const PadAttrs&, const PadAttrs&) = default;
};

struct TransposeAttrs {
  std::vector<int64_t> perm;  // output dim i is input dim perm[i] (torch.permute)
  template <class S, class F>
  static void Fields(S& s, F&& f) {
    f("perm", s.perm);
  }
  friend bool operator==(const TransposeAttrs&, const TransposeAttrs&) = default;
};

// A strided slice with one (begin, end, stride) per input dim: 0 <= begin < end <= dim,
// stride >= 1; output dim d is ceil((end - begin) / stride) (torch slice, narrow, select
// before its reshape, split, chunk; TFLite SLICE and STRIDED_SLICE once resolved).
struct SliceAttrs {
  std::vector<int64_t> begin;
  std::vector<int64_t> end;
  std::vector<int64_t> stride;
  template <class S, class F>
  static void Fields(S& s, F&& f) {
    f("begin", s.begin);
    f("end", s.end);
    f("stride", s.stride);
  }
  friend bool operator==(const SliceAttrs&, const SliceAttrs&) = default;
};

// Resize over the spatial dims (H, W of `layout`) to `size`, nearest neighbour or bilinear,
// with the source coordinate rule of TFLite and PyTorch: align_corners (corner pixels
// aligned, scale (in-1)/(out-1)), half_pixel_centers (pixel centres at +0.5; PyTorch's
// bilinear align_corners=False, its nearest-exact), and scale_h / scale_w: source pixels
// per output pixel when the model gave a scale factor (PyTorch uses 1/scale_factor), 0 for
// in/out. On int8 the bilinear blend is TFLite's integer algorithm (kernels/resize).
struct ResizeAttrs {
  Vec2 size{1, 1};
  bool bilinear = false;
  bool align_corners = false;
  bool half_pixel_centers = false;
  double scale_h = 0.0;
  double scale_w = 0.0;
  Layout layout = Layout::kNCHW;
  template <class S, class F>
  static void Fields(S& s, F&& f) {
    f("size", s.size);
    f("bilinear", s.bilinear);
    f("align_corners", s.align_corners);
    f("half_pixel_centers", s.half_pixel_centers);
    f("scale_h", s.scale_h);
    f("scale_w", s.scale_w);
    f("layout", s.layout);
  }
  friend bool operator==(const ResizeAttrs&, const ResizeAttrs&) = default;
};

// qlayernorm: scale[c] * 2^(scale_exp - 31) = weight[c] / out_scale (kernels/layernorm).
struct QLayerNormAttrs {
  double eps = 1e-5;
  bool rms = false;
  int64_t scale_exp = 0;
  template <class S, class F>
  static void Fields(S& s, F&& f) {
    f("eps", s.eps);
    f("rms", s.rms);
    f("scale_exp", s.scale_exp);
  }
  friend bool operator==(const QLayerNormAttrs&, const QLayerNormAttrs&) = default;
};

using Attrs = std::variant<NoAttrs, Conv2dAttrs, HardtanhAttrs, MaxPool2dAttrs, AvgPool2dAttrs,
                           MeanAttrs, ReshapeAttrs, CatAttrs, SoftmaxAttrs, QConv2dAttrs,
                           QDwConv2dAttrs, QFcAttrs, QPool2dAttrs, ClampAttrs, QPadAttrs,
                           TransposeAttrs, SliceAttrs, LeakyReluAttrs, EluAttrs, GeluAttrs,
                           SoftplusAttrs, ShrinkAttrs, ThresholdAttrs,
                           PadAttrs, ResizeAttrs, ArgMaxAttrs, GatherAttrs, QBmmAttrs, LayerNormAttrs,
                           QLayerNormAttrs, FloatFnAttrs, CumsumAttrs, FConv2dAttrs,
                           FFcAttrs, FPool2dAttrs, QLstmAttrs>;

}  // namespace tinyforge::ir
