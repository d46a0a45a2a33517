// BATCH_MATMUL for Cortex-M55 (Helium/MVE). Bit-identical to s8_bmm__ref.
//
// Depth <= 32 under single rounding with the int8 range as the clamp (attention heads): the
// stationary-rhs loops of kernels/bmm/mve_bmm_small.h. Otherwise kernels/bmm/bmm_pack.h's
// frame; both operands stay int8: 2 lhs rows x 2 rhs rows per block through
// kernels/common/gemm/mve_gemm.h's Dot2x2 (a tail-predicated VMLADAVA loop, each loaded
// 16-byte vector feeding 2 VMLADAVAs), one requantization and one scatter store of the 4
// results. The offsets enter as sum = dot + rhs_offset * (rowsum(lhs_i) + depth *
// lhs_offset) + lhs_offset * colsum(rhs_j): the per-row terms (one vector per row pair) and
// the per-column terms (Dot2x2's start values) are computed once per batch into scratch.
#include "kernels/bmm/bmm.h"
#include "kernels/common/isa.h"

#if TF_HAVE_MVE

#include "kernels/bmm/bmm_pack.h"
#include "kernels/bmm/mve_bmm_small.h"
#include "kernels/common/gemm/mve_gemm.h"

namespace {

namespace mve = tinyforge::mve;
namespace bm = tinyforge::bmm;
namespace sm = tinyforge::bmm_small;

// Rows [i0, i1) x columns [j0, j1) of one batch by 2 x 2 blocks: lhs row i at a + i * a_step
// (k bytes) with its offset term at row_term + i * t_step (bytes); rhs row j at bt + j * b_step
// with its column term col_term[j].
struct Operands {
  const int8_t* a;
  int32_t a_step;
  const int8_t* row_term;
  int32_t t_step;
  const int8_t* bt;
  int32_t b_step;
  const int32_t* col_term;
  int32_t RowTerm(int32_t i) const {
    return *reinterpret_cast<const int32_t*>(row_term + i * t_step);
  }
};

template <int kMode>
void Region(const Operands& x, const mve::Out4<kMode>& o, const mve::Preds& pr, uint32x4_t o_off,
            int32_t k, int32_t n, int32_t i0, int32_t i1, int32_t j0, int32_t j1, int8_t* out) {
  for (int32_t i = i0; i < i1; i += 2) {
    const bool two = i + 1 < i1;
    const int32_t i2 = two ? i + 1 : i;
    const int8_t* c0 = x.a + i * x.a_step;
    const int8_t* c1 = x.a + i2 * x.a_step;
    const int32_t r0 = x.RowTerm(i), r1 = x.RowTerm(i2);
    const int32x4_t rows = mve::Lanes(r0, r0, r1, r1);
    int8_t* dst = out + i * n;
    int32_t j = j0;
    for (; j + 1 < j1; j += 2) {
      const int8_t* w0 = x.bt + j * x.b_step;
      const int32x4_t acc = vaddq_s32(
          mve::Dot2x2(c0, c1, w0, w0 + x.b_step, k, x.col_term[j], x.col_term[j + 1]), rows);
      if (two) {
        o.Store(acc, dst + j, o_off);
      } else {
        o.StoreP(acc, dst + j, o_off, 0x3, pr.first_px);
      }
    }
    if (j < j1) {
      const int8_t* w0 = x.bt + j * x.b_step;
      const int32x4_t acc =
          vaddq_s32(mve::Dot2x2(c0, c1, w0, w0, k, x.col_term[j], x.col_term[j]), rows);
      if (two) {
        o.StoreP(acc, dst + j, o_off, 0x5, pr.first_c);
      } else {
        o.StoreP(acc, dst + j, o_off, 0x1, pr.first_both);
      }
    }
  }
}

template <int kMode>
mve::Out4<kMode> MakeOut(const s8_bmm_params& p) {
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
  return o;
}

template <int kMode>
void Run(const s8_bmm_params& p, const int8_t* lhs, const int8_t* rhs, int8_t* output,
         void* scratch) {
  const int32_t m = p.rows, k = p.depth, n = p.cols;
  int32_t* row_term = static_cast<int32_t*>(bm::After(scratch, p, 4));
  int32_t* col_term = row_term + m;
  const mve::Out4<kMode> o = MakeOut<kMode>(p);
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
    const Operands x{a, k, reinterpret_cast<const int8_t*>(row_term), 4, bt, k, col_term};
    Region<kMode>(x, o, pr, o_off, k, n, 0, m, 0, n, out);
  });
}

// The small-depth path (mve_bmm_small.h): s8_bmm_mve_small(p).
void RunSmall(const s8_bmm_params& p, const int8_t* lhs, const int8_t* rhs, int8_t* output,
              void* scratch) {
  constexpr int kMode = mve::kRqSingleNeg;
  const int32_t m = p.rows, k = p.depth, n = p.cols;
  const int32_t kp = k <= 16 ? 16 : 32;
  const bool rhs_in_place = p.rhs_transposed && k == kp;
  int8_t* rpack = bm::Pack(scratch);
  int32_t* col_term = reinterpret_cast<int32_t*>(rpack + (rhs_in_place ? 0 : n * kp));
  int8_t* lpack = reinterpret_cast<int8_t*>(col_term + n);
  const int32_t lstep = kp + 4;
  const int32_t nsh = -p.shift;
  const int32_t rc = static_cast<int32_t>(static_cast<uint32_t>(p.output_offset) << nsh) +
                     (int32_t{1} << (nsh - 1));
  const int32_t rs = 24 - nsh;
  const int32x4_t mv = vdupq_n_s32(p.multiplier);
  const uint32_t un = static_cast<uint32_t>(n);
  const uint32x4_t o_off = mve::Lanes4u(0, 1, un, un + 1);
  const mve::Out4<kMode> o = MakeOut<kMode>(p);
  const mve::Preds pr = mve::MakePreds();
  // Column j's offset term o_l * colsum, and the lhs rows' o_r * (rowsum + k * o_l).
  const int32_t row_add = static_cast<int32_t>(static_cast<uint32_t>(k) *
                                               static_cast<uint32_t>(p.lhs_offset) *
                                               static_cast<uint32_t>(p.rhs_offset));
  const int8_t* bt = rpack;
  for (int32_t b = 0; b < p.batches; ++b) {
    const int8_t* a = lhs + (b % p.lhs_batches) * m * k;
    int8_t* out = output + b * m * n;
    if (b == 0 || p.rhs_batches != 1) {
      const int8_t* r = rhs + (b % p.rhs_batches) * k * n;
      if (rhs_in_place) {
        bt = r;
        for (int32_t j = 0; j < n; ++j) {
          col_term[j] = bm::OffsetTerm(mve::SumS8(r + j * k, k), 0, 0, p.lhs_offset);
        }
      } else {  // [cols, depth] rows read at stride 1, [depth, cols] columns at stride cols
        sm::PackRows(r, n, p.rhs_transposed ? k : 1, p.rhs_transposed ? 1 : n, k, kp, rpack,
                     kp, reinterpret_cast<int8_t*>(col_term), 4, p.lhs_offset, 0);
      }
    }
    for (int32_t i0 = 0; i0 < m; i0 += sm::kChunk) {
      const int32_t rows = m - i0 < sm::kChunk ? m - i0 : sm::kChunk;
      // lhs [rows, depth] row i at i * k (stride 1), or [depth, rows]: column i, stride rows.
      const int8_t* src = p.lhs_transposed ? a + i0 : a + i0 * k;
      sm::PackRows(src, rows, p.lhs_transposed ? 1 : k, p.lhs_transposed ? m : 1, k, kp, lpack,
                   lstep, lpack + kp, lstep, p.rhs_offset, row_add);
      int8_t* dst = out + i0 * n;
      const Operands x{lpack, lstep, lpack + kp, lstep, bt, kp, col_term};
      int32_t j = 0;
      if (kp == 16) {
        for (; j + 4 <= n; j += 4) {
          sm::Cols4(lpack, rows, bt + j * kp, vld1q_s32(col_term + j), mv, rc, rs, dst + j, n);
        }
        if (j < n) Region<kMode>(x, o, pr, o_off, k, n, 0, rows, j, n, dst);
      } else {
        const int32_t pairs = rows >> 1;
        if (pairs > 0) {
          for (; j + 2 <= n; j += 2) {
            sm::Cols2(lpack, pairs, bt + j * kp,
                      mve::Lanes(col_term[j], col_term[j + 1], col_term[j], col_term[j + 1]),
                      o_off, p.multiplier, rc, rs, dst + j, 2 * n);
          }
        }
        if (j < n) Region<kMode>(x, o, pr, o_off, k, n, 0, 2 * pairs, j, n, dst);
        if (rows & 1) Region<kMode>(x, o, pr, o_off, k, n, rows - 1, rows, 0, n, dst);
      }
    }
  }
}

}  // namespace

extern "C" void s8_bmm__mve(const s8_bmm_params* params, const int8_t* lhs, const int8_t* rhs,
                            int8_t* output, void* scratch) {
  const s8_bmm_params& p = *params;
  if (s8_bmm_mve_small(p)) {
    RunSmall(p, lhs, rhs, output, scratch);
    return;
  }
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
