// CONV_2D for Cortex-M4/M7/M33 (DSP extension). Bit-identical to s8_conv__ref.
//
// Pixels in tiles of up to 2 * s8_conv_dsp_pairs(p): each pixel's column (its input channels
// for an unpadded 1x1 convolution, otherwise an im2col patch with padded taps at the zero
// point, copied as contiguous kernel-row spans) is widened once to int16 pairs holding
// 2 * (x + input_offset) (kernels/common/gemm/dsp_gemm.h layout), then every channel pair's weights
// (widened once per tile when the tile has 2+ pixel pairs, else int8 rows through
// dsp::Dot2x2) stream past the tile's columns in 2 x 2 blocks of SMLADs (the assembly
// routine below). K % 4
// leftover inputs: the channel's last weights are pre-widened once per call with zeros in the
// missing lanes, so the tail is one more group step whatever the column holds there.
//
// Channel table (once per call, scratch, 4 bytes per channel: e | index << 8): every output
// channel is one of
//   constant  all weights 0 or multiplier 0: its output is clamp(requant(bias)) for every
//             pixel; such channels skip the GEMM (pruned MobileNet layers have many), a
//             template pixel of these constants is copied to each output pixel first;
//   fast      shift in [-22, -1] and |bias| + K * 255 * 128 < 2^30, so the accumulator
//             X = 2 * acc (doubled inputs, doubled bias) does not overflow;
//   slow      anything else: exact generic requantization (fx::Requantize) of acc recovered
//             as X / 2 + bias (its X starts at 0).
// Fast requantization, e = -shift, c = output_offset * 2^e + 2^(e-1) (|c| < 2^29 + 2^21):
//   double rounding: SRDHM(acc, m) = floor((acc * m + 2^30) / 2^31) (no saturation: m >= 0)
//     = floor((X * m + 2^31) / 2^32), so SMMLAR(X, m, c) = c + SRDHM(acc, m) =: c + h, exact.
//     RoundingDivideByPOT(h, e) + offset = floor((h + c - [h < 0]) / 2^e). [h < 0] may be
//     replaced by [X < 0]: X >= 0 gives h >= 0; X < 0 gives h <= 0, and when h == 0 the -1
//     does not change floor((c - 1) / 2^e) = offset (e >= 1). |h| <= |acc| < 2^30, so
//     h + c - 1 fits int32. Output: (SMMLAR(X, m, c + (X >> 31))) >> e.
//   single rounding: floor((acc * m + 2^(30+e)) / 2^(31+e)) + offset
//     = floor((X * m + (c << 32)) / 2^(32+e)) = SMMLA(X, m, c) >> e (nested floors).
// Then SSAT #8 when the clamp is [-128, 127], else min/max. Grouped convolutions (rare) and
// K > 32000 run the reference loop.
//
// Scratch (conv.inc, s8_conv_dsp_scratch_bytes): widened column pairs, the channel table
// (+ 8 bytes per channel of pre-widened tail weights when K % 4 != 0), the template pixel,
// one int8 patch.
#include "kernels/conv/conv.h"
#include "kernels/common/isa.h"

#if TF_HAVE_DSP

#include "kernels/common/fixed_point.h"
#include "kernels/common/gemm/dsp_gemm.h"
#include "kernels/conv/dsp_conv.h"

namespace {

namespace dsp = tinyforge::dsp;
using tinyforge::conv_dsp::Chan;
using tinyforge::conv_dsp::TileArgs;
namespace fx = tinyforge::fx;

inline int32_t Smmlar(int32_t a, int32_t b, int32_t c) {
  int32_t r;
  __asm__("smmlar %0, %1, %2, %3" : "=r"(r) : "r"(a), "r"(b), "r"(c));
  return r;
}
inline int32_t Smmla(int32_t a, int32_t b, int32_t c) {
  int32_t r;
  __asm__("smmla %0, %1, %2, %3" : "=r"(r) : "r"(a), "r"(b), "r"(c));
  return r;
}
// Arithmetic shift right by the bottom byte of s (the ASR-by-register semantics): the
// channel word keeps e in bits 0..7 and the channel index above.
inline int32_t AsrReg(int32_t v, uint32_t s) {
  int32_t r;
  __asm__("asr %0, %1, %2" : "=r"(r) : "r"(v), "r"(s));
  return r;
}
inline uint32_t Sadd16(uint32_t a, uint32_t b) { return __sadd16(a, b); }


// Widens g groups of 4 int8 values to int16 pairs 2 * (x + offset) in dsp::Widen's layout
// (group i at dst[4i], dst[4i + 1]). off2 = the offset in both halves.
inline void Widen2Groups(const int8_t* src, int32_t g, uint32_t off2, uint32_t* dst) {
  for (; g > 0; --g, src += 4, dst += 4) {
    const uint32_t v = dsp::LoadWord(src);
    const uint32_t a = __sxtab16(off2, v);
    const uint32_t b = dsp::Sxtab16Ror8(off2, v);
    dst[0] = Sadd16(a, a);
    dst[1] = Sadd16(b, b);
  }
}
inline void ZeroGroups(int32_t g, uint32_t* dst) {
  for (; g > 0; --g, dst += 4) {
    dst[0] = 0;
    dst[1] = 0;
  }
}

// Widens n int8 values (dsp::Widen's layout; lanes past n are 0).
inline void Widen2(const int8_t* src, int32_t n, uint32_t off2, int32_t offset, uint32_t* dst) {
  Widen2Groups(src, n >> 2, off2, dst);
  if ((n & 3) != 0) {
    dst += 4 * (n >> 2);
    dsp::Widen(src + (n & ~3), n & 3, offset, dst);
    dst[0] = Sadd16(dst[0], dst[0]);
    dst[1] = Sadd16(dst[1], dst[1]);
  }
}

inline void CopyBytes(int8_t* d, const int8_t* s, int32_t n) {
  int32_t i = 0;
  for (; i + 4 <= n; i += 4) {
    const uint32_t v = dsp::LoadWord(s + i);
    __builtin_memcpy(d + i, &v, 4);
  }
  for (; i < n; ++i) d[i] = s[i];
}
inline void Copy9(int8_t* d, const int8_t* s) {
  const uint32_t a = dsp::LoadWord(s), b = dsp::LoadWord(s + 4);
  __builtin_memcpy(d, &a, 4);
  __builtin_memcpy(d + 4, &b, 4);
  d[8] = s[8];
}
inline void FillBytes(int8_t* d, int8_t v, int32_t n) {
  for (int32_t i = 0; i < n; ++i) d[i] = v;
}

inline uint32_t Widen2Lo(uint32_t off2, uint32_t v) {
  const uint32_t a = __sxtab16(off2, v);
  return Sadd16(a, a);
}
inline uint32_t Widen2Hi(uint32_t off2, uint32_t v) {
  const uint32_t b = dsp::Sxtab16Ror8(off2, v);
  return Sadd16(b, b);
}
inline uint32_t LoadHalf(const int8_t* p) {
  uint16_t v;
  __builtin_memcpy(&v, p, 2);
  return v;
}

// The widened column of a 3x3 window over 3 channels inside the input (first layers): the 27
// patch bytes are the rows r0, r1, r2 (9 bytes each) back to back, gathered straight into the
// 7 group words (the last lane of the last group is 0; its tail weight is 0 anyway).
inline void Widen333(const int8_t* r0, int32_t dy, uint32_t off2, uint32_t* dst) {
  const int8_t* r1 = r0 + dy;
  const int8_t* r2 = r1 + dy;
  uint32_t w[7];
  w[0] = dsp::LoadWord(r0);
  w[1] = dsp::LoadWord(r0 + 4);
  w[2] = static_cast<uint8_t>(r0[8]) | (dsp::LoadWord(r1) << 8);
  w[3] = dsp::LoadWord(r1 + 3);
  w[4] = LoadHalf(r1 + 7) | (LoadHalf(r2) << 16);
  w[5] = dsp::LoadWord(r2 + 2);
  w[6] = dsp::LoadWord(r2 + 5) >> 8;
  for (int32_t i = 0; i < 7; ++i) {
    dst[4 * i] = Widen2Lo(off2, w[i]);
    dst[4 * i + 1] = Widen2Hi(off2, w[i]);
  }
}

// Geometry of the im2col columns.
struct Cols {
  int32_t ic, row;       // input channels, bytes of a kernel row (k_w * ic)
  int32_t in_row;        // bytes of an input row
  int32_t dy;            // bytes between kernel rows in the input (dilation_h rows)
  bool rows_aligned;     // row % 4 == 0 and dilation_w == 1: rows widen in place
  bool taps_aligned;     // additionally ic % 4 == 0: taps widen in place
};

// Widens the column of output pixel (oy, ox) of batch image in_b into dst (groups of 4 words,
// the pixel's 2 words at the start). Whole kernel rows inside the input are widened from
// the input in place when they are whole groups (rows_aligned), taps when ic % 4 == 0;
// otherwise the int8 patch is built (padded taps = zero point, rows as contiguous spans)
// and widened; its last group may read up to 3 bytes past K in the patch buffer, lanes the
// zero tail weights cancel.
void WidenPixel(const s8_conv_params& p, const Cols& cg, const int8_t* in_b, int32_t oy,
                int32_t ox, uint32_t off2, int8_t zp, int8_t* patch, uint32_t* dst) {
  const int32_t in_y0 = oy * p.stride_h - p.pad_top;
  const int32_t in_x0 = ox * p.stride_w - p.pad_left;
  const int32_t ic = cg.ic, row = cg.row;
  const bool x_inside = in_x0 >= 0 && in_x0 + (p.k_w - 1) * p.dilation_w < p.in_w;
  if (cg.rows_aligned && (x_inside || cg.taps_aligned)) {
    const int32_t row_groups = row >> 2;
    for (int32_t ky = 0; ky < p.k_h; ++ky, dst += 4 * row_groups) {
      const int32_t iy = in_y0 + ky * p.dilation_h;
      if (iy < 0 || iy >= p.in_h) {
        ZeroGroups(row_groups, dst);
        continue;
      }
      const int8_t* src_row = in_b + iy * cg.in_row;
      if (x_inside) {
        Widen2Groups(src_row + in_x0 * ic, row_groups, off2, dst);
        continue;
      }
      const int32_t tap_groups = ic >> 2;
      uint32_t* d = dst;
      for (int32_t kx = 0; kx < p.k_w; ++kx, d += 4 * tap_groups) {
        const int32_t ix = in_x0 + kx;
        if (ix >= 0 && ix < p.in_w) {
          Widen2Groups(src_row + ix * ic, tap_groups, off2, d);
        } else {
          ZeroGroups(tap_groups, d);
        }
      }
    }
    return;
  }
  // The int8 patch.
  int8_t* d = patch;
  const bool y_inside = in_y0 >= 0 && in_y0 + (p.k_h - 1) * p.dilation_h < p.in_h;
  if (x_inside && y_inside && p.dilation_w == 1) {
    const int8_t* s = in_b + in_y0 * cg.in_row + in_x0 * ic;
    if (row == 9 && p.k_h == 3) {  // 3x3 over 3 channels (first layers): straight-line copies
      const int32_t dy = cg.dy;
      Copy9(d, s);
      Copy9(d + 9, s + dy);
      Copy9(d + 18, s + 2 * dy);
    } else {
      for (int32_t ky = 0; ky < p.k_h; ++ky, d += row, s += cg.dy) CopyBytes(d, s, row);
    }
  } else {
    for (int32_t ky = 0; ky < p.k_h; ++ky) {
      const int32_t iy = in_y0 + ky * p.dilation_h;
      if (iy < 0 || iy >= p.in_h) {
        FillBytes(d, zp, row);
        d += row;
        continue;
      }
      const int8_t* src_row = in_b + iy * cg.in_row;
      for (int32_t kx = 0; kx < p.k_w; ++kx, d += ic) {
        const int32_t ix = in_x0 + kx * p.dilation_w;
        if (ix >= 0 && ix < p.in_w) {
          CopyBytes(d, src_row + ix * ic, ic);
        } else {
          FillBytes(d, zp, ic);
        }
      }
    }
  }
  const int32_t k = p.k_h * row;
  Widen2Groups(patch, (k + 3) >> 2, off2, dst);
}

// The C++ paths' fast requantization (rounding chosen at run time; clamp to [lo, hi]).
inline int8_t FastRt(bool single, int32_t x, int32_t m, int32_t c, uint32_t e, int32_t lo,
                     int32_t hi) {
  const int32_t v = single ? AsrReg(Smmla(x, m, c), e) : AsrReg(Smmlar(x, m, c + (x >> 31)), e);
  return static_cast<int8_t>(v < lo ? lo : (v > hi ? hi : v));
}

// The call's fast 2 x 2 block routine (assembly, s8_conv__dsp_tile.cc): 0 double/full,
// 1 double/clamp, 2 single/full, 3 single/clamp. (A switch
// of direct calls: the kernels are built with -fPIC, and a global symbol's address would come
// from the GOT.)
using TileFn = int32_t;
inline void CallTile(TileFn which, const TileArgs* a) {
  switch (which) {
    case 0:
      tf_conv_dsp_tile_dbl_full(a);
      break;
    case 1:
      tf_conv_dsp_tile_dbl_clamp(a);
      break;
    case 2:
      tf_conv_dsp_tile_sgl_full(a);
      break;
    default:
      tf_conv_dsp_tile_sgl_clamp(a);
      break;
  }
}

// The pieces of a call the loops share.
struct Ctx {
  const int8_t* weights;
  const int32_t* bias;
  const int32_t* mult;
  const int32_t* shift;
  int32_t k, g, r;  // K, K / 4, K % 4
  int32_t out_c;
  int32_t output_offset, lo, hi, rounding;
};

constexpr int32_t kZero = 0;

// A fast channel's constants (what the assembly computes per channel pair).
struct FastQ {
  int32_t idx, init, m, c;
  uint32_t e;
};
inline FastQ MakeFastQ(const Ctx& x, Chan ei) {
  FastQ q;
  q.idx = static_cast<int32_t>(ei >> 8);
  q.e = ei & 0xFFu;
  q.init = 2 * (x.bias != nullptr ? x.bias[q.idx] : 0);
  q.m = x.mult[q.idx];
  q.c = static_cast<int32_t>(static_cast<uint32_t>(2 * x.output_offset + 1) << q.e) >> 1;
  return q;
}

// Fast channels tab[0, nf) (nf even: BuildTable duplicates an odd last entry), in pairs.
// Complete pixel pairs go through the assembly when K >= 4; a last odd pixel and K < 4 here.
// tile_fn: the assembly routine for the call's rounding and clamp (CallTile).
void FastTile(const Ctx& x, TileFn tile_fn, const Chan* tab, const uint32_t* tails, int32_t nf,
              const uint32_t* ext, int32_t pair_words, int32_t np, uint32_t* wbuf, int8_t* out) {
  const bool single = x.rounding == TF_ROUNDING_SINGLE;
  const int32_t k = x.k, g = x.g, out_c = x.out_c;
  const int32_t lo = x.lo, hi = x.hi;
  const bool tail = x.r != 0;
  int32_t j0 = 0;  // the first pixel left for C++
  if (g > 0 && np >= 2 && wbuf == nullptr) {
    // One pixel pair per tile (K > 512): widening the weights would not pay; int8 weight rows
    // through dsp::Dot2x2.
    for (int32_t i = 0; i < nf; i += 2) {
      const FastQ a = MakeFastQ(x, tab[i]);
      const FastQ b = MakeFastQ(x, tab[i + 1]);
      const int8_t* w0 = x.weights + a.idx * k;
      const int8_t* w1 = x.weights + b.idx * k;
      const uint32_t* c = ext;
      int8_t* o = out;
      for (int32_t j = 0; j + 2 <= np; j += 2, c += pair_words, o += 2 * out_c) {
        int32_t a00 = a.init, a01 = b.init, a10 = a.init, a11 = b.init;
        dsp::Dot2x2(c, w0, w1, g, a00, a01, a10, a11);
        if (tail) {
          const uint32_t* t = c + 4 * g;
          const uint32_t* ta = tails + 2 * i;
          const uint32_t* tb = tails + 2 * (i + 1);
          a00 = __smlad(t[0], ta[0], a00);
          a00 = __smlad(t[1], ta[1], a00);
          a01 = __smlad(t[0], tb[0], a01);
          a01 = __smlad(t[1], tb[1], a01);
          a10 = __smlad(t[2], ta[0], a10);
          a10 = __smlad(t[3], ta[1], a10);
          a11 = __smlad(t[2], tb[0], a11);
          a11 = __smlad(t[3], tb[1], a11);
        }
        o[a.idx] = FastRt(single, a00, a.m, a.c, a.e, lo, hi);
        o[b.idx] = FastRt(single, a01, b.m, b.c, b.e, lo, hi);
        o[out_c + a.idx] = FastRt(single, a10, a.m, a.c, a.e, lo, hi);
        o[out_c + b.idx] = FastRt(single, a11, b.m, b.c, b.e, lo, hi);
      }
    }
    j0 = np & ~1;
  } else if (g > 0 && np >= 2) {
    const int32_t pairs = np >> 1;
    const TileArgs ta{tab,    tab + nf,   ext,         ext + pairs * pair_words,
                      out,    x.weights,  k,           tail ? tails : nullptr,
                      tab,    x.mult,     x.bias != nullptr ? x.bias : &kZero,
                      x.bias != nullptr ? ~0u : 0u,    2 * x.output_offset + 1,
                      wbuf,   g,          out_c,       lo,          hi};
    CallTile(tile_fn, &ta);
    j0 = 2 * pairs;
  }
  if (j0 == np) return;
  for (int32_t i = 0; i < nf; i += 2) {
    const FastQ a = MakeFastQ(x, tab[i]);
    const FastQ b = MakeFastQ(x, tab[i + 1]);
    const int32_t ia = a.idx, ib = b.idx;
    const int8_t* w0 = x.weights + ia * k;
    const int8_t* w1 = x.weights + ib * k;
    const uint32_t* ta = tails + 2 * i;
    const uint32_t* tb = tails + 2 * (i + 1);
    for (int32_t j = j0; j < np; ++j) {
      const uint32_t* c = ext + (j >> 1) * pair_words + 2 * (j & 1);
      int32_t a0 = a.init, a1 = b.init;
      if (g > 0) dsp::Dot1x2(c, w0, w1, g, a0, a1);
      if (tail) {
        const uint32_t* t = c + 4 * g;
        a0 = __smlad(t[0], ta[0], a0);
        a0 = __smlad(t[1], ta[1], a0);
        a1 = __smlad(t[0], tb[0], a1);
        a1 = __smlad(t[1], tb[1], a1);
      }
      out[j * out_c + ia] = FastRt(single, a0, a.m, a.c, a.e, lo, hi);
      out[j * out_c + ib] = FastRt(single, a1, b.m, b.c, b.e, lo, hi);
    }
  }
}

// acc (bias + dot) from X = 2 * dot (the slow channels' accumulators start at 0), then the
// generic requantization.
inline int8_t Slow(const Ctx& x, int32_t idx, int32_t acc2) {
  const int32_t b = x.bias != nullptr ? x.bias[idx] : 0;
  const int32_t acc = fx::WrapAdd(acc2 >> 1, b);
  const int32_t v =
      fx::WrapAdd(fx::Requantize(acc, x.mult[idx], x.shift[idx], x.rounding), x.output_offset);
  return static_cast<int8_t>(fx::Clamp(v, x.lo, x.hi));
}

// Slow channels tab[0, ns), one at a time (rare).
void SlowTile(const Ctx& x, const Chan* tab, const uint32_t* tails, int32_t ns,
              const uint32_t* ext, int32_t pair_words, int32_t np, int8_t* out) {
  for (int32_t i = 0; i < ns; ++i) {
    const int32_t idx = static_cast<int32_t>(tab[i] >> 8);
    const int8_t* w = x.weights + idx * x.k;
    for (int32_t j = 0; j < np; ++j) {
      const uint32_t* c = ext + (j >> 1) * pair_words + 2 * (j & 1);
      int32_t acc = 0, dummy = 0;
      if (x.g > 0) dsp::Dot1x2(c, w, w, x.g, acc, dummy);
      if (x.r != 0) {
        const uint32_t* t = c + 4 * x.g;
        acc = __smlad(t[0], tails[2 * i], acc);
        acc = __smlad(t[1], tails[2 * i + 1], acc);
      }
      out[j * x.out_c + idx] = Slow(x, idx, acc);
    }
  }
}

// The K % 4 = r last weights of a row, widened as a column's tail group: [w0, w2], [w1, 0].
inline void TailWords(const int8_t* w, int32_t r, uint32_t* dst) {
  const uint32_t w0 = static_cast<uint16_t>(static_cast<int16_t>(w[0]));
  const uint32_t w1 = r > 1 ? static_cast<uint16_t>(static_cast<int16_t>(w[1])) : 0u;
  const uint32_t w2 = r > 2 ? static_cast<uint16_t>(static_cast<int16_t>(w[2])) : 0u;
  dst[0] = w0 | (w2 << 16);
  dst[1] = w1;
}

inline bool AllZero(const int8_t* w, int32_t k) {
  int32_t i = 0;
  for (; i + 4 <= k; i += 4) {
    if (dsp::LoadWord(w + i) != 0) return false;
  }
  for (; i < k; ++i) {
    if (w[i] != 0) return false;
  }
  return true;
}

struct Table {
  int32_t nf, ns, nd;  // fast, slow, dead channel counts
  Chan* fast;          // [nf]
  Chan* slow;          // [ns]
  uint32_t* fast_tails;
  uint32_t* slow_tails;
};

// Classifies the channels (see the header). tab: out_c + 1 entries (fast ones from the start,
// an even count; slow ones from the end); tails: 2 * (out_c + 1) words (if r != 0);
// tmpl: out_c bytes.
Table BuildTable(const s8_conv_params& p, const Ctx& x, Chan* tab, uint32_t* tails,
                 int8_t* tmpl) {
  Table t{};
  const int32_t n = p.out_c;
  // |dot| <= K * 255 * 128 (widened inputs in [-255, 255], weights in [-128, 127]).
  const int64_t bias_limit = (int64_t{1} << 30) - int64_t{x.k} * 32640;
  int32_t nf = 0, ns = 0;
  for (int32_t oc = 0; oc < n; ++oc) {
    const int8_t* w = x.weights + oc * x.k;
    const int32_t b = x.bias != nullptr ? x.bias[oc] : 0;
    const int32_t m = x.mult[oc];
    const int32_t s = x.shift[oc];
    if (m == 0 || AllZero(w, x.k)) {  // constant output (multiplier 0: Requantize gives 0)
      const int32_t v = fx::WrapAdd(fx::Requantize(b, m, s, p.rounding), p.output_offset);
      tmpl[oc] = static_cast<int8_t>(fx::Clamp(v, p.act_min, p.act_max));
      ++t.nd;
      continue;
    }
    tmpl[oc] = 0;
    const int64_t ab = b < 0 ? -int64_t{b} : int64_t{b};
    const bool fast = s <= -1 && s >= -22 && ab < bias_limit;
    const Chan e = (static_cast<uint32_t>(oc) << 8) | static_cast<uint32_t>(fast ? -s : 0);
    const int32_t slot = fast ? nf++ : n - ns++;
    tab[slot] = e;
    if (x.r != 0) TailWords(w + 4 * x.g, x.r, tails + 2 * slot);
  }
  if ((nf & 1) != 0) {  // pair the last fast channel with itself (writes its output twice)
    tab[nf] = tab[nf - 1];
    if (x.r != 0) {
      tails[2 * nf] = tails[2 * nf - 2];
      tails[2 * nf + 1] = tails[2 * nf - 1];
    }
    ++nf;
  }
  t.nf = nf;
  t.ns = ns;
  t.fast = tab;
  t.slow = tab + (n + 1 - ns);
  t.fast_tails = tails;
  t.slow_tails = tails + 2 * (n + 1 - ns);
  // Slow entries were filled from the end: reversed order, which does not matter.
  return t;
}

// Copies the template pixel (dead channels' constants) to np output pixels.
void FillTemplate(const int8_t* tmpl, int32_t out_c, int32_t np, int8_t* out) {
  const bool words = ((reinterpret_cast<uintptr_t>(out) | static_cast<uintptr_t>(out_c)) & 3u) == 0;
  for (int32_t j = 0; j < np; ++j, out += out_c) {
    int32_t i = 0;
    if (words) {
      const uint32_t* s = reinterpret_cast<const uint32_t*>(tmpl);
      uint32_t* d = reinterpret_cast<uint32_t*>(out);
      for (; i + 8 <= out_c; i += 8, s += 2, d += 2) {
        const uint32_t v0 = s[0], v1 = s[1];
        d[0] = v0;
        d[1] = v1;
      }
      for (; i < out_c; i += 4) *d++ = *s++;
    } else {
      for (; i < out_c; ++i) out[i] = tmpl[i];
    }
  }
}

void Run(const s8_conv_params& p, const Ctx& x, TileFn tile_fn, const Table& t, const int8_t* input,
         int8_t* output, uint32_t* ext, uint32_t* wbuf, int8_t* patch, const int8_t* tmpl) {
  const int32_t k = x.k;
  const bool direct = s8_conv_is_direct(p);
  const int8_t zp = static_cast<int8_t>(-p.input_offset);
  const int32_t plane = p.out_h * p.out_w;
  const int32_t total = p.batches * plane;
  const int32_t pair_words = 4 * ((k + 3) >> 2);
  const int32_t tile = 2 * s8_conv_dsp_pairs(p);
  const uint32_t off2 = (static_cast<uint32_t>(p.input_offset) & 0xFFFFu) * 0x10001u;
  Cols cg;
  cg.ic = p.in_c;
  cg.row = p.k_w * p.in_c;
  cg.in_row = p.in_w * p.in_c;
  cg.dy = p.dilation_h * cg.in_row;
  cg.rows_aligned = (cg.row & 3) == 0 && p.dilation_w == 1;
  cg.taps_aligned = cg.rows_aligned && (p.in_c & 3) == 0;
  const bool c333 = p.k_h == 3 && p.k_w == 3 && p.in_c == 3 && p.dilation_w == 1;
  const bool contiguous = direct && p.stride_h == 1 && p.stride_w == 1 && p.out_h == p.in_h &&
                          p.out_w == p.in_w && (k & 3) == 0;
  int32_t b = 0, oy = 0, ox = 0;  // the next pixel to widen
  for (int32_t n = 0; n < total; n += tile) {
    const int32_t np = total - n < tile ? total - n : tile;
    int8_t* out = output + n * p.out_c;
    if (t.nf + t.ns != 0 && contiguous) {
      // Unpadded 1x1, stride 1, K % 4 == 0: the tile's columns are np consecutive input
      // pixels; pixel pairs widened group by group.
      const int8_t* src = input + n * k;
      uint32_t* dst = ext;
      int32_t j = 0;
      for (; j + 2 <= np; j += 2, src += 2 * k) {
        const int8_t* s1 = src + k;
        for (int32_t i = 0; i < k; i += 4, dst += 4) {
          const uint32_t v0 = dsp::LoadWord(src + i), v1 = dsp::LoadWord(s1 + i);
          dst[0] = Widen2Lo(off2, v0);
          dst[1] = Widen2Hi(off2, v0);
          dst[2] = Widen2Lo(off2, v1);
          dst[3] = Widen2Hi(off2, v1);
        }
      }
      if (j < np) Widen2Groups(src, k >> 2, off2, dst);
    } else if (t.nf + t.ns != 0) {
      for (int32_t j = 0; j < np; ++j) {
        const int8_t* in_b = input + b * p.in_h * p.in_w * p.in_c;
        uint32_t* dst = ext + (j >> 1) * pair_words + 2 * (j & 1);
        if (direct) {
          Widen2(in_b + ((oy * p.stride_h) * p.in_w + ox * p.stride_w) * p.in_c, k, off2,
                 p.input_offset, dst);
        } else if (c333) {
          const int32_t in_y0 = oy * p.stride_h - p.pad_top;
          const int32_t in_x0 = ox * p.stride_w - p.pad_left;
          if (in_y0 >= 0 && in_y0 + 2 * p.dilation_h < p.in_h && in_x0 >= 0 &&
              in_x0 + 2 < p.in_w) {
            Widen333(in_b + in_y0 * cg.in_row + in_x0 * 3, cg.dy, off2, dst);
          } else {
            WidenPixel(p, cg, in_b, oy, ox, off2, zp, patch, dst);
          }
        } else {
          WidenPixel(p, cg, in_b, oy, ox, off2, zp, patch, dst);
        }
        if (++ox == p.out_w) {
          ox = 0;
          if (++oy == p.out_h) {
            oy = 0;
            ++b;
          }
        }
      }
    }
    if (t.nd != 0) FillTemplate(tmpl, p.out_c, np, out);
    if (t.nf != 0) {
      FastTile(x, tile_fn, t.fast, t.fast_tails, t.nf, ext, pair_words, np, wbuf, out);
    }
    if (t.ns != 0) SlowTile(x, t.slow, t.slow_tails, t.ns, ext, pair_words, np, out);
  }
}

}  // namespace

extern "C" void s8_conv__dsp(const s8_conv_params* params, const int8_t* input,
                             const int8_t* weights, const int32_t* bias, int8_t* output,
                             void* scratch) {
  const s8_conv_params& p = *params;
  const int32_t k = p.k_h * p.k_w * p.in_c;
  if (p.filter_in_c != p.in_c || k > 32000) {  // grouped convolution, or 2 * dot could overflow
    s8_conv__ref(params, input, weights, bias, output, nullptr);
    return;
  }
  const int32_t words = s8_conv_dsp_pairs(p) * 4 * ((k + 3) >> 2);  // widened column pairs
  const uintptr_t base = (reinterpret_cast<uintptr_t>(scratch) + 7u) & ~uintptr_t{7};
  uint32_t* ext = reinterpret_cast<uint32_t*>(base);
  const bool widen_weights = s8_conv_dsp_pairs(p) >= 2;
  uint32_t* wbuf = widen_weights ? ext + words : nullptr;  // a channel pair's widened weights
  Chan* tab = reinterpret_cast<Chan*>(ext + words + (widen_weights ? 4 * ((k + 3) >> 2) : 0));
  uint32_t* tails = reinterpret_cast<uint32_t*>(tab + p.out_c + 1);
  int8_t* tmpl = reinterpret_cast<int8_t*>(tails + ((k & 3) != 0 ? 2 * (p.out_c + 1) : 0));
  int8_t* patch = tmpl + ((p.out_c + 3) & ~3);
  Ctx x{weights,  bias,     p.multiplier, p.shift,        k,      k >> 2,   k & 3,
        p.out_c,  p.output_offset, p.act_min, p.act_max, p.rounding};
  const Table t = BuildTable(p, x, tab, tails, tmpl);
  const bool full = p.act_min == -128 && p.act_max == 127;
  const TileFn tile_fn = (p.rounding == TF_ROUNDING_SINGLE ? 2 : 0) + (full ? 0 : 1);
  Run(p, x, tile_fn, t, input, output, ext, wbuf, patch, tmpl);
}

#endif  // TF_HAVE_DSP
