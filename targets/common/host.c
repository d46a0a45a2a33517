// Semihosting calls (Arm "Semihosting for AArch32 and AArch64", version 2): the operation
// number in r0, a pointer to a parameter block in r1, BKPT 0xAB, the result in r0.
#include <stdint.h>
#include <string.h>

#include "tf_host.h"

enum {
  SYS_OPEN = 0x01,
  SYS_CLOSE = 0x02,
  SYS_WRITE = 0x05,
  SYS_READ = 0x06,
  SYS_SEEK = 0x0A,
  SYS_FLEN = 0x0C,
  SYS_GET_CMDLINE = 0x15,
  SYS_EXIT_EXTENDED = 0x20,
};
enum { OPEN_MODE_RB = 1, OPEN_MODE_RPB = 3, OPEN_MODE_W = 4, OPEN_MODE_WB = 5, OPEN_MODE_A = 8 };
#define ADP_STOPPED_APPLICATION_EXIT 0x20026u

static int32_t semihost(uint32_t op, const void* block) {
  register uint32_t r0 __asm__("r0") = op;
  register const void* r1 __asm__("r1") = block;
  __asm__ volatile("bkpt 0xAB" : "+r"(r0) : "r"(r1) : "memory");
  return (int32_t)r0;
}

static int32_t host_open(const char* path, uint32_t mode) {
  const uint32_t block[3] = {(uint32_t)path, mode, (uint32_t)strlen(path)};
  return semihost(SYS_OPEN, block);
}

static void host_close(int32_t handle) {
  const uint32_t block[1] = {(uint32_t)handle};
  (void)semihost(SYS_CLOSE, block);
}

int32_t tf_host_file_size(const char* path) {
  const int32_t handle = host_open(path, OPEN_MODE_RB);
  if (handle < 0) return TF_HOST_EOPEN;
  const uint32_t block[1] = {(uint32_t)handle};
  const int32_t size = semihost(SYS_FLEN, block);
  host_close(handle);
  return size < 0 ? TF_HOST_EIO : size;
}

int32_t tf_host_read_file(const char* path, void* buf, uint32_t capacity) {
  const int32_t handle = host_open(path, OPEN_MODE_RB);
  if (handle < 0) return TF_HOST_EOPEN;
  const uint32_t flen_block[1] = {(uint32_t)handle};
  const int32_t size = semihost(SYS_FLEN, flen_block);
  int32_t result = size;
  if (size < 0) {
    result = TF_HOST_EIO;
  } else if ((uint32_t)size > capacity) {
    result = TF_HOST_ETOOBIG;
  } else if (size > 0) {
    // SYS_READ returns the number of bytes NOT read.
    const uint32_t block[3] = {(uint32_t)handle, (uint32_t)buf, (uint32_t)size};
    if (semihost(SYS_READ, block) != 0) result = TF_HOST_EIO;
  }
  host_close(handle);
  return result;
}

int32_t tf_host_write_file(const char* path, const void* data, uint32_t size) {
  const int32_t handle = host_open(path, OPEN_MODE_WB);
  if (handle < 0) return TF_HOST_EOPEN;
  int32_t result = 0;
  if (size > 0) {
    // SYS_WRITE returns the number of bytes NOT written.
    const uint32_t block[3] = {(uint32_t)handle, (uint32_t)data, size};
    if (semihost(SYS_WRITE, block) != 0) result = TF_HOST_EIO;
  }
  host_close(handle);
  return result;
}

int32_t tf_host_read_at(const char* path, uint32_t offset, void* buf, uint32_t size) {
  const int32_t handle = host_open(path, OPEN_MODE_RB);
  if (handle < 0) return TF_HOST_EOPEN;
  const uint32_t flen_block[1] = {(uint32_t)handle};
  const int32_t file_size = semihost(SYS_FLEN, flen_block);
  int32_t result = (int32_t)size;
  if (file_size < 0) {
    result = TF_HOST_EIO;
  } else if ((uint64_t)offset + size > (uint32_t)file_size) {
    result = TF_HOST_ETOOBIG;  // the file ends before offset + size
  } else if (size > 0) {
    const uint32_t seek_block[2] = {(uint32_t)handle, offset};
    const uint32_t read_block[3] = {(uint32_t)handle, (uint32_t)buf, size};
    if (semihost(SYS_SEEK, seek_block) != 0 || semihost(SYS_READ, read_block) != 0) {
      result = TF_HOST_EIO;
    }
  }
  host_close(handle);
  return result;
}

int32_t tf_host_write_at(const char* path, uint32_t offset, const void* data, uint32_t size) {
  const int32_t handle = host_open(path, OPEN_MODE_RPB);
  if (handle < 0) return TF_HOST_EOPEN;
  int32_t result = 0;
  if (size > 0) {
    // Appending (open mode "ab") does not extend the file under QEMU 7.2: seek instead.
    const uint32_t seek_block[2] = {(uint32_t)handle, offset};
    const uint32_t block[3] = {(uint32_t)handle, (uint32_t)data, size};
    if (semihost(SYS_SEEK, seek_block) != 0 || semihost(SYS_WRITE, block) != 0) {
      result = TF_HOST_EIO;
    }
  }
  host_close(handle);
  return result;
}

// Not SYS_WRITE0: QEMU 7.2 sends that to its stderr but ":tt" writes to its stdout, and
// fault reports should interleave with printf output.
void tf_host_puts(const char* s) { (void)tf_host_write_console(1, s, (uint32_t)strlen(s)); }

int32_t tf_host_write_console(int fd, const char* buf, uint32_t len) {
  // ":tt" opened for writing is the console; mode "w" is stdout, "a" stderr.
  static int32_t s_handle[2] = {-1, -1};
  const int err = fd == 2;
  if (s_handle[err] < 0) s_handle[err] = host_open(":tt", err ? OPEN_MODE_A : OPEN_MODE_W);
  if (s_handle[err] < 0) return -1;
  const uint32_t block[3] = {(uint32_t)s_handle[err], (uint32_t)buf, len};
  return (int32_t)len - semihost(SYS_WRITE, block);
}

int32_t tf_host_cmdline(char* buf, uint32_t capacity) {
  uint32_t block[2] = {(uint32_t)buf, capacity};
  if (capacity == 0 || semihost(SYS_GET_CMDLINE, block) != 0) return -1;
  return (int32_t)block[1];
}

void tf_host_exit(int code) {
  const uint32_t block[2] = {ADP_STOPPED_APPLICATION_EXIT, (uint32_t)code};
  (void)semihost(SYS_EXIT_EXTENDED, block);
  for (;;) {
  }
}
