// The on-device tracer (tinyforge/tf_trace.h) on the host, with a caller's clock: the bytes
// it writes are the documented format (docs/trace-format.md), read back independently here.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>

#include "tinyforge/tf_trace.h"

namespace {

uint32_t Get16(const uint8_t* p) { return p[0] | (p[1] << 8); }
uint32_t Get32(const uint8_t* p) { return Get16(p) | (Get16(p + 2) << 16); }

// A clock that advances by `step` at every read.
struct FakeClock {
  uint32_t now;
  uint32_t step;
};
uint32_t Tick(void* user) {
  auto* c = static_cast<FakeClock*>(user);
  const uint32_t v = c->now;
  c->now += c->step;
  return v;
}

TEST(Trace, WritesHeaderAndOneRecordPerOp) {
  alignas(4) uint8_t buf[32 + 3 * 12] = {};
  tf_trace t;
  ASSERT_EQ(tf_trace_init(&t, buf, sizeof buf, TF_TRACE_SOURCE_CUSTOM, 48000000u), TF_OK);
  FakeClock clock{0xFFFFFFF0u, 100};  // wraps modulo 2^32 during op 0
  tf_trace_set_clock(&t, Tick, &clock);
  EXPECT_EQ(tf_trace_source(&t), TF_TRACE_SOURCE_CUSTOM);
  EXPECT_EQ(tf_trace_bytes(&t), 32u);
  const uint32_t kernels[3] = {0x11223344u, 7u, 0xCAFEBABEu};
  for (int32_t op = 0; op < 3; ++op) {
    clock.step = 100u * static_cast<uint32_t>(op + 1);
    tf_trace_hook(&t, op, kernels[op], 0);
    tf_trace_hook(&t, op, kernels[op], 1);
  }
  EXPECT_EQ(tf_trace_bytes(&t), 32u + 3 * 12);
  EXPECT_EQ(std::memcmp(buf, "TFTR", 4), 0);
  EXPECT_EQ(Get16(buf + 4), 1u);   // version
  EXPECT_EQ(Get16(buf + 6), 32u);  // header bytes
  EXPECT_EQ(Get16(buf + 8), 12u);  // record bytes
  EXPECT_EQ(buf[10], TF_TRACE_SOURCE_CUSTOM);
  EXPECT_EQ(buf[11], 0u);  // flags
  EXPECT_EQ(Get32(buf + 12), 48000000u);
  EXPECT_EQ(Get32(buf + 24), 3u);  // records
  EXPECT_EQ(Get32(buf + 28), 0u);  // dropped
  for (uint32_t k = 0; k < 3; ++k) {
    const uint8_t* r = buf + 32 + 12 * k;
    EXPECT_EQ(Get16(r), k);
    EXPECT_EQ(Get16(r + 2), 0u);
    EXPECT_EQ(Get32(r + 4), kernels[k]);
    EXPECT_EQ(Get32(r + 8), 100u * (k + 1));
  }
}

TEST(Trace, CountsWhatDoesNotFitAndResets) {
  alignas(4) uint8_t buf[32 + 2 * 12 + 11] = {};
  tf_trace t;
  ASSERT_EQ(tf_trace_init(&t, buf, sizeof buf, TF_TRACE_SOURCE_CUSTOM, 0), TF_OK);
  FakeClock clock{0, 5};
  tf_trace_set_clock(&t, Tick, &clock);
  for (int32_t op = 0; op < 5; ++op) {
    tf_trace_hook(&t, op, 1, 0);
    tf_trace_hook(&t, op, 1, 1);
  }
  EXPECT_EQ(Get32(buf + 24), 2u);
  EXPECT_EQ(Get32(buf + 28), 3u);
  EXPECT_EQ(buf[11], TF_TRACE_FULL);
  EXPECT_EQ(tf_trace_bytes(&t), 32u + 2 * 12);
  tf_trace_reset(&t);
  EXPECT_EQ(Get32(buf + 24), 0u);
  EXPECT_EQ(Get32(buf + 28), 0u);
  EXPECT_EQ(buf[11], 0u);
  EXPECT_EQ(tf_trace_bytes(&t), 32u);
}

TEST(Trace, RefusesBadArguments) {
  alignas(4) uint8_t buf[64];
  tf_trace t;
  EXPECT_EQ(tf_trace_init(&t, buf, 31, TF_TRACE_SOURCE_CUSTOM, 0), TF_E_TRACE_BUFFER);
  EXPECT_EQ(tf_trace_init(&t, buf + 1, 40, TF_TRACE_SOURCE_CUSTOM, 0), TF_E_NULL_ARGUMENT);
  EXPECT_EQ(tf_trace_init(nullptr, buf, 64, TF_TRACE_SOURCE_CUSTOM, 0), TF_E_NULL_ARGUMENT);
  // The host has neither DWT nor SysTick.
  EXPECT_EQ(tf_trace_init(&t, buf, 64, TF_TRACE_SOURCE_AUTO, 0), TF_E_TRACE_SOURCE);
  EXPECT_EQ(tf_trace_init(&t, buf, 64, TF_TRACE_SOURCE_SYSTICK, 0), TF_E_TRACE_SOURCE);
  EXPECT_EQ(tf_trace_init(&t, buf, 64, TF_TRACE_SOURCE_DWT, 0), TF_E_TRACE_SOURCE);
  tf_model m;
  std::memset(&m, 0, sizeof m);
  ASSERT_EQ(tf_trace_init(&t, buf, 64, TF_TRACE_SOURCE_CUSTOM, 0), TF_OK);
  EXPECT_EQ(tf_trace_attach(&t, &m), TF_E_NOT_READY);
}

}  // namespace
