// FULLY_CONNECTED for Cortex-M4/M7/M33 (DSP extension). Bit-identical to s8_fc__ref.
//
// Batch 1 (a GEMV, kernels/fc/dsp_fc.h): the input row is widened once to int16 pairs with
// the input offset added; blocks of 4 weight rows (then 2, 1) stream past it, one LDRD of the
// widened input feeding 4 rows (21 instructions per 16 MACs). Requantization: when every
// shift is in [-20, -1] and every multiplier 0 or >= 2^30 (the usual case), the exact
// shortcut of dsp_fc.h (QADD, SMMLAR/SMMLA with the output offset folded in, ASR, SSAT);
// otherwise the general forms of kernels/conv/dsp_gemm.h.
// Batches >= 2: input rows in pairs, widened once, every pair of weight rows streaming past
// them (kernels/conv/dsp_gemm.h: 2 x 2 SMLAD blocks, 1 x 2 for a single row).
// Scratch (fc.inc): two widened rows (batch 1 uses half of it).
#include "kernels/fc/fc.h"

#if defined(__ARM_FEATURE_DSP)

#include "kernels/conv/dsp_gemm.h"
#include "kernels/fc/dsp_fc.h"

namespace {

namespace dsp = tinyforge::dsp;
namespace dfc = tinyforge::dspfc;

template <int kMode, bool kFull>
void Run(const s8_fc_params& p, const int8_t* input, const int8_t* weights, const int32_t* bias,
         int8_t* output, uint32_t* ext) {
  const int32_t k = p.in_features;
  const dsp::OutQ oq{p.output_offset, p.act_min, p.act_max};
  const int32_t q_step = p.per_channel ? 1 : 0;
  for (int32_t b = 0; b < p.batches; b += 2) {
    const int32_t np = p.batches - b < 2 ? p.batches - b : 2;
    dsp::Widen(input + b * k, k, p.input_offset, ext);
    if (np == 2) dsp::Widen(input + (b + 1) * k, k, p.input_offset, ext + 2);
    dsp::Tile2<kMode, kFull>(ext, np, weights, k, bias, p.multiplier, p.shift, q_step,
                        p.out_features, oq, output + b * p.out_features);
  }
}

// ---- batch 1 ----

// Requantization of one output channel: the fast shortcuts (kFastDouble / kFastSingle,
// dsp_fc.h) or dsp_gemm.h's general modes (dsp::kRq*).
constexpr int kFastDouble = 16;
constexpr int kFastSingle = 17;
alignas(8) constexpr int32_t kZeroBias[4] = {0, 0, 0, 0};

template <int kMode>
constexpr bool IsFast() {
  return kMode == kFastDouble || kMode == kFastSingle;
}

template <int kMode>
struct Q {
  dfc::FastQ f;
  dsp::ChanQ c;
};

template <int kMode>
inline Q<kMode> MakeQ(int32_t m, int32_t s, int32_t output_offset) {
  Q<kMode> q{};
  if constexpr (IsFast<kMode>()) {
    q.f = dfc::MakeFastQ(m, s, output_offset);
  } else {
    q.c = dsp::MakeChanQ<kMode>(m, s);
  }
  return q;
}

template <int kMode, bool kFull>
inline int8_t Out(int32_t acc, const Q<kMode>& q, int32_t output_offset, int32_t act_min,
                  int32_t act_max) {
  if constexpr (IsFast<kMode>()) {
    int32_t v = __ssat(dfc::FastRequant<kMode == kFastSingle>(acc, q.f), 8);
    if constexpr (!kFull) {
      v = v < act_min ? act_min : v;
      v = v > act_max ? act_max : v;
    }
    return static_cast<int8_t>(v);
  } else {
    return dsp::Finish<kMode, kFull>(acc, q.c, dsp::OutQ{output_offset, act_min, act_max});
  }
}

// out[o] for o < n: widened input x (k inputs), weight rows w. Everything the loops need is
// a local (the dot-product asm clobbers memory; nothing here is reloaded because of it).
// kPerChannel: one (multiplier, shift) per row, else entry 0 for every row.
template <int kMode, bool kFull, bool kPerChannel>
void Gemv(const uint32_t* x, const int8_t* w, const int32_t* bias, int8_t* out, int32_t k,
          int32_t n, const int32_t* mult, const int32_t* shift, int32_t oo, int32_t lo,
          int32_t hi) {
  const int32_t g = k >> 2;
  const int32_t r = k & 3;
  const int32_t k3 = 3 * k;
  const uint32_t* xt = x + 2 * g;
  const Q<kMode> qt = MakeQ<kMode>(mult[0], shift[0], oo);
  const int32_t* b = bias != nullptr ? bias : kZeroBias;
  const int32_t b_step = bias != nullptr ? 4 : 0;
  // The dot products leave w 4g bytes into its first row.
  const int32_t w_step = 4 * k - 4 * g;
  const int32_t* qm = mult;
  const int32_t* qs = shift;
  int8_t* const end4 = out + (n & ~3);
  for (; out != end4; out += 4) {
    int32_t a0, a1, a2, a3;
    dfc::Dot4(x, w, k, k3, g, b, a0, a1, a2, a3);
    if (r != 0) {
      a0 += dfc::TailDot(xt, w, r);
      a1 += dfc::TailDot(xt, w + k, r);
      a2 += dfc::TailDot(xt, w + 2 * k, r);
      a3 += dfc::TailDot(xt, w + k3, r);
    }
    w += w_step;
    b += b_step;
    if constexpr (kPerChannel) {
      out[0] = Out<kMode, kFull>(a0, MakeQ<kMode>(qm[0], qs[0], oo), oo, lo, hi);
      out[1] = Out<kMode, kFull>(a1, MakeQ<kMode>(qm[1], qs[1], oo), oo, lo, hi);
      out[2] = Out<kMode, kFull>(a2, MakeQ<kMode>(qm[2], qs[2], oo), oo, lo, hi);
      out[3] = Out<kMode, kFull>(a3, MakeQ<kMode>(qm[3], qs[3], oo), oo, lo, hi);
      qm += 4;
      qs += 4;
    } else {
      out[0] = Out<kMode, kFull>(a0, qt, oo, lo, hi);
      out[1] = Out<kMode, kFull>(a1, qt, oo, lo, hi);
      out[2] = Out<kMode, kFull>(a2, qt, oo, lo, hi);
      out[3] = Out<kMode, kFull>(a3, qt, oo, lo, hi);
    }
  }
  const int32_t c = kPerChannel ? 1 : 0;
  if ((n & 2) != 0) {
    int32_t a0, a1;
    dfc::Dot2(x, w, k, g, b, a0, a1);
    if (r != 0) {
      a0 += dfc::TailDot(xt, w, r);
      a1 += dfc::TailDot(xt, w + k, r);
    }
    w += w_step - 2 * k;
    b += b_step / 2;
    out[0] = Out<kMode, kFull>(a0, MakeQ<kMode>(qm[0], qs[0], oo), oo, lo, hi);
    out[1] = Out<kMode, kFull>(a1, MakeQ<kMode>(qm[c], qs[c], oo), oo, lo, hi);
    out += 2;
    qm += 2 * c;
    qs += 2 * c;
  }
  if ((n & 1) != 0) {
    int32_t a0;
    dfc::Dot1(x, w, g, b, a0);
    if (r != 0) a0 += dfc::TailDot(xt, w, r);
    out[0] = Out<kMode, kFull>(a0, MakeQ<kMode>(qm[0], qs[0], oo), oo, lo, hi);
  }
}

template <int kMode, bool kFull>
void GemvCall(const s8_fc_params& p, const uint32_t* x, const int8_t* weights,
              const int32_t* bias, int8_t* output) {
  if (p.per_channel) {
    Gemv<kMode, kFull, true>(x, weights, bias, output, p.in_features, p.out_features,
                             p.multiplier, p.shift, p.output_offset, p.act_min, p.act_max);
  } else {
    Gemv<kMode, kFull, false>(x, weights, bias, output, p.in_features, p.out_features,
                              p.multiplier, p.shift, p.output_offset, p.act_min, p.act_max);
  }
}

struct Call {
  const s8_fc_params& p;
  const int8_t* input;
  const int8_t* weights;
  const int32_t* bias;
  int8_t* output;
  uint32_t* ext;
  template <int kMode, bool kFull>
  void operator()() const {
    if (p.batches == 1) {
      GemvCall<kMode, kFull>(p, ext, weights, bias, output);
    } else {
      Run<kMode, kFull>(p, input, weights, bias, output, ext);
    }
  }
};

}  // namespace

extern "C" void s8_fc__dsp(const s8_fc_params* params, const int8_t* input, const int8_t* weights,
                           const int32_t* bias, int8_t* output, void* scratch) {
  const s8_fc_params& p = *params;
  const uintptr_t base = (reinterpret_cast<uintptr_t>(scratch) + 7u) & ~uintptr_t{7};
  uint32_t* ext = reinterpret_cast<uint32_t*>(base);
  const int32_t n_q = p.per_channel ? p.out_features : 1;
  if (p.batches == 1) {
    dfc::WidenDense(input, p.in_features, p.input_offset, ext);
    if (dfc::FastOk(p.multiplier, p.shift, n_q)) {
      const bool full = p.act_min == -128 && p.act_max == 127;
      if (p.rounding == TF_ROUNDING_SINGLE) {
        full ? GemvCall<kFastSingle, true>(p, ext, weights, bias, output)
             : GemvCall<kFastSingle, false>(p, ext, weights, bias, output);
      } else {
        full ? GemvCall<kFastDouble, true>(p, ext, weights, bias, output)
             : GemvCall<kFastDouble, false>(p, ext, weights, bias, output);
      }
      return;
    }
  }
  dsp::Dispatch(p.shift, n_q, p.rounding, p.act_min, p.act_max,
                Call{p, input, weights, bias, output, ext});
}

#endif  // __ARM_FEATURE_DSP
