// FULLY_CONNECTED for Cortex-M4/M7/M33 (DSP extension). Bit-identical to s8_fc__ref.
//
// Input rows in pairs, widened once to int16 pairs with the input offset added; every pair of
// weight rows then streams past them (kernels/conv/dsp_gemm.h: 2 x 2 SMLAD blocks, 1 x 2 for
// a single row). Scratch (fc.inc): two widened rows.
#include "kernels/fc/fc.h"

#if defined(__ARM_FEATURE_DSP)

#include "kernels/conv/dsp_gemm.h"

namespace {

namespace dsp = tinyforge::dsp;

template <int kMode, bool kFull>
void Run(const s8_fc_params& p, const int8_t* input, const int8_t* weights, const int32_t* bias,
         int8_t* output, uint32_t* ext) {
  const int32_t k = p.in_features;
  const dsp::OutQ oq{p.output_offset, p.act_min, p.act_max};
  const int32_t q_step = p.per_channel ? 1 : 0;
  for (int32_t b = 0; b < p.batches; b += 2) {
    const int32_t np = p.batches - b < 2 ? p.batches - b : 2;
    dsp::Widen(input + b * k, k, p.input_offset, ext);
    if (np == 2) dsp::Widen(input + (b + 1) * k, k, p.input_offset, ext + 2);
    dsp::Tile2<kMode, kFull>(ext, np, weights, k, bias, p.multiplier, p.shift, q_step,
                        p.out_features, oq, output + b * p.out_features);
  }
}

struct Call {
  const s8_fc_params& p;
  const int8_t* input;
  const int8_t* weights;
  const int32_t* bias;
  int8_t* output;
  uint32_t* ext;
  template <int kMode, bool kFull>
  void operator()() const {
    Run<kMode, kFull>(p, input, weights, bias, output, ext);
  }
};

}  // namespace

extern "C" void s8_fc__dsp(const s8_fc_params* params, const int8_t* input, const int8_t* weights,
                           const int32_t* bias, int8_t* output, void* scratch) {
  const s8_fc_params& p = *params;
  const uintptr_t base = (reinterpret_cast<uintptr_t>(scratch) + 7u) & ~uintptr_t{7};
  uint32_t* ext = reinterpret_cast<uint32_t*>(base);
  dsp::Dispatch(p.shift, p.per_channel ? p.out_features : 1, p.rounding, p.act_min, p.act_max,
                Call{p, input, weights, bias, output, ext});
}

#endif  // __ARM_FEATURE_DSP
