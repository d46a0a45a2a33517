// Float32 fully connected layer for Cortex-M55 (Helium floating point), bit-identical to
// f32_fc__ref: per batch row, blocks of up to 12 outputs in three vectors; each lane sums its
// output's products over the input features in order, then + bias (the weights of a vector's
// 4 outputs fetched by one gather stepping through the 4 weight rows, the input broadcast
// from a register: f32_mve.h's GatherDot, as f32_conv__mve's). Without MVE-F: __ref.
#include "kernels/common/isa.h"
#include "kernels/f32/f32.h"

#if TF_HAVE_MVE

#if TF_HAVE_MVE_FLOAT
#include "kernels/f32/f32_arith.h"
#include "kernels/f32/f32_mve.h"

namespace {

using tinyforge::kernels::f32::mve::FinishStore;
using tinyforge::kernels::f32::mve::GatherDot;
using tinyforge::kernels::f32::mve::LanePred;
using tinyforge::kernels::f32::mve::TailAddresses;

// Outputs [o, o + n) of one batch row, n in (4 * (NV - 1), 4 * NV].
template <int NV>
inline void OutputBlock(const f32_fc_params& p, const float* xb, const float* w, int32_t o,
                        int32_t n, const float* bias, float lo, float hi, float* yb) {
  const int32_t k = p.in_features;
  const mve_pred16_t last = LanePred(n - 4 * (NV - 1));
  float32x4_t acc[NV];
  uint32x4_t addr[NV];
  const uint32x4_t lanes = vmulq_n_u32(vidupq_n_u32(0, 1), static_cast<uint32_t>(k * 4));
  const uint32_t start = reinterpret_cast<uint32_t>(w + o * k) - 4u;
  for (int v = 0; v < NV; ++v) {
    acc[v] = vdupq_n_f32(0.0f);
    addr[v] = vaddq_n_u32(lanes, start + static_cast<uint32_t>(v * 4 * k * 4));
  }
  addr[NV - 1] = TailAddresses(addr[NV - 1], last);
  GatherDot<NV>(acc, addr, xb, k);
  for (int v = 0; v < NV; ++v) {
    FinishStore(acc[v], bias + o + 4 * v, lo, hi, yb + o + 4 * v,
                v == NV - 1 ? last : LanePred(4));
  }
}

}  // namespace

extern "C" void f32_fc__mve(const f32_fc_params* params, const float* x, const float* w,
                            const float* bias, float* y) {
  const f32_fc_params& p = *params;
  using namespace tinyforge::kernels::f32;
  const float lo = FlushBits(p.act_min), hi = FlushBits(p.act_max);
  for (int32_t b = 0; b < p.batches; ++b) {
    const float* xb = x + b * p.in_features;
    float* yb = y + b * p.out_features;
    mve::Blocks<3>(p.out_features,
                   [&](auto nv, int32_t o, int32_t n) __attribute__((always_inline)) {
      OutputBlock<decltype(nv)::kCount>(p, xb, w, o, n, bias, lo, hi, yb);
    });
  }
}

#else

extern "C" void f32_fc__mve(const f32_fc_params* params, const float* x, const float* w,
                            const float* bias, float* y) {
  f32_fc__ref(params, x, w, bias, y);
}

#endif  // TF_HAVE_MVE_FLOAT
#endif  // TF_HAVE_MVE
