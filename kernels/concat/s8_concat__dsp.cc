// CONCATENATION, dsp class: concat_rows.h with s8_lut__dsp for requantized inputs.
#include "kernels/concat/concat.h"
#include "kernels/common/isa.h"

#if TF_HAVE_DSP

#include "kernels/concat/concat_rows.h"

extern "C" void s8_concat__dsp(const s8_concat_params* params, const int8_t* const* inputs,
                               int8_t* output) {
  namespace kn = tinyforge::kernels;
  kn::ConcatRows<kn::ConcatMemcpy, kn::ConcatLut<&s8_lut__dsp>>(*params, inputs, output);
}

#endif  // TF_HAVE_DSP
