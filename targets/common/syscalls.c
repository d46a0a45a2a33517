// What newlib and the C++ start-up need from the board when nothing uses stdio or malloc:
// exit(n) ends the emulation with status n. There is no _sbrk: a firmware that reaches
// newlib's malloc (printf, puts, new) fails to link, unless it opts into newlib_stdio.c
// (tf_add_firmware NEWLIB_STDIO). Console output: tf_print.h.
#include "tf_host.h"

void _exit(int status) { tf_host_exit(status); }

// With -nostartfiles neither crti/crtn (_init/_fini, called by __libc_init_array and exit)
// nor crtbegin (__dso_handle, used when a static C++ object has a destructor) is linked.
void _init(void) {}
void _fini(void) {}
void* __dso_handle = &__dso_handle;
