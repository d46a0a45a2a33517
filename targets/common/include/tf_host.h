// Host services over Arm semihosting (BKPT 0xAB), as qemu-system-arm provides them with
// -semihosting-config enable=on,target=native (targets/qemu/run.py passes that). Paths are
// host paths, relative ones to QEMU's working directory. Each call is a trap to the
// emulator, so keep them out of measured regions.
//
// Semihosting exists only under an emulator or a debugger: on a board running free, BKPT
// faults. tinyforge firmware is built for the QEMU boards, where that is the point.
#ifndef TINYFORGE_TF_HOST_H_
#define TINYFORGE_TF_HOST_H_

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

// Negative results of the file functions.
enum {
  TF_HOST_EOPEN = -1,    // the host could not open the file
  TF_HOST_EIO = -2,      // a read, write or length query failed part way
  TF_HOST_ETOOBIG = -3,  // the file is larger than the caller's buffer (buffer untouched)
};

// Size in bytes of a host file, or a negative TF_HOST_* error.
int32_t tf_host_file_size(const char* path);
// Reads a whole host file into buf[0, capacity). Returns the number of bytes read (the file
// size), or a negative TF_HOST_* error. The caller owns buf.
int32_t tf_host_read_file(const char* path, void* buf, uint32_t capacity);
// Creates or truncates a host file and writes data[0, size) to it. Returns 0 or a negative
// TF_HOST_* error.
int32_t tf_host_write_file(const char* path, const void* data, uint32_t size);
// Reads exactly `size` bytes at byte `offset` of a host file into buf. Returns `size`, or
// TF_HOST_ETOOBIG if the file ends before offset + size, or another negative TF_HOST_* error.
int32_t tf_host_read_at(const char* path, uint32_t offset, void* buf, uint32_t size);
// Writes data[0, size) at byte `offset` of an existing host file (extending it if needed).
// Returns 0 or a negative TF_HOST_* error.
int32_t tf_host_write_at(const char* path, uint32_t offset, const void* data, uint32_t size);

// Writes a NUL-terminated string to the emulator's console (its stdout). No newline added.
void tf_host_puts(const char* s);
// Writes len bytes to the console: fd 2 selects the semihosting error stream (QEMU sends
// both to its stdout). Returns the number of bytes written.
int32_t tf_host_write_console(int fd, const char* buf, uint32_t len);

// Copies the command line given to the emulator (run.py: arguments after the ELF) into
// buf as a NUL-terminated string; returns its length, or -1 if it does not fit.
int32_t tf_host_cmdline(char* buf, uint32_t capacity);

// Ends the emulation; qemu-system-arm exits with `code` (0..255).
__attribute__((noreturn)) void tf_host_exit(int code);

#ifdef __cplusplus
}  // extern "C"
#endif

#endif  // TINYFORGE_TF_HOST_H_
