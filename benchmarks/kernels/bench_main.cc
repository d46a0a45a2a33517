// Kernel benchmark firmware (bench_harness.h): kernel_bench [filter]
// Output, one line per run, in the order of the TF_PERF region-0 calls:
//   BENCH <op> <symbol> <isa> <macs> <anchor|-> <label>
#include <cstring>

#include "benchmarks/kernels/bench_harness.h"
#include "kernels/common/isa.h"
#include "kernels/common/paths.h"
#include "tf_print.h"

#ifndef TFB_ARENA_BYTES
#define TFB_ARENA_BYTES (192 * 1024)
#endif

namespace tfb {
namespace {

template <typename P, typename... A>
P ParamsOf(void (*)(const P*, A...));

#define TFB_SCRATCH_FN(symbol, expr)                     \
  [](const void* pv) -> int32_t {                       \
    using P = decltype(::tfb::ParamsOf(&symbol));       \
    const P& p = *static_cast<const P*>(pv);            \
    (void)p;                                            \
    return static_cast<int32_t>(expr);                  \
  }
#define TFB_ENTRY(op, symbol, isa, scratch) \
  {#op, #symbol, #isa, reinterpret_cast<void (*)()>(&symbol), TFB_SCRATCH_FN(symbol, scratch)},
#define TFB_ENTRY_ref(op, symbol, scratch) TFB_ENTRY(op, symbol, ref, scratch)
#define TFB_ENTRY_scalar(op, symbol, scratch) TFB_ENTRY(op, symbol, scalar, scratch)
#if TF_HAVE_DSP
#define TFB_ENTRY_dsp(op, symbol, scratch) TFB_ENTRY(op, symbol, dsp, scratch)
#else
#define TFB_ENTRY_dsp(op, symbol, scratch)
#endif
#if TF_HAVE_MVE
#define TFB_ENTRY_mve(op, symbol, scratch) TFB_ENTRY(op, symbol, mve, scratch)
#else
#define TFB_ENTRY_mve(op, symbol, scratch)
#endif

const tfv::VariantInfo kVariants[] = {
#define TF_KERNEL_ALL(op, symbol, isa, scratch) TFB_ENTRY_##isa(op, symbol, scratch)
#include "tinyforge/all_kernels.inc"
#undef TF_KERNEL_ALL
};

}  // namespace
}  // namespace tfb

// Every path linked on demand (kernels/common/paths.h) of the variants above: without these
// strong references the weak paths read as null and each variant measures its fallback
// (s8_dwconv__mve ran as __ref here before).
#define TF_KERNEL_ALL(op, symbol, isa, scratch)
#define TF_KERNEL_PATH_ALL(op, kernel, path, isa, pred) TF_KERNEL_PATH_LINK(isa, path)
#include "tinyforge/all_kernels.inc"
#undef TF_KERNEL_PATH_ALL
#undef TF_KERNEL_ALL

namespace tfb {
namespace {

alignas(16) uint8_t g_arena[TFB_ARENA_BYTES];
int32_t g_used = 0;
bool g_overflow = false;
CaseInfo* g_cases = nullptr;

}  // namespace

int Register(CaseInfo* c) {
  c->next = g_cases;
  g_cases = c;
  return 1;
}

__attribute__((noinline)) void Bench::Measure(void (*thunk)(void*, void*), void* fn, void* call) {
  TF_PERF_BEGIN(0);
  thunk(fn, call);
  TF_PERF_END(0);
}

void* Bench::AllocBytes(int32_t bytes) {
  const int32_t start = (g_used + 15) & ~15;
  if (start + bytes > TFB_ARENA_BYTES) {
    g_overflow = true;
    return g_arena;  // results are garbage; main reports the overflow
  }
  g_used = start + bytes;
  for (int32_t i = 0; i < bytes; ++i) g_arena[start + i] = 0;
  return g_arena + start;
}

}  // namespace tfb

int main(int argc, char** argv) {
  using namespace tfb;
  const char* filter = argc > 1 ? argv[1] : nullptr;
  // Registration runs backwards within a file; restore file order, then group by op.
  CaseInfo* order[256];
  int32_t n = 0;
  for (CaseInfo* c = g_cases; c != nullptr && n < 256; c = c->next) order[n++] = c;
  for (int32_t i = 0; i < n / 2; ++i) {
    CaseInfo* t = order[i];
    order[i] = order[n - 1 - i];
    order[n - 1 - i] = t;
  }
  int status = 0;
  const char* ops[32];
  int32_t n_ops = 0;
  for (int32_t i = 0; i < n; ++i) {
    bool seen = false;
    for (int32_t j = 0; j < n_ops; ++j) seen |= strcmp(ops[j], order[i]->op) == 0;
    if (!seen && n_ops < 32) ops[n_ops++] = order[i]->op;
  }
  for (int32_t o = 0; o < n_ops; ++o) {
    for (int32_t i = 0; i < n; ++i) {
      const CaseInfo& c = *order[i];
      if (strcmp(c.op, ops[o]) != 0) continue;
      if (filter != nullptr && strstr(c.label, filter) == nullptr && strstr(c.op, filter) == nullptr)
        continue;
      for (const tfv::VariantInfo& v : kVariants) {
        if (strcmp(v.op, c.op) != 0) continue;
        Bench b;
        b.variant = &v;
        g_used = 0;
        g_overflow = false;
        c.fn(b);
        if (b.runs != 1 || g_overflow) {
          tf_printf("BENCH-ERROR %s %s: %s\n", v.symbol, c.label,
                    g_overflow ? "arena overflow" : "Run() not called exactly once");
          status = 1;
          continue;
        }
        tf_printf("BENCH %s %s %s %ld %s %s\n", c.op, v.symbol, v.isa, static_cast<long>(b.macs),
                  c.anchor[0] ? c.anchor : "-", c.label);
      }
    }
  }
  return status;
}
