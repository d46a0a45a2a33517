// CONV_2D, int8 activations and weights, int32 bias, per-output-channel requantization.
// Numerics: TFLite Micro reference_integer_ops::ConvPerChannel (double rounding).
//
// Layouts (all dense, C order, no padding between rows):
//   input   [batches, in_h, in_w, in_c]             NHWC, int8
//   weights [out_c, k_h, k_w, in_c / groups]        OHWI, int8, symmetric (zero point 0)
//   bias    [out_c]                                 int32, scale in_scale * w_scale[oc];
//                                                   may be null (treated as zeros)
//   output  [batches, out_h, out_w, out_c]          NHWC, int8
//
// Output (oy, ox) reads input rows oy * stride_h - pad_top + ky * dilation_h (same for x);
// taps outside the input are skipped, which equals padding the input with its zero
// point. Bottom/right padding is implied by out_h/out_w, so asymmetric padding (TFLite
// SAME with odd total padding) is expressed by pad_top/pad_left = floor(total / 2).
//
// Grouped convolution: groups = in_c / filter_in_c; output channel oc belongs to group
// oc / (out_c / groups). Ordinary convolution has filter_in_c == in_c.
//
// Every variant of this family (see conv.inc) takes exactly these parameters and must
// produce bit-identical output to s8_conv__ref.
#ifndef TINYFORGE_KERNELS_CONV_CONV_H_
#define TINYFORGE_KERNELS_CONV_CONV_H_

#include <cstdint>

#include "kernels/common/rounding.h"
#include "kernels/common/rq_mode.h"

struct s8_conv_params {
  // Geometry. All > 0. in_c % filter_in_c == 0, out_c % (in_c / filter_in_c) == 0.
  int32_t batches;
  int32_t in_h, in_w, in_c;
  int32_t out_h, out_w, out_c;
  int32_t k_h, k_w, filter_in_c;
  int32_t stride_h, stride_w;      // >= 1
  int32_t dilation_h, dilation_w;  // >= 1
  int32_t pad_top, pad_left;       // >= 0, input pixels
  // Quantization.
  int32_t input_offset;   // -input zero point, in [-127, 128]
  int32_t output_offset;  // output zero point, in [-128, 127]
  // Per output channel: real scale in_scale * w_scale[oc] / out_scale encoded as
  // multiplier[oc] * 2^(shift[oc] - 31); multiplier in [2^30, 2^31) or 0, shift in
  // [-31, 30]. Arrays of out_c entries, owned by the caller (flash).
  const int32_t* multiplier;
  const int32_t* shift;
  // Fused activation as an output clamp, -128 <= act_min <= act_max <= 127.
  int32_t act_min, act_max;
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
  // word: nonzero when `bias` holds, after its out_c words, s8_conv_mve_lean_words(p) more:
  // the effective bias and s8_conv__mve's per-channel table of the call's kind
  // (s8_conv_mve_lean_word), which that variant then reads instead of building them in its
  // scratch (docs/decisions.md 98). Only where s8_conv_mve_table_kind(p) != 0; other
  // variants read the first out_c words only.
  int32_t lean;
};

// True for an unpadded 1x1 convolution whose every output pixel reads an input pixel (any
// stride): the optimized variants read such columns in place, without im2col scratch.
inline bool s8_conv_is_direct(const s8_conv_params& p) {
  return p.k_h == 1 && p.k_w == 1 && p.pad_top == 0 && p.pad_left == 0 &&
         (p.out_h - 1) * p.stride_h < p.in_h && (p.out_w - 1) * p.stride_w < p.in_w;
}

// In place: an ungrouped direct 1x1 stride-1 convolution whose output has its input's shape
// writes each output pixel only over its own input pixel, so a variant may run it with
// output == input where it reads a pixel's whole column before writing any output of it:
// s8_conv__mve holds the column in registers (its K <= 64 routines) or copies the tile's
// pixels into its scratch first (s8_conv_mve_in_place_pixels of them; mve_conv_run.h).
// tinyforge/in_place.h lists the variants (ConvInPlace: the compiler plans such an op in
// place, the runtime's validator checks it, the variant harness tests it). s8_conv__ref
// runs such a call too (from a copy of one pixel at a time in scratch: a host runs the M55
// variants as __ref).
constexpr bool s8_conv_same_pixels(const s8_conv_params& p) {
  return p.k_h == 1 && p.k_w == 1 && p.stride_h == 1 && p.stride_w == 1 && p.pad_top == 0 &&
         p.pad_left == 0 && p.out_h == p.in_h && p.out_w == p.in_w && p.out_c == p.in_c &&
         p.filter_in_c == p.in_c;
}
// Pixels per in-place tile of s8_conv__mve: 4 where K <= 64 (one input-stationary row call
// each, as fast as longer tiles), else the whole-tensor call's 24 (Tile23 reloads every
// weight per tile: 6-pixel tiles cost vww's 6x6x128 pointwise convs 0.24 instructions per
// MAC against 0.20), or the image's pixels if fewer.
constexpr int32_t s8_conv_mve_in_place_pixels(const s8_conv_params& p) {
  const int64_t pixels = int64_t{p.batches} * p.out_h * p.out_w;
  return p.in_c <= 64 ? 4 : (pixels < 24 ? static_cast<int32_t>(pixels) : 24);
}

// Output pixels per im2col tile of s8_conv__mve (its scratch holds that many K-byte patches):
// 12 (4 blocks of 3 pixels) for K <= 288, 6 above, so the patches stay within 3,456 bytes.
inline int32_t s8_conv_mve_patch_pixels(const s8_conv_params& p) {
  return p.k_h * p.k_w * p.in_c <= 288 ? 12 : 6;
}

// Bytes of s8_conv__mve's per-channel table in its scratch: Tile23's pair table (24 a
// channel) where a call may take that routine (K > 16, even out_c, not the K <= 64 rows),
// else the packed quads or channels (12 a channel). Its effective bias follows (4 a channel).
inline int32_t s8_conv_mve_table_bytes(const s8_conv_params& p) {
  const int32_t k = p.k_h * p.k_w * p.in_c;
  const bool pairs = (p.out_c & 1) == 0 && k > 16 && !(k <= 64 && p.out_c >= 4);
  return (pairs ? 24 : 12) * p.out_c;
}

// s8_conv__mve's paths linked on demand (kernels/common/paths.h, conv.inc): the
// requantization mode of a call (rq_mode.h; -1: a grouped convolution, run by __ref) ...
inline int s8_conv_mve_mode(const s8_conv_params& p) {
  if (p.filter_in_c != p.in_c) return -1;
  return tinyforge::rq::ChooseMode(p.shift, p.out_c, p.rounding);
}
// ... the K loop of the 3 x 2 block routine for a K > 16: 1 tail-predicated, 2 three chunks
// per iteration (K % 48 == 0, K >= 96), 3 none (K = 144) ...
inline int s8_conv_mve_tile23_loop(int32_t k) {
  return k == 144 ? 3 : (k % 48 == 0 && k >= 96) ? 2 : 1;
}
// ... and that loop when the call takes the routine (double rounding with every shift
// <= -1, or single rounding; even out_c, K > 16 and not the K <= 64 rows), else 0.
inline int s8_conv_mve_tile23(const s8_conv_params& p) {
  const int mode = s8_conv_mve_mode(p);
  const int32_t k = p.k_h * p.k_w * p.in_c;
  if ((mode != tinyforge::rq::kRqDoubleNeg && mode != tinyforge::rq::kRqSingleNeg) ||
      (p.out_c & 1) != 0 || k <= 16 || (k <= 64 && p.out_c >= 4)) {
    return 0;
  }
  return s8_conv_mve_tile23_loop(k);
}

// The per-channel table a call of s8_conv__mve builds in its scratch, where it does not depend
// on the call's pixels: 1, the packed quads of the K <= 64 rows (16 < K <= 64, out_c % 4 ==
// 0: per 4 channels their bias, multipliers and shifts); 2, Tile23's pair table (even out_c,
// K > 16, not the rows: per 2 channels {m0, m1, m0, m1}, {s0, s1, s0, s1}, {b0, b1, b0, b1});
// 0, none (other requantization modes, K <= 16, odd out_c, grouped convolutions).
inline int s8_conv_mve_table_kind(const s8_conv_params& p) {
  const int mode = s8_conv_mve_mode(p);
  if (mode != tinyforge::rq::kRqDoubleNeg && mode != tinyforge::rq::kRqSingleNeg) return 0;
  const int32_t k = p.k_h * p.k_w * p.in_c;
  if (k <= 16) return 0;
  if (k <= 64 && p.out_c >= 4) return (p.out_c & 3) == 0 ? 1 : 0;
  return (p.out_c & 1) == 0 ? 2 : 0;
}
// Words after the bias with s8_conv_params::lean: the effective bias (out_c) and the table.
inline int32_t s8_conv_mve_lean_words(const s8_conv_params& p) {
  return p.out_c + (s8_conv_mve_table_kind(p) == 2 ? 6 : 3) * p.out_c;
}
// The lean word i (0 <= i < s8_conv_mve_lean_words(p)) of a call with weights and bias
// (not null), multiplier and shift bound, and `kind` = s8_conv_mve_table_kind(p) (computed
// once by the caller: it scans the shifts): the compiler writes them, the runtime checks them
// at init, in order. Word c < out_c is bias[c] + input_offset * sum(weights of c) (wrapping,
// as the kernel computes it; exact where every tap reads the input or its zero point, which
// s8_conv__mve's patches hold); a table's bias word repeats it, read from `lean` (the lean
// words before i).
inline int32_t s8_conv_mve_lean_word(const s8_conv_params& p, int kind, const int8_t* weights,
                                     const int32_t* bias, const int32_t* lean, int32_t i) {
  const int32_t n = p.out_c;
  int32_t c = i;  // the channel whose bias (effective), multiplier or shift word i is
  int field = 0;  // 0 bias, 1 multiplier, 2 shift
  if (i >= n) {
    const int32_t t = i - n;
    if (kind == 2) {  // per pair: m m m m, s s s s, b b b b
      field = (t % 12) / 4 == 2 ? 0 : (t % 12) / 4 + 1;
      c = t / 12 * 2 + (t & 1);
    } else {  // per quad: b0..b3, m0..m3, s0..s3
      field = (t % 12) / 4;
      c = t / 12 * 4 + (t & 3);
    }
  }
  if (field == 1) return p.multiplier[c];
  if (field == 2) return p.shift[c];
  if (i >= n) return lean[c];
  const int32_t k = p.k_h * p.k_w * p.in_c;
  int32_t sum = 0;
  for (int32_t j = 0; j < k; ++j) sum += weights[c * k + j];
  return static_cast<int32_t>(static_cast<uint32_t>(bias[c]) +
                              static_cast<uint32_t>(p.input_offset) * static_cast<uint32_t>(sum));
}

// Scratch bytes of s8_conv__mve: its per-channel table and effective bias (none with
// s8_conv_params::lean; the effective bias only with an input offset), then the im2col
// patches (s8_conv_mve_patch_pixels of them; none for direct 1x1 convolutions, but the
// in-place tile's copy where the call may run in place), 16 for alignment.
inline int32_t s8_conv_mve_scratch_bytes(const s8_conv_params& p) {
  const int32_t tables =
      p.lean ? 0 : s8_conv_mve_table_bytes(p) + (p.input_offset != 0 ? 4 * p.out_c : 0);
  const int32_t cols = s8_conv_is_direct(p)
                           ? (s8_conv_same_pixels(p) ? s8_conv_mve_in_place_pixels(p) * p.in_c : 0)
                           : s8_conv_mve_patch_pixels(p) * p.k_h * p.k_w * p.in_c;
  return tables + cols + 16;
}

// Pixel pairs per tile of s8_conv__dsp (its scratch holds that many pairs of widened columns,
// 16 * ceil(K / 4) bytes each, and as much again for one channel pair's widened weight rows
// when the tile has 2 or more pairs): up to 4 within about 4 KiB, up to 8 when K <= 32 (the
// per-tile channel setup weighs more when the dot products are short).
inline int32_t s8_conv_dsp_pairs(const s8_conv_params& p) {
  const int32_t pair_bytes = 16 * ((p.k_h * p.k_w * p.in_c + 3) / 4);
  const int32_t n = 4096 / pair_bytes - 1;
  const int32_t cap = pair_bytes <= 128 ? 8 : 4;
  return n < 2 ? 1 : (n > cap ? cap : n);
}

// Whether s8_conv__dsp builds int8 im2col patches (otherwise it widens the input in place:
// unpadded 1x1, or every tap whole groups of 4 channels).
inline bool s8_conv_dsp_patch(const s8_conv_params& p) {
  return !s8_conv_is_direct(p) && !(p.dilation_w == 1 && (p.in_c & 3) == 0);
}

// Scratch bytes of s8_conv__dsp: the widened column pairs, one channel pair's widened weight
// rows (as much as a column pair, with 2+ pairs per tile), the channel table (4 bytes per
// output channel + 1, 12 when K % 4 != 0), a template pixel (out_c bytes, rounded to 4), the
// int8 im2col patch if any (K bytes + 3 read past it) and 8-byte alignment.
inline int32_t s8_conv_dsp_scratch_bytes(const s8_conv_params& p) {
  const int32_t k = p.k_h * p.k_w * p.in_c;
  const int32_t pairs = s8_conv_dsp_pairs(p);
  return (pairs + (pairs >= 2 ? 1 : 0)) * 16 * ((k + 3) / 4) +
         ((k & 3) != 0 ? 12 : 4) * (p.out_c + 1) + ((p.out_c + 3) & ~3) +
         (s8_conv_dsp_patch(p) ? k + 4 : 0) + 8;
}

extern "C" {
// scratch: unused by __ref (may be null) except in place (output == input: in_c bytes, see
// s8_conv_same_pixels); faster variants state their need in conv.inc.
void s8_conv__ref(const s8_conv_params* params, const int8_t* input, const int8_t* weights,
                  const int32_t* bias, int8_t* output, void* scratch);
// Cortex-M0/M3 and any core (plain C++); scratch: see conv.inc.
void s8_conv__scalar(const s8_conv_params* params, const int8_t* input, const int8_t* weights,
                     const int32_t* bias, int8_t* output, void* scratch);
// Cortex-M4/M7/M33 (DSP); scratch: see conv.inc.
void s8_conv__dsp(const s8_conv_params* params, const int8_t* input, const int8_t* weights,
                  const int32_t* bias, int8_t* output, void* scratch);
// Cortex-M55 (MVE); scratch: see conv.inc.
void s8_conv__mve(const s8_conv_params* params, const int8_t* input, const int8_t* weights,
                  const int32_t* bias, int8_t* output, void* scratch);
}

#endif  // TINYFORGE_KERNELS_CONV_CONV_H_
