// MUL for Cortex-M4/M7/M33 (DSP extension), bit-identical to s8_mul__ref.
//
// Single rounding with the output shift s = -n in [-17, -2] (the usual case: SE gates and
// SiLU products have n around 8), per element with P = (x1 + o1) * (x2 + o2), |P| < 2^16:
//   X = P << L, L = 17 - n (|X| < 2^31)
//   y = SSAT8((Ra + hi32(X * M)) >> 16)    (SMMLA, then SSAT with ASR #16)
// with Ra = 2^15 + output_offset * 2^16: (Ra * 2^32 + X * M) / 2^48 =
// (P * M + 2^(30 + n)) / 2^(31 + n) + off, floored, is TFLite's single-rounding result plus
// the offset, and a floor of a floor is the floor of the whole. Two paths use it:
//   * a per-channel operand (SE blocks, [.., C] * [C] either way round): per channel the
//     pair (G, o * G) with G = (g + o_g) << L in a buffer, then per element
//     X = x * G + o * G (one MLA; one LDRD of the pair serves three rows);
//   * both inputs dense (x * sigmoid(x)): X = (x1 + o1) * ((x2 << L) + (o2 << L));
//   * a channel vector varying along one spatial dimension and repeating along the other
//     (coordinate attention's gates): per position the pairs, then GateRows over its rows;
//   * one value per row of at least 4 channels (a spatial attention map, [.., P, C] *
//     [.., P, 1]): the pair (G, o * G) per row, then one MLA per element.
// Everything else (double rounding, other shifts, other broadcasts) runs the arithmetic of
// kernels/mul/mul_rows.h, whose high-word multiply compiles to SMULL / SMMUL here.
#include "kernels/common/isa.h"
#include "kernels/mul/mul.h"

#if TF_HAVE_DSP

#include <arm_acle.h>

#include "kernels/common/word.h"
#include "kernels/mul/mul_rows.h"

namespace {

using tinyforge::dsp::Sat8Shr16;
using tinyforge::dsp::Smmla;

// a * b + acc (kept as one MLA: GCC would split a multiply by a power of two into shifts).
inline int32_t Mla(int32_t a, int32_t b, int32_t acc) {
  int32_t r;
  __asm__("mla %0, %1, %2, %3" : "=r"(r) : "r"(a), "r"(b), "r"(acc));
  return r;
}

// The bottom (kHalf 'b') or top ('t') int16 lane of a times the bottom lane of b (GCC
// turns a product by a power of two into two shifts).
template <char kHalf>
inline int32_t Smulxb(int32_t a, int32_t b) {
  int32_t r;
  if (kHalf == 'b') {
    __asm__("smulbb %0, %1, %2" : "=r"(r) : "r"(a), "r"(b));
  } else {
    __asm__("smultb %0, %1, %2" : "=r"(r) : "r"(a), "r"(b));
  }
  return r;
}

// One STRB (GCC would merge four byte stores into BFIs and a word store: more instructions).
inline void StoreByte(int8_t* p, int8_t v) { __asm__("strb %1, %0" : "=m"(*p) : "r"(v)); }

struct Fast {
  int32_t o1, o2, lsh, mult, ra, lo, hi;
};

inline bool MakeFast(const s8_mul_params& p, Fast* f) {
  const int32_t n = -p.output_shift;
  if (p.rounding != TF_ROUNDING_SINGLE || n < 2 || n > 17) return false;
  if (p.input1_offset < -127 || p.input2_offset < -127) return false;
  f->o1 = p.input1_offset;
  f->o2 = p.input2_offset;
  f->lsh = 17 - n;
  f->mult = p.output_multiplier;
  f->ra = (1 << 15) + p.output_offset * (1 << 16);
  f->lo = p.act_min;
  f->hi = p.act_max;
  return true;
}

template <bool kClamp>
inline int8_t Out(const Fast& f, int32_t x) {
  int32_t y = Sat8Shr16(Smmla(x, f.mult, f.ra));
  if (kClamp) {
    y = y < f.lo ? f.lo : y;
    y = y > f.hi ? f.hi : y;
  }
  return static_cast<int8_t>(y);
}

// Both inputs dense: n outputs (each element read before its output is stored: in place
// is exact).
template <bool kClamp>
__attribute__((noinline)) void Both(const Fast& ff, const int8_t* a, const int8_t* b,
                                    int8_t* out, int32_t n) {
  const Fast f = ff;
  const int32_t scale = 1 << f.lsh, c2 = f.o2 * scale;
  int32_t i = 0;
  for (; i + 4 <= n; i += 4) {  // all four elements read before the stores
    const int8_t y0 = Out<kClamp>(f, (a[i] + f.o1) * Mla(b[i], scale, c2));
    const int8_t y1 = Out<kClamp>(f, (a[i + 1] + f.o1) * Mla(b[i + 1], scale, c2));
    const int8_t y2 = Out<kClamp>(f, (a[i + 2] + f.o1) * Mla(b[i + 2], scale, c2));
    const int8_t y3 = Out<kClamp>(f, (a[i + 3] + f.o1) * Mla(b[i + 3], scale, c2));
    StoreByte(out + i, y0);
    StoreByte(out + i + 1, y1);
    StoreByte(out + i + 2, y2);
    StoreByte(out + i + 3, y3);
  }
  for (; i < n; ++i) out[i] = Out<kClamp>(f, (a[i] + f.o1) * Mla(b[i], scale, c2));
}

constexpr int32_t kGateChunk = 128;  // channels per (G, o * G) buffer (1 KiB of stack)

// Three rows at once, ch4 (a multiple of 4) channels each: per channel one LDRD of the pair
// serves the three rows, then per element LDRSB, MLA, SMMLA, SSAT, STRB (16 instructions per
// 3 elements, 4 channels per pass: 66 per 12). Each channel's three inputs are read before
// its outputs are stored (in place is exact).
__attribute__((noinline)) void GateTriple(const Fast& ff, const int8_t* x, const int32_t* g,
                                          int8_t* out, int32_t ch4, int32_t stride) {
  const int32_t m = ff.mult, ra = ff.ra, stride2 = 2 * stride;
  int32_t passes = ch4 >> 2;
  int32_t gl, gc, t0, t1, t2;
#define TFD_GATE_CH                          \
  "ldrd %[gl], %[gc], [%[g]], #8\n\t"       \
  "ldrsb %[t2], [%[x], %[s2]]\n\t"          \
  "ldrsb %[t1], [%[x], %[s]]\n\t"           \
  "ldrsb %[t0], [%[x]], #1\n\t"             \
  "mla %[t2], %[t2], %[gl], %[gc]\n\t"      \
  "mla %[t1], %[t1], %[gl], %[gc]\n\t"      \
  "mla %[t0], %[t0], %[gl], %[gc]\n\t"      \
  "smmla %[t2], %[t2], %[m], %[ra]\n\t"     \
  "smmla %[t1], %[t1], %[m], %[ra]\n\t"     \
  "smmla %[t0], %[t0], %[m], %[ra]\n\t"     \
  "ssat %[t2], #8, %[t2], asr #16\n\t"      \
  "ssat %[t1], #8, %[t1], asr #16\n\t"      \
  "ssat %[t0], #8, %[t0], asr #16\n\t"      \
  "strb %[t2], [%[o], %[s2]]\n\t"           \
  "strb %[t1], [%[o], %[s]]\n\t"            \
  "strb %[t0], [%[o]], #1\n\t"
  __asm__ volatile("1:\n\t" TFD_GATE_CH TFD_GATE_CH TFD_GATE_CH TFD_GATE_CH
                   "subs %[n], %[n], #1\n\t"
                   "bne 1b\n"
                   : [x] "+r"(x), [g] "+r"(g), [o] "+r"(out), [n] "+r"(passes),
                     [gl] "=&r"(gl), [gc] "=&r"(gc), [t0] "=&r"(t0), [t1] "=&r"(t1),
                     [t2] "=&r"(t2)
                   : [s] "r"(stride), [s2] "r"(stride2), [m] "r"(m), [ra] "r"(ra)
                   : "cc", "memory");
#undef TFD_GATE_CH
}

// rows x ch outputs of rows `stride` apart: x[r * stride + c] times the gate pairs g[2c],
// g[2c + 1] = (G, o_x * G).
template <bool kClamp>
__attribute__((noinline)) void GateRows(const Fast& ff, const int8_t* x, const int32_t* g,
                                        int8_t* out, int32_t rows, int32_t ch, int32_t stride) {
  const Fast f = ff;
  int32_t r = 0;
  const int32_t ch4 = ch & ~3;
  if (!kClamp && ch4 > 0) {
    for (; r + 3 <= rows; r += 3, x += 3 * stride, out += 3 * stride) {
      GateTriple(f, x, g, out, ch4, stride);
      for (int32_t c = ch4; c < ch; ++c) {
        for (int32_t k = 0; k < 3; ++k) {
          out[k * stride + c] = Out<false>(f, x[k * stride + c] * g[2 * c] + g[2 * c + 1]);
        }
      }
    }
  }
  for (; r < rows; ++r, x += stride, out += stride) {
    const int32_t* gp = g;
    int32_t c = 0;
    for (; c + 4 <= ch; c += 4, gp += 8) {
      const int8_t y0 = Out<kClamp>(f, x[c] * gp[0] + gp[1]);
      const int8_t y1 = Out<kClamp>(f, x[c + 1] * gp[2] + gp[3]);
      const int8_t y2 = Out<kClamp>(f, x[c + 2] * gp[4] + gp[5]);
      const int8_t y3 = Out<kClamp>(f, x[c + 3] * gp[6] + gp[7]);
      StoreByte(out + c, y0);
      StoreByte(out + c + 1, y1);
      StoreByte(out + c + 2, y2);
      StoreByte(out + c + 3, y3);
    }
    for (; c < ch; ++c, gp += 2) out[c] = Out<kClamp>(f, x[c] * gp[0] + gp[1]);
  }
}

// The pairs g[2j] = G = (gw[j] + ow) << lsh, g[2j + 1] = ox * G of m channels. Four
// channels per word load: SXTAB16 adds ow to two int16 lanes, SMULBB / SMULTB by 2^lsh
// (an int16 when lsh <= 14) give G: 23 instructions per 4 channels instead of 36.
__attribute__((noinline)) void GatePairs(const Fast& f, const int8_t* gw, int32_t ow,
                                         int32_t ox, int32_t* g, int32_t m) {
  int32_t j = 0;
  if (f.lsh <= 14) {
    const uint32_t ow2 = (static_cast<uint32_t>(ow) & 0xFFFFu) * 0x10001u;
    const int32_t sc = 1 << f.lsh;
    for (; j + 4 <= m; j += 4, g += 8) {
      const uint32_t w = tinyforge::LoadWord(gw + j);
      const int32_t e = static_cast<int32_t>(__sxtab16(ow2, w));  // channels j, j + 2
      const int32_t o = static_cast<int32_t>(tinyforge::dsp::Sxtab16Ror8(ow2, w));
      const int32_t g0 = Smulxb<'b'>(e, sc), g1 = Smulxb<'b'>(o, sc);
      const int32_t g2 = Smulxb<'t'>(e, sc), g3 = Smulxb<'t'>(o, sc);
      g[0] = g0, g[1] = ox * g0, g[2] = g1, g[3] = ox * g1;
      g[4] = g2, g[5] = ox * g2, g[6] = g3, g[7] = ox * g3;
    }
  }
  for (; j < m; ++j, g += 2) {
    const int32_t gl = (gw[j] + ow) * (1 << f.lsh);
    g[0] = gl;
    g[1] = ox * gl;
  }
}

template <bool kClamp>
void Gate(const Fast& f, const int8_t* x, int32_t ox, const int8_t* gw, int32_t ow, int8_t* out,
          int32_t rows, int32_t ch) {
  int32_t g[2 * kGateChunk];
  if (2 * ch <= kGateChunk && rows > 1) {
    // Few channels (an early SE block: 8): the pairs repeated `rep` times make rows of
    // rep * ch channels (one flat loop instead of a short one per row).
    const int32_t rep0 = kGateChunk / ch;
    const int32_t rep = rows < rep0 ? rows : rep0;
    GatePairs(f, gw, ow, ox, g, ch);
    for (int32_t j = 2 * ch; j < 2 * ch * rep; ++j) g[j] = g[j - 2 * ch];
    const int32_t flat = rows / rep, done = flat * rep * ch;
    GateRows<kClamp>(f, x, g, out, flat, rep * ch, rep * ch);
    GateRows<kClamp>(f, x + done, g, out + done, rows - flat * rep, ch, ch);
    return;
  }
  for (int32_t c0 = 0; c0 < ch; c0 += kGateChunk) {
    const int32_t m = ch - c0 < kGateChunk ? ch - c0 : kGateChunk;
    GatePairs(f, gw + c0, ow, ox, g, m);
    GateRows<kClamp>(f, x + c0, g, out + c0, rows, m, ch);
  }
}

// rows x ch outputs: x (dense, offset ox) times one value per row g[r] (offset og): a spatial
// attention map [.., P, 1] over the features [.., P, C]. Per row the pair G = (g + og) << lsh,
// ox * G, then per element one MLA, SMMLA and SSAT.
template <bool kClamp>
__attribute__((noinline)) void RowGates(const Fast& ff, const int8_t* x, int32_t ox,
                                        const int8_t* g, int32_t og, int8_t* out, int32_t rows,
                                        int32_t ch) {
  const Fast f = ff;
  for (int32_t r = 0; r < rows; ++r, x += ch, out += ch) {
    const int32_t gl = (g[r] + og) * (1 << f.lsh), gc = ox * gl;
    int32_t c = 0;
    for (; c + 4 <= ch; c += 4) {
      const int8_t y0 = Out<kClamp>(f, Mla(x[c], gl, gc));
      const int8_t y1 = Out<kClamp>(f, Mla(x[c + 1], gl, gc));
      const int8_t y2 = Out<kClamp>(f, Mla(x[c + 2], gl, gc));
      const int8_t y3 = Out<kClamp>(f, Mla(x[c + 3], gl, gc));
      StoreByte(out + c, y0);
      StoreByte(out + c + 1, y1);
      StoreByte(out + c + 2, y2);
      StoreByte(out + c + 3, y3);
    }
    for (; c < ch; ++c) out[c] = Out<kClamp>(f, Mla(x[c], gl, gc));
  }
}

// VaryingGates (kernels/common/broadcast.h): per position the pairs, then GateRows over its
// rows. Out of line:
// its 1 KiB buffer is on the stack only here.
template <bool kClamp>
__attribute__((noinline)) void StridedGateRows(const Fast& f, const int8_t* x, int32_t ox,
                                               const int8_t* gw, int32_t og, int8_t* out,
                                               int32_t vary, int32_t vx, int32_t vg,
                                               int32_t rows, int32_t stride, int32_t ch) {
  int32_t g[2 * kGateChunk];
  for (int32_t v = 0; v < vary; ++v) {
    GatePairs(f, gw + v * vg, og, ox, g, ch);
    GateRows<kClamp>(f, x + v * vx, g, out + v * vx, rows, ch, stride);
  }
}


// The attention gates; false for other shapes. Out of line, so that RunFast's frame stays as
// small as the other shapes need (a GRU's small gate products are not tried at all).
template <bool kClamp>
__attribute__((noinline)) bool AttentionGates(const Fast& f, const s8_broadcast_shape& s,
                                              const int8_t* in1, const int8_t* in2,
                                              int8_t* out, int32_t inner) {
  tinyforge::kernels::GateShape gs;
  if (!tinyforge::kernels::FindGateShape(s, kGateChunk, 4, &gs)) return false;
  const int8_t* x = gs.g2 ? in1 : in2;
  const int8_t* g = gs.g2 ? in2 : in1;
  const int32_t ox = gs.g2 ? f.o1 : f.o2, og = gs.g2 ? f.o2 : f.o1;
  if (gs.varying) {
    StridedGateRows<kClamp>(f, x, ox, g, og, out, gs.v.vary, gs.v.vx, gs.v.vg, gs.v.rows,
                            gs.v.stride, inner);
  } else {
    RowGates<kClamp>(f, x, ox, g, og, out, gs.rows, inner);
  }
  return true;
}

// The fast paths; false when the op is not one of their shapes or parameters.
template <bool kClamp>
bool RunFast(const s8_mul_params& p, const Fast& f, const int8_t* in1, const int8_t* in2,
             int8_t* out) {
  const s8_broadcast_shape& s = p.shape;
  bool dense1 = true, dense2 = true, chan1 = true, chan2 = true;
  int32_t total = 1;
  for (int d = 5; d >= 0; --d) {
    if (s.out_dims[d] > 1) {
      dense1 = dense1 && s.in1_strides[d] == total;
      dense2 = dense2 && s.in2_strides[d] == total;
      chan1 = chan1 && s.in1_strides[d] == (d == 5 ? 1 : 0);
      chan2 = chan2 && s.in2_strides[d] == (d == 5 ? 1 : 0);
    }
    total *= s.out_dims[d];
  }
  if (dense1 && dense2) {
    Both<kClamp>(f, in1, in2, out, total);
    return true;
  }
  const int32_t inner = s.out_dims[5];
  if (chan2 && dense1) {
    Gate<kClamp>(f, in1, f.o1, in2, f.o2, out, total / inner, inner);
    return true;
  }
  if (chan1 && dense2) {
    Gate<kClamp>(f, in2, f.o2, in1, f.o1, out, total / inner, inner);
    return true;
  }
  if (total >= 256 && AttentionGates<kClamp>(f, s, in1, in2, out, inner)) return true;
  return false;
}

}  // namespace

extern "C" void s8_mul__dsp(const s8_mul_params* params, const int8_t* input1,
                            const int8_t* input2, int8_t* output) {
  const s8_mul_params& p = *params;
  Fast f;
  if (MakeFast(p, &f)) {
    const bool clamp = p.act_min > -128 || p.act_max < 127;
    if (clamp ? RunFast<true>(p, f, input1, input2, output)
              : RunFast<false>(p, f, input1, input2, output)) {
      return;
    }
  }
  tinyforge::mul_rows::Run(p, input1, input2, output);
}

#endif  // TF_HAVE_DSP
