# tinyforge_add_model(): a compiled model in any CMake firmware project. Part of the CMake
# package (find_package(tinyforge CONFIG): cmake/tinyforgeConfig.cmake; docs/deploying.md):
#
#   tinyforge_add_model(<target> MODEL <m.tfg | m.tflite> TARGET <board | board.json | cpu>
#                       [NAME <name>] [OPTIONS <tinyforge compile option>...])
#
# At build time (re-run when the model, the board file or the compiler changes) runs
#   tinyforge compile MODEL --target TARGET --name NAME -o <bin>/tinyforge/<target>_<NAME> OPTIONS
# and adds to <target>: the generated model.cc (tf_model_<NAME>, declared in model.h on the
# include path), the runtime and the kernels. These two are the static libraries
# tinyforge_runtime_ops / tinyforge_kernels of runtime/ and kernels/ (their own
# CMakeLists.txt, built once per build tree), so the link keeps only what model.cc's kernel
# table names: the kernels this program uses and their op glue. Everything tinyforge adds is
# compiled with the target's compile_flags (board.json, or targets/cpus.json for a CPU name:
# -mcpu, -mthumb, -mfloat-abi, -mfpu), and <target> is compiled and linked with them too.
# The runtime and kernels are optimized whatever the build type (-O3 in Debug builds).
# A build tree is for one CPU: a second model for another CPU is refused.
#
# Needs TINYFORGE_ROOT (the folder with targets/, runtime/, kernels/) and
# TINYFORGE_EXECUTABLE (the `tinyforge` command); the package config sets both.
include_guard(GLOBAL)
include("${CMAKE_CURRENT_LIST_DIR}/TinyforgeBoardJson.cmake")

# <board | path/board.json | cpu> -> the board.json path (empty for a CPU) and the flags.
function(_tinyforge_target_flags spec json_var flags_var)
  set(_json "")
  if(spec MATCHES "\\.json$")
    get_filename_component(_json "${spec}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
    if(NOT EXISTS "${_json}")
      message(FATAL_ERROR "tinyforge_add_model: TARGET ${spec}: no such file")
    endif()
  elseif(EXISTS "${TINYFORGE_ROOT}/targets/boards/${spec}/board.json")
    set(_json "${TINYFORGE_ROOT}/targets/boards/${spec}/board.json")
  endif()
  if(_json)
    tf_board_compile_flags("${_json}" _flags)
  else()
    file(READ "${TINYFORGE_ROOT}/targets/cpus.json" _cpus)
    string(JSON _entry ERROR_VARIABLE _err GET "${_cpus}" cpus "${spec}")
    if(_err)
      file(GLOB _boards LIST_DIRECTORIES true RELATIVE "${TINYFORGE_ROOT}/targets/boards"
           "${TINYFORGE_ROOT}/targets/boards/*")
      list(FILTER _boards EXCLUDE REGEX "\\.")
      string(JSON _n LENGTH "${_cpus}" cpus)
      set(_names "")
      math(EXPR _last "${_n} - 1")
      foreach(_i RANGE ${_last})
        string(JSON _name MEMBER "${_cpus}" cpus ${_i})
        list(APPEND _names "${_name}")
      endforeach()
      list(JOIN _boards ", " _boards)
      list(JOIN _names ", " _names)
      message(FATAL_ERROR "tinyforge_add_model: TARGET '${spec}' is not a board (${_boards}), "
                          "a board.json file or a CPU (${_names})")
    endif()
    _tf_json_list("${_entry}" _flags compile_flags)
  endif()
  set(${json_var} "${_json}" PARENT_SCOPE)
  set(${flags_var} "${_flags}" PARENT_SCOPE)
endfunction()

# The runtime and kernel libraries of this build tree, from their own CMakeLists.txt.
function(_tinyforge_libraries flags)
  get_property(_have GLOBAL PROPERTY TINYFORGE_LIBRARY_FLAGS SET)
  if(_have)
    get_property(_have_flags GLOBAL PROPERTY TINYFORGE_LIBRARY_FLAGS)
    if(NOT "${_have_flags}" STREQUAL "${flags}")
      message(FATAL_ERROR "tinyforge_add_model: this build tree's tinyforge libraries are "
                          "compiled with '${_have_flags}'; a model for '${flags}' needs a "
                          "build tree of its own (one CPU per firmware)")
    endif()
    return()
  endif()
  set_property(GLOBAL PROPERTY TINYFORGE_LIBRARY_FLAGS "${flags}")
  if(NOT TARGET tinyforge_kernels)
    add_subdirectory("${TINYFORGE_ROOT}/kernels" "${CMAKE_BINARY_DIR}/tinyforge/kernels"
                     EXCLUDE_FROM_ALL)
  endif()
  if(NOT TARGET tinyforge_runtime)
    add_subdirectory("${TINYFORGE_ROOT}/runtime" "${CMAKE_BINARY_DIR}/tinyforge/runtime"
                     EXCLUDE_FROM_ALL)  # only what the firmware links is built
  endif()
  # The kernels' inline assembly needs the optimizer: a Debug (-O0) or untyped build still
  # compiles tinyforge at -O3, as Release does.
  foreach(_lib tinyforge_kernels tinyforge_runtime tinyforge_runtime_ops)
    target_compile_options(${_lib} PRIVATE ${flags} $<$<OR:$<CONFIG:>,$<CONFIG:Debug>>:-O3>)
  endforeach()
endfunction()

function(tinyforge_add_model target)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "MODEL;TARGET;NAME" "OPTIONS")
  if(arg_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "tinyforge_add_model(${target}): unknown arguments ${arg_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT TARGET ${target})
    message(FATAL_ERROR "tinyforge_add_model(${target}): no such target (add_executable first)")
  endif()
  if(NOT arg_MODEL OR NOT arg_TARGET)
    message(FATAL_ERROR "tinyforge_add_model(${target}): MODEL <file> and TARGET <board> are required")
  endif()
  get_filename_component(_model "${arg_MODEL}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
  if(NOT EXISTS "${_model}" OR IS_DIRECTORY "${_model}")
    message(FATAL_ERROR "tinyforge_add_model(${target}): MODEL ${arg_MODEL}: no such file")
  endif()
  if(NOT _model MATCHES "\\.(tfg|tflite)$")
    message(FATAL_ERROR "tinyforge_add_model(${target}): MODEL ${arg_MODEL}: expected a .tfg "
                        "or .tflite file (export a PyTorch model with tinyforge.export first)")
  endif()
  set(_name "${arg_NAME}")
  if(NOT _name)
    get_filename_component(_name "${_model}" NAME_WE)
    string(TOLOWER "${_name}" _name)
    string(MAKE_C_IDENTIFIER "${_name}" _name)
  endif()
  if(NOT _name MATCHES "^[a-z_][a-z0-9_]*$")
    message(FATAL_ERROR "tinyforge_add_model(${target}): NAME ${_name}: use a C identifier "
                        "in lower case (the model is tf_model_<NAME>)")
  endif()
  _tinyforge_target_flags("${arg_TARGET}" _board_json _flags)
  _tinyforge_libraries("${_flags}")

  set(_out "${CMAKE_CURRENT_BINARY_DIR}/tinyforge/${target}_${_name}")
  set(_depends "${_model}" "${TINYFORGE_EXECUTABLE}")
  if(_board_json)
    list(APPEND _depends "${_board_json}")
    set(_target_arg "${_board_json}")
    if(EXISTS "${TINYFORGE_ROOT}/targets/boards/${arg_TARGET}/board.json")
      set(_target_arg "${arg_TARGET}")
    endif()
  else()
    set(_target_arg "${arg_TARGET}")
  endif()
  add_custom_command(
    OUTPUT "${_out}/model.cc" "${_out}/model.h" "${_out}/program.bin" "${_out}/report.json"
    COMMAND "${TINYFORGE_EXECUTABLE}" compile "${_model}" --target "${_target_arg}"
            --name "${_name}" -o "${_out}" ${arg_OPTIONS}
    DEPENDS ${_depends}
    COMMENT "tinyforge: compiling ${arg_MODEL} for ${arg_TARGET} (tf_model_${_name})"
    VERBATIM)
  target_sources(${target} PRIVATE "${_out}/model.cc")
  set_source_files_properties("${_out}/model.cc" PROPERTIES GENERATED TRUE)
  target_include_directories(${target} PRIVATE "${_out}")
  target_link_libraries(${target} PRIVATE tinyforge_runtime_ops tinyforge_kernels)
  target_compile_options(${target} PRIVATE ${_flags})
  target_link_options(${target} PRIVATE ${_flags})
endfunction()
