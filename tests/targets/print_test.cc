// targets/common/print.c (tf_snprintf, the firmware's printf without newlib stdio) against
// the host C library's snprintf for every conversion, flag, width and length it supports,
// with truncation.
#include <gtest/gtest.h>

#include <climits>
#include <cstdint>
#include <cstdio>
#include <string>

#include "tf_print.h"

// print.c writes to the console through this; tf_printf is not used here.
extern "C" int32_t tf_host_write_console(int, const char*, uint32_t len) {
  return static_cast<int32_t>(len);
}

namespace {

template <class... Args>
void Same(const char* fmt, Args... args) {
  char want[512], got[512];
  const int n_want = std::snprintf(want, sizeof want, fmt, args...);
  const int n_got = tf_snprintf(got, sizeof got, fmt, args...);
  EXPECT_EQ(std::string(got), std::string(want)) << fmt;
  EXPECT_EQ(n_got, n_want) << fmt;
  for (uint32_t cap : {0u, 1u, 2u, 5u}) {  // truncated: same prefix, same returned length
    char small[8] = "zzzzzzz";
    EXPECT_EQ(tf_snprintf(small, cap, fmt, args...), n_want) << fmt << " cap " << cap;
    if (cap > 0) EXPECT_EQ(std::string(small), std::string(want).substr(0, cap - 1)) << fmt;
    else EXPECT_EQ(small[0], 'z');
  }
}

TEST(TfPrint, IntegersLikeSnprintf) {
  for (int v : {0, 1, -1, 7, -42, 1000000, INT_MAX, INT_MIN}) {
    Same("%d|%i|%5d|%-5d|%05d|%1d", v, v, v, v, v, v);
    Same("%u %x %X %08x %-8x|", static_cast<unsigned>(v), static_cast<unsigned>(v),
         static_cast<unsigned>(v), static_cast<unsigned>(v), static_cast<unsigned>(v));
    Same("%ld %lu %08lx %03ld", static_cast<long>(v), static_cast<unsigned long>(v),
         static_cast<unsigned long>(static_cast<uint32_t>(v)), static_cast<long>(v));
    Same("%*d|%-*d|%0*d", 6, v, 6, v, 6, v);
  }
  for (long long v : {0LL, -1LL, LLONG_MIN, LLONG_MAX, 1LL << 40}) {
    Same("%lld %llx %llu", v, static_cast<unsigned long long>(v),
         static_cast<unsigned long long>(v));
  }
  Same("%zu %zx", static_cast<size_t>(12345), static_cast<size_t>(0xbeef));
}

TEST(TfPrint, TextLikeSnprintf) {
  Same("plain text, no conversion\n");
  Same("%s|%8s|%-8s|%.2s|%.*s|%c%c|100%%", "abc", "abc", "abc", "abc", 1, "xyz", 'A', '\n');
  Same("%s%03ld_%lu.bin", "out/op", 7L, 2UL);  // model_runner's dump file names
  Same("region %s %s base=0x%08lx size=%lu", "dtcm", "fast", 0x20000000UL, 65536UL);
}

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat"
#pragma GCC diagnostic ignored "-Wformat-extra-args"
TEST(TfPrint, UnknownConversionIsWrittenAsIs) {
  char buf[32];
  EXPECT_EQ(tf_snprintf(buf, sizeof buf, "a%qb"), 4);
  EXPECT_EQ(std::string(buf), "a%qb");
  EXPECT_EQ(tf_snprintf(buf, sizeof buf, "end%"), 4);
  EXPECT_EQ(std::string(buf), "end%");
}
#pragma GCC diagnostic pop

}  // namespace
