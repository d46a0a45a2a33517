// The on-device per-op tracer (tinyforge/tf_trace.h; format: docs/trace-format.md).
#include "tinyforge/tf_trace.h"

namespace {

// Header field offsets (docs/trace-format.md).
constexpr uint32_t kOffVersion = 4, kOffHeaderBytes = 6, kOffRecordBytes = 8, kOffSource = 10,
                   kOffFlags = 11, kOffClockHz = 12, kOffProgramCrc = 16, kOffNumOps = 20,
                   kOffCount = 24, kOffDropped = 28;

void Put16(uint8_t* p, uint32_t v) {
  p[0] = static_cast<uint8_t>(v);
  p[1] = static_cast<uint8_t>(v >> 8);
}
void Put32(uint8_t* p, uint32_t v) {
  Put16(p, v & 0xFFFFu);
  Put16(p + 2, v >> 16);
}

#if defined(__arm__) && (defined(__ARM_ARCH_7M__) || defined(__ARM_ARCH_7EM__) || \
                         defined(__ARM_ARCH_8M_MAIN__) || defined(__ARM_ARCH_8_1M_MAIN__) || \
                         defined(__ARM_ARCH_6M__) || defined(__ARM_ARCH_8M_BASE__))
#define TF_TRACE_HAS_SYSTICK 1
#if !defined(__ARM_ARCH_6M__) && !defined(__ARM_ARCH_8M_BASE__)
#define TF_TRACE_HAS_DWT 1  // optional on the core; probed at init
#endif
#endif

#ifdef TF_TRACE_HAS_SYSTICK
inline volatile uint32_t& Reg(uint32_t addr) { return *reinterpret_cast<volatile uint32_t*>(addr); }
inline uint32_t Read(uint32_t addr) { return Reg(addr); }
constexpr uint32_t kSystCsr = 0xE000E010u, kSystRvr = 0xE000E014u, kSystCvr = 0xE000E018u;
constexpr uint32_t kCsrEnable = 1u, kCsrClkSource = 1u << 2, kCsrCountFlag = 1u << 16;
#endif
#ifdef TF_TRACE_HAS_DWT
constexpr uint32_t kDemcr = 0xE000EDFCu, kDwtCtrl = 0xE0001000u, kDwtCyccnt = 0xE0001004u,
                   kDwtLar = 0xE0001FB0u;
constexpr uint32_t kDemcrTrcena = 1u << 24, kDwtNoCyccnt = 1u << 25, kDwtCyccntEna = 1u;

// Enables the cycle counter; true if it then counts (QEMU implements no DWT: reads 0).
bool DwtStart() {
  Reg(kDemcr) |= kDemcrTrcena;
  Reg(kDwtLar) = 0xC5ACCE55u;  // unlocks the DWT where a lock is implemented (Cortex-M7)
  if ((Reg(kDwtCtrl) & kDwtNoCyccnt) != 0) return false;
  Reg(kDwtCtrl) |= kDwtCyccntEna;
  const uint32_t a = Reg(kDwtCyccnt);
  for (volatile int i = 0; i < 4; ++i) {
  }
  return Reg(kDwtCyccnt) != a;
}
#endif

void WriteHeaderCounts(tf_trace* t) {
  t->buf[kOffFlags] = t->flags;
  Put32(t->buf + kOffCount, t->count);
  Put32(t->buf + kOffDropped, t->dropped);
}

}  // namespace

extern "C" {

tf_status tf_trace_init(tf_trace* t, void* buffer, uint32_t bytes, int source,
                        uint32_t clock_hz) {
  if (t == nullptr || buffer == nullptr || reinterpret_cast<uintptr_t>(buffer) % 4 != 0) {
    return TF_E_NULL_ARGUMENT;
  }
  if (bytes < TF_TRACE_HEADER_BYTES) return TF_E_TRACE_BUFFER;
  *t = tf_trace{};
  t->buf = static_cast<uint8_t*>(buffer);
  t->capacity = (bytes - TF_TRACE_HEADER_BYTES) / TF_TRACE_RECORD_BYTES;
  if (source == TF_TRACE_SOURCE_CUSTOM) {
    t->source = TF_TRACE_SOURCE_CUSTOM;
  }
#ifdef TF_TRACE_HAS_DWT
  else if ((source == TF_TRACE_SOURCE_AUTO || source == TF_TRACE_SOURCE_DWT) && DwtStart()) {
    t->source = TF_TRACE_SOURCE_DWT;
  }
#endif
#ifdef TF_TRACE_HAS_SYSTICK
  else if (source == TF_TRACE_SOURCE_AUTO || source == TF_TRACE_SOURCE_SYSTICK) {
    if ((Reg(kSystCsr) & kCsrEnable) == 0) {
      Reg(kSystRvr) = 0x00FFFFFFu;
      Reg(kSystCvr) = 0;  // clears the counter and COUNTFLAG
      Reg(kSystCsr) = kCsrClkSource | kCsrEnable;
    }
    t->period = (Reg(kSystRvr) & 0x00FFFFFFu) + 1u;
    t->source = TF_TRACE_SOURCE_SYSTICK;
  }
#endif
  else {
    return TF_E_TRACE_SOURCE;
  }
  for (uint32_t i = 0; i < TF_TRACE_HEADER_BYTES; ++i) t->buf[i] = 0;
  for (uint32_t i = 0; i < 4; ++i) t->buf[i] = static_cast<uint8_t>(TF_TRACE_MAGIC[i]);
  Put16(t->buf + kOffVersion, TF_TRACE_VERSION);
  Put16(t->buf + kOffHeaderBytes, TF_TRACE_HEADER_BYTES);
  Put16(t->buf + kOffRecordBytes, TF_TRACE_RECORD_BYTES);
  t->buf[kOffSource] = t->source;
  Put32(t->buf + kOffClockHz, clock_hz);
  WriteHeaderCounts(t);
  return TF_OK;
}

void tf_trace_set_clock(tf_trace* t, tf_trace_clock_fn fn, void* user) {
  t->clock = fn;
  t->clock_user = user;
}

int tf_trace_source(const tf_trace* t) { return t->source; }

tf_status tf_trace_attach(tf_trace* t, tf_model* m) {
  if (t == nullptr || m == nullptr || t->buf == nullptr) return TF_E_NULL_ARGUMENT;
  const int32_t ops = tf_model_num_ops(m);
  if (ops <= 0) return TF_E_NOT_READY;
  Put32(t->buf + kOffProgramCrc, tf_model_program_crc(m));
  Put32(t->buf + kOffNumOps, static_cast<uint32_t>(ops));
  tf_model_set_profiler(m, tf_trace_hook, t);
  return TF_OK;
}

// Begin: one counter read, kept. End: one read, the difference appended as a record. The
// SysTick reads are ordered so that a reload between them is seen by the modular
// difference (one reload) or by COUNTFLAG (a whole period or more); see tf_trace.h.
void tf_trace_hook(void* user, int32_t op_index, uint32_t kernel_id, int end) {
  tf_trace* t = static_cast<tf_trace*>(user);
  uint32_t now = 0, flags = 0;
  switch (t->source) {
#ifdef TF_TRACE_HAS_DWT
    case TF_TRACE_SOURCE_DWT:
      now = Reg(kDwtCyccnt);
      break;
#endif
#ifdef TF_TRACE_HAS_SYSTICK
    case TF_TRACE_SOURCE_SYSTICK:
      if (!end) {
        now = Reg(kSystCvr);
        (void)Read(kSystCsr);  // clears COUNTFLAG
      } else {
        const uint32_t csr = Reg(kSystCsr);
        now = Reg(kSystCvr);
        // a reload since begin and no less than begin left: a whole period or more
        if ((csr & kCsrCountFlag) != 0 && now != 0 && now <= t->begin) {
          flags = TF_TRACE_REC_WRAPPED;
        }
      }
      break;
#endif
    case TF_TRACE_SOURCE_CUSTOM:
      now = t->clock != nullptr ? t->clock(t->clock_user) : 0u;
      break;
    default:
      break;
  }
  if (!end) {
    t->begin = now;
    return;
  }
  uint32_t cycles = now - t->begin;  // up-counters, modulo 2^32
#ifdef TF_TRACE_HAS_SYSTICK
  if (t->source == TF_TRACE_SOURCE_SYSTICK) {  // down-counter, modulo its period
    cycles = t->begin >= now ? t->begin - now : t->begin + t->period - now;
  }
#endif
  if (t->count >= t->capacity || op_index < 0 || op_index > 0xFFFF) {
    ++t->dropped;
    t->flags = static_cast<uint8_t>(t->flags | TF_TRACE_FULL);
  } else {
    uint8_t* r = t->buf + TF_TRACE_HEADER_BYTES + t->count * TF_TRACE_RECORD_BYTES;
    Put16(r, static_cast<uint32_t>(op_index));
    Put16(r + 2, flags);
    Put32(r + 4, kernel_id);
    Put32(r + 8, cycles);
    ++t->count;
  }
  if (flags != 0) t->flags = static_cast<uint8_t>(t->flags | TF_TRACE_WRAPPED);
  WriteHeaderCounts(t);
}

void tf_trace_reset(tf_trace* t) {
  t->count = 0;
  t->dropped = 0;
  t->flags = 0;
  WriteHeaderCounts(t);
}

uint32_t tf_trace_bytes(const tf_trace* t) {
  return TF_TRACE_HEADER_BYTES + t->count * TF_TRACE_RECORD_BYTES;
}

}  // extern "C"
