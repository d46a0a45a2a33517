// Formatted console output without newlib's stdio: printf pulls newlib's malloc (stdio
// buffers) and a heap into the image, although the runtime and kernels need nothing from
// the C library beyond memcpy/memset and 64-bit division. tf_printf formats into a buffer
// on the stack and writes it to the emulator's console with semihosting (tf_host.h).
//
// Conversions: %d %i %u %x %X %c %s %p %%, flags '-' and '0', a field width (digits or *),
// a precision for %s (digits or *), length modifiers l ll z (h and hh are accepted and
// read an int, not truncated). No floating point: print integers (e.g. bits in hex)
// instead. An unknown conversion is printed as written.
#ifndef TINYFORGE_TF_PRINT_H_
#define TINYFORGE_TF_PRINT_H_

#include <stdarg.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

// Like vsnprintf: writes at most size - 1 characters and a NUL (if size > 0); returns the
// length the whole text would have.
int tf_vsnprintf(char* buf, uint32_t size, const char* fmt, va_list ap);
int tf_snprintf(char* buf, uint32_t size, const char* fmt, ...)
    __attribute__((format(printf, 3, 4)));
// To the console (stdout); returns the number of characters written. Text longer than the
// internal buffer (256 bytes) is written in several console writes.
int tf_printf(const char* fmt, ...) __attribute__((format(printf, 1, 2)));

#ifdef __cplusplus
}  // extern "C"
#endif

#endif  // TINYFORGE_TF_PRINT_H_
