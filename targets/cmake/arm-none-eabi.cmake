# CMake toolchain file: arm-none-eabi-gcc for the tinyforge QEMU boards.
#
#   cmake -S targets -B build-arm-an547 -G Ninja \
#         -DCMAKE_TOOLCHAIN_FILE=targets/cmake/arm-none-eabi.cmake -DTINYFORGE_BOARD=an547
#
# TINYFORGE_BOARD (an385 | an386 | an505 | an547) selects the board; its CPU flags and its
# linker script come from targets/boards/<board>/ (board.json is their single source).
# TINYFORGE_ARM_GCC_DIR (optional) is the directory holding arm-none-eabi-gcc; default: PATH.
#
# Every executable linked with this file is firmware for that board: the board's linker
# script, newlib-nano, --gc-sections, no crt0 (targets/common provides startup), and a map
# file next to it (<name>.elf.map). Build types follow CMake's GCC defaults: Release = -O3
# (the default, set in targets/CMakeLists.txt), MinSizeRel = -Os, RelWithDebInfo = -O2;
# all of them add -g, which costs no flash and lets addr2line resolve a fault's pc.

set(CMAKE_SYSTEM_NAME Generic)
set(CMAKE_SYSTEM_PROCESSOR arm)

# try_compile() re-reads this file in a fresh project: hand it the board, and let it build
# a static library (there is no startup code to link an executable against).
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES TINYFORGE_BOARD TINYFORGE_ARM_GCC_DIR)
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)

get_filename_component(TINYFORGE_TARGETS_DIR "${CMAKE_CURRENT_LIST_DIR}/.." ABSOLUTE)
file(GLOB _tf_board_dirs LIST_DIRECTORIES true RELATIVE "${TINYFORGE_TARGETS_DIR}/boards"
     "${TINYFORGE_TARGETS_DIR}/boards/*")
if(NOT TINYFORGE_BOARD AND DEFINED ENV{TINYFORGE_BOARD})
  set(TINYFORGE_BOARD "$ENV{TINYFORGE_BOARD}")
endif()
if(NOT TINYFORGE_BOARD)
  message(FATAL_ERROR "tinyforge: set -DTINYFORGE_BOARD=<board>, one of: ${_tf_board_dirs}")
endif()
set(TINYFORGE_BOARD "${TINYFORGE_BOARD}" CACHE STRING "tinyforge board: ${_tf_board_dirs}")
set(TINYFORGE_BOARD_DIR "${TINYFORGE_TARGETS_DIR}/boards/${TINYFORGE_BOARD}")
set(TINYFORGE_BOARD_JSON "${TINYFORGE_BOARD_DIR}/board.json")
if(NOT EXISTS "${TINYFORGE_BOARD_JSON}")
  message(FATAL_ERROR
    "tinyforge: unknown board '${TINYFORGE_BOARD}', expected one of: ${_tf_board_dirs}")
endif()

include("${CMAKE_CURRENT_LIST_DIR}/TinyforgeBoardJson.cmake")
tf_read_board_json("${TINYFORGE_BOARD_JSON}")  # the one CMake reader of board.json
set(TINYFORGE_LINKER_SCRIPT "${TINYFORGE_BOARD_DIR}/${TF_BOARD_LINKER_SCRIPT}")
set(TINYFORGE_LINKER_SCRIPTS
    "${TINYFORGE_LINKER_SCRIPT}"
    "${TINYFORGE_TARGETS_DIR}/common/ld/tf_sections.ld"
    "${TINYFORGE_TARGETS_DIR}/common/ld/tf_sections_end.ld")

set(_tf_prefix "arm-none-eabi-")
if(TINYFORGE_ARM_GCC_DIR)
  set(_tf_prefix "${TINYFORGE_ARM_GCC_DIR}/arm-none-eabi-")
endif()
set(CMAKE_C_COMPILER "${_tf_prefix}gcc")
set(CMAKE_CXX_COMPILER "${_tf_prefix}g++")
set(CMAKE_ASM_COMPILER "${_tf_prefix}gcc")
set(CMAKE_OBJCOPY "${_tf_prefix}objcopy" CACHE FILEPATH "")
set(CMAKE_SIZE "${_tf_prefix}size" CACHE FILEPATH "")

set(CMAKE_C_FLAGS_INIT "${TINYFORGE_CPU_FLAGS} -g -ffunction-sections -fdata-sections")
# Freestanding-friendly C++: no exceptions, RTTI or thread-safe static guards (no threads,
# and the guards would pull in libstdc++'s __cxa_guard_*).
set(CMAKE_CXX_FLAGS_INIT "${CMAKE_C_FLAGS_INIT} -fno-exceptions -fno-rtti -fno-threadsafe-statics")
set(CMAKE_ASM_FLAGS_INIT "${TINYFORGE_CPU_FLAGS} -g")
set(CMAKE_EXE_LINKER_FLAGS_INIT
    "-nostartfiles --specs=nano.specs -Wl,--gc-sections \
-L${TINYFORGE_TARGETS_DIR}/common/ld -T${TINYFORGE_LINKER_SCRIPT}")

# CMake's default link rule plus a map file per executable.
foreach(_tf_lang C CXX)
  set(CMAKE_${_tf_lang}_LINK_EXECUTABLE
      "<CMAKE_${_tf_lang}_COMPILER> <FLAGS> <CMAKE_${_tf_lang}_LINK_FLAGS> <LINK_FLAGS> \
<OBJECTS> -o <TARGET> -Wl,-Map=<TARGET>.map <LINK_LIBRARIES>")
endforeach()

# Search the target environment only for libraries and headers, the host for programs.
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
