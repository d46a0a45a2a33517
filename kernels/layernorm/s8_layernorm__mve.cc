// LAYER_NORM / RMS_NORM for Cortex-M55 (Helium / MVE), bit-identical to s8_layernorm__ref.
//
// Row sums: VADDVA and VMLADAVA over 16 bytes (sum and sum of squares into int32). The row
// constants (layernorm_row.h's RowOf) are scalar. Per 16 elements (four int32x4 vectors
// a, b, c, d of 4 consecutive elements each): VLDRB.S32; VMLAS (t = q * dl - offset);
// VRMULH twice (MulHiR by the row's rsqrt, then by scale[c]: VRMULH.S32 is
// round(a * b / 2^32), ties up, exactly); VQRSHL by -shift only on rows with a shift left
// over (ShiftR); VQADD of bias[c]; then the rounding shift by 16 and the int8 clamp narrow
// all four at once: VQRSHRNB / VQRSHRNT #16 put a and b (c and d) into the even / odd int16
// lanes of x (y), VQMOVNB / VQMOVNT x and y into the even / odd bytes of z, whose byte order
// {0, 8, 4, 12, 1, 9, ...} one VSTRB.8 scatter undoes: 30 instructions per 16 elements
// without per-channel scale / bias, 38 with (the 4-lane loop took 9 / 10 per 4). The last
// depth % 16 elements run 4 lanes at a time (VSTRB.32, the tail predicated).
#include "kernels/layernorm/layernorm.h"
#include "kernels/common/isa.h"

#if TF_HAVE_MVE

#include <arm_mve.h>

#include "kernels/layernorm/layernorm_row.h"

namespace ln = tinyforge::layernorm;

namespace {

static_assert(ln::kFracBits == 16, "the narrowing below shifts by 16");

// The row's constants as vectors, and the broadcast scale / bias.
struct Consts {
  int32x4_t rs, sh, dl, sc, bi;
  int32_t neg_offset;
};

// Four lanes of Element() before the narrowing (kShift: with ShiftR, else ElementNoShift).
template <bool kPerChannel, bool kShift>
inline int32x4_t Value(int32x4_t q, const Consts& k, const int32_t* scale, const int32_t* bias,
                       mve_pred16_t pr, bool tail) {
  int32x4_t t = vmlasq_n_s32(q, k.dl, k.neg_offset);
  t = vrmulhq_s32(t, k.rs);
  int32x4_t sc = k.sc, bi = k.bi;
  if (kPerChannel) {
    sc = tail ? vldrwq_z_s32(scale, pr) : vldrwq_s32(scale);
    bi = tail ? vldrwq_z_s32(bias, pr) : vldrwq_s32(bias);
  }
  t = vrmulhq_s32(t, sc);
  if (kShift) t = vqrshlq_s32(t, k.sh);
  return vqaddq_s32(t, bi);
}

// The 16-element loop (assembly: GCC 12 spills the intrinsic version's nine live vectors):
// q4 = dl, q5 = rsqrt, q6 = scale (broadcast), q7 = the scatter offsets; the bias (broadcast)
// is a scalar operand. blocks >= 1.
#define TFL_X4(op) op(0) op(1) op(2) op(3)
#define TFL_LOAD(i) "vldrb.s32 q" #i ", [%[in]], #4\n\t"
#define TFL_MLAS(i) "vmlas.s32 q" #i ", q4, %[noff]\n\t"
#define TFL_RS(i) "vrmulh.s32 q" #i ", q" #i ", q5\n\t"
#define TFL_SC(i) "vrmulh.s32 q" #i ", q" #i ", q6\n\t"
#define TFL_BI(i) "vqadd.s32 q" #i ", q" #i ", %[bias]\n\t"
#define TFL_SCPC(i) "vldrw.u32 q6, [%[sp]], #16\n\tvrmulh.s32 q" #i ", q" #i ", q6\n\t"
#define TFL_BIPC(i) "vldrw.u32 q6, [%[bp]], #16\n\tvqadd.s32 q" #i ", q" #i ", q6\n\t"
#define TFL_NARROW_STORE                                          \
  "vqrshrnb.s32 q0, q0, #16\n\t"                                  \
  "vqrshrnt.s32 q0, q1, #16\n\t"                                  \
  "vqrshrnb.s32 q2, q2, #16\n\t"                                  \
  "vqrshrnt.s32 q2, q3, #16\n\t"                                  \
  "vqmovnb.s16 q0, q0\n\t"                                        \
  "vqmovnt.s16 q0, q2\n\t"                                        \
  "vstrb.8 q0, [%[out], q7]\n\t"                                  \
  "add %[out], %[out], #16\n\t"                                   \
  "le lr, 1b\n"

template <bool kPerChannel>
inline void Blocks16(const int8_t*& in, int8_t*& out, int32_t blocks, const int32_t*& scale,
                     const int32_t*& bias_p, int32x4_t dl, int32x4_t rs, int32x4_t sc,
                     uint8x16_t perm, int32_t noff, int32_t bias) {
  register int32_t count __asm__("lr") = blocks;
  register int32x4_t q4 __asm__("q4") = dl;
  register int32x4_t q5 __asm__("q5") = rs;
  register int32x4_t q6 __asm__("q6") = sc;
  register uint8x16_t q7 __asm__("q7") = perm;
  if constexpr (!kPerChannel) {
    __asm__ volatile("dls lr, lr\n1:\n\t" TFL_X4(TFL_LOAD) TFL_X4(TFL_MLAS) TFL_X4(TFL_RS)
                         TFL_X4(TFL_SC) TFL_X4(TFL_BI) TFL_NARROW_STORE
                     : [in] "+l"(in), [out] "+r"(out), "+r"(count)
                     : [noff] "r"(noff), [bias] "r"(bias), "w"(q4), "w"(q5), "w"(q6), "w"(q7)
                     : "q0", "q1", "q2", "q3", "memory");
  } else {
    __asm__ volatile("dls lr, lr\n1:\n\t" TFL_X4(TFL_LOAD) TFL_X4(TFL_MLAS) TFL_X4(TFL_RS)
                         TFL_X4(TFL_SCPC) TFL_X4(TFL_BIPC) TFL_NARROW_STORE
                     : [in] "+l"(in), [out] "+r"(out), "+r"(count), [sp] "+r"(scale),
                       [bp] "+r"(bias_p), "+w"(q6)
                     : [noff] "r"(noff), "w"(q4), "w"(q5), "w"(q7)
                     : "q0", "q1", "q2", "q3", "memory");
  }
}

template <bool kPerChannel, bool kShift>
void Elements(const s8_layernorm_params& p, const ln::Row& row, const int8_t* in, int8_t* out,
              uint8x16_t perm, int32x4_t sc, int32_t bias0) {
  const int32_t* scale = p.scale;
  const int32_t* bias = p.bias;
  // Rows with a shift left over (rare) run 4 lanes at a time throughout.
  const int32_t blocks = kShift ? 0 : p.depth >> 4;
  if (blocks > 0) {
    Blocks16<kPerChannel>(in, out, blocks, scale, bias, vdupq_n_s32(row.dl),
                          vdupq_n_s32(row.rsqrt), sc, perm, -row.offset, bias0);
  }
  int32_t n = kShift ? p.depth : p.depth & 15;
  if (n == 0) return;
  Consts k;
  k.rs = vdupq_n_s32(row.rsqrt);
  k.sh = vdupq_n_s32(-row.shift);
  k.dl = vdupq_n_s32(row.dl);
  k.sc = sc;
  k.bi = vdupq_n_s32(bias0);
  k.neg_offset = -row.offset;
  for (; n > 0; n -= 4, in += 4, out += 4) {
    const mve_pred16_t pr = vctp32q(static_cast<uint32_t>(n));
    int32x4_t v = Value<kPerChannel, kShift>(vldrbq_z_s32(in, pr), k, scale, bias, pr, true);
    if (kPerChannel) {
      scale += 4;
      bias += 4;
    }
    __asm__("vqrshrnb.s32 %q0, %q0, #16\n\tvqmovnb.s16 %q0, %q0" : "+w"(v));
    vstrbq_p_s32(out, v, pr);
  }
}

// ln::RsqrtQ30 with each Newton step's three 32 x 32 -> 64 products as UMULL + LSRL (GCC 12
// adds a MOV per product): 7 instructions per step.
inline int32_t Rsqrt(uint32_t w32) {
  uint32_t y = ln::kRsqrtGuess[(w32 >> 26) - 16];
  for (int i = 0; i < 2; ++i) {
    uint64_t t;
    uint32_t x;
    __asm__(
        "umull %Q[t], %R[t], %[y], %[y]\n\t"  // y2 = (y * y) >> 30
        "lsrl %Q[t], %R[t], #30\n\t"
        "umull %Q[t], %R[t], %Q[t], %[w]\n\t"  // wy2 = (w * y2) >> 30
        "lsrl %Q[t], %R[t], #30\n\t"
        "rsb %[x], %Q[t], #0xC0000000\n\t"  // 3 * 2^30 - wy2
        "umull %Q[t], %R[t], %[x], %[y]\n\t"  // y = (y * x) >> 31
        "lsrl %Q[t], %R[t], #31\n\t"
        : [t] "=&r"(t), [x] "=&r"(x)
        : [y] "r"(y), [w] "r"(w32));
    y = static_cast<uint32_t>(t);
  }
  return static_cast<int32_t>(y);
}

// sum q and sum q^2 over a row of depth >= 1 bytes: a tail-predicated loop (DLSTP / LETP;
// inactive lanes add nothing), 4 instructions per 16 bytes.
inline void SumRow(const int8_t* in, int32_t depth, int32_t* sum, int32_t* sumsq) {
  int32_t s = 0, ss = 0;
  __asm__ volatile(
      "dlstp.8 lr, %[n]\n"
      "1:\n\t"
      "vldrb.8 q0, [%[in]], #16\n\t"
      "vaddva.s8 %[s], q0\n\t"
      "vmladava.s8 %[ss], q0, q0\n\t"
      "letp lr, 1b\n"
      : [s] "+Te"(s), [ss] "+Te"(ss), [in] "+r"(in)
      : [n] "r"(depth)
      : "q0", "lr", "memory");
  *sum = s;
  *sumsq = ss;
}

}  // namespace

extern "C" void s8_layernorm__mve(const s8_layernorm_params* params, const int8_t* input,
                                  int8_t* output) {
  const s8_layernorm_params p = *params;  // a local copy: no reloads after the stores
  const int32_t depth = p.depth;
  const int32_t lsh = ln::Headroom(depth);
  // z's byte b holds element kPerm[b] of the 16 (see the header comment).
  alignas(16) static constexpr uint8_t kPerm[16] = {0, 8, 4, 12, 1, 9, 5, 13,
                                                    2, 10, 6, 14, 3, 11, 7, 15};
  const uint8x16_t perm = vld1q_u8(kPerm);
  const int32x4_t sc = vdupq_n_s32(p.scale[0]);  // the broadcast scale and bias
  const int32_t bias0 = p.bias[0];
  for (int32_t r = 0; r < p.rows; ++r) {
    const int8_t* in = input + r * depth;
    int8_t* out = output + r * depth;
    int32_t s, ss;
    SumRow(in, depth, &s, &ss);
    uint32_t w;
    ln::Row row = ln::RowPrep(p, lsh, s, ss, &w);
    if (w != 0) row.rsqrt = Rsqrt(w);
    if (row.shift != 0) {
      if (p.per_channel) {
        Elements<true, true>(p, row, in, out, perm, sc, bias0);
      } else {
        Elements<false, true>(p, row, in, out, perm, sc, bias0);
      }
    } else if (p.per_channel) {
      Elements<true, false>(p, row, in, out, perm, sc, bias0);
    } else {
      Elements<false, false>(p, row, in, out, perm, sc, bias0);
    }
  }
}

#endif  // TF_HAVE_MVE
