// s8_mean__mve's path for 2..16 channels over at most 256 rows (mve_mean.h; linked on
// demand, mean.inc): SqueezeNet's global mean of 10 class maps of 5x5, a two-input model's
// 16-channel mean.
//
// Each outer block of C channels is summed in one (C <= 8) or two int16x8 accumulators, one
// widening load and one add per 8 inputs, with plain loads while the 8 or 16 bytes from a
// row's start stay inside the block (the lanes past C gather the next row's bytes and are
// never stored) and predicated loads for the last rows; the int16 sums go straight to the
// outputs (Store8). Not taken for positive output shifts (the dispatcher's test; no scalar
// requantization step here). 5 + 1 instructions a row for 9..16 channels, against 9 and the set-up of the
// 32-channel pass in the dispatcher's loops (squeezenet's op: 544 -> 388 instructions).
#include "kernels/common/isa.h"
#include "kernels/mean/mean.h"

#if TF_HAVE_MVE

#include "kernels/mean/mve_mean.h"

namespace {

// Eight int16 sums to the outputs (`pr`: the channels wanted); out of line, one copy.
__attribute__((noinline)) void Put8(const Req& q, int16x8_t a, int8_t* out, mve_pred16_t pr) {
  Store8(q, a, out, pr);
}

// One outer block: R rows of C channels (2 <= C <= 16, R <= kChunk) from `in`.
void Block(const Req& q, const int8_t* in, int8_t* out, int32_t R,
           int32_t C) {
  const mve_pred16_t p0 = vctp16q(static_cast<uint32_t>(C));
  int16x8_t a0 = vdupq_n_s16(0), a1 = a0;
  int32_t r = 0;
  if (C <= 8) {
    const int32_t safe = R - (8 + C - 1) / C + 1;  // rows r with r * C + 8 <= R * C
    for (; r < safe; ++r, in += C) a0 = vaddq_s16(a0, vldrbq_s16(in));
    for (; r < R; ++r, in += C) a0 = vaddq_s16(a0, vldrbq_z_s16(in, p0));
    Put8(q, a0, out, p0);
    return;
  }
  const mve_pred16_t p1 = vctp16q(static_cast<uint32_t>(C - 8));
  const int32_t safe = R - (16 + C - 1) / C + 1;  // rows r with r * C + 16 <= R * C
  for (; r < safe; ++r, in += C) {
    a0 = vaddq_s16(a0, vldrbq_s16(in));
    a1 = vaddq_s16(a1, vldrbq_s16(in + 8));
  }
  for (; r < R; ++r, in += C) {
    a0 = vaddq_s16(a0, vldrbq_s16(in));
    a1 = vaddq_s16(a1, vldrbq_z_s16(in + 8, p1));
  }
  Put8(q, a0, out, p0);
  Put8(q, a1, out + 8, p1);
}

}  // namespace

extern "C" void s8_mean__mve__few(const s8_mean_params* params, const int8_t* input,
                                  int8_t* output) {
  const s8_mean_params& p = *params;
  const Req q = MakeReq(p, mean::ZeroPointSum(p));
  const int32_t R = p.reduce_size, C = p.inner;
  for (int32_t o = 0; o < p.outer; ++o) Block(q, input + o * R * C, output + o * C, R, C);
}

#endif  // TF_HAVE_MVE
