// s8_dwconv__dsp__any: s8_dwconv__dsp's lanes path for any kernel but 3x3 undilated (5x5:
// MobileNetV3, EfficientNet; dilated; up to 64 taps; depth multiplier 1, channels a multiple of
// 4), a path linked on demand (kernels/common/paths.h, dwconv.inc; dsp_lanes.inc).
#include "kernels/common/isa.h"
#include "kernels/dwconv/dwconv.h"

#if TF_HAVE_DSP

#include <arm_acle.h>

#include "kernels/common/fixed_point.h"
#include "kernels/common/word.h"
#include "kernels/dwconv/dsp_dwconv.h"

namespace {

using tinyforge::LoadWord;
using tinyforge::dsp::Sxtb16Ror8;

namespace fx = tinyforge::fx;

#include "kernels/dwconv/dsp_lanes.inc"

}  // namespace

void tinyforge::dwconv_dsp::s8_dwconv__dsp__any(const s8_dwconv_params& p,
                                                const int8_t* input, const int8_t* weights,
                                                const int32_t* bias, int8_t* output) {
  RunLanesBatches<true>(p, input, weights, bias, output);
}

#endif  // TF_HAVE_DSP
