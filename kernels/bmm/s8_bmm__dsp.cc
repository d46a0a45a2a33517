// BATCH_MATMUL for Cortex-M4/M7/M33 (DSP extension). Bit-identical to s8_bmm__ref.
//
// kernels/bmm/bmm_pack.h's frame; lhs rows in pairs widened once to interleaved int16 pairs
// with the lhs offset added (dsp::Widen), every pair of rhs rows (int8, split by SXTB16)
// streaming past them: kernels/common/gemm/dsp_gemm.h's 2 x 2 SMLAD blocks (16 MACs per 2
// LDR + 4 SXTB16 + 2 LDRD + 8 SMLAD). The rhs offset's part is a per-lhs-row start value.
#include "kernels/bmm/bmm.h"
#include "kernels/common/isa.h"

#if TF_HAVE_DSP

#include "kernels/bmm/bmm_pack.h"
#include "kernels/common/gemm/dsp_gemm.h"

namespace {

namespace dsp = tinyforge::dsp;
namespace bm = tinyforge::bmm;

template <int kMode, bool kFull>
void Run(const s8_bmm_params& p, const int8_t* lhs, const int8_t* rhs, int8_t* output,
         void* scratch) {
  const int32_t m = p.rows, k = p.depth, n = p.cols;
  const int32_t g = k >> 2, r = k & 3;
  const dsp::OutQ oq{p.output_offset, p.act_min, p.act_max};
  const dsp::ChanQ q = dsp::MakeChanQ<kMode>(p.multiplier, p.shift);
  uint32_t* ext = static_cast<uint32_t*>(bm::After(scratch, p, 8));
  const uint32_t* t0 = ext + 4 * g;  // the tail group of widened row 0 (row 1: t0 + 2)
  bm::ForEachBatch(p, lhs, rhs, output, bm::Pack(scratch),
                   [&](const int8_t* a, const int8_t* bt, int8_t* out) {
    for (int32_t i = 0; i < m; i += 2) {
      const bool two = i + 1 < m;
      dsp::Widen(a + i * k, k, p.lhs_offset, ext);
      if (two) dsp::Widen(a + (i + 1) * k, k, p.lhs_offset, ext + 2);
      const int32_t r0 = bm::OffsetTerm(bm::SumS8(a + i * k, k), k, p.lhs_offset, p.rhs_offset);
      const int32_t r1 =
          two ? bm::OffsetTerm(bm::SumS8(a + (i + 1) * k, k), k, p.lhs_offset, p.rhs_offset) : r0;
      int8_t* o0 = out + i * n;
      int8_t* o1 = o0 + n;
      for (int32_t j = 0; j < n; j += 2) {
        const bool pair = j + 1 < n;
        const int8_t* w0 = bt + j * k;
        const int8_t* w1 = pair ? w0 + k : w0;
        int32_t a00 = r0, a01 = r0, a10 = r1, a11 = r1;
        if (two) {
          if (g > 0) dsp::Dot2x2(ext, w0, w1, g, a00, a01, a10, a11);
          if (r != 0) {
            a10 += dsp::TailDot(t0 + 2, w0 + 4 * g, r);
            a11 += dsp::TailDot(t0 + 2, w1 + 4 * g, r);
          }
          o1[j] = dsp::Finish<kMode, kFull>(a10, q, oq);
          if (pair) o1[j + 1] = dsp::Finish<kMode, kFull>(a11, q, oq);
        } else if (g > 0) {
          dsp::Dot1x2(ext, w0, w1, g, a00, a01);
        }
        if (r != 0) {
          a00 += dsp::TailDot(t0, w0 + 4 * g, r);
          a01 += dsp::TailDot(t0, w1 + 4 * g, r);
        }
        o0[j] = dsp::Finish<kMode, kFull>(a00, q, oq);
        if (pair) o0[j + 1] = dsp::Finish<kMode, kFull>(a01, q, oq);
      }
    }
  });
}

struct Call {
  const s8_bmm_params& p;
  const int8_t* lhs;
  const int8_t* rhs;
  int8_t* output;
  void* scratch;
  template <int kMode, bool kFull>
  void operator()() const {
    Run<kMode, kFull>(p, lhs, rhs, output, scratch);
  }
};

}  // namespace

extern "C" void s8_bmm__dsp(const s8_bmm_params* params, const int8_t* lhs, const int8_t* rhs,
                            int8_t* output, void* scratch) {
  const s8_bmm_params& p = *params;
  dsp::Dispatch(&p.shift, 1, p.rounding, p.act_min, p.act_max,
                Call{p, lhs, rhs, output, scratch});
}

#endif  // TF_HAVE_DSP
