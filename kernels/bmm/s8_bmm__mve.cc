// BATCH_MATMUL for Cortex-M55 (Helium/MVE). Bit-identical to s8_bmm__ref.
//
// kernels/bmm/bmm_pack.h's frame; both operands stay int8: 2 lhs rows x 2 rhs rows per
// block through kernels/common/gemm/mve_gemm.h's Dot2x2 (a tail-predicated VMLADAVA loop,
// each loaded 16-byte vector feeding 2 VMLADAVAs), one requantization and one scatter store
// of the 4 results. The offsets enter as sum = dot + rhs_offset * (rowsum(lhs_i) + depth *
// lhs_offset) + lhs_offset * colsum(rhs_j): the per-row terms (one vector per row pair) and
// the per-column terms (Dot2x2's start values) are computed once per batch into scratch.
#include "kernels/bmm/bmm.h"
#include "kernels/common/isa.h"

#if TF_HAVE_MVE

#include "kernels/bmm/bmm_pack.h"
#include "kernels/common/gemm/mve_gemm.h"

namespace {

namespace mve = tinyforge::mve;
namespace bm = tinyforge::bmm;

template <int kMode>
void Run(const s8_bmm_params& p, const int8_t* lhs, const int8_t* rhs, int8_t* output,
         void* scratch) {
  const int32_t m = p.rows, k = p.depth, n = p.cols;
  int32_t* row_term = static_cast<int32_t*>(bm::After(scratch, p, 4));
  int32_t* col_term = row_term + m;
  mve::Out4<kMode> o;
  o.mult = &p.multiplier;
  o.shift = &p.shift;
  o.q[0] = o.q[1] = o.q[2] = o.q[3] = 0;
  o.output_offset = p.output_offset;
  o.act_min = p.act_min;
  o.act_max = p.act_max;
  o.rounding = p.rounding;
  if constexpr (kMode != mve::kRqPerElement) {
    o.m = vdupq_n_s32(p.multiplier);
    o.s = vdupq_n_s32(p.shift);
  }
  const mve::Preds pr = mve::MakePreds();
  const uint32_t un = static_cast<uint32_t>(n);
  const uint32x4_t o_off = mve::Lanes4u(0, 1, un, un + 1);
  bm::ForEachBatch(p, lhs, rhs, output, bm::Pack(scratch),
                   [&](const int8_t* a, const int8_t* bt, int8_t* out) {
    for (int32_t i = 0; i < m; ++i) {
      row_term[i] = bm::OffsetTerm(mve::SumS8(a + i * k, k), k, p.lhs_offset, p.rhs_offset);
    }
    for (int32_t j = 0; j < n; ++j) {
      col_term[j] = bm::OffsetTerm(mve::SumS8(bt + j * k, k), 0, 0, p.lhs_offset);
    }
    for (int32_t i = 0; i < m; i += 2) {
      const bool two = i + 1 < m;
      const int8_t* c0 = a + i * k;
      const int8_t* c1 = two ? c0 + k : c0;
      const int32x4_t rows = mve::Lanes(row_term[i], row_term[i], row_term[i + (two ? 1 : 0)],
                                        row_term[i + (two ? 1 : 0)]);
      int8_t* dst = out + i * n;
      int32_t j = 0;
      if (two) {
        for (; j + 1 < n; j += 2) {
          const int8_t* w0 = bt + j * k;
          o.Store(vaddq_s32(mve::Dot2x2(c0, c1, w0, w0 + k, k, col_term[j], col_term[j + 1]),
                            rows),
                  dst + j, o_off);
        }
        if (j < n) {
          const int8_t* w0 = bt + j * k;
          o.StoreP(vaddq_s32(mve::Dot2x2(c0, c1, w0, w0, k, col_term[j], col_term[j]), rows),
                   dst + j, o_off, 0x5, pr.first_c);
        }
      } else {
        for (; j + 1 < n; j += 2) {
          const int8_t* w0 = bt + j * k;
          o.StoreP(vaddq_s32(mve::Dot2x2(c0, c0, w0, w0 + k, k, col_term[j], col_term[j + 1]),
                             rows),
                   dst + j, o_off, 0x3, pr.first_px);
        }
        if (j < n) {
          const int8_t* w0 = bt + j * k;
          o.StoreP(vaddq_s32(mve::Dot2x2(c0, c0, w0, w0, k, col_term[j], col_term[j]), rows),
                   dst + j, o_off, 0x1, pr.first_both);
        }
      }
    }
  });
}

}  // namespace

extern "C" void s8_bmm__mve(const s8_bmm_params* params, const int8_t* lhs, const int8_t* rhs,
                            int8_t* output, void* scratch) {
  const s8_bmm_params& p = *params;
  switch (mve::ChooseMode(&p.shift, 1, p.rounding)) {
    case mve::kRqDoubleNeg:
      Run<mve::kRqDoubleNeg>(p, lhs, rhs, output, scratch);
      break;
    case mve::kRqSingleNeg:
      Run<mve::kRqSingleNeg>(p, lhs, rhs, output, scratch);
      break;
    default:  // rare (a scale >= 0.5): per-element requantization, either rounding
      Run<mve::kRqPerElement>(p, lhs, rhs, output, scratch);
      break;
  }
}

#endif  // TF_HAVE_MVE
