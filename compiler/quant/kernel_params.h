// Float quantization parameters -> int8 kernel parameter structs (kernels/<family>/*.h),
// computed exactly as TensorFlow Lite Micro's Prepare() functions compute them, so that the
// kernels reproduce TFLM bit for bit.
//
// Where TFLM computes in float and where in double matters for bit-exactness; each
// builder's comment says which it follows. Every builder validates its inputs and returns
// an Error naming the op and the field instead of producing a struct the kernel would
// misbehave on. Host side, C++20.
#ifndef TINYFORGE_COMPILER_QUANT_KERNEL_PARAMS_H_
#define TINYFORGE_COMPILER_QUANT_KERNEL_PARAMS_H_

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "kernels/add/add.h"
#include "kernels/argmax/argmax.h"
#include "kernels/gather/gather.h"
#include "kernels/bmm/bmm.h"
#include "kernels/common/broadcast.h"
#include "kernels/concat/concat.h"
#include "kernels/conv/conv.h"
#include "kernels/dwconv/dwconv.h"
#include "kernels/minmax/minmax.h"
#include "kernels/fc/fc.h"
#include "kernels/layernorm/layernorm.h"
#include "kernels/lstm/lstm.h"
#include "kernels/logistic/logistic.h"
#include "kernels/lut/lut.h"
#include "kernels/mean/mean.h"
#include "kernels/mul/mul.h"
#include "kernels/pad/pad.h"
#include "kernels/pool/pool.h"
#include "kernels/quantize/quantize.h"
#include "kernels/resize/resize.h"
#include "kernels/slice/slice.h"
#include "kernels/softmax/softmax.h"
#include "kernels/transpose/transpose.h"
#include "kernels/tanh/tanh.h"
#include "quant/quant_util.h"
#include "support/expected.h"

namespace tinyforge::quant {

// Per-tensor affine quantization of an int8 activation tensor: real = scale * (q - zp).
// scale is the tensor's float32 scale exactly as stored (TFLite keeps float32 scales).
struct TensorQuant {
  float scale = 0.0f;
  int32_t zero_point = 0;
};

// ---- Spatial geometry --------------------------------------------------------------

struct Padding2D {
  int32_t top = 0, left = 0, bottom = 0, right = 0;  // input pixels, >= 0
};

enum class PaddingType { kSame, kValid };

// tflite::ComputeOutSize: SAME -> ceil(in / stride); VALID -> (in + stride - eff) / stride
// with eff = (k - 1) * dilation + 1.
int32_t TfliteOutputSize(PaddingType type, int32_t in, int32_t k, int32_t stride, int32_t dilation);

// tflite::ComputePaddingHeightWidth: total = max((out - 1) * stride + eff - in, 0),
// top/left = total / 2, bottom/right = the rest (the odd pixel goes bottom/right).
Padding2D TflitePadding(PaddingType type, int32_t in_h, int32_t in_w, int32_t k_h, int32_t k_w,
                        int32_t stride_h, int32_t stride_w, int32_t dilation_h, int32_t dilation_w);

// ---- CONV_2D / DEPTHWISE_CONV_2D / FULLY_CONNECTED ------------------------------------

struct ConvSpec {
  int32_t batches = 1;
  int32_t in_h = 0, in_w = 0, in_c = 0;
  int32_t out_c = 0;
  int32_t k_h = 0, k_w = 0;
  int32_t groups = 1;  // in_c / groups input channels per filter
  int32_t stride_h = 1, stride_w = 1;
  int32_t dilation_h = 1, dilation_w = 1;
  Padding2D padding;  // out_h/out_w follow from it
  Activation activation = Activation::kNone;
};

struct ConvKernelParams {
  s8_conv_params params{};          // multiplier/shift null: they point into the vectors
  std::vector<int32_t> multiplier;  // out_c entries
  std::vector<int32_t> shift;       // out_c entries
  // params with multiplier/shift pointing into this object (valid while it lives).
  s8_conv_params Bind() const;
};

// Per channel: in_scale * w_scale[oc] / out_scale evaluated in double from the float
// scales (TFLite PopulateConvolutionQuantizationParams). weight_scales has 1 entry
// (per-tensor, broadcast) or out_c entries.
Expected<ConvKernelParams> MakeConvParams(const ConvSpec& spec, TensorQuant input,
                                          std::span<const float> weight_scales, TensorQuant output);

struct DwConvSpec {
  int32_t batches = 1;
  int32_t in_h = 0, in_w = 0, in_c = 0;
  int32_t depth_multiplier = 1;
  int32_t k_h = 0, k_w = 0;
  int32_t stride_h = 1, stride_w = 1;
  int32_t dilation_h = 1, dilation_w = 1;
  Padding2D padding;
  Activation activation = Activation::kNone;
};

struct DwConvKernelParams {
  s8_dwconv_params params{};
  std::vector<int32_t> multiplier;  // in_c * depth_multiplier entries
  std::vector<int32_t> shift;
  s8_dwconv_params Bind() const;
};

// Same arithmetic as MakeConvParams (TFLite uses PopulateConvolutionQuantizationParams).
Expected<DwConvKernelParams> MakeDwConvParams(const DwConvSpec& spec, TensorQuant input,
                                              std::span<const float> weight_scales,
                                              TensorQuant output);

struct FcSpec {
  int32_t batches = 1;
  int32_t in_features = 0;
  int32_t out_features = 0;
  Activation activation = Activation::kNone;
};

struct FcKernelParams {
  s8_fc_params params{};
  std::vector<int32_t> multiplier;  // 1 (per-tensor) or out_features entries
  std::vector<int32_t> shift;
  s8_fc_params Bind() const;
};

// TFLM CalculateOpDataFullyConnected. Per-channel (out_features weight scales): double
// in_scale * w_scale[o] / out_scale. Per-tensor (1 weight scale): the product
// in_scale * w_scale is taken in FLOAT, then widened and divided in double
// (GetQuantizedConvolutionMultipler) -- a different rounding from CONV_2D.
Expected<FcKernelParams> MakeFcParams(const FcSpec& spec, TensorQuant input,
                                      std::span<const float> weight_scales, TensorQuant output);

// ---- BATCH_MATMUL ---------------------------------------------------------------------

// The kernel's view: `batches` output matrices; an operand with fewer batches (1, or the
// trailing part of the output's batch dims) repeats (s8_bmm_params).
struct BmmSpec {
  int32_t batches = 1, lhs_batches = 1, rhs_batches = 1;
  int32_t rows = 0, depth = 0, cols = 0;
  bool lhs_transposed = false, rhs_transposed = false;
};

// TFLite BatchMatMul Prepare (int8): the multiplier of lhs_scale * rhs_scale / out_scale,
// the product taken in FLOAT, widened, then divided in double (GetQuantizedConvolutionMultipler,
// as FULLY_CONNECTED per tensor).
Expected<s8_bmm_params> MakeBmmParams(const BmmSpec& spec, TensorQuant lhs, TensorQuant rhs,
                                      TensorQuant output);

// ---- AVERAGE_POOL_2D / MAX_POOL_2D / MEAN ---------------------------------------------

struct PoolSpec {
  int32_t batches = 1;
  int32_t in_h = 0, in_w = 0, channels = 0;
  int32_t filter_h = 0, filter_w = 0;
  int32_t stride_h = 1, stride_w = 1;
  Padding2D padding;
  Activation activation = Activation::kNone;
};

// Input and output must share scale and zero point (TFLite's int8 pooling requirement).
Expected<s8_pool_params> MakePoolParams(const PoolSpec& spec, TensorQuant input,
                                        TensorQuant output);

// MEAN over `axes` of a tensor of shape input_dims (negative axes count from the end).
// The reduced axes must form one contiguous run (e.g. {1, 2} of NHWC); keep_dims does not
// change the data layout. Multiplier: double in_scale / out_scale, then TFLite's
// QuantizedMeanOrSum fold of 1/count: s = min(floor(log2 count), 32, 31 + shift),
// multiplier = (multiplier << s) / count, shift -= s.
// Whether the reduced axes of input_dims form one contiguous run once dims of size 1 are
// dropped (what MakeMeanParams / MakeReduceMaxParams take).
bool ReductionIsOneRun(std::span<const int32_t> input_dims, std::span<const int32_t> axes);

// sum = true: SUM (QuantizedMeanOrSum with compute_sum: no 1/count fold), same kernel.
Expected<s8_mean_params> MakeMeanParams(std::span<const int32_t> input_dims,
                                        std::span<const int32_t> axes, TensorQuant input,
                                        TensorQuant output, bool sum = false);

// REDUCE_MAX over `axes` (one contiguous run, as MEAN); input and output quantized alike.
Expected<s8_reduce_max_params> MakeReduceMaxParams(std::span<const int32_t> input_dims,
                                                   std::span<const int32_t> axes);

// ---- ADD / MUL --------------------------------------------------------------------

// NumPy broadcasting of two shapes (right-aligned, <= 6 dims after alignment).
Expected<s8_broadcast_shape> MakeBroadcastShape(std::span<const int32_t> dims1,
                                                std::span<const int32_t> dims2);

// TFLM CalculateOpDataAdd: left_shift 20; twice_max = 2 * (double)max(s1, s2) (max taken on
// the floats); multipliers s1 / twice_max, s2 / twice_max,
// twice_max / (2^20 * s_out), all in double, via QuantizeMultiplierSmallerThanOneExp.
Expected<s8_add_params> MakeAddParams(std::span<const int32_t> dims1,
                                      std::span<const int32_t> dims2, TensorQuant input1,
                                      TensorQuant input2, TensorQuant output,
                                      Activation activation);

// ADD / SUB with the other fields final: the linear form of kernels/add/add_linear.h in
// p->lin_* when an exhaustive check over all 65,536 input pairs proves it equal to the
// reference arithmetic (false, the fields 0, otherwise). A few milliseconds per op.
bool FindAddLinearForm(s8_add_params* p, bool sub);

// TFLM squared_difference.cc PrepareQuantized (int8): left_shift 7; twice_max as for ADD;
// input multipliers s_k / twice_max (SmallerThanOneExp), output multiplier
// twice_max^2 / (2^14 * s_out) (QuantizeMultiplier, may exceed 1); full int8 output range.
Expected<s8_add_params> MakeSquaredDifferenceParams(std::span<const int32_t> dims1,
                                                    std::span<const int32_t> dims2,
                                                    TensorQuant input1, TensorQuant input2,
                                                    TensorQuant output);

// MAXIMUM / MINIMUM: the broadcast shape only (inputs and output share their parameters).
Expected<s8_minmax_params> MakeMinMaxParams(std::span<const int32_t> dims1,
                                            std::span<const int32_t> dims2);

// PRELU (x, slopes broadcast against x): TFLM's CalculatePreluParams, in / out and
// in * alpha / out in double, QuantizeMultiplier; no fused activation.
Expected<s8_prelu_params> MakePreluParams(std::span<const int32_t> x_dims,
                                          std::span<const int32_t> alpha_dims,
                                          TensorQuant input, TensorQuant alpha,
                                          TensorQuant output);

// TFLM CalculateOpDataMul: (double)s1 * (double)s2 / (double)s_out, QuantizeMultiplier.
Expected<s8_mul_params> MakeMulParams(std::span<const int32_t> dims1,
                                      std::span<const int32_t> dims2, TensorQuant input1,
                                      TensorQuant input2, TensorQuant output,
                                      Activation activation);

// ---- SOFTMAX / LOGISTIC / TANH -----------------------------------------------------------

// TFLM CalculateSoftmaxParams (int8 -> int8): output must be scale 1/256, zero point -128.
// PreprocessSoftmaxScaling((double)beta, (double)in_scale, 5):
//   min(beta * in_scale * 2^26, 2^31 - 1) -> QuantizeMultiplierGreaterThanOne,
// diff_min = -CalculateInputRadius(5, left_shift). Softmax runs over the last dimension.
Expected<s8_softmax_params> MakeSoftmaxParams(std::span<const int32_t> dims, float beta,
                                              TensorQuant input, TensorQuant output);

// TFLM CalculateArithmeticOpDataLogistic (int8): output zero point must be -128 (and scale
// 1/256). m = (double)in_scale * 2^27; q = frexp(m, &left_shift);
// multiplier = (int32)round(q * 2^31) -- no 2^31 fix-up, unlike QuantizeMultiplier;
// radius = CalculateInputRadius(4, left_shift, 31).
Expected<s8_logistic_params> MakeLogisticParams(int32_t size, TensorQuant input,
                                                TensorQuant output);

// TFLM tanh CalculateArithmeticOpData (int8): same arithmetic as LOGISTIC; output must be
// scale 1/128, zero point 0.
Expected<s8_tanh_params> MakeTanhParams(int32_t size, TensorQuant input, TensorQuant output);

// ---- LAYER_NORM / RMS_NORM (kernels/layernorm, docs/numerics.md "Layer norm") ------------

// weight[c] / out_scale = scale[c] * 2^(scale_exp - 31) (scale rounded half away from zero,
// scale_exp the exponent of the largest |weight| / out_scale, at least -32); bias[c] =
// round((beta[c] / out_scale + out_zp) * 2^16). One entry each when all channels are alike
// (no affine). Empty weight = ones, empty bias = zeros.
struct LayerNormConstants {
  std::vector<int32_t> scale, bias;
  int32_t scale_exp = 0;
};
Expected<LayerNormConstants> MakeLayerNormConstants(std::span<const float> weight,
                                                    std::span<const float> bias, int64_t depth,
                                                    TensorQuant output);
// eps16 = round(eps / in_scale^2 * depth^2 * 2^16) (< 2^62); normalizes the last dim.
Expected<s8_layernorm_params> MakeLayerNormParams(std::span<const int32_t> dims, bool rms,
                                                  double eps, TensorQuant input,
                                                  int32_t scale_exp, int64_t channels);

// ---- Table lookups (LUT): every int8 -> int8 function of one input ------------------------

// 256 int8 outputs, entry i for the input (int8_t)i (kernels/lut/lut.h).
using LutTable = std::array<int8_t, TF_LUT_ENTRIES>;

Expected<s8_lut_params> MakeLutParams(int32_t size);

// LOGISTIC / TANH: the parameters above, and s8_logistic__ref / s8_tanh__ref run on all 256
// inputs (so the table is TFLM's integer algorithm, entry by entry).
Expected<LutTable> LogisticTable(TensorQuant input, TensorQuant output);
Expected<LutTable> TanhTable(TensorQuant input, TensorQuant output);
// HARD_SWISH: TFLM's HardSwishPrepare (float ratios, QuantizeMultiplier, int16 multipliers)
// and reference_ops::HardSwish's int16 fixed-point arithmetic.
Expected<LutTable> HardSwishTable(TensorQuant input, TensorQuant output);
// LEAKY_RELU: CalculateOpDataLeakyRelu's two multipliers (in_scale * alpha / out_scale and
// in_scale / out_scale, in float) and QuantizeLeakyRelu (double-rounding requantization).
Expected<LutTable> LeakyReluTable(TensorQuant input, TensorQuant output, float alpha);
// The int8 functions TFLite computes by a float table (LUTPopulate / PopulateLookupTable:
// dequantize, the function in float32, round half away from zero, add the zero point):
// ELU (x < 0 ? exp(x) - 1 : x), GELU (erf, or the tanh approximation), EXP, LOG.
enum class FloatLutFn { kElu, kGelu, kGeluTanh, kExp, kLog };
Expected<LutTable> FloatLutTable(TensorQuant input, TensorQuant output, FloatLutFn fn);
// RSQRT: TFLite's RsqrtEvalQuantizedInt8 (GetInvSqrtQuantizedMultiplierExp's Newton steps,
// two double-rounding requantizations; an input at or below the zero point gives 127).
Expected<LutTable> RsqrtTable(TensorQuant input, TensorQuant output);
// PRELU with one int8 slope `alpha_q` (alpha quantized by `alpha`): TFLM's
// CalculatePreluParams multipliers in double (in / out, in * alpha / out) and its
// BroadcastPrelu4DSlow per input (identity for x - zp >= 0, the product with the slope less
// its zero point otherwise).
Expected<LutTable> PreluTable(TensorQuant input, TensorQuant alpha, int32_t alpha_q,
                              TensorQuant output);
// DEQUANTIZE then QUANTIZE through float32 (a float data-movement op between them, as TF's
// converter sometimes leaves a SPLIT), with the float functions `fns` (kernels/f32 codes,
// arity 1) applied in order between them (fold-qdq's float chains): s8_dequantize__ref,
// each f32_unary__ref, s8_quantize__ref per entry.
Expected<LutTable> DequantQuantTable(TensorQuant input, TensorQuant output,
                                     std::span<const int32_t> fns = {});

// ---- CONCATENATION / PAD / QUANTIZE / DEQUANTIZE ----------------------------------------

struct ConcatKernelParams {
  s8_concat_params params{};            // inputs null: points into the vector
  std::vector<s8_concat_input> inputs;  // one per input
  s8_concat_params Bind() const;
};

// How inputs whose (scale, zero point) differ from the output's are treated.
enum class ConcatMode {
  // TFLM's CONCATENATION: int8 bytes are copied whatever the parameters (the converter
  // makes them equal by inserting QUANTIZE ops). Every input is copied.
  kCopyLikeTflm,
  // QUANTIZE (int8->int8) ops feeding the concat fused into it: a mismatched input is
  // rescaled as TFLM's QUANTIZE does, (double)in_scale / (double)out_scale ->
  // QuantizeMultiplier; pass each input's parameters from BEFORE its QUANTIZE.
  kRequantizeMismatched,
};

Expected<ConcatKernelParams> MakeConcatParams(const std::vector<std::vector<int32_t>>& input_dims,
                                              int32_t axis, std::span<const TensorQuant> inputs,
                                              TensorQuant output, ConcatMode mode);

// paddings: (before, after) per input dimension (<= 5 dims). PAD: input and output must
// share scale and zero point and the pad value is the zero point. PADV2: pass the int8
// constant as pad_value.
Expected<s8_pad_params> MakePadParams(std::span<const int32_t> input_dims,
                                      std::span<const std::pair<int32_t, int32_t>> paddings,
                                      TensorQuant input, TensorQuant output,
                                      std::optional<int8_t> pad_value = std::nullopt);

// GATHER of `input_dims` along `axis` (normalized) by `count` indices: outer, axis, count,
// inner.
Expected<s8_gather_params> MakeGatherParams(std::span<const int32_t> input_dims, int64_t axis, bool wrap_negative,
                                            int64_t count);

// ARG_MAX / ARG_MIN of `input_dims` over `axis` (normalized): outer, axis, inner.
Expected<s8_argmax_params> MakeArgMaxParams(std::span<const int32_t> input_dims, int64_t axis,
                                            bool is_min);

// TRANSPOSE of a tensor of any rank by perm (output dim d is input dim perm[d]): the
// smallest equivalent problem (size-1 dims dropped, dims adjacent in both orders merged),
// which must fit 6 dims. Data movement: input and output share scale and zero point.
Expected<s8_transpose_params> MakeTransposeParams(std::span<const int32_t> input_dims,
                                                  std::span<const int64_t> perm,
                                                  TensorQuant input, TensorQuant output);

// SLICE of a tensor of <= 6 dims: begin and stride per dim, the output dims. Data
// movement: input and output share scale and zero point.
Expected<s8_slice_params> MakeSliceParams(std::span<const int32_t> input_dims,
                                          std::span<const int32_t> output_dims,
                                          std::span<const int64_t> begin,
                                          std::span<const int64_t> stride, TensorQuant input,
                                          TensorQuant output);

// RESIZE of an NHWC tensor (ir::ResizeAttrs): the kernel's parameters and its coordinate
// table (kernels/resize/resize.h). Nearest: TFLite's GetNearestNeighbor (float32 scale,
// floor, or round with align_corners); bilinear: TFLite's integer ResizeBilinear (scale in
// 1/1024, half-pixel offset scale/2 - 512). `scale_*` > 0 replaces in/out (PyTorch's
// 1/scale_factor). Indices TFLite would read past the input are clamped to it, and a tap
// whose two sources are the same pixel gets weight 0 (the same sum). Input and output
// share scale and zero point.
struct ResizeSpec {
  int32_t batches = 1, in_h = 0, in_w = 0, channels = 0, out_h = 0, out_w = 0;
  bool bilinear = false, align_corners = false, half_pixel_centers = false;
  double scale_h = 0.0, scale_w = 0.0;
};
struct ResizeKernelParams {
  s8_resize_params params{};
  std::vector<int32_t> table;  // s8_resize_table_entries(params) entries
};
Expected<ResizeKernelParams> MakeResizeParams(const ResizeSpec& spec, TensorQuant input,
                                              TensorQuant output);
// One axis of a float resize (the executor): output index i reads input lo[i] and hi[i]
// with weight w[i] on hi (TFLite's float ResizeBilinear and nearest neighbour; PyTorch's
// upsample_* give the same values).
struct ResizeTap {
  int32_t lo = 0, hi = 0;
  float w = 0.0f;
};
std::vector<ResizeTap> ResizeFloatTaps(int32_t in, int32_t out, double scale, bool bilinear,
                                       bool align_corners, bool half_pixel_centers);

Expected<s8_quantize_params> MakeQuantizeParams(int32_t size, TensorQuant output);
// TFLM PrepareQuantizeReference int8->int8: (double)in_scale / (double)out_scale.
Expected<s8_requantize_params> MakeRequantizeParams(int32_t size, TensorQuant input,
                                                    TensorQuant output);
Expected<s8_dequantize_params> MakeDequantizeParams(int32_t size, TensorQuant input);

// Standalone int8 RELU / RELU6 (not fused into a producer) on the requantize kernel.
// RELU: TFLM CalculateReluOpData -- (double)in / (double)out rescale, clamp below at
// out_zp + (int)roundf(0 / out_scale). RELU6: TFLM Relu6Quantized does not rescale (it
// assumes output params == input params): identity, clamp to [in_zp,
// FloatToQuantizedType(6.0f, in_scale, in_zp)]. Other activations are rejected.
Expected<s8_requantize_params> MakeReluParams(int32_t size, Activation activation,
                                              TensorQuant input, TensorQuant output);

}  // namespace tinyforge::quant

#endif  // TINYFORGE_COMPILER_QUANT_KERNEL_PARAMS_H_
