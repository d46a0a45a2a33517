// Portable reference float32 layer norm (and RMS norm) over rows of `depth` elements: the
// statistics in double in element order, each output in double rounded once (f32_math.h's
// square root: no libm).
#include "kernels/f32/f32.h"
#include "kernels/f32/f32_math.h"
#include "kernels/f32/f32_scalar.h"

extern "C" TF_F32_NO_VECTORIZE void f32_layernorm__ref(const f32_layernorm_params* params,
                                                       const float* x, const float* weight,
                                                       const float* bias, float* y) {
  const f32_layernorm_params& p = *params;
  using tinyforge::kernels::f32::Sqrt;
  for (int32_t r = 0; r < p.rows; ++r) {
    const float* in = x + r * p.depth;
    float* out = y + r * p.depth;
    double mean = 0.0;
    if (!p.rms) {
      for (int32_t d = 0; d < p.depth; ++d) mean += static_cast<double>(in[d]);
      mean /= p.depth;
    }
    double var = 0.0;
    for (int32_t d = 0; d < p.depth; ++d) {
      const double c = static_cast<double>(in[d]) - mean;
      var += c * c;
    }
    const double inv = 1.0 / Sqrt(var / p.depth + static_cast<double>(p.eps));
    for (int32_t d = 0; d < p.depth; ++d) {
      out[d] = static_cast<float>((static_cast<double>(in[d]) - mean) * inv *
                                      static_cast<double>(weight[d]) +
                                  static_cast<double>(bias[d]));
    }
  }
}
