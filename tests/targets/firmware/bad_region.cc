// Must fail to link: no board has a region called no_such_region.
#include <cstdint>

#include "tf_board.h"

TF_ARENA(no_such_region) volatile uint8_t g_buffer[64];

int main() {
  g_buffer[0] = 1;
  return g_buffer[0] - 1;
}
