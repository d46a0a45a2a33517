# ctest helper: proves the kernel library is freestanding by listing the symbols its
# objects need from outside the library (nm -u). Only compiler-emitted memory intrinsics are allowed;
# anything else (libstdc++, libm, malloc, __cxa_*, printf ...) fails the test.
#   cmake -DNM=<nm> -DLIB=<libtinyforge_kernels.a> -P check_freestanding.cmake
include(${CMAKE_CURRENT_LIST_DIR}/../freestanding.cmake)  # outside_needs
# Sanitizer builds (TINYFORGE_SANITIZE) add their runtime hooks; PIC code may name the GOT.
set(allowed "memcpy|memmove|memset|__aeabi_mem.*|_GLOBAL_OFFSET_TABLE_")
string(APPEND allowed "|__asan_.*|__ubsan_.*|__sanitizer_.*")
outside_needs(bad "${allowed}" ${LIB})
if(bad)
  message(FATAL_ERROR "kernels are not freestanding, they need: ${bad}")
endif()
message(STATUS "kernels need nothing outside: ${allowed}")
