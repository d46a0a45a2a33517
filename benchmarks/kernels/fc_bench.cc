// fc rows of the kernel benchmark: the zoo / MLPerf Tiny FULLY_CONNECTED shapes.
#include "benchmarks/kernels/bench_harness.h"

namespace {

void FcCase(tfb::Bench& b, int32_t in_f, int32_t out_f, int32_t batches = 1) {
  s8_fc_params p{};
  p.batches = batches;
  p.in_features = in_f;
  p.out_features = out_f;
  p.input_offset = 0;  // folded into the bias by the compiler
  p.output_offset = -128;
  p.per_channel = 0;
  p.act_min = -128;
  p.act_max = 127;
  p.rounding = TF_ROUNDING_DOUBLE;
  int8_t* in = b.Alloc<int8_t>(batches * in_f);
  int8_t* w = b.Alloc<int8_t>(in_f * out_f);
  int32_t* bias = b.Alloc<int32_t>(out_f);
  int32_t* mult = b.Alloc<int32_t>(1);
  int32_t* shift = b.Alloc<int32_t>(1);
  int8_t* out = b.Alloc<int8_t>(batches * out_f);
  b.rng.Fill(in, batches * in_f);
  b.rng.Fill(w, in_f * out_f);
  b.rng.FillInt32(bias, out_f, -20000, 20000);
  tfv::RandomMultiplierIn(b.rng, mult, shift, -10, -6);
  p.multiplier = mult;
  p.shift = shift;
  b.macs = int64_t{batches} * in_f * out_f;
  void* scratch = b.Scratch(&p);
  b.Run(&s8_fc__ref, [&](auto* fn) { fn(&p, in, w, bias, out, scratch); });
}

}  // namespace

TFB_CASE(fc, "kws fc 64->12", "kws:11") { FcCase(b, 64, 12); }
TFB_CASE(fc, "vww fc 256->2", "vww:29") { FcCase(b, 256, 2); }
TFB_CASE(fc, "ic fc 64->10", "ic:14") { FcCase(b, 64, 10); }
TFB_CASE(fc, "ad fc 640->128", "ad:0") { FcCase(b, 640, 128); }
TFB_CASE(fc, "ad fc 128->128", "ad:1") { FcCase(b, 128, 128); }
TFB_CASE(fc, "ad fc 128->8", "ad:4") { FcCase(b, 128, 8); }
TFB_CASE(fc, "ad fc 8->128", "ad:5") { FcCase(b, 8, 128); }
TFB_CASE(fc, "ad fc 128->640", "ad:9") { FcCase(b, 128, 640); }
TFB_CASE(fc, "fc 128->128 batch 4", "") { FcCase(b, 128, 128, 4); }
