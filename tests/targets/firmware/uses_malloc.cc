// Must fail to link: newlib's printf allocates its stdout buffer with malloc, and the board
// support has no _sbrk (no heap). Firmware prints with tf_printf (tf_print.h).
#include <cstdio>

int main() {
  std::printf("%d\n", 42);
  return 0;
}
