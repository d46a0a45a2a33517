# tinyforge board support for CMake projects configured with arm-none-eabi.cmake:
#   tf_board                      OBJECT library: startup, vectors, faults, semihosting,
#                                 console output (tf_printf), perf; headers tf_board.h,
#                                 tf_host.h, tf_print.h, tf_perf.h and the generated
#                                 tf_board_config.h. No allocator, no heap.
#   tf_add_firmware(<name> SOURCES <src>... [LIBRARIES <lib>...] [DEFINITIONS <def>...]
#                   [INCLUDE_DIRS <dir>...] [STACK_SIZE <bytes>] [NEWLIB_STDIO])
#                                 firmware <name>.elf (+ <name>.elf.map) for the board;
#                                 NEWLIB_STDIO (test firmware only): newlib's printf and
#                                 malloc work, from an 8 KiB pool in .bss
include_guard(GLOBAL)

if(NOT TINYFORGE_BOARD OR NOT TINYFORGE_TARGETS_DIR)
  message(FATAL_ERROR "tinyforge: configure with -DTINYFORGE_BOARD=<board> "
                      "-DCMAKE_TOOLCHAIN_FILE=<tinyforge>/targets/cmake/arm-none-eabi.cmake")
endif()

# --- tf_board_config.h from board.json -------------------------------------------------
# The TF_BOARD_* values come from the toolchain file's one reading of board.json
# (TinyforgeBoardJson.cmake).
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${TINYFORGE_BOARD_JSON}")
set(TF_BOARD_JSON "${TINYFORGE_BOARD_JSON}")
set(TINYFORGE_GENERATED_DIR "${CMAKE_BINARY_DIR}/tinyforge-board")
configure_file("${TINYFORGE_TARGETS_DIR}/common/tf_board_config.h.in"
               "${TINYFORGE_GENERATED_DIR}/tf_board_config.h" @ONLY)

# --- tf_board ----------------------------------------------------------------------------
set(_tf_common "${TINYFORGE_TARGETS_DIR}/common")
add_library(tf_board OBJECT
  "${_tf_common}/startup.S"
  "${_tf_common}/vectors.c"
  "${_tf_common}/board.c"
  "${_tf_common}/fault.c"
  "${_tf_common}/host.c"
  "${_tf_common}/perf.c"
  "${_tf_common}/print.c"
  "${_tf_common}/syscalls.c")
target_include_directories(tf_board PUBLIC "${_tf_common}/include" "${TINYFORGE_GENERATED_DIR}")
target_compile_options(tf_board PRIVATE -Wall -Wextra -Werror)
# Console output is never on a measured path: smallest code.
set_source_files_properties("${_tf_common}/print.c" PROPERTIES COMPILE_OPTIONS -Os)
target_compile_features(tf_board PUBLIC c_std_11 cxx_std_17)
add_library(tf_newlib_stdio OBJECT "${_tf_common}/newlib_stdio.c")
target_include_directories(tf_newlib_stdio PRIVATE "${_tf_common}/include")
target_compile_options(tf_newlib_stdio PRIVATE -Wall -Wextra -Werror)

function(tf_add_firmware name)
  cmake_parse_arguments(PARSE_ARGV 1 arg "NEWLIB_STDIO" "STACK_SIZE"
                        "SOURCES;LIBRARIES;DEFINITIONS;INCLUDE_DIRS")
  if(NOT arg_SOURCES)
    message(FATAL_ERROR "tf_add_firmware(${name}): SOURCES is required")
  endif()
  if(arg_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "tf_add_firmware(${name}): unknown arguments ${arg_UNPARSED_ARGUMENTS}")
  endif()
  add_executable(${name} ${arg_SOURCES})
  set_target_properties(${name} PROPERTIES SUFFIX ".elf" LINK_DEPENDS "${TINYFORGE_LINKER_SCRIPTS}")
  target_link_libraries(${name} PRIVATE tf_board ${arg_LIBRARIES})
  if(arg_NEWLIB_STDIO)
    target_link_libraries(${name} PRIVATE tf_newlib_stdio)
  endif()
  target_compile_options(${name} PRIVATE -Wall -Wextra -Werror)
  target_compile_definitions(${name} PRIVATE ${arg_DEFINITIONS})
  target_include_directories(${name} PRIVATE ${arg_INCLUDE_DIRS})
  target_link_options(${name} PRIVATE "LINKER:--print-memory-usage")
  if(NOT "${arg_STACK_SIZE}" STREQUAL "")
    target_link_options(${name} PRIVATE "LINKER:--defsym=__tf_stack_size=${arg_STACK_SIZE}")
  endif()
endfunction()
