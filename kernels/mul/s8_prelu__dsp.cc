// PRELU for Cortex-M4/M7/M33 (DSP extension), bit-identical to s8_prelu__ref.
//
// Single rounding (PyTorch graphs), as s8_mul__dsp's: a requantization with shift s of a
// product P is SSAT8((Ra + hi32((P << L) * M)) >> 16) with L = 17 + s and Ra = 2^15 +
// output_offset * 2^16 (SMMLA, then SSAT with ASR #16), exact while P << L fits in 31 bits.
// Per element, x' = x + input_offset:
//   x' >= 0: P = x' (< 2^8), L1 = 17 + s1 in [0, 22]: the positive side's multiplier s_in /
//            s_out is near 1 (s1 around 0);
//   x' <  0: P = x' * (a + alpha_offset) (|P| < 2^16), L2 = 17 + s2 in [0, 14]: s_in *
//            s_slope / s_out is small (s2 around -9).
// Rows whose input is dense and whose slopes are dense (one per channel: NHWC's innermost
// dim) or one value; an input dense over the whole tensor with one slope row is one call.
// Other calls (double rounding: .tflite models; shifts out of those ranges; a broadcast
// input) run __ref. Each element is read before its output is stored: in place as __ref.
#include "kernels/common/isa.h"
#include "kernels/mul/mul.h"

#if TF_HAVE_DSP

#include "kernels/common/broadcast.h"
#include "kernels/common/word.h"

namespace {

using tinyforge::dsp::Sat8Shr16;
using tinyforge::dsp::Smmla;

struct Fast {
  int32_t io, ao, l1, l2, m1, m2, ra;
};

// `rows` rows of n outputs, each row's slopes the same: dense (kPerLane) or alpha[0] for
// all. (The constants copied once: the stores could alias ff as far as GCC knows.)
template <bool kPerLane>
[[gnu::noinline]] void Rows(const Fast& ff, const int8_t* x, const int8_t* alpha, int8_t* y,
                            int32_t rows, int32_t n) {
  const Fast f = ff;
  const int32_t one = (alpha[0] + f.ao) * (1 << f.l2);
  for (int32_t r = 0; r < rows; ++r, x += n, y += n) {
    for (int32_t i = 0; i < n; ++i) {
      const int32_t xp = x[i] + f.io;
      int32_t h;
      if (xp >= 0) {
        h = Smmla(xp << f.l1, f.m1, f.ra);
      } else {
        const int32_t a = kPerLane ? (alpha[i] + f.ao) * (1 << f.l2) : one;
        h = Smmla(xp * a, f.m2, f.ra);
      }
      y[i] = static_cast<int8_t>(Sat8Shr16(h));
    }
  }
}

}  // namespace

extern "C" void s8_prelu__dsp(const s8_prelu_params* params, const int8_t* input,
                              const int8_t* alpha, int8_t* output) {
  const s8_prelu_params& p = *params;
  const int32_t s1 = p.shape.in1_strides[5], s2 = p.shape.in2_strides[5];
  const int32_t l1 = 17 + p.output_shift_1, l2 = 17 + p.output_shift_2;
  if (p.rounding != TF_ROUNDING_SINGLE || s1 != 1 || (s2 != 0 && s2 != 1) || l1 < 0 ||
      l1 > 22 || l2 < 0 || l2 > 14) {
    s8_prelu__ref(params, input, alpha, output);
    return;
  }
  const Fast f{p.input_offset, p.alpha_offset, l1, l2, p.output_multiplier_1,
               p.output_multiplier_2, (1 << 15) + p.output_offset * (1 << 16)};
  auto rows = [&](const int8_t* x, const int8_t* a, int8_t* y, int32_t r, int32_t n) {
    if (s2 == 1) {
      Rows<true>(f, x, a, y, r, n);
    } else {
      Rows<false>(f, x, a, y, r, n);
    }
  };
  int32_t n_rows, inner;
  if (tinyforge::kernels::RowsOfInner(p.shape, &n_rows, &inner)) {
    rows(input, alpha, output, n_rows, inner);
    return;
  }
  tinyforge::kernels::ForEachBroadcastRow(p.shape, [&](int32_t a, int32_t b, int32_t o, int32_t n) {
    rows(input + a, alpha + b, output + o, 1, n);
  });
}

#endif  // TF_HAVE_DSP
