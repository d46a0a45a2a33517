// Host file I/O over semihosting. argv: <input> <output>. Reads <input>, writes its bytes
// reversed to <output>, prints size and byte sum; also exercises the error results.
#include <cstdint>

#include "tf_host.h"
#include "tf_print.h"

namespace {
uint8_t g_buf[4096];
}

int main(int argc, char** argv) {
  if (argc < 3) {
    tf_printf("usage: host_io <input> <output>\n");
    return 2;
  }
  const int32_t size = tf_host_file_size(argv[1]);
  const int32_t n = tf_host_read_file(argv[1], g_buf, sizeof g_buf);
  if (n < 0 || n != size) {
    tf_printf("host_io: read failed: size=%ld n=%ld\n", static_cast<long>(size),
              static_cast<long>(n));
    return 1;
  }
  uint32_t sum = 0;
  for (int32_t i = 0; i < n; ++i) sum += g_buf[i];
  for (int32_t i = 0, j = n - 1; i < j; ++i, --j) {
    const uint8_t t = g_buf[i];
    g_buf[i] = g_buf[j];
    g_buf[j] = t;
  }
  const int32_t written = tf_host_write_file(argv[2], g_buf, static_cast<uint32_t>(n));
  const int32_t missing = tf_host_read_file("no/such/file.bin", g_buf, sizeof g_buf);
  const int32_t too_big =
      n > 0 ? tf_host_read_file(argv[1], g_buf, static_cast<uint32_t>(n - 1)) : int32_t{-3};
  tf_printf("host_io: size=%ld sum=%lu written=%ld missing=%ld too_big=%ld\n",
            static_cast<long>(n), static_cast<unsigned long>(sum), static_cast<long>(written),
            static_cast<long>(missing), static_cast<long>(too_big));
  return written == 0 && missing == TF_HOST_EOPEN && too_big == TF_HOST_ETOOBIG ? 0 : 1;
}
