// Helium floating point (MVE-F) building blocks of the float layer variants (__mve). Internal
// to kernels/f32; include only under TF_HAVE_MVE_FLOAT.
//
// MVE-F computes in Arm's standard mode whatever FPSCR holds (flush to zero, default NaN,
// round to nearest; f32_arith.h), the mode __ref defines, so a lane that performs __ref's
// products and sums in __ref's order gives __ref's bits. The vectors therefore run across
// outputs (output channels), never across the terms of one sum, and use VMUL then VADD (no
// VFMA: a fused product is not flushed before the add).
#ifndef TINYFORGE_KERNELS_F32_F32_MVE_H_
#define TINYFORGE_KERNELS_F32_F32_MVE_H_

#include <arm_mve.h>

#include <cstdint>

namespace tinyforge::kernels::f32::mve {

// Lane masks of a block of `nv` vectors holding n >= 1 outputs (n <= 4 * nv).
inline mve_pred16_t LanePred(int32_t n) { return vctp32q(static_cast<uint32_t>(n)); }

// The 4 floats at addr + 4 (one per lane), and addr += 4: VLDRW gather with writeback
// (GCC 12's vldrwq_gather_base_wb_f32 does not compile: its immediate reaches the builtin
// as a variable).
inline float32x4_t GatherNext(uint32x4_t& addr) {
  float32x4_t v;
  __asm__("vldrw.u32 %q0, [%q1, #4]!" : "=&w"(v), "+w"(addr) : : "memory");
  return v;
}

// Lane addresses for a block's last vector: the lanes outside `pred` read lane 0's address
// (their sums are never stored), so every gather reads valid memory without predication.
inline uint32x4_t TailAddresses(uint32x4_t addr, mve_pred16_t pred) {
  return vpselq_u32(addr, vdupq_n_u32(vgetq_lane_u32(addr, 0)), pred);
}

// acc[v] lane l += x[i] * w_l[i] for i in [0, n), in order, where w_l are the rows whose
// addresses (minus 4 bytes) `addr[v]` holds; the gathers step each lane's address by 4 bytes.
template <int NV>
inline void GatherDot(float32x4_t (&acc)[NV], uint32x4_t (&addr)[NV], const float* x,
                      int32_t n) {
  for (int32_t i = 0; i < n; ++i) {
    const float xv = x[i];
    for (int v = 0; v < NV; ++v) acc[v] = vaddq_f32(acc[v], vmulq_n_f32(GatherNext(addr[v]), xv));
  }
}

// acc + bias, clamped to [lo, hi] as Clamp (f32_clamp.h): the bound replaces a value below /
// above it, NaN passes; stored to y under the lanes `pred`. Both tests are GT: an MVE VCMP
// condition is an AArch32 condition code, and LT (N != V) holds for unordered operands, GT
// does not (measured: a NaN became -inf with vcmpltq(v, lo)).
inline void FinishStore(float32x4_t acc, const float* bias, float lo, float hi, float* y,
                        mve_pred16_t pred) {
  float32x4_t v = vaddq_f32(acc, vldrwq_z_f32(bias, pred));
  const float32x4_t vlo = vdupq_n_f32(lo);
  v = vpselq_f32(vlo, v, vcmpgtq_f32(vlo, v));
  v = vpselq_f32(vdupq_n_f32(hi), v, vcmpgtq_n_f32(v, hi));
  vstrwq_p_f32(y, v, pred);
}

// The number of vectors of a block, as a type: Blocks passes Vectors<NV>{} to its callback.
template <int NV>
struct Vectors {
  static constexpr int kCount = NV;
};

template <int NV, class F>
__attribute__((always_inline)) inline void TailBlock(int32_t at, int32_t n, F& block) {
  if constexpr (NV >= 1) {
    if (n > 4 * (NV - 1)) {
      block(Vectors<NV>{}, at, n);
    } else {
      TailBlock<NV - 1>(at, n, block);
    }
  }
}

// Outputs [0, total) in blocks of MAXV vectors (4 * MAXV lanes), then the rest in one block
// of the fewest vectors that hold it: block(Vectors<NV>{}, first, n) with n in
// (4 * (NV - 1), 4 * NV].
template <int MAXV, class F>
__attribute__((always_inline)) inline void Blocks(int32_t total, F&& block) {
  int32_t at = 0;
  for (; at + 4 * MAXV <= total; at += 4 * MAXV) block(Vectors<MAXV>{}, at, 4 * MAXV);
  TailBlock<MAXV>(at, total - at, block);
}

}  // namespace tinyforge::kernels::f32::mve

#endif  // TINYFORGE_KERNELS_F32_F32_MVE_H_
