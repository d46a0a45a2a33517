// Kernel benchmark harness: runs every variant of an op compiled into this firmware (the
// family .inc lists, filtered by the board's ISA like tests/kernels/variants) on real layer
// shapes, one TF_PERF region call per run, and prints one line per run for run.py to pair
// with the plugin's per-call events.
//
// A family file (<family>_bench.cc, globbed by CMakeLists.txt) adds rows:
//
//   TFB_CASE(conv, "kws pw 25x5 64->64", "kws:2") {   // op, label, TFLM anchor "model:op#"
//     s8_conv_params p = ...;  b.macs = ...;           // MACs (or elements) of the call
//     int8_t* in = b.Alloc<int8_t>(n);  b.rng.Fill(in, n);  ...
//     void* scratch = b.Scratch(&p);
//     b.Run(&s8_conv__ref, [&](auto* fn) { fn(&p, in, w, bias, out, scratch); });
//   }
//
// The body runs once per variant (fresh arena and rng each time) and must call b.Run once.
#ifndef TINYFORGE_BENCHMARKS_KERNELS_BENCH_HARNESS_H_
#define TINYFORGE_BENCHMARKS_KERNELS_BENCH_HARNESS_H_

#include <cstdint>
#include <type_traits>

#include "tests/kernels/variants/variant_harness.h"
#if defined(__arm__)
#include "tf_perf.h"
#else
#define TF_PERF_BEGIN(id) ((void)0)
#define TF_PERF_END(id) ((void)0)
#endif

namespace tfb {

class Bench;
using CaseFn = void (*)(Bench&);

struct CaseInfo {
  const char* op;
  const char* label;
  const char* anchor;  // "kws:0": TFLM + CMSIS-NN per-op figure to compare with, or ""
  CaseFn fn;
  CaseInfo* next;
};
int Register(CaseInfo* c);

class Bench {
 public:
  tfv::Rng rng{1};
  const tfv::VariantInfo* variant = nullptr;
  int64_t macs = 0;
  int32_t runs = 0;

  void* AllocBytes(int32_t bytes);
  template <typename T>
  T* Alloc(int32_t count) {
    return static_cast<T*>(AllocBytes(count * static_cast<int32_t>(sizeof(T))));
  }
  template <typename P>
  void* Scratch(const P* params) {
    const int32_t n = variant->scratch_bytes(params);
    return n > 0 ? AllocBytes(n) : nullptr;
  }
  // A binary elementwise kernel typed like `ref` (add, sub, mul, maximum, ...) on random
  // inputs of n1 and n2 elements into n outputs; reported per output element.
  template <typename P>
  void RunBinary(void (*ref)(const P*, const int8_t*, const int8_t*, int8_t*), const P& p,
                 int32_t n1, int32_t n2, int32_t n) {
    int8_t* in1 = Alloc<int8_t>(n1);
    int8_t* in2 = Alloc<int8_t>(n2);
    int8_t* out = Alloc<int8_t>(n);
    rng.Fill(in1, n1);
    rng.Fill(in2, n2);
    macs = n;
    Run(ref, [&](auto* fn) { fn(&p, in1, in2, out); });
  }
  // Calls `call(kernel)` with the variant under test typed like `ref`, inside TF_PERF region 0.
  template <typename F, typename Call>
  void Run(F* /*ref*/, Call&& call) {
    void* fn = reinterpret_cast<void*>(variant->fn);
    Measure(&Trampoline<F, typename std::remove_reference<Call>::type>, fn, &call);
    ++runs;
  }

 private:
  template <typename F, typename Call>
  static void Trampoline(void* fn, void* call) {
    (*static_cast<Call*>(call))(reinterpret_cast<F*>(fn));
  }
  // The one place with the markers (not inlined): region 0 around thunk(fn, call).
  static void Measure(void (*thunk)(void*, void*), void* fn, void* call);
};

}  // namespace tfb

#define TFB_CAT2(a, b) a##b
#define TFB_CAT(a, b) TFB_CAT2(a, b)
#define TFB_CASE_IMPL(op, label, anchor, id)                                          \
  static void TFB_CAT(tfb_case_, id)(::tfb::Bench & b);                               \
  static ::tfb::CaseInfo TFB_CAT(tfb_info_, id){#op, label, anchor,                   \
                                                &TFB_CAT(tfb_case_, id), nullptr};    \
  static const int TFB_CAT(tfb_reg_, id) __attribute__((unused)) =                   \
      ::tfb::Register(&TFB_CAT(tfb_info_, id));                                       \
  static void TFB_CAT(tfb_case_, id)(::tfb::Bench & b)
#define TFB_CASE(op, label, anchor) TFB_CASE_IMPL(op, label, anchor, __LINE__)

#endif  // TINYFORGE_BENCHMARKS_KERNELS_BENCH_HARNESS_H_
