// Variant test runner (see variant_harness.h):
//   kernel_variants [seed] [cases] [filter] [kind]
//   kernel_variants --list        (op symbol kind) of every variant this build tests
//   kernel_variants --list-all    (op symbol isa kind) of every .inc variant, any ISA
// seed: decimal or 0x-hex (default 0x7F4A7C15); cases: random cases per op and variant
// (default 1000); filter: run only ops / variants whose op name or symbol contains it
// (__ref variants run only when the filter matches their symbol, e.g. `__ref`); kind: run
// only the cases of that kind ("random" or an edge kind name).
// Prints one line per (op, variant, kind), "<op> <symbol> <kind>: N cases ok" or
// "<op> <symbol> <kind>: FAILED k of N cases", then one summary line per variant, and returns
// non-zero on any mismatch, on a canary overwritten, or on a variant no family test covers.
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "kernels/common/isa.h"
#include "kernels/common/paths.h"
#include "tests/kernels/variants/variant_harness.h"


#ifndef TFV_ARENA_BYTES
#define TFV_ARENA_BYTES (256 * 1024)
#endif

namespace tfv {
namespace {

// --- variant table: every .inc line whose ISA this build compiles ---------------------
template <typename P, typename... A>
P ParamsOf(void (*)(const P*, A...));

#define TFV_SCRATCH_FN(symbol, expr)                                             \
  [](const void* pv) -> int32_t {                                               \
    using P = decltype(::tfv::ParamsOf(&symbol));                               \
    const P& p = *static_cast<const P*>(pv);                                    \
    (void)p;                                                                    \
    return static_cast<int32_t>(expr);                                          \
  }
#define TFV_ENTRY(op, symbol, isa, scratch) \
  {#op, #symbol, #isa, reinterpret_cast<void (*)()>(&symbol), TFV_SCRATCH_FN(symbol, scratch)},
#define TFV_ENTRY_ref(op, symbol, scratch) TFV_ENTRY(op, symbol, ref, scratch)
#if TF_HAVE_MVE
// The scalar variants are tested on the host and the M3, M4 and M33 boards: with them every
// variant no longer fit the an547's 512 KiB ITCM (variants_on_target.py, board_isas).
#define TFV_ENTRY_scalar(op, symbol, scratch)
#else
#define TFV_ENTRY_scalar(op, symbol, scratch) TFV_ENTRY(op, symbol, scalar, scratch)
#endif
#if TF_HAVE_DSP
#define TFV_ENTRY_dsp(op, symbol, scratch) TFV_ENTRY(op, symbol, dsp, scratch)
#else
#define TFV_ENTRY_dsp(op, symbol, scratch)
#endif
#if TF_HAVE_MVE
#define TFV_ENTRY_mve(op, symbol, scratch) TFV_ENTRY(op, symbol, mve, scratch)
#else
#define TFV_ENTRY_mve(op, symbol, scratch)
#endif

#if TF_HAVE_MVE
// `compile --optimize size`'s form of s8_conv__mve (docs/decisions.md 59): what its
// dispatcher runs when the firmware links only the small paths (this table links every path,
// so the dispatcher would take the fast ones): the 2 x 2-block drivers of the common modes.
int32_t ScratchOf(const char* symbol, const void* params);
void ConvMveSize(const s8_conv_params* params, const int8_t* input, const int8_t* weights,
                 const int32_t* bias, int8_t* output, void* scratch);  // below the path list
}  // namespace
}  // namespace tfv
// (kernels/softmax/mve_softmax.h: not included, its path declarations would clash with the
// path list's void() ones below.)
namespace tinyforge::softmax_mve {
void Rows(const s8_softmax_params& p, const int8_t* input, int8_t* output);
}  // namespace tinyforge::softmax_mve
namespace tfv {
namespace {
// s8_softmax__mve without its paths (the table, rows of 1 or 2; docs/decisions.md 74): every
// call through the dispatcher's own rows, as a firmware that links neither runs it.
void SoftmaxMveRows(const s8_softmax_params* params, const int8_t* input, int8_t* output,
                    void* /*scratch*/) {
  tinyforge::softmax_mve::Rows(*params, input, output);
}
#endif

const VariantInfo kVariants[] = {
#define TF_KERNEL_ALL(op, symbol, isa, scratch) TFV_ENTRY_##isa(op, symbol, scratch)
#include "tinyforge/all_kernels.inc"
#undef TF_KERNEL_ALL
#if TF_HAVE_MVE
    {"conv", "s8_conv__mve__size", "mve", reinterpret_cast<void (*)()>(&ConvMveSize),
     [](const void* p) { return ScratchOf("s8_conv__mve", p); }},
    {"softmax", "s8_softmax__mve__rows", "mve", reinterpret_cast<void (*)()>(&SoftmaxMveRows),
     [](const void*) { return int32_t{0}; }},
#endif
};
constexpr int32_t kNumVariants = static_cast<int32_t>(sizeof(kVariants) / sizeof(kVariants[0]));

#if TF_HAVE_MVE
int32_t ScratchOf(const char* symbol, const void* params) {
  for (const VariantInfo& v : kVariants) {
    if (std::strcmp(v.symbol, symbol) == 0) return v.scratch_bytes(params);
  }
  return 0;
}
#endif

}  // namespace
}  // namespace tfv

// Every path linked on demand (kernels/common/paths.h) of the variants above, so that the
// variants run whole (a path left out would fall back to a slower one, untested).
#define TF_KERNEL_ALL(op, symbol, isa, scratch)
#define TF_KERNEL_PATH_ALL(op, kernel, path, isa, pred) TF_KERNEL_PATH_LINK(isa, path)
#include "tinyforge/all_kernels.inc"
#undef TF_KERNEL_PATH_ALL
#undef TF_KERNEL_ALL

#if TF_HAVE_MVE
// (The path list above declared the paths as void(); they have the kernel's signature.)
namespace tfv {
namespace {
void ConvMveSize(const s8_conv_params* params, const int8_t* input, const int8_t* weights,
                 const int32_t* bias, int8_t* output, void* scratch) {
  using Fn = void (*)(const s8_conv_params*, const int8_t*, const int8_t*, const int32_t*,
                      int8_t*, void*);
  // (A null bias without an input offset is __ref's, as in the dispatcher.)
  const int mode = bias == nullptr && params->input_offset == 0 ? -1 : s8_conv_mve_mode(*params);
  if (mode == tinyforge::rq::kRqDoubleNeg) {
    reinterpret_cast<Fn>(&s8_conv__mve__doubleneg_small)(params, input, weights, bias, output,
                                                         scratch);
  } else if (mode == tinyforge::rq::kRqSingleNeg) {
    reinterpret_cast<Fn>(&s8_conv__mve__singleneg_small)(params, input, weights, bias, output,
                                                         scratch);
  } else {
    s8_conv__mve(params, input, weights, bias, output, scratch);
  }
}
}  // namespace
}  // namespace tfv
#endif

namespace tfv {
namespace {

// Every .inc line, whatever this build compiles (names only: --list-all, for the boards).
struct VariantName {
  const char* op;
  const char* symbol;
  const char* isa;
};
const VariantName kAllVariants[] = {
#define TF_KERNEL_ALL(op, symbol, isa, scratch) {#op, #symbol, #isa},
#include "tinyforge/all_kernels.inc"
#undef TF_KERNEL_ALL
    {"conv", "s8_conv__mve__size", "mve"},  // kVariants' --optimize size form
    {"softmax", "s8_softmax__mve__rows", "mve"},  // kVariants' s8_softmax__mve without paths
};

// --- arena with canaries ---------------------------------------------------------------
constexpr int32_t kCanary = 16;
constexpr int32_t kMaxAllocs = 64;
alignas(16) uint8_t g_arena[TFV_ARENA_BYTES];
int32_t g_used = 0;
struct ArenaAlloc {
  int32_t offset;  // of the user bytes
  int32_t bytes;
};
ArenaAlloc g_allocs[kMaxAllocs];
int32_t g_num_allocs = 0;
bool g_arena_failed = false;
char g_params[512];

uint8_t CanaryByte(int32_t i) { return static_cast<uint8_t>(0xE7 ^ (i * 29)); }

FamilyTest* g_tests = nullptr;

uint64_t CaseSeed(uint64_t seed, const Context& ctx) {
  // Edge cases are seeded independently of the number of random cases.
  const uint64_t idx = ctx.Edge() ? (0x80000000ull + static_cast<uint64_t>(ctx.EdgeIndex()))
                                  : static_cast<uint64_t>(ctx.case_index);
  return seed * 0x9E3779B97F4A7C15ull + idx * 0xD1B54A32D192ED03ull;
}

}  // namespace

int Register(FamilyTest* test) {
  test->next = g_tests;
  g_tests = test;
  return 1;
}

void Context::BeginCase(int32_t index) {
  case_index = index;
  rng = Rng(CaseSeed(seed, *this));
  g_used = 0;
  g_num_allocs = 0;
  g_arena_failed = false;
  g_params[0] = '\0';
  junk_toggle_ = false;
}

void* Context::AllocBytes(int32_t bytes, uint8_t fill) {
  if (bytes < 0) bytes = 0;
  const int32_t start = (g_used + 15) & ~15;
  const int32_t user = start + 16;  // 16 canary bytes before, keeps 16-byte alignment
  const int32_t end = user + bytes + kCanary;
  if (end > TFV_ARENA_BYTES || g_num_allocs == kMaxAllocs) {
    if (!g_arena_failed) Fail("arena exhausted (%d bytes asked, %d used)", (int)bytes, (int)g_used);
    g_arena_failed = true;
    return nullptr;
  }
  for (int32_t i = 0; i < kCanary; ++i) {
    g_arena[user - kCanary + i] = CanaryByte(i);
    g_arena[user + bytes + i] = CanaryByte(i + kCanary);
  }
  for (int32_t i = 0; i < bytes; ++i) g_arena[user + i] = fill;
  g_allocs[g_num_allocs++] = {user, bytes};
  g_used = end;
  return g_arena + user;
}

bool Context::CheckCanaries() {
  bool ok = true;
  for (int32_t a = 0; a < g_num_allocs; ++a) {
    const ArenaAlloc& al = g_allocs[a];
    for (int32_t i = 0; i < kCanary; ++i) {
      if (g_arena[al.offset - kCanary + i] != CanaryByte(i)) {
        ok = Fail("buffer #%d (%d bytes): canary %d bytes BEFORE it overwritten", (int)a,
                  (int)al.bytes, (int)(kCanary - i));
        break;
      }
      if (g_arena[al.offset + al.bytes + i] != CanaryByte(i + kCanary)) {
        ok = Fail("buffer #%d (%d bytes): canary %d bytes AFTER its end overwritten", (int)a,
                  (int)al.bytes, (int)i);
        break;
      }
    }
  }
  return ok;
}

void Context::Params(const char* fmt, ...) {
  va_list args;
  va_start(args, fmt);
  vsnprintf(g_params, sizeof(g_params), fmt, args);
  va_end(args);
}

bool Context::Fail(const char* fmt, ...) {
  ++failures;
  if (failures > 8) return false;  // enough to debug; the summary counts the rest
  char msg[256];
  va_list args;
  va_start(args, fmt);
  vsnprintf(msg, sizeof(msg), fmt, args);
  va_end(args);
  printf("FAIL %s %s %s case %d (%s %d) seed 0x%08lx%08lx: %s\n  params: %s\n", variant->op,
         variant->symbol, Kind(), (int)case_index, Edge() ? "edge" : "random",
         (int)(Edge() ? EdgeIndex() : case_index), (unsigned long)(seed >> 32),
         (unsigned long)(seed & 0xFFFFFFFFu), msg, g_params[0] ? g_params : "(none)");
  return false;
}

namespace {
template <typename T>
bool CompareT(Context& ctx, const char* what, const T* got, const T* want, int32_t n,
              bool is_float) {
  int32_t first = -1, count = 0;
  for (int32_t i = 0; i < n; ++i) {
    bool differ;
    if (is_float) {
      // bitwise (NaN-safe, -0 != +0)
      differ = __builtin_memcmp(&got[i], &want[i], sizeof(T)) != 0;
    } else {
      differ = got[i] != want[i];
    }
    if (differ) {
      if (first < 0) first = i;
      ++count;
    }
  }
  if (count == 0) return true;
  if (is_float) {
    return ctx.Fail("%s[%d]: got %g want %g (%d of %d elements differ)", what, (int)first,
                    static_cast<double>(got[first]), static_cast<double>(want[first]),
                    (int)count, (int)n);
  }
  return ctx.Fail("%s[%d]: got %ld want %ld (%d of %d elements differ)", what, (int)first,
                  static_cast<long>(got[first]), static_cast<long>(want[first]), (int)count,
                  (int)n);
}
}  // namespace

bool Compare(Context& ctx, const char* what, const int8_t* got, const int8_t* want, int32_t n) {
  return CompareT(ctx, what, got, want, n, false);
}
bool Compare(Context& ctx, const char* what, const int16_t* got, const int16_t* want,
             int32_t n) {
  return CompareT(ctx, what, got, want, n, false);
}
bool Compare(Context& ctx, const char* what, const int32_t* got, const int32_t* want,
             int32_t n) {
  return CompareT(ctx, what, got, want, n, false);
}
bool Compare(Context& ctx, const char* what, const float* got, const float* want, int32_t n) {
  return CompareT(ctx, what, got, want, n, true);
}

}  // namespace tfv

namespace {

uint64_t ParseU64(const char* s) {
  uint64_t v = 0;
  if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    for (s += 2; *s; ++s) {
      const char c = *s;
      const int d = c >= '0' && c <= '9'   ? c - '0'
                    : c >= 'a' && c <= 'f' ? c - 'a' + 10
                    : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                           : 0;
      v = v * 16 + static_cast<uint64_t>(d);
    }
  } else {
    for (; *s >= '0' && *s <= '9'; ++s) v = v * 10 + static_cast<uint64_t>(*s - '0');
  }
  return v;
}

bool Matches(const char* filter, const tfv::VariantInfo& v) {
  return filter == nullptr || strstr(v.op, filter) != nullptr || strstr(v.symbol, filter) != nullptr;
}

tfv::FamilyTest* FindTest(const char* op) {
  for (tfv::FamilyTest* t = tfv::g_tests; t != nullptr; t = t->next) {
    if (strcmp(t->op, op) == 0) return t;
  }
  return nullptr;
}

// Kind of case c of `test` ("random" or its edge kind name).
const char* KindOf(const tfv::FamilyTest& test, int32_t cases, int32_t c) {
  tfv::Context ctx;
  ctx.case_count = cases;
  ctx.edge_kind = test.edge_kind;
  ctx.case_index = c;
  return ctx.Kind();
}

// Calls f(kind) once per distinct kind of `test`, "random" first, then edge kinds in order.
template <typename F>
void ForEachKind(const tfv::FamilyTest& test, F&& f) {
  f("random");
  for (int32_t e = 0; e < test.edge_count; ++e) {
    const char* kind = KindOf(test, 0, e);
    bool seen = false;
    for (int32_t d = 0; d < e && !seen; ++d) seen = strcmp(KindOf(test, 0, d), kind) == 0;
    if (!seen) f(kind);
  }
}

// --list / --list-all: one line per (variant, kind).
int List(bool all) {
  using namespace tfv;
  if (all) {
    for (const VariantName& v : kAllVariants) {
      const FamilyTest* t = FindTest(v.op);
      if (t == nullptr || strcmp(v.isa, "ref") == 0) continue;
      ForEachKind(*t, [&](const char* kind) { printf("%s %s %s %s\n", v.op, v.symbol, v.isa, kind); });
    }
    return 0;
  }
  for (int32_t i = 0; i < kNumVariants; ++i) {
    const VariantInfo& v = kVariants[i];
    const FamilyTest* t = FindTest(v.op);
    if (t == nullptr || strcmp(v.isa, "ref") == 0) continue;
    ForEachKind(*t, [&](const char* kind) { printf("%s %s %s\n", v.op, v.symbol, kind); });
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace tfv;
  if (argc > 1 && strncmp(argv[1], "--list", 6) == 0) return List(strcmp(argv[1], "--list-all") == 0);
  const uint64_t seed = argc > 1 ? ParseU64(argv[1]) : 0x7F4A7C15ull;
  const int32_t cases = argc > 2 ? static_cast<int32_t>(ParseU64(argv[2])) : 1000;
  const char* filter = argc > 3 && argv[3][0] != '\0' ? argv[3] : nullptr;
  const char* only_kind = argc > 4 ? argv[4] : nullptr;
  printf("kernel variants: seed 0x%08lx%08lx, %d random cases per variant\n",
         (unsigned long)(seed >> 32), (unsigned long)(seed & 0xFFFFFFFFu), (int)cases);

  int32_t runs = 0, bad = 0;
  // Every compiled-in non-ref variant must have a family test.
  for (int32_t v = 0; v < kNumVariants; ++v) {
    const VariantInfo& info = kVariants[v];
    if (strcmp(info.isa, "ref") == 0 || !Matches(filter, info)) continue;
    if (FindTest(info.op) == nullptr) {
      printf("%s %s: UNTESTED (no TFV_FAMILY_TEST(%s))\n", info.op, info.symbol, info.op);
      ++bad;
    }
  }
  bool kind_known = only_kind == nullptr;
  // Tests in a stable order: by op name.
  for (const char* last = ""; ;) {
    FamilyTest* test = nullptr;
    for (FamilyTest* t = g_tests; t != nullptr; t = t->next) {
      if (strcmp(t->op, last) > 0 && (test == nullptr || strcmp(t->op, test->op) < 0)) test = t;
    }
    if (test == nullptr) break;
    last = test->op;
    int32_t tested = 0, known = 0;
    for (int32_t v = 0; v < kNumVariants; ++v) {
      const VariantInfo& info = kVariants[v];
      if (strcmp(info.op, test->op) != 0) continue;
      ++known;
      // __ref only when a filter names it (e.g. "__ref": the harness checking itself).
      const bool is_ref = strcmp(info.isa, "ref") == 0;
      if (is_ref ? (filter == nullptr || strstr(info.symbol, filter) == nullptr)
                 : !Matches(filter, info)) {
        continue;
      }
      ++tested;
      ++runs;
      int32_t variant_failed = 0, variant_cases = 0;
      ForEachKind(*test, [&](const char* kind) {
        if (only_kind != nullptr && strcmp(kind, only_kind) != 0) return;
        kind_known = true;
        Context ctx;
        ctx.seed = seed;
        ctx.case_count = cases;
        ctx.edge_count = test->edge_count;
        ctx.edge_kind = test->edge_kind;
        ctx.variant = &info;
        int32_t failed_cases = 0, kind_cases = 0;
        for (int32_t c = 0; c < cases + test->edge_count; ++c) {
          if (strcmp(KindOf(*test, cases, c), kind) != 0) continue;
          ++kind_cases;
          ctx.BeginCase(c);
          const int32_t before = ctx.failures;
          const bool ok = test->fn(ctx);
          const bool canaries = ctx.CheckCanaries();
          if (!ok || !canaries || ctx.failures != before) {
            if (ctx.failures == before) ctx.Fail("test returned false");
            ++failed_cases;
          }
        }
        if (failed_cases == 0) {
          printf("%s %s %s: %d cases ok\n", info.op, info.symbol, kind, (int)kind_cases);
        } else {
          printf("%s %s %s: FAILED %d of %d cases\n", info.op, info.symbol, kind,
                 (int)failed_cases, (int)kind_cases);
        }
        variant_failed += failed_cases;
        variant_cases += kind_cases;
      });
      if (variant_failed == 0) {
        printf("%s %s: %d cases ok\n", info.op, info.symbol, (int)variant_cases);
      } else {
        printf("%s %s: FAILED %d of %d cases\n", info.op, info.symbol, (int)variant_failed,
               (int)variant_cases);
        ++bad;
      }
    }
    if (known == 0) {
      printf("%s: FAILED: no such op in the kernel .inc lists\n", test->op);
      ++bad;
    } else if (tested == 0 && filter == nullptr) {
      printf("%s: only the reference variant in this build\n", test->op);
    }
  }
  if (!kind_known) {
    printf("kernel variants: FAILED: no case of kind '%s'\n", only_kind);
    ++bad;
  }
  if (bad == 0) {
    printf("kernel variants: all ok (%d variants tested)\n", (int)runs);
    return 0;
  }
  printf("kernel variants: FAILED (%d problems)\n", (int)bad);
  return 1;
}
