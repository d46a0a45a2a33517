// BATCH_MATMUL for cores without SIMD (Cortex-M0/M3; also built on the host). Bit-identical
// to s8_bmm__ref.
//
// kernels/bmm/bmm_pack.h's frame; lhs rows in pairs widened once to int16 with the lhs
// offset added, every pair of rhs rows (int8) streaming past them in 2 x 2 blocks
// (kernels/common/gemm/scalar_gemm.h's Dot2x2 / Dot1x2); the rhs offset's part enters as a
// per-lhs-row start value of the sums.
#include "kernels/bmm/bmm.h"
#include "kernels/bmm/bmm_pack.h"
#include "kernels/common/gemm/scalar_gemm.h"

namespace {

namespace sc = tinyforge::scalar;
namespace bm = tinyforge::bmm;

template <int kMode>
void Run(const s8_bmm_params& p, const int8_t* lhs, const int8_t* rhs, int8_t* output,
         void* scratch) {
  const int32_t m = p.rows, k = p.depth, n = p.cols;
  const sc::OutQ oq{p.output_offset, p.act_min, p.act_max};
  const sc::ChanQ q = sc::MakeChanQ<kMode>(p.multiplier, p.shift);
  int16_t* ext = static_cast<int16_t*>(bm::After(scratch, p, 4));
  bm::ForEachBatch(p, lhs, rhs, output, bm::Pack(scratch),
                   [&](const int8_t* a, const int8_t* bt, int8_t* out) {
    for (int32_t i = 0; i < m; i += 2) {
      const bool two = i + 1 < m;
      const int16_t* c0 = ext;
      const int16_t* c1 = two ? ext + k : ext;
      sc::Widen(a + i * k, k, p.lhs_offset, ext);
      if (two) sc::Widen(a + (i + 1) * k, k, p.lhs_offset, ext + k);
      const int32_t r0 = bm::OffsetTerm(bm::SumS8(a + i * k, k), k, p.lhs_offset, p.rhs_offset);
      const int32_t r1 =
          two ? bm::OffsetTerm(bm::SumS8(a + (i + 1) * k, k), k, p.lhs_offset, p.rhs_offset) : r0;
      int8_t* o0 = out + i * n;
      int8_t* o1 = o0 + n;
      int32_t j = 0;
      for (; j + 1 < n; j += 2) {
        const int8_t* w0 = bt + j * k;
        int32_t a00 = r0, a01 = r0, a10 = r1, a11 = r1;
        if (two) {
          sc::Dot2x2(c0, c1, w0, w0 + k, k, a00, a01, a10, a11);
          o1[j] = sc::Finish<kMode>(a10, q, oq);
          o1[j + 1] = sc::Finish<kMode>(a11, q, oq);
        } else {
          sc::Dot1x2(c0, w0, w0 + k, k, a00, a01);
        }
        o0[j] = sc::Finish<kMode>(a00, q, oq);
        o0[j + 1] = sc::Finish<kMode>(a01, q, oq);
      }
      if (j < n) {  // the last rhs row alone (w1 = w0; the second sums are dropped)
        const int8_t* w0 = bt + j * k;
        int32_t a00 = r0, a01 = r0, a10 = r1, a11 = r1;
        if (two) {
          sc::Dot2x2(c0, c1, w0, w0, k, a00, a01, a10, a11);
          o1[j] = sc::Finish<kMode>(a10, q, oq);
        } else {
          sc::Dot1x2(c0, w0, w0, k, a00, a01);
        }
        o0[j] = sc::Finish<kMode>(a00, q, oq);
      }
    }
  });
}

}  // namespace

extern "C" void s8_bmm__scalar(const s8_bmm_params* params, const int8_t* lhs,
                               const int8_t* rhs, int8_t* output, void* scratch) {
  const s8_bmm_params& p = *params;
  switch (sc::ChooseMode<false>(&p.shift, 1, p.rounding)) {
    case sc::kRqDoubleNeg:
      Run<sc::kRqDoubleNeg>(p, lhs, rhs, output, scratch);
      break;
    case sc::kRqSingleNeg:
      Run<sc::kRqSingleNeg>(p, lhs, rhs, output, scratch);
      break;
    case sc::kRqSingle:
      Run<sc::kRqSingle>(p, lhs, rhs, output, scratch);
      break;
    default:
      Run<sc::kRqDouble>(p, lhs, rhs, output, scratch);
      break;
  }
}
