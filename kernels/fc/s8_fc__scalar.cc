// FULLY_CONNECTED for cores without SIMD (Cortex-M0/M3; also built on the host).
// Bit-identical to s8_fc__ref.
//
// Input rows in pairs, widened once to int16 with the input offset added; every pair of
// weight rows then streams past them (kernels/common/gemm/scalar_gemm.h: 2 x 2 blocks, 1 x 2 for a
// single row). Scratch (fc.inc): two widened rows.
#include "kernels/fc/fc.h"
#include "kernels/common/gemm/scalar_gemm.h"

namespace {

namespace sc = tinyforge::scalar;

template <int kMode>
void Run(const s8_fc_params& p, const int8_t* input, const int8_t* weights, const int32_t* bias,
         int8_t* output, int16_t* ext) {
  const int32_t k = p.in_features;
  const sc::OutQ oq{p.output_offset, p.act_min, p.act_max};
  const int32_t q_step = p.per_channel ? 1 : 0;
  for (int32_t b = 0; b < p.batches; b += 2) {
    const int32_t np = p.batches - b < 2 ? p.batches - b : 2;
    sc::Widen(input + b * k, k, p.input_offset, ext);
    if (np == 2) sc::Widen(input + (b + 1) * k, k, p.input_offset, ext + k);
    sc::Tile2<kMode>(ext, ext + k, np, weights, k, bias, p.multiplier, p.shift, q_step,
                     p.out_features, oq, output + b * p.out_features);
  }
}

}  // namespace

extern "C" void s8_fc__scalar(const s8_fc_params* params, const int8_t* input,
                              const int8_t* weights, const int32_t* bias, int8_t* output,
                              void* scratch) {
  const s8_fc_params& p = *params;
  const uintptr_t base = (reinterpret_cast<uintptr_t>(scratch) + 3u) & ~uintptr_t{3};
  int16_t* ext = reinterpret_cast<int16_t*>(base);
  switch (sc::ChooseMode<false>(p.shift, p.per_channel ? p.out_features : 1, p.rounding)) {
    case sc::kRqDoubleNeg:
      Run<sc::kRqDoubleNeg>(p, input, weights, bias, output, ext);
      break;
    case sc::kRqSingleNeg:
      Run<sc::kRqSingleNeg>(p, input, weights, bias, output, ext);
      break;
    case sc::kRqSingle:
      Run<sc::kRqSingle>(p, input, weights, bias, output, ext);
      break;
    default:
      Run<sc::kRqDouble>(p, input, weights, bias, output, ext);
      break;
  }
}
