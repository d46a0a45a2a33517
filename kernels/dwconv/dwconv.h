// DEPTHWISE_CONV_2D, int8 activations and weights, int32 bias, per-output-channel
// requantization. Numerics: TFLite Micro reference_integer_ops::DepthwiseConvPerChannel
// (double rounding).
//
// Layouts (dense, C order):
//   input   [batches, in_h, in_w, in_c]                 NHWC, int8
//   weights [1, k_h, k_w, out_c]                        1HWC, int8, symmetric (zp 0)
//   bias    [out_c]                                     int32; may be null
//   output  [batches, out_h, out_w, out_c]              NHWC, int8
// with out_c = in_c * depth_multiplier; output channel oc = ic * depth_multiplier + m
// reads input channel ic.
//
// Padding, stride and dilation as in conv.h: output (oy, ox) reads input row
// oy * stride_h - pad_top + ky * dilation_h; taps outside the input are skipped.
#ifndef TINYFORGE_KERNELS_DWCONV_DWCONV_H_
#define TINYFORGE_KERNELS_DWCONV_DWCONV_H_

#include <cstdint>

#include "kernels/common/rounding.h"

struct s8_dwconv_params {
  // Geometry. All > 0; out_c == in_c * depth_multiplier.
  int32_t batches;
  int32_t in_h, in_w, in_c;
  int32_t out_h, out_w, out_c;
  int32_t depth_multiplier;
  int32_t k_h, k_w;
  int32_t stride_h, stride_w;      // >= 1
  int32_t dilation_h, dilation_w;  // >= 1
  int32_t pad_top, pad_left;       // >= 0
  // Quantization.
  int32_t input_offset;   // -input zero point, in [-127, 128]
  int32_t output_offset;  // output zero point, in [-128, 127]
  // Per output channel, out_c entries each: in_scale * w_scale[oc] / out_scale
  // = multiplier[oc] * 2^(shift[oc] - 31). Owned by the caller.
  const int32_t* multiplier;
  const int32_t* shift;
  int32_t act_min, act_max;  // output clamp, -128 <= act_min <= act_max <= 127
  // Requantization rounding: TF_ROUNDING_DOUBLE (0, TFLite Micro) or TF_ROUNDING_SINGLE (1),
  // kernels/common/rounding.h. Zero-initialized structs get TFLM's double rounding.
  int32_t rounding;
  // Set by the caller, not part of the program (zero-initialized structs: 0): nonzero when
  // `scratch` still holds what a call of the same kernel with the same channels, weights,
  // bias and quantization left there and nothing has written it since (the runtime's calls
  // after the first of a streamed op, docs/decisions.md 86). A variant may then skip
  // rebuilding its per-channel tables; its output is the same either way.
  int32_t warm;
  // Set by the caller from the program's LEAN op flag (program_format.h), not a parameter
  // word: nonzero asks s8_dwconv__mve's plane path for chunks of 4 channels' planes
  // (s8_dwconv_mve_make_plan) where it would fill 8, for half their scratch at a slower
  // fill (docs/decisions.md 98). The output is the same either way.
  int32_t lean;
};

extern "C" {
// scratch: unused by __ref (may be null), but in place (output == input, the same bytes; only
// for a stride-1 call whose output has the input's shape, s8_dwconv_same_shape): at least
// in_h * in_w bytes (as the in-place variants' scratch always is, which a host running their
// programs gives it).
void s8_dwconv__ref(const s8_dwconv_params* params, const int8_t* input, const int8_t* weights,
                    const int32_t* bias, int8_t* output, void* scratch);
// Plain C++ (Cortex-M0/M3). scratch: s8_dwconv_dsp_scratch_bytes(p) bytes (the same plane).
void s8_dwconv__scalar(const s8_dwconv_params* params, const int8_t* input,
                       const int8_t* weights, const int32_t* bias, int8_t* output, void* scratch);
// Cortex-M4/M7/M33 (DSP). scratch: s8_dwconv_dsp_scratch_bytes(p) bytes.
void s8_dwconv__dsp(const s8_dwconv_params* params, const int8_t* input, const int8_t* weights,
                    const int32_t* bias, int8_t* output, void* scratch);
// Cortex-M55 (Helium). scratch: s8_dwconv_mve_scratch_bytes(p) bytes, 16-byte aligned.
void s8_dwconv__mve(const s8_dwconv_params* params, const int8_t* input, const int8_t* weights,
                    const int32_t* bias, int8_t* output, void* scratch);
// Cortex-M55 (Helium), no scratch (may be null) and no per-call set-up: 4 channels by up to 4
// output pixels along x straight from NHWC (depth multiplier 1; others run __ref). For
// streamed calls at a plan's peak (docs/decisions.md 58).
void s8_dwconv__mve_direct(const s8_dwconv_params* params, const int8_t* input,
                           const int8_t* weights, const int32_t* bias, int8_t* output,
                           void* scratch);
}

// s8_dwconv__mve's fast path (up to 64 taps, any stride / dilation / depth multiplier)
// works on "planes": per input channel, a zero-point padded window of the input transposed
// so that each output's k_h x k_w patch lies within 256 bytes (one 16-lane byte gather per
// 16 taps) — lanes along y ("column-major", b = y) or along x for short images. The geometry is a
// pure function of the parameters, shared by the kernel and its scratch size (dwconv.inc).
struct s8_dwconv_mve_plan {
  bool fast;
  bool b_is_y;      // the plane's contiguous axis b is y (else x)
  int32_t n_a;      // plane columns (padded input extent along a for one band)
  int32_t pitch;    // bytes per plane column (multiple of 8, <= 120)
  int32_t band;     // output rows (along b) per band
  int32_t chunk;    // input channels per plane fill: 8 (small planes, one scatter per 8
                    // channels of a pixel; 4 with p.lean) or 1 (one gather per 8 rows of a
                    // channel)
  int32_t pixels;   // > 0: small image (pixel mode): dot products of 8 channels are kept
                    // (int32 [pixels][8]) and requantized 4 channels at a time
  int32_t groups;   // gathers per output: 1 (up to 16 taps), 2 (32) or 4 (64; 33 to 48
                    // taps gather a fourth group of zero weights)
};

// The plane path's largest kernel (8x8, or 7x7: ConvNeXt; 5x5: MobileNetV3, EfficientNet).
constexpr int32_t kS8DwconvMveMaxTaps = 64;

[[gnu::noinline]] constexpr s8_dwconv_mve_plan s8_dwconv_mve_make_plan(const s8_dwconv_params& p) {
  s8_dwconv_mve_plan plan{false, true, 0, 0, 0, 1, 0, 1};
  const int64_t taps = int64_t{p.k_h} * p.k_w;
  // Over 16 taps, an input smaller than the kernel or fewer than 16 outputs: the plane
  // computes every padded tap and its per-channel set-up is not repaid, the general path
  // clips each window (MobileNetV3-Small's 5x5 convs on 3x3 outputs, an547: 67,510 and
  // 123,095 instructions on the plane, 53,777 and 73,241 on the general path).
  if (taps > 16 && (p.in_h < p.k_h || p.in_w < p.k_w || int64_t{p.out_h} * p.out_w < 16)) {
    return plan;
  }
  if (taps > kS8DwconvMveMaxTaps || p.stride_h < 1 || p.stride_w < 1 || p.dilation_h < 1 ||
      p.dilation_w < 1) {
    return plan;
  }
  // Outputs are requantized 4 at a time along b: prefer the axis that wastes fewer lanes.
  const int64_t waste_y = (4 - p.out_h % 4) % 4 * int64_t{p.out_w};
  const int64_t waste_x = (4 - p.out_w % 4) % 4 * int64_t{p.out_h};
  plan.b_is_y = waste_y <= waste_x;
  const int32_t k_a = plan.b_is_y ? p.k_w : p.k_h, k_b = plan.b_is_y ? p.k_h : p.k_w;
  const int32_t d_a = plan.b_is_y ? p.dilation_w : p.dilation_h;
  const int32_t d_b = plan.b_is_y ? p.dilation_h : p.dilation_w;
  const int32_t s_a = plan.b_is_y ? p.stride_w : p.stride_h;
  const int32_t s_b = plan.b_is_y ? p.stride_h : p.stride_w;
  const int32_t n_a_out = plan.b_is_y ? p.out_w : p.out_h;
  const int32_t n_b_out = plan.b_is_y ? p.out_h : p.out_w;
  const int64_t step_b = plan.b_is_y ? int64_t{p.in_w} * p.in_c : int64_t{p.in_c};
  if (step_b * 7 > 65535) return plan;  // 16-bit gather offsets (8 rows at a time)
  const int32_t eff_b = (k_b - 1) * d_b + 1;
  // The pitch that keeps every patch offset (k_a - 1) * d_a * pitch + (k_b - 1) * d_b within
  // a byte, a multiple of 8, at most 120.
  // (32-bit: k * dilation is validated to fit; an int64 division would link a library call.)
  const int32_t span_a = (k_a - 1) * d_a, span_b = (k_b - 1) * d_b;
  int32_t max_pitch = 120;
  if (span_a > 0 && (255 - span_b) / span_a < max_pitch) max_pitch = (255 - span_b) / span_a / 8 * 8;
  // Plane rows read by a band, tail group of 4 included: ceil(band / 4) * 4 * s_b + eff_b,
  // at most max_pitch.
  const int64_t room = max_pitch - eff_b - 4 * int64_t{s_b};
  if (room < 0) return plan;
  int64_t band = room / s_b + 1;
  if (band > n_b_out) band = n_b_out;
  plan.band = static_cast<int32_t>(band);
  const int64_t rows = (band + 3) / 4 * 4 * s_b + eff_b;
  plan.pitch = static_cast<int32_t>((rows + 7) / 8 * 8);
  if (plan.pitch > 120) plan.pitch = 120;
  // Every patch offset (k_a - 1) * d_a * pitch + (k_b - 1) * d_b must fit a byte.
  if ((int64_t{k_a} - 1) * d_a * plan.pitch + (k_b - 1) * int64_t{d_b} > 255) return plan;
  plan.n_a = (n_a_out - 1) * s_a + (k_a - 1) * d_a + 1;
  plan.chunk = int64_t{plan.n_a} * plan.pitch * 8 <= 8192 && p.in_c > 1 ? (p.lean ? 4 : 8) : 1;
  const int64_t pixels = int64_t{p.out_h} * p.out_w;
  // (Measured on the M55: better than the column loops when columns are shorter than 8.)
  if (plan.chunk == 8 && p.depth_multiplier == 1 && plan.band == n_b_out && pixels <= 128 &&
      n_b_out < 8) {
    plan.pixels = static_cast<int32_t>(pixels);
  }
  plan.groups = taps <= 16 ? 1 : taps <= 32 ? 2 : 4;
  plan.fast = true;
  return plan;
}

// Whether the plane plan covers the output in one band along b.
constexpr bool s8_dwconv_mve_one_band(const s8_dwconv_params& p,
                                      const s8_dwconv_mve_plan& plan) {
  return plan.band >= (plan.b_is_y ? p.out_h : p.out_w);
}

// Whether s8_dwconv__mve's plane path packs the weights of one chunk of input channels (8, or
// 4 with p.lean) at a time, just before the chunk's planes are read, rather than all channels
// once per call: where every chunk is filled once (one band, one batch), so the packing costs
// the same and the scratch holds 16 * groups * chunk * depth_multiplier bytes of them instead
// of 16 * groups * out_c.
constexpr bool s8_dwconv_mve_packs_chunks(const s8_dwconv_params& p,
                                          const s8_dwconv_mve_plan& plan) {
  return plan.fast && plan.chunk > 1 && p.batches == 1 && s8_dwconv_mve_one_band(p, plan);
}
// Output channels whose packed weights the scratch holds at a time.
constexpr int64_t s8_dwconv_mve_packed_channels(const s8_dwconv_params& p,
                                                const s8_dwconv_mve_plan& plan) {
  const int64_t chunk = int64_t{plan.chunk} * p.depth_multiplier;
  return s8_dwconv_mve_packs_chunks(p, plan) && chunk < p.out_c ? chunk : p.out_c;
}

// Scratch bytes of s8_dwconv__mve: 16 packed weights per tap group and output channel held at
// a time and `chunk` planes.
constexpr int64_t s8_dwconv_mve_scratch_bytes(const s8_dwconv_params& p) {
  const s8_dwconv_mve_plan plan = s8_dwconv_mve_make_plan(p);
  if (!plan.fast) return 0;
  return s8_dwconv_mve_packed_channels(p, plan) * 16 * plan.groups +
         int64_t{plan.n_a} * plan.pitch * plan.chunk + 16 + int64_t{plan.pixels} * 32;
}

// In place: a variant may write its output exactly over its input (output == input, the
// same bytes) where it says so below, each for a stride-1 depthwise conv whose output has
// its input's shape (depth multiplier 1): paths that copy a channel's whole input into
// scratch before writing any output of that channel, and write no other channel.
// tinyforge/in_place.h lists the variants (DwconvInPlace: the compiler plans such an op in
// place, the runtime's validator checks it, the variant harness tests it; docs/decisions.md
// 86). s8_dwconv__ref runs such a call too (from a copy of one channel's plane at a time in
// scratch: a host runs the M55 and M4 variants as __ref).
constexpr bool s8_dwconv_same_shape(const s8_dwconv_params& p) {
  return p.stride_h == 1 && p.stride_w == 1 && p.depth_multiplier == 1 && p.out_h == p.in_h &&
         p.out_w == p.in_w && p.out_c == p.in_c;
}
// s8_dwconv__mve: the plane path in one band (each chunk's planes are filled with its
// channels' whole input first).
constexpr bool s8_dwconv_mve_in_place(const s8_dwconv_params& p) {
  if (!s8_dwconv_same_shape(p)) return false;
  const s8_dwconv_mve_plan plan = s8_dwconv_mve_make_plan(p);
  return plan.fast && s8_dwconv_mve_one_band(p, plan);
}

// s8_dwconv__dsp's lanes path (depth multiplier 1, channels a multiple of 4; a 3x3 undilated
// kernel with stride 2+ or at most 16 output pixels, or any other kernel of up to 64 taps):
// 4 channels at a time straight from NHWC, no scratch.
constexpr int32_t kS8DwconvDspLaneTaps = 64;  // the lanes path's largest kernel (8x8)
constexpr bool s8_dwconv_dsp_lanes(const s8_dwconv_params& p) {
  if (p.depth_multiplier != 1 || (p.in_c & 3) != 0) return false;
  if (p.k_h == 3 && p.k_w == 3 && p.dilation_h == 1 && p.dilation_w == 1) {
    return p.stride_h > 1 || p.stride_w > 1 || int64_t{p.out_h} * p.out_w <= 16;
  }
  // Other kernels: the plane path takes none of them.
  return int64_t{p.k_h} * p.k_w <= kS8DwconvDspLaneTaps;
}

// s8_dwconv__dsp's and __scalar's fast path (3x3, dilation 1, any depth multiplier) copies one
// input channel at a time into a zero-point padded plane whose contiguous axis is the longer
// output axis, and computes that channel's outputs from it: scratch = the plane, or 0
// (general path) when it would exceed 16 KiB.
constexpr int64_t s8_dwconv_dsp_scratch_bytes(const s8_dwconv_params& p) {
  if (p.k_h != 3 || p.k_w != 3 || p.dilation_h != 1 || p.dilation_w != 1) return 0;
  const bool y = p.out_h >= p.out_w;
  const int64_t n_a = int64_t{(y ? p.out_w : p.out_h) - 1} * (y ? p.stride_w : p.stride_h) + 3;
  const int64_t pitch = int64_t{(y ? p.out_h : p.out_w) - 1} * (y ? p.stride_h : p.stride_w) + 4;
  return n_a * pitch > 16384 ? 0 : (n_a * pitch + 7) / 4 * 4;
}

// s8_dwconv__dsp and s8_dwconv__scalar: the plane path (one channel at a time), taken
// where the lanes path is not and the plane fits.
constexpr bool s8_dwconv_dsp_in_place(const s8_dwconv_params& p) {
  return s8_dwconv_same_shape(p) && !s8_dwconv_dsp_lanes(p) && s8_dwconv_dsp_scratch_bytes(p) > 0;
}

namespace tinyforge::dwconv {

// The taps k in [0, k) of one window axis whose input coordinate at0 + k * dilation lies in
// [0, in): [*lo, *hi), empty when *hi <= *lo (the fast kernels clip each output's window once
// instead of checking every tap).
inline void ValidTaps(int32_t at0, int32_t dilation, int32_t k, int32_t in, int32_t* lo,
                      int32_t* hi) {
  *lo = at0 < 0 ? (-at0 + dilation - 1) / dilation : 0;
  const int32_t last = in - 1 - at0;  // the largest k * dilation inside
  *hi = last < 0 ? 0 : (last / dilation + 1 < k ? last / dilation + 1 : k);
}

}  // namespace tinyforge::dwconv

#endif  // TINYFORGE_KERNELS_DWCONV_DWCONV_H_
