// newlib(-nano) system calls over semihosting: stdout/stderr go to the emulator's console,
// exit(n) ends the emulation with status n, malloc gets the fixed .heap section. Everything
// else reports "not supported": files are reached through tf_host_read_file / write_file.
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

void _exit(int status) { tf_host_exit(status); }

extern char __tf_heap_start[], __tf_heap_end[];
void* _sbrk(ptrdiff_t increment) {
  static char* s_brk = __tf_heap_start;
  if (increment > __tf_heap_end - s_brk || increment < __tf_heap_start - s_brk) {
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

// With -nostartfiles neither crti/crtn (_init/_fini, called by __libc_init_array and exit)
// nor crtbegin (__dso_handle, used when a static C++ object has a destructor) is linked.
void _init(void) {}
void _fini(void) {}
void* __dso_handle = &__dso_handle;
