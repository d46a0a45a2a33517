// newlib(-nano) stdio and malloc over semihosting, for test firmware that wants the C
// library's printf (floating point, vsnprintf): tf_add_firmware(... NEWLIB_STDIO). Product
// firmware does not link it (tf_print.h instead): stdio buffers come from malloc, which
// gets this file's fixed pool. stdout/stderr go to the emulator's console; everything else
// reports "not supported": files are reached through tf_host_read_file / write_file.
#include <errno.h>
#include <stddef.h>
#include <sys/stat.h>

#include "tf_host.h"

int _write(int fd, const char* buf, int len) {
  if (fd != 1 && fd != 2) {
    errno = EBADF;
    return -1;
  }
  return (int)tf_host_write_console(fd, buf, (uint32_t)len);
}

int _read(int fd, char* buf, int len) {
  (void)fd;
  (void)buf;
  (void)len;
  return 0;  // end of file: there is no stdin
}

static char s_pool[8192] __attribute__((aligned(8)));
void* _sbrk(ptrdiff_t increment) {
  static char* s_brk = s_pool;
  if (increment > s_pool + sizeof s_pool - s_brk || increment < s_pool - s_brk) {
    errno = ENOMEM;
    return (void*)-1;
  }
  char* previous = s_brk;
  s_brk += increment;
  return previous;
}

int _close(int fd) {
  (void)fd;
  errno = EBADF;
  return -1;
}
int _lseek(int fd, int offset, int whence) {
  (void)fd;
  (void)offset;
  (void)whence;
  errno = ESPIPE;
  return -1;
}
int _fstat(int fd, struct stat* st) {
  (void)fd;
  st->st_mode = S_IFCHR;  // a terminal: stdio line-buffers it
  return 0;
}
int _isatty(int fd) { return fd >= 0 && fd <= 2; }
int _kill(int pid, int sig) {
  (void)pid;
  (void)sig;
  errno = EINVAL;
  return -1;
}
int _getpid(void) { return 1; }
