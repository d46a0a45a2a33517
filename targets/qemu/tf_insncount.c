/* tf_insncount: executed-instruction counts for qemu-system-arm, a TCG plugin.
 *
 * Counts every guest instruction, and per region the instructions executed between the
 * markers of targets/common/include/tf_perf.h, reserved T32 hints:
 *   TF_PERF_BEGIN(id)  HINT #(0x80 + id)  bytes AF F3 (80 + id) 80    id in [0, 31]
 *   TF_PERF_END(id)    HINT #(0xA0 + id)  bytes AF F3 (A0 + id) 80
 * A region's count excludes its own two markers (an enclosed region's markers count as
 * instructions of the enclosing one). With -icount shift=0,align=off,sleep=off repeated runs
 * give identical numbers.
 *
 * Arguments (-plugin libtf_insncount.so,out=FILE,mode=tb,...):
 *   out=FILE       write the report to FILE (default: QEMU's log, enabled by `-d plugin`)
 *   mode=tb        (default) one inline add per translation block: fast. Exact for code
 *                  that touches only RAM; an access to a device register in the middle of
 *                  a block makes QEMU re-run the block's tail (icount I/O recompile), which
 *                  counts that tail twice in the total. Markers stay exact.
 *   mode=insn      one inline add per instruction: 2-3x slower, exact throughout
 *   events=on      also report every call of every region, in execution order (the per-op
 *                  profile: the runtime brackets op k with one id, call k is op k)
 *   max_events=N   keep at most N events (default 1000000); the rest are counted as dropped
 *   range=NAME:BASE:SIZE   a memory range (BASE, SIZE: C integers, e.g. 0x30000000:524288),
 *                  up to 16; with at least one, the plugin also counts every data memory
 *                  access (loads and stores, including those of helpers such as MVE's VLDR)
 *                  made while a region is open, per region and range (addresses in no range
 *                  count as range "other"). Instruction fetches are not data accesses. The
 *                  runner passes the board's memory regions (board.json memory[]). Costs a
 *                  callback per access: runs are slower, counts are unchanged.
 *
 * Report, one record per line (the format targets/qemu/run.py parses):
 *   tf-perf version=1 qemu-plugin-api=<n> mode=<tb|insn>
 *   tf-perf total insns=<n>
 *   tf-perf region=<id> calls=<n> insns=<sum> min=<n> max=<n>
 *   tf-perf event region=<id> call=<k> insns=<n> start=<n>     (events=on)
 *                  [reads=<name>:<bytes>,...]   with range=: the call's data bytes read per
 *                  range (the ranges it read from)
 *   tf-perf open region=<id> insns=<n> start=<n>    begun, not ended when the guest stopped
 *   tf-perf error region=<id> kind=<end-without-begin|begin-while-open> count=<n>
 *   tf-perf error kind=events-dropped count=<n>
 *   tf-perf mem region=<id> range=<name> read=<bytes> write=<bytes> loads=<n> stores=<n>
 *                  (with range=; only nonzero rows; summed over the region's calls)
 *   tf-perf end
 * start=<n> is the number of instructions executed before the region began.
 *
 * The M-profile boards have one vCPU; counts from more would be summed. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qemu_plugin_api.h"

QEMU_PLUGIN_EXPORT int qemu_plugin_version = TF_QEMU_PLUGIN_API;

#define TF_REGIONS 32
#define TF_BEGIN_HINT 0x80
#define TF_END_HINT 0xA0
#define TF_RANGES 16

typedef struct {
  uint64_t calls, insns, min, max;
  uint64_t start; /* instructions before the open call's BEGIN */
  int open;
  uint64_t end_without_begin, begin_while_open;
  uint64_t read_at_begin[TF_RANGES + 1]; /* with range=: bytes read per range before it */
} region;

typedef struct {
  uint8_t id;
  uint64_t call, insns, start;
  size_t reads; /* with range=: index of the call's bytes read per range in g_event_reads */
} event;

static region g_regions[TF_REGIONS];
static int g_mode_insn;
static int g_events_on;
static event* g_events;
static size_t g_n_events, g_cap_events, g_max_events = 1000000;
static uint64_t g_events_dropped;
static FILE* g_out;
static uint64_t* g_event_reads; /* (ranges + 1) per event, with range= and events=on */

/* ---- data memory accesses per region and address range (range= arguments) ------------ */
typedef struct {
  char name[32];
  uint64_t base, size;
} mem_range;
typedef struct {
  uint64_t read, write, loads, stores;
} mem_count;
static mem_range g_ranges[TF_RANGES];
static unsigned g_n_ranges;
static uint32_t g_open_mask; /* bit i: region i is open */
/* [region][range]; index g_n_ranges is "other" (no range holds the address). */
static mem_count g_mem[TF_REGIONS][TF_RANGES + 1];

static void on_mem(unsigned int vcpu, qemu_plugin_meminfo_t info, uint64_t vaddr, void* ud) {
  (void)vcpu;
  (void)ud;
  uint32_t open = g_open_mask;
  if (!open) return;
  unsigned r = 0;
  while (r < g_n_ranges &&
         (vaddr < g_ranges[r].base || vaddr - g_ranges[r].base >= g_ranges[r].size))
    ++r;
  const uint64_t bytes = 1ull << qemu_plugin_mem_size_shift(info);
  const int store = qemu_plugin_mem_is_store(info);
  while (open) {
    const unsigned id = (unsigned)__builtin_ctz(open);
    open &= open - 1;
    mem_count* c = &g_mem[id][r];
    if (store) {
      c->write += bytes;
      ++c->stores;
    } else {
      c->read += bytes;
      ++c->loads;
    }
  }
}

static int parse_range(const char* spec) {
  const char* colon = strchr(spec, ':');
  if (!colon || colon == spec || (size_t)(colon - spec) >= sizeof g_ranges[0].name ||
      g_n_ranges >= TF_RANGES)
    return 0;
  char* end;
  const uint64_t base = strtoull(colon + 1, &end, 0);
  if (*end != ':') return 0;
  const uint64_t size = strtoull(end + 1, &end, 0);
  if (*end || size == 0) return 0;
  mem_range* m = &g_ranges[g_n_ranges++];
  memcpy(m->name, spec, (size_t)(colon - spec));
  m->name[colon - spec] = 0;
  m->base = base;
  m->size = size;
  return 1;
}

/* ---- the instruction counter, per plugin API level ---------------------------------- */
#if TF_QEMU_PLUGIN_API >= 2
static struct qemu_plugin_scoreboard* g_score;
static qemu_plugin_u64 g_counter;

static void counter_init(void) {
  g_score = qemu_plugin_scoreboard_new(sizeof(uint64_t));
  g_counter.score = g_score;
  g_counter.offset = 0;
}
static void count_tb(struct qemu_plugin_tb* tb, uint64_t n) {
  qemu_plugin_register_vcpu_tb_exec_inline_per_vcpu(tb, QEMU_PLUGIN_INLINE_ADD_U64, g_counter, n);
}
static void count_insn(struct qemu_plugin_insn* insn) {
  qemu_plugin_register_vcpu_insn_exec_inline_per_vcpu(insn, QEMU_PLUGIN_INLINE_ADD_U64,
                                                      g_counter, 1);
}
static uint64_t counter_now(unsigned vcpu) { return qemu_plugin_u64_get(g_counter, vcpu); }
static uint64_t counter_total(void) { return qemu_plugin_u64_sum(g_counter); }
static void counter_free(void) { qemu_plugin_scoreboard_free(g_score); }
#else
static uint64_t g_counter;

static void counter_init(void) {}
static void count_tb(struct qemu_plugin_tb* tb, uint64_t n) {
  qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64, &g_counter, n);
}
static void count_insn(struct qemu_plugin_insn* insn) {
  qemu_plugin_register_vcpu_insn_exec_inline(insn, QEMU_PLUGIN_INLINE_ADD_U64, &g_counter, 1);
}
static uint64_t counter_now(unsigned vcpu) {
  (void)vcpu;
  return g_counter;
}
static uint64_t counter_total(void) { return g_counter; }
static void counter_free(void) {}
#endif

/* The 4 bytes of a 32-bit instruction, or 0 if it is a 16-bit one. */
static int insn_bytes32(struct qemu_plugin_insn* insn, uint8_t b[4]) {
  if (qemu_plugin_insn_size(insn) != 4) return 0;
#if TF_QEMU_PLUGIN_API >= 3
  return qemu_plugin_insn_data(insn, b, 4) == 4;
#else
  memcpy(b, qemu_plugin_insn_data(insn), 4);
  return 1;
#endif
}

/* ---- markers ------------------------------------------------------------------------- */
/* Callback userdata: bit 31 = END, bits 16..30 = instructions after the marker in its
 * block (tb mode), bits 0..4 = region id. */
#define UD_END (1u << 31)
#define UD_AFTER_SHIFT 16
#define UD_AFTER_MAX 0x7FFFu

static void record_event(unsigned id, uint64_t call, uint64_t insns, uint64_t start,
                         const uint64_t* reads) {
  if (g_n_events >= g_max_events) {
    ++g_events_dropped;
    return;
  }
  if (g_n_events == g_cap_events) {
    size_t cap = g_cap_events ? 2 * g_cap_events : 1024;
    event* grown = realloc(g_events, cap * sizeof *grown);
    if (!grown) {
      ++g_events_dropped;
      return;
    }
    g_events = grown;
    if (g_n_ranges) {
      uint64_t* more = realloc(g_event_reads, cap * (g_n_ranges + 1) * sizeof *more);
      if (!more) {
        ++g_events_dropped;
        return;
      }
      g_event_reads = more;
    }
    g_cap_events = cap;
  }
  event* e = &g_events[g_n_events++];
  e->id = (uint8_t)id;
  e->call = call;
  e->insns = insns;
  e->start = start;
  e->reads = (g_n_events - 1) * (g_n_ranges + 1);
  if (g_n_ranges) memcpy(&g_event_reads[e->reads], reads, (g_n_ranges + 1) * sizeof *reads);
}

static void on_marker(unsigned int vcpu, void* userdata) {
  const uintptr_t ud = (uintptr_t)userdata;
  const unsigned id = ud & (TF_REGIONS - 1);
  const uint64_t after = (ud >> UD_AFTER_SHIFT) & UD_AFTER_MAX;
  /* Instructions executed before this marker. In tb mode the counter already holds the
   * whole block; in insn mode it holds everything up to and including this marker. */
  const uint64_t before = counter_now(vcpu) - (g_mode_insn ? 1 : after + 1);
  region* r = &g_regions[id];
  if (!(ud & UD_END)) {
    if (r->open) {
      ++r->begin_while_open;
      return;
    }
    r->open = 1;
    g_open_mask |= 1u << id;
    r->start = before + 1; /* the BEGIN marker itself is not part of the region */
    for (unsigned k = 0; k < g_n_ranges + 1 && g_n_ranges; ++k)
      r->read_at_begin[k] = g_mem[id][k].read;
    return;
  }
  if (!r->open) {
    ++r->end_without_begin;
    return;
  }
  const uint64_t n = before - r->start;
  if (r->calls == 0 || n < r->min) r->min = n;
  if (n > r->max) r->max = n;
  if (g_events_on) {
    uint64_t reads[TF_RANGES + 1] = {0};
    for (unsigned k = 0; k < g_n_ranges + 1 && g_n_ranges; ++k)
      reads[k] = g_mem[id][k].read - r->read_at_begin[k];
    record_event(id, r->calls, n, r->start, reads);
  }
  r->insns += n;
  ++r->calls;
  r->open = 0;
  g_open_mask &= ~(1u << id);
}

static void on_tb_translate(qemu_plugin_id_t id, struct qemu_plugin_tb* tb) {
  (void)id;
  const size_t n = qemu_plugin_tb_n_insns(tb);
  if (!g_mode_insn) count_tb(tb, n);
  for (size_t i = 0; i < n; ++i) {
    struct qemu_plugin_insn* insn = qemu_plugin_tb_get_insn(tb, i);
    if (g_mode_insn) count_insn(insn);
    if (g_n_ranges)
      qemu_plugin_register_vcpu_mem_cb(insn, on_mem, QEMU_PLUGIN_CB_NO_REGS, QEMU_PLUGIN_MEM_RW,
                                       NULL);
    uint8_t b[4];
    /* T32 HINT: first halfword 0xF3AF, second 0x80xx with xx in [0x80, 0xBF]. */
    if (!insn_bytes32(insn, b) || b[0] != 0xAF || b[1] != 0xF3 || b[3] != 0x80) continue;
    if (b[2] < TF_BEGIN_HINT || b[2] >= TF_END_HINT + TF_REGIONS) continue;
    uintptr_t after = n - i - 1;
    if (after > UD_AFTER_MAX) after = UD_AFTER_MAX; /* blocks are far shorter */
    uintptr_t ud = (after << UD_AFTER_SHIFT) | (b[2] & (TF_REGIONS - 1));
    if (b[2] >= TF_END_HINT) ud |= UD_END;
    qemu_plugin_register_vcpu_insn_exec_cb(insn, on_marker, QEMU_PLUGIN_CB_NO_REGS, (void*)ud);
  }
}

/* ---- report -------------------------------------------------------------------------- */
__attribute__((format(printf, 1, 2))) static void emit(const char* fmt, ...) {
  char line[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(line, sizeof line, fmt, ap);
  va_end(ap);
  if (g_out) {
    fputs(line, g_out);
  } else {
    qemu_plugin_outs(line);
  }
}

static void on_exit_report(qemu_plugin_id_t id, void* userdata) {
  (void)id;
  (void)userdata;
  const uint64_t total = counter_total();
  emit("tf-perf version=1 qemu-plugin-api=%d mode=%s\n", TF_QEMU_PLUGIN_API,
       g_mode_insn ? "insn" : "tb");
  emit("tf-perf total insns=%" PRIu64 "\n", total);
  for (unsigned i = 0; i < TF_REGIONS; ++i) {
    const region* r = &g_regions[i];
    if (r->calls)
      emit("tf-perf region=%u calls=%" PRIu64 " insns=%" PRIu64 " min=%" PRIu64 " max=%" PRIu64
           "\n",
           i, r->calls, r->insns, r->min, r->max);
  }
  for (size_t k = 0; k < g_n_events; ++k) {
    const event* e = &g_events[k];
    char reads[600] = "";
    if (g_n_ranges) { /* " reads=NAME:BYTES,..." over the ranges read from */
      size_t used = 0;
      for (unsigned r = 0; r <= g_n_ranges; ++r) {
        const uint64_t n = g_event_reads[e->reads + r];
        if (!n) continue;
        used += (size_t)snprintf(reads + used, sizeof reads - used, "%s%s:%" PRIu64,
                                 used ? "," : " reads=",
                                 r < g_n_ranges ? g_ranges[r].name : "other", n);
        if (used >= sizeof reads) break; /* 17 ranges of < 32 + 21 characters fit */
      }
    }
    emit("tf-perf event region=%u call=%" PRIu64 " insns=%" PRIu64 " start=%" PRIu64 "%s\n",
         (unsigned)e->id, e->call, e->insns, e->start, reads);
  }
  for (unsigned i = 0; i < TF_REGIONS; ++i) {
    const region* r = &g_regions[i];
    if (r->open)
      emit("tf-perf open region=%u insns=%" PRIu64 " start=%" PRIu64 "\n", i, total - r->start,
           r->start);
    if (r->end_without_begin)
      emit("tf-perf error region=%u kind=end-without-begin count=%" PRIu64 "\n", i,
           r->end_without_begin);
    if (r->begin_while_open)
      emit("tf-perf error region=%u kind=begin-while-open count=%" PRIu64 "\n", i,
           r->begin_while_open);
  }
  for (unsigned i = 0; i < TF_REGIONS; ++i) {
    for (unsigned r = 0; r <= g_n_ranges && g_n_ranges; ++r) {
      const mem_count* c = &g_mem[i][r];
      if (!c->loads && !c->stores) continue;
      emit("tf-perf mem region=%u range=%s read=%" PRIu64 " write=%" PRIu64 " loads=%" PRIu64
           " stores=%" PRIu64 "\n",
           i, r < g_n_ranges ? g_ranges[r].name : "other", c->read, c->write, c->loads,
           c->stores);
    }
  }
  if (g_events_dropped)
    emit("tf-perf error kind=events-dropped count=%" PRIu64 "\n", g_events_dropped);
  emit("tf-perf end\n");
  if (g_out) {
    fclose(g_out);
    g_out = NULL;
  }
  free(g_events);
  g_events = NULL;
  free(g_event_reads);
  g_event_reads = NULL;
  counter_free();
}

static int parse_bool(const char* value, int* out) {
  if (!strcmp(value, "on") || !strcmp(value, "yes") || !strcmp(value, "true")) {
    *out = 1;
  } else if (!strcmp(value, "off") || !strcmp(value, "no") || !strcmp(value, "false")) {
    *out = 0;
  } else {
    return 0;
  }
  return 1;
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t* info,
                                           int argc, char** argv) {
  for (int i = 0; i < argc; ++i) {
    const char* arg = argv[i];
    if (!strncmp(arg, "out=", 4)) {
      g_out = fopen(arg + 4, "w");
      if (!g_out) {
        fprintf(stderr, "tf_insncount: cannot write %s\n", arg + 4);
        return -1;
      }
    } else if (!strcmp(arg, "mode=tb")) {
      g_mode_insn = 0;
    } else if (!strcmp(arg, "mode=insn")) {
      g_mode_insn = 1;
    } else if (!strncmp(arg, "max_events=", 11)) {
      g_max_events = strtoull(arg + 11, NULL, 10);
    } else if (!strncmp(arg, "range=", 6)) {
      if (!parse_range(arg + 6)) {
        fprintf(stderr, "tf_insncount: bad or too many ranges '%s' (range=NAME:BASE:SIZE, "
                        "at most %d)\n", arg, TF_RANGES);
        return -1;
      }
    } else if (strncmp(arg, "events=", 7) || !parse_bool(arg + 7, &g_events_on)) {
      fprintf(stderr,
              "tf_insncount: unknown argument '%s' "
              "(out=FILE mode=tb|insn events=on|off max_events=N range=NAME:BASE:SIZE)\n",
              arg);
      return -1;
    }
  }
  if (info->system_emulation && info->system.max_vcpus > 1)
    fprintf(stderr, "tf_insncount: warning: %d vCPUs, counts are summed\n",
            info->system.max_vcpus);
  counter_init();
  qemu_plugin_register_vcpu_tb_trans_cb(id, on_tb_translate);
  qemu_plugin_register_atexit_cb(id, on_exit_report, NULL);
  return 0;
}
