// s8_fc__mve's GEMV/GEMM driver for one requantization mode (rq_mode.h), included by the
// dispatcher (s8_fc__mve.cc) and by its paths linked on demand (s8_fc__mve_*.cc;
// kernels/common/paths.h): the core of kernels/common/gemm/mve_gemm.h, one input row against
// 4 weight rows per block (each loaded input vector feeds 4 VMLADAVAs), or 2 rows x 2 outputs
// when there are several batches.
#ifndef TINYFORGE_KERNELS_FC_MVE_FC_RUN_H_
#define TINYFORGE_KERNELS_FC_MVE_FC_RUN_H_

#include "kernels/common/isa.h"
#include "kernels/common/paths.h"
#include "kernels/fc/fc.h"

#if TF_HAVE_MVE

#include "kernels/common/gemm/mve_gemm.h"

// The paths of s8_fc__mve for the rarer modes (fc.inc): single rounding with every shift
// <= -1, and per-element requantization (any other case). `bias` is the effective bias.
#define TF_FC_MVE_PATH(name)                                                              \
  void name(const s8_fc_params* params, const int8_t* input, const int8_t* weights,      \
            const int32_t* bias, int8_t* output) TF_PATH_WEAK;
extern "C" {
TF_FC_MVE_PATH(s8_fc__mve__singleneg)
TF_FC_MVE_PATH(s8_fc__mve__perelement)
}
#undef TF_FC_MVE_PATH

namespace tinyforge::fc_mve {

namespace mve = tinyforge::mve;

template <int kMode>
inline void Run(const s8_fc_params& p, const int8_t* input, const int8_t* weights, const int32_t* bias,
         int8_t* output) {
  const int32_t k = p.in_features;
  const int32_t n_out = p.out_features;
  const int32_t qs = p.per_channel ? 1 : 0;
  if (p.batches >= 2) {  // 2 rows x 2 outputs per block, output pairs outside
    const mve::Preds pr = mve::MakePreds();
    const int8_t* rows[16];
    for (int32_t b = 0; b < p.batches; b += 16) {
      const int32_t np = p.batches - b < 16 ? p.batches - b : 16;
      for (int32_t i = 0; i < np; ++i) rows[i] = input + (b + i) * k;
      mve::Tile<kMode>(rows, np, weights, k, bias, p.multiplier, p.shift, qs, n_out,
                       p.output_offset, p.act_min, p.act_max, output + b * n_out, pr,
                       p.rounding);
    }
    return;
  }
  // One row: 1 row x 4 outputs per block.
  mve::Out4<kMode> o;
  o.mult = p.multiplier;
  o.shift = p.shift;
  o.output_offset = p.output_offset;
  o.act_min = p.act_min;
  o.act_max = p.act_max;
  o.rounding = p.rounding;
  const uint32x4_t o_off = mve::Lanes4u(0, 1, 2, 3);
  const uint32x4_t q_off = mve::Lanes4u(0, 1, 2, 3);
  if constexpr (kMode != mve::kRqPerElement) {
    if (!p.per_channel) {
      o.m = vdupq_n_s32(p.multiplier[0]);
      o.s = vdupq_n_s32(p.shift[0]);
    }
  }
  const int8_t* w = weights;
  int32_t i = 0;
  for (; i + 3 < n_out; i += 4, w += 4 * k) {
    if (p.per_channel) {
      o.q[0] = i;
      o.q[1] = i + 1;
      o.q[2] = i + 2;
      o.q[3] = i + 3;
      if constexpr (kMode != mve::kRqPerElement) {
        o.m = vldrwq_s32(p.multiplier + i);
        o.s = vldrwq_s32(p.shift + i);
      }
    } else {
      o.q[0] = o.q[1] = o.q[2] = o.q[3] = 0;
    }
    o.Store(mve::Dot1x4(input, w, w + k, w + 2 * k, w + 3 * k, k, bias[i], bias[i + 1],
                        bias[i + 2], bias[i + 3]),
            output + i, o_off);
  }
  const int32_t rem = n_out - i;
  if (rem > 0) {
    // Lanes past the end repeat the last row (and its quantization); they are not stored.
    const int32_t j1 = rem > 1 ? 1 : 0, j2 = rem > 2 ? 2 : j1;
    const int8_t* w1 = w + j1 * k;
    const int8_t* w2 = w + j2 * k;
    o.q[0] = i * qs;
    o.q[1] = (i + j1) * qs;
    o.q[2] = o.q[3] = (i + j2) * qs;
    if constexpr (kMode != mve::kRqPerElement) {
      const uint32x4_t qo = vaddq_n_u32(
          mve::Lanes4u(0, static_cast<uint32_t>(j1), static_cast<uint32_t>(j2),
                       static_cast<uint32_t>(j2)),
          static_cast<uint32_t>(i));
      const uint32x4_t qv = p.per_channel ? qo : vdupq_n_u32(0);
      o.m = vldrwq_gather_shifted_offset_s32(p.multiplier, qv);
      o.s = vldrwq_gather_shifted_offset_s32(p.shift, qv);
    }
    (void)q_off;
    o.StoreP(mve::Dot1x4(input, w, w1, w2, w2, k, bias[i], bias[i + j1], bias[i + j2],
                         bias[i + j2]),
             output + i, o_off, (1u << rem) - 1u, vctp32q(static_cast<uint32_t>(rem)));
  }
}

}  // namespace tinyforge::fc_mve

#endif  // TF_HAVE_MVE

#endif  // TINYFORGE_KERNELS_FC_MVE_FC_RUN_H_
