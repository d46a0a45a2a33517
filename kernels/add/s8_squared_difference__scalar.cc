// SQUARED_DIFFERENCE for every core (no SIMD needed), bit-identical to
// s8_squared_difference__ref: each input's rescaled value depends on its byte only, so for
// outputs of at least kLutMinElements two 256-entry tables (2 KiB of stack, built with the
// reference arithmetic) replace the input stages; the output stage stays per element.
#include "kernels/add/add.h"
#include "kernels/common/broadcast.h"
#include "kernels/common/fixed_point.h"

namespace {

namespace fx = tinyforge::fx;

constexpr int32_t kLutMinElements = 512;

inline int32_t Rescale(const s8_add_params& p, int32_t offset, int32_t x, int32_t m, int32_t s) {
  return fx::RequantizeSmallerThanOne(fx::WrapShiftLeft(offset + x, p.left_shift), m, s,
                                      p.rounding);
}

}  // namespace

extern "C" void s8_squared_difference__scalar(const s8_add_params* params, const int8_t* input1,
                                              const int8_t* input2, int8_t* output) {
  const s8_add_params& p = *params;
  int32_t total = 1;
  for (int d = 0; d < kS8BroadcastMaxDims; ++d) total *= p.shape.out_dims[d];
  if (total < kLutMinElements) {
    s8_squared_difference__ref(params, input1, input2, output);
    return;
  }
  int32_t lut1[256], lut2[256];
  for (int32_t v = 0; v < 256; ++v) {
    const int32_t x = static_cast<int8_t>(v);
    lut1[v] = Rescale(p, p.input1_offset, x, p.input1_multiplier, p.input1_shift);
    lut2[v] = Rescale(p, p.input2_offset, x, p.input2_multiplier, p.input2_shift);
  }
  const uint8_t* u1 = reinterpret_cast<const uint8_t*>(input1);
  const uint8_t* u2 = reinterpret_cast<const uint8_t*>(input2);
  const int32_t mo = p.output_multiplier, so = p.output_shift, off = p.output_offset;
  const int32_t lo = p.act_min, hi = p.act_max, rounding = p.rounding;
  tinyforge::kernels::ForEachBroadcast(p.shape, [&](int32_t i1, int32_t i2, int32_t o) {
    const int32_t d = fx::WrapSub(lut1[u1[i1]], lut2[u2[i2]]);
    const int32_t y = fx::WrapAdd(fx::Requantize(fx::WrapMul(d, d), mo, so, rounding), off);
    output[o] = static_cast<int8_t>(fx::Clamp(y, lo, hi));
  });
}
