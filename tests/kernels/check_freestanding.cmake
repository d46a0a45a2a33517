# ctest helper: proves the kernel library is freestanding by listing the symbols its
# objects need from outside the library (nm -u). Only compiler-emitted memory intrinsics are allowed;
# anything else (libstdc++, libm, malloc, __cxa_*, printf ...) fails the test.
#   cmake -DNM=<nm> -DLIB=<libtinyforge_kernels.a> -P check_freestanding.cmake
execute_process(COMMAND ${NM} -u ${LIB} OUTPUT_VARIABLE undefined RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "nm failed on ${LIB}")
endif()
string(REGEX MATCHALL "U [^\n]+" symbols "${undefined}")
# A kernel may call another kernel of the library (a variant's general case is often its
# family's __ref): symbols the library itself defines are not outside needs.
execute_process(COMMAND ${NM} --defined-only -g ${LIB} OUTPUT_VARIABLE defined)
string(REGEX MATCHALL "[TDRBW] [^\n]+" defined_lines "${defined}")
set(defined_syms "")
foreach(line IN LISTS defined_lines)
  string(REGEX REPLACE "^[TDRBW] " "" sym "${line}")
  list(APPEND defined_syms "${sym}")
endforeach()
set(bad "")
foreach(line IN LISTS symbols)
  string(REGEX REPLACE "^U " "" sym "${line}")
  # Sanitizer builds (TINYFORGE_SANITIZE) add their runtime hooks; PIC code may name the GOT.
  set(allowed "memcpy|memmove|memset|__aeabi_mem.*|_GLOBAL_OFFSET_TABLE_")
  string(APPEND allowed "|__asan_.*|__ubsan_.*|__sanitizer_.*")
  if(NOT sym MATCHES "^(${allowed})$" AND NOT sym IN_LIST defined_syms)
    list(APPEND bad "${sym}")
  endif()
endforeach()
if(bad)
  message(FATAL_ERROR "kernels are not freestanding, they need: ${bad}")
endif()
message(STATUS "kernels need only: ${symbols}")
