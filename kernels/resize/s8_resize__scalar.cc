// RESIZE for any core (no SIMD), bit-identical to s8_resize__ref: repeated output rows
// copied whole (resize_rows.h); nearest pixels copied by words; bilinear with the four
// weights of a pixel computed once and the rounding as a shift.
#include "kernels/resize/resize_rows.h"

namespace {
namespace rs = tinyforge::resize;

[[gnu::noinline]] void BilinearRow(const s8_resize_params& p, const int8_t* r0, const int8_t* r1,
                                   int32_t wy, const int32_t* cols, int8_t* out) {
  const int32_t c = p.channels;
  const int32_t one = TF_RESIZE_ONE;
  for (int32_t x = 0; x < p.output_w; ++x, cols += 3) {
    const int32_t wx = cols[2];
    const int32_t w00 = (one - wy) * (one - wx), w10 = wy * (one - wx);
    const int32_t w01 = (one - wy) * wx, w11 = wy * wx;
    const int8_t* a = r0 + cols[0] * c;
    const int8_t* b = r1 + cols[0] * c;
    const int8_t* d = r0 + cols[1] * c;
    const int8_t* e = r1 + cols[1] * c;
    for (int32_t k = 0; k < c; ++k) {
      const int32_t s = a[k] * w00 + b[k] * w10 + d[k] * w01 + e[k] * w11;
      *out++ = static_cast<int8_t>(rs::RoundSum(s));
    }
  }
}

}  // namespace

extern "C" void s8_resize__scalar(const s8_resize_params* params, const int8_t* input,
                                  const int32_t* table, int8_t* output) {
  const s8_resize_params& p = *params;
  if (p.bilinear) {
    rs::ForEachRow(
        p, input, table, output,
        [&](const int8_t* r0, const int8_t* r1, int32_t wy, const int32_t* cols, int8_t* out) {
          BilinearRow(p, r0, r1, wy, cols, out);
        },
        rs::CopyBytes);
  } else {
    rs::ForEachRow(
        p, input, table, output,
        [&](const int8_t* r0, const int8_t*, int32_t, const int32_t* cols, int8_t* out) {
          rs::NearestRowScalar(p, r0, cols, out);
        },
        rs::CopyBytes);
  }
}
