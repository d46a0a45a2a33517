// ADD for Cortex-M55 (Helium / MVE), bit-identical to s8_add__ref in both rounding modes.
//
// Four int32 lanes per vector. (x + offset) << left_shift is one VMLA by 2^left_shift onto
// a constant (both wrap like the reference's shift); each requantization by a multiplier
// shared by all lanes is:
//   double rounding: VQRDMULH then, for shift < 0, a rounding right shift with ties away
//                    from zero (VRSHL rounds ties up: subtract 1 from negative values first);
//   single rounding: shift <= -1: VRSHL(VQDMULH(x, m), shift) (exact: 2^(30 - shift) is a
//                    multiple of 2^31); shift == 0: VQRDMULH (= (x * m + 2^30) >> 31).
// Parameters with the compiler's linear form (lin_shift != 0) run it (LinRow: 2 instructions
// per element). Otherwise: elementwise adds of >= 1024 elements look each input's rescaled
// value up in a 256-entry table (LutRow). The innermost broadcast dimension is vectorized when both inputs are contiguous or
// broadcast (stride 1 or 0) along it; other layouts run element by element.
#include "kernels/add/add.h"
#include "kernels/common/isa.h"

#if TF_HAVE_MVE

#include <arm_mve.h>

#include "kernels/common/fixed_point.h"

namespace {

namespace fx = tinyforge::fx;

template <bool kSingle>
inline int32x4_t Requant(int32x4_t x, int32_t mult, int32_t shift) {
  if (kSingle) {
    if (shift == 0) return vqrdmulhq_n_s32(x, mult);
    return vrshlq_n_s32(vqdmulhq_n_s32(x, mult), shift);
  }
  int32x4_t r = vqrdmulhq_n_s32(x, mult);
  if (shift < 0) {
    r = vaddq_s32(r, vshrq_n_s32(r, 31));
    r = vrshlq_n_s32(r, shift);
  }
  return r;
}

struct AddConsts {
  int32x4_t c1, c2;  // offset << left_shift
  int32_t scale;     // 1 << left_shift (wrapping)
  int32_t m1, s1, m2, s2, mo, so, out_off;
  int32x4_t vmin, vmax;
};

template <bool kSingle, bool kSub>
inline int32x4_t AddLanes(const AddConsts& k, int32x4_t x1, int32x4_t x2) {
  const int32x4_t a = Requant<kSingle>(vmlaq_n_s32(k.c1, x1, k.scale), k.m1, k.s1);
  const int32x4_t b = Requant<kSingle>(vmlaq_n_s32(k.c2, x2, k.scale), k.m2, k.s2);
  int32x4_t y = Requant<kSingle>(kSub ? vsubq_s32(a, b) : vaddq_s32(a, b), k.mo, k.so);
  y = vaddq_n_s32(y, k.out_off);
  return vminq_s32(vmaxq_s32(y, k.vmin), k.vmax);
}

// Elementwise adds at least this long look the rescaled inputs up in tables.
constexpr int32_t kLutMinElements = 1024;

// Each input's rescaled value (offset, left shift, input requantization) depends on its byte
// only: two 256-entry tables (2 KiB of stack, built 4 lanes at a time with the same
// arithmetic as AddLanes), then per 4 elements two widening byte loads, two gathers, the
// output stage.
template <bool kSingle, bool kSub>
__attribute__((noinline)) void LutRow(const AddConsts& k, const int8_t* in1, const int8_t* in2, int8_t* out, int32_t n) {
  alignas(16) int32_t lut1[256];
  alignas(16) int32_t lut2[256];
  int32x4_t x = vreinterpretq_s32_u32(vidupq_n_u32(0, 1));  // {0, 1, 2, 3}
  for (int32_t v = 0; v < 256; v += 4) {
    // Bytes v..v+3 as int8: (v << 24) >> 24.
    const int32x4_t xs = vshrq_n_s32(vshlq_n_s32(x, 24), 24);
    vst1q_s32(lut1 + v, Requant<kSingle>(vmlaq_n_s32(k.c1, xs, k.scale), k.m1, k.s1));
    const int32x4_t r2 = Requant<kSingle>(vmlaq_n_s32(k.c2, xs, k.scale), k.m2, k.s2);
    vst1q_s32(lut2 + v, kSub ? vnegq_s32(r2) : r2);  // sub: the table holds -b
    x = vaddq_n_s32(x, 4);
  }
  const uint8_t* u1 = reinterpret_cast<const uint8_t*>(in1);
  const uint8_t* u2 = reinterpret_cast<const uint8_t*>(in2);
  // Output stage with shift <= -1 (LutRow's callers check): see Requant.
  const int32x4_t mn = k.vmin, mx = k.vmax;
#define TFM_LUT_LOOP(RQ)                                                                  \
  __asm__ volatile(                                                                       \
      "dlstp.32 lr, %[n]\n"                                                               \
      "1:\n\t"                                                                            \
      "vldrb.u32 q0, [%[u1]], #4\n\t"                                                     \
      "vldrb.u32 q1, [%[u2]], #4\n\t"                                                     \
      "vldrw.u32 q2, [%[l1], q0, uxtw #2]\n\t"                                            \
      "vldrw.u32 q3, [%[l2], q1, uxtw #2]\n\t"                                            \
      "vadd.i32 q2, q2, q3\n\t" RQ                                                        \
      "vadd.i32 q2, q2, %[off]\n\t"                                                       \
      "vmax.s32 q2, q2, %q[mn]\n\t"                                                       \
      "vmin.s32 q2, q2, %q[mx]\n\t"                                                       \
      "vstrb.32 q2, [%[o]], #4\n\t"                                                       \
      "letp lr, 1b\n"                                                                     \
      : [u1] "+l"(u1), [u2] "+l"(u2), [o] "+l"(out)                                       \
      : [n] "r"(n), [l1] "r"(lut1), [l2] "r"(lut2), [m] "r"(k.mo), [s] "r"(k.so),         \
        [off] "r"(k.out_off), [mn] "w"(mn), [mx] "w"(mx)                                  \
      : "q0", "q1", "q2", "q3", "lr", "memory")
  if (kSingle) {
    TFM_LUT_LOOP("vqdmulh.s32 q2, q2, %[m]\n\t"
                 "vrshl.s32 q2, %[s]\n\t");
  } else {
    TFM_LUT_LOOP("vqrdmulh.s32 q2, q2, %[m]\n\t"
                 "vshr.s32 q3, q2, #31\n\t"
                 "vadd.i32 q2, q2, q3\n\t"
                 "vrshl.s32 q2, %[s]\n\t");
  }
#undef TFM_LUT_LOOP
}

// Plain ADD where one input's stage is an exact halving: TFLite's parameters give the
// input with the larger scale the real multiplier s / (2 s) = 0.5 exactly (multiplier 2^30,
// shift 0), and with X = (x + o) << left_shift even both roundings of X * 2^30 / 2^31 give
// X / 2 = (x + o) << (left_shift - 1). With the other input g's stage B (single rounding:
// VRSHL(VQDMULH(X_g, m_g), -n_g); double: VQRDMULH, the sign fix, VRSHL) and h the halved
// input, per 4 lanes:
//   B' = B + (o_h << (left_shift - 1))   (the constant added before the rounding shift, as
//                                          c << n_g, by VQDMLASH / a VADD: exact)
//   S  = B' + x_h * 2^(left_shift - 1)   (one VMLA; X_g by one VMLAS)
//   y  = VRSHL(VQDMLASH(S, M, off << n), -n) (single; double as for B) = out stage + off
// then the clamp: 12 instructions per 4 elements in the single-rounding loop. Single
// rounding with the int8 range as the clamp and n <= 22 (kSat) rounds and saturates in two
// steps: t = VQDMLASH(S, M, off * 2^n + 2^(n - 1)) holds the result times 2^n plus a
// fraction, so sat32(t << (24 - n)) >> 24 (VQSHL by register, VSHR #24) is the result
// saturated to int8: 11 instructions per 4 elements.
struct HalfConsts {
  int32_t cg;       // o_g << left_shift
  int32x4_t vscale; // 2^left_shift in every lane
  int32_t half;     // 2^(left_shift - 1)
  int32x4_t vmg;    // m_g in every lane
  int32_t kg, sg;   // (o_h << (left_shift - 1)) << n_g, -n_g
  int32x4_t vmo;    // output multiplier
  int32_t ko, so;   // output_offset << n, -n
  int32x4_t vmin, vmax;
  bool sat;         // kSat applies: ko2, sat_shift below
  int32_t ko2;      // output_offset << n + 2^(n - 1)
  int32_t sat_shift;  // 24 - n
};

template <bool kSingle>
inline int32x4_t HalfStage(int32x4_t x, int32x4_t vm, int32_t k, int32_t sh) {
  if (kSingle) return vrshlq_n_s32(vqdmlashq_n_s32(x, vm, k), sh);
  const int32x4_t r = vqrdmulhq_s32(x, vm);
  return vrshlq_n_s32(vaddq_s32(vaddq_n_s32(r, k), vshrq_n_s32(r, 31)), sh);
}

template <bool kSingle, bool kSat>
inline int32x4_t HalfLanes(const HalfConsts& k, int32x4_t xg, int32x4_t xh) {
  const int32x4_t b = HalfStage<kSingle>(vmlasq_n_s32(xg, k.vscale, k.cg), k.vmg, k.kg, k.sg);
  if (kSat) {
    const int32x4_t t = vqdmlashq_n_s32(vmlaq_n_s32(b, xh, k.half), k.vmo, k.ko2);
    return vshrq_n_s32(vqshlq_r_s32(t, k.sat_shift), 24);
  }
  const int32x4_t y = HalfStage<kSingle>(vmlaq_n_s32(b, xh, k.half), k.vmo, k.ko, k.so);
  return vminq_s32(vmaxq_s32(y, k.vmin), k.vmax);
}

template <bool kSingle, bool kSat>
__attribute__((noinline)) void HalfRow(const HalfConsts& kk, const int8_t* xg, const int8_t* xh,
                                       int8_t* out, int32_t n) {
  const HalfConsts k = kk;
  int32_t i = 0;
  for (; i + 4 <= n; i += 4) {
    vstrbq_s32(out + i, (HalfLanes<kSingle, kSat>)(k, vldrbq_s32(xg + i), vldrbq_s32(xh + i)));
  }
  if (i < n) {
    const mve_pred16_t p = vctp32q(static_cast<uint32_t>(n - i));
    vstrbq_p_s32(out + i, (HalfLanes<kSingle, kSat>)(k, vldrbq_z_s32(xg + i, p), vldrbq_z_s32(xh + i, p)),
                 p);
  }
}

// The HalfRow constants, or false when the parameters do not fit its form: input h with
// multiplier 2^30 and shift 0, 1 <= left_shift <= 20, the other input's and the output's
// shifts in [-23, -1] with the folded constants well inside int32.
inline bool MakeHalf(const s8_add_params& p, bool h_is_1, HalfConsts* k) {
  const int32_t mh = h_is_1 ? p.input1_multiplier : p.input2_multiplier;
  const int32_t shh = h_is_1 ? p.input1_shift : p.input2_shift;
  const int32_t mg = h_is_1 ? p.input2_multiplier : p.input1_multiplier;
  const int32_t sg = h_is_1 ? p.input2_shift : p.input1_shift;
  const int32_t oh = h_is_1 ? p.input1_offset : p.input2_offset;
  const int32_t og = h_is_1 ? p.input2_offset : p.input1_offset;
  if (mh != (1 << 30) || shh != 0 || p.left_shift < 1 || p.left_shift > 20) return false;
  if (sg > -1 || sg < -23 || p.output_shift > -1 || p.output_shift < -23) return false;
  const int64_t kg = (int64_t{oh} << (p.left_shift - 1)) << -sg;
  // |kg| <= 2^29 keeps B + kg (|B| < 2^28) inside int32 before the rounding shift.
  if (kg < -(int64_t{1} << 29) || kg > (int64_t{1} << 29)) return false;
  k->cg = og * (1 << p.left_shift);
  k->vscale = vdupq_n_s32(1 << p.left_shift);
  k->half = 1 << (p.left_shift - 1);
  k->vmg = vdupq_n_s32(mg);
  k->kg = static_cast<int32_t>(kg);
  k->sg = sg;
  k->vmo = vdupq_n_s32(p.output_multiplier);
  k->ko = p.output_offset * (1 << -p.output_shift);
  k->so = p.output_shift;
  k->vmin = vdupq_n_s32(p.act_min);
  k->vmax = vdupq_n_s32(p.act_max);
  const int32_t n = -p.output_shift;
  k->sat = p.rounding == TF_ROUNDING_SINGLE && p.act_min == -128 && p.act_max == 127 && n <= 22;
  k->ko2 = k->sat ? p.output_offset * (1 << n) + (1 << (n - 1)) : 0;
  k->sat_shift = 24 - n;
  return true;
}

// The linear form the compiler proved exact (s8_add_params::lin_*, kernels/add/add_linear.h):
// per 4 elements two widening loads, t = x1 * alpha + gamma (VMLAS), t += x2 * beta (VMLA),
// sat32(t << (24 - shift)) (VQSHL by register) = the int8-saturated floor(t / 2^shift) in the
// top byte. 16 elements per step: four such vectors A0..A3 (elements 0-3, 4-7, 8-11, 12-15;
// A3 first, the loads at immediate offsets), packed top byte by top byte into one vector by
// three VSRI (D = A3; D = VSRI(D, A2, #8); #16 A1; #24 A0: word i holds elements i, 4 + i,
// 8 + i, 12 + i), the clamp (if narrower than int8) on the 16 packed bytes (VMAX.S8 /
// VMIN.S8), then one byte scatter that puts byte 4 i + j at element 4 j + i: 26 instructions
// per 16 elements (28 clamped). The last n % 16 run 4 lanes at a time, tail predicated
// (VSHR #24 then VSTRB.32: 8 instructions per 4, 10 clamped). All 16 loads come before the
// store: in place is exact. ADD and SUB alike (SUB's beta is negative).
struct LinScatter {
  alignas(16) uint8_t off[16];
  constexpr LinScatter() : off() {
    for (int k = 0; k < 16; ++k) off[k] = static_cast<uint8_t>(4 * (k % 4) + k / 4);
  }
};
constexpr LinScatter kLinScatter{};

template <bool kClamp>
__attribute__((noinline)) void LinRow(const s8_add_params& p, const int8_t* in1,
                                      const int8_t* in2, int8_t* out, int32_t n) {
  const int32x4_t va = vdupq_n_s32(p.lin_alpha);
  const int32_t beta = p.lin_beta, gamma = p.lin_gamma, sh = 24 - p.lin_shift;
  const int32_t blocks = n >> 4;
  if (blocks > 0) {
    const uint8x16_t off = vldrbq_u8(kLinScatter.off);
    const int8x16_t mn8 = vdupq_n_s8(static_cast<int8_t>(p.act_min));
    const int8x16_t mx8 = vdupq_n_s8(static_cast<int8_t>(p.act_max));
#define TFM_LIN_A(Q, OFF)                                                                 \
  "vldrb.s32 " Q ", [%[a], #" OFF "]\n\t"                                                   \
  "vldrb.s32 q1, [%[b], #" OFF "]\n\t"                                                     \
  "vmlas.s32 " Q ", %q[va], %[g]\n\t"                                                     \
  "vmla.s32 " Q ", q1, %[be]\n\t"                                                         \
  "vqshl.s32 " Q ", %[sh]\n\t"
#define TFM_LIN16(CLAMP)                                                                  \
  __asm__ volatile(                                                                       \
      "wls lr, %[blocks], 2f\n"                                                           \
      "1:\n\t" TFM_LIN_A("q0", "12") TFM_LIN_A("q2", "8") "vsri.32 q0, q2, #8\n\t"          \
      TFM_LIN_A("q2", "4") "vsri.32 q0, q2, #16\n\t"                                      \
      "vldrb.s32 q2, [%[a]], #16\n\t"                                                     \
      "vldrb.s32 q1, [%[b]], #16\n\t"                                                     \
      "vmlas.s32 q2, %q[va], %[g]\n\t"                                                    \
      "vmla.s32 q2, q1, %[be]\n\t"                                                        \
      "vqshl.s32 q2, %[sh]\n\t"                                                           \
      "vsri.32 q0, q2, #24\n\t" CLAMP                                                     \
      "vstrb.8 q0, [%[o], %q[off]]\n\t"                                                   \
      "adds %[o], #16\n\t"                                                                \
      "le lr, 1b\n"                                                                       \
      "2:\n"                                                                              \
      : [a] "+l"(in1), [b] "+l"(in2), [o] "+l"(out)                                       \
      : [blocks] "r"(blocks), [va] "w"(va), [g] "r"(gamma), [be] "r"(beta), [sh] "r"(sh), \
        [off] "w"(off), [mn] "w"(mn8), [mx] "w"(mx8)                                      \
      : "q0", "q1", "q2", "lr", "memory", "cc")
    if (kClamp) {
      TFM_LIN16("vmax.s8 q0, q0, %q[mn]\n\t"
                "vmin.s8 q0, q0, %q[mx]\n\t");
    } else {
      TFM_LIN16("");
    }
#undef TFM_LIN16
#undef TFM_LIN_A
  }
  const int32_t rest = n & 15;
  if (rest == 0) return;
  const int32x4_t mn = vdupq_n_s32(p.act_min), mx = vdupq_n_s32(p.act_max);
#define TFM_LIN_LOOP(CLAMP)                                                               \
  __asm__ volatile(                                                                       \
      "dlstp.32 lr, %[n]\n"                                                               \
      "1:\n\t"                                                                            \
      "vldrb.s32 q0, [%[a]], #4\n\t"                                                      \
      "vldrb.s32 q1, [%[b]], #4\n\t"                                                      \
      "vmlas.s32 q0, %q[va], %[g]\n\t"                                                    \
      "vmla.s32 q0, q1, %[be]\n\t"                                                        \
      "vqshl.s32 q0, %[sh]\n\t"                                                           \
      "vshr.s32 q0, q0, #24\n\t" CLAMP                                                    \
      "vstrb.32 q0, [%[o]], #4\n\t"                                                       \
      "letp lr, 1b\n"                                                                     \
      : [a] "+l"(in1), [b] "+l"(in2), [o] "+l"(out)                                       \
      : [n] "r"(rest), [va] "w"(va), [g] "r"(gamma), [be] "r"(beta), [sh] "r"(sh),        \
        [mn] "w"(mn), [mx] "w"(mx)                                                        \
      : "q0", "q1", "lr", "memory")
  if (kClamp) {
    TFM_LIN_LOOP("vmax.s32 q0, q0, %q[mn]\n\t"
                 "vmin.s32 q0, q0, %q[mx]\n\t");
  } else {
    TFM_LIN_LOOP("");
  }
#undef TFM_LIN_LOOP
}

// The linear form on broadcast rows (stride 1 or 0 per input).
inline void LinRowStrided(const s8_add_params& p, const int8_t* in1, int32_t st1,
                          const int8_t* in2, int32_t st2, int8_t* out, int32_t n) {
  const int32x4_t va = vdupq_n_s32(p.lin_alpha);
  const int32x4_t mn = vdupq_n_s32(p.act_min), mx = vdupq_n_s32(p.act_max);
  const int32x4_t b1 = vdupq_n_s32(in1[0]), b2 = vdupq_n_s32(in2[0]);
  for (int32_t i = 0; i < n; i += 4) {
    const mve_pred16_t pr = vctp32q(static_cast<uint32_t>(n - i));
    const int32x4_t x1 = st1 == 0 ? b1 : vldrbq_z_s32(in1 + i, pr);
    const int32x4_t x2 = st2 == 0 ? b2 : vldrbq_z_s32(in2 + i, pr);
    int32x4_t t = vmlaq_n_s32(vmlasq_n_s32(x1, va, p.lin_gamma), x2, p.lin_beta);
    t = vshrq_n_s32(vqshlq_r_s32(t, 24 - p.lin_shift), 24);
    vstrbq_p_s32(out + i, vminq_s32(vmaxq_s32(t, mn), mx), pr);
  }
}

// n elements; stride 1 or 0 (broadcast) per input.
template <bool kSingle, bool kSub>
__attribute__((noinline)) void Row(const AddConsts& k, const int8_t* in1, int32_t st1, const int8_t* in2, int32_t st2,
         int8_t* out, int32_t n) {
  if (st1 == 1 && st2 == 1) {
    int32_t i = 0;
    for (; i + 4 <= n; i += 4) {
      vstrbq_s32(out + i, (AddLanes<kSingle, kSub>)(k, vldrbq_s32(in1 + i), vldrbq_s32(in2 + i)));
    }
    if (i < n) {
      const mve_pred16_t p = vctp32q(static_cast<uint32_t>(n - i));
      vstrbq_p_s32(out + i,
                   (AddLanes<kSingle, kSub>)(k, vldrbq_z_s32(in1 + i, p), vldrbq_z_s32(in2 + i, p)), p);
    }
    return;
  }
  const int32x4_t b1 = vdupq_n_s32(in1[0]), b2 = vdupq_n_s32(in2[0]);
  for (int32_t i = 0; i < n; i += 4) {
    const mve_pred16_t p = vctp32q(static_cast<uint32_t>(n - i));
    const int32x4_t x1 = st1 == 0 ? b1 : vldrbq_z_s32(in1 + i, p);
    const int32x4_t x2 = st2 == 0 ? b2 : vldrbq_z_s32(in2 + i, p);
    vstrbq_p_s32(out + i, (AddLanes<kSingle, kSub>)(k, x1, x2), p);
  }
}

// True when the linear form ran the op (plain, or rows of stride 1 or 0).
inline bool TryLin(const s8_add_params& p, const int8_t* input1, const int8_t* input2,
                   int8_t* output) {
  if (p.lin_shift == 0) return false;
  const s8_broadcast_shape& s = p.shape;
  const auto [total, plain] = tinyforge::kernels::Extent(s);
  if (plain) {
    const bool clamp = p.act_min > -128 || p.act_max < 127;
    (clamp ? LinRow<true> : LinRow<false>)(p, input1, input2, output, total);
    return true;
  }
  const int32_t st1 = s.in1_strides[5], st2 = s.in2_strides[5];
  if (!((st1 == 0 || st1 == 1) && (st2 == 0 || st2 == 1))) return false;
  tinyforge::kernels::ForEachBroadcastRow(s, [&](int32_t a, int32_t b, int32_t o, int32_t n) {
    LinRowStrided(p, input1 + a, st1, input2 + b, st2, output + o, n);
  });
  return true;
}

template <bool kSingle, bool kSub>
void Run(const s8_add_params& p, const int8_t* input1, const int8_t* input2, int8_t* output) {
  AddConsts k;
  k.scale = fx::WrapShiftLeft(1, p.left_shift);
  k.c1 = vdupq_n_s32(fx::WrapShiftLeft(p.input1_offset, p.left_shift));
  k.c2 = vdupq_n_s32(fx::WrapShiftLeft(p.input2_offset, p.left_shift));
  k.m1 = p.input1_multiplier;
  k.s1 = p.input1_shift;
  k.m2 = p.input2_multiplier;
  k.s2 = p.input2_shift;
  k.mo = p.output_multiplier;
  k.so = p.output_shift;
  k.out_off = p.output_offset;
  k.vmin = vdupq_n_s32(p.act_min);
  k.vmax = vdupq_n_s32(p.act_max);
  const s8_broadcast_shape& s = p.shape;
  const int32_t st1 = s.in1_strides[5], st2 = s.in2_strides[5];
  const bool vector_inner = (st1 == 0 || st1 == 1) && (st2 == 0 || st2 == 1);
  // Plain elementwise (the common case, possibly in place): one row of every element.
  const auto [total, plain] = tinyforge::kernels::Extent(s);
  if (plain && !kSub) {
    HalfConsts hk;
    const bool h1 = MakeHalf(p, true, &hk);
    if (h1 || MakeHalf(p, false, &hk)) {
      const int8_t* xg = h1 ? input2 : input1;
      const int8_t* xh = h1 ? input1 : input2;
      if (kSingle && hk.sat) {
        HalfRow<kSingle, true>(hk, xg, xh, output, total);
      } else {
        HalfRow<kSingle, false>(hk, xg, xh, output, total);
      }
      return;
    }
  }
  if (plain && total >= kLutMinElements && p.output_shift <= -1) {
    LutRow<kSingle, kSub>(k, input1, input2, output, total);
    return;
  }
  if (plain) {
    Row<kSingle, kSub>(k, input1, 1, input2, 1, output, total);
    return;
  }
  tinyforge::kernels::ForEachBroadcastRow(s, [&](int32_t a, int32_t b, int32_t o, int32_t n) {
    if (vector_inner) {
      Row<kSingle, kSub>(k, input1 + a, st1, input2 + b, st2, output + o, n);
      return;
    }
    for (int32_t i = 0; i < n; ++i) {
      const int32x4_t x1 = vdupq_n_s32(input1[a + i * st1]);
      const int32x4_t x2 = vdupq_n_s32(input2[b + i * st2]);
      output[o + i] = static_cast<int8_t>(vgetq_lane_s32((AddLanes<kSingle, kSub>)(k, x1, x2), 0));
    }
  });
}

}  // namespace

extern "C" void s8_add__mve(const s8_add_params* params, const int8_t* input1, const int8_t* input2,
                            int8_t* output) {
  if (TryLin(*params, input1, input2, output)) return;
  if (params->rounding == TF_ROUNDING_SINGLE) {
    Run<true, false>(*params, input1, input2, output);
  } else {
    Run<false, false>(*params, input1, input2, output);
  }
}

// SUB: the same stages with input 2's rescaled value subtracted (TFLite Micro's SUB).
extern "C" void s8_sub__mve(const s8_add_params* params, const int8_t* input1, const int8_t* input2,
                            int8_t* output) {
  if (TryLin(*params, input1, input2, output)) return;
  if (params->rounding == TF_ROUNDING_SINGLE) {
    Run<true, true>(*params, input1, input2, output);
  } else {
    Run<false, true>(*params, input1, input2, output);
  }
}

#endif  // TF_HAVE_MVE
