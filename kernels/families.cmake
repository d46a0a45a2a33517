# Reads kernels/families.def, the one list of kernel families and operator kinds, for CMake:
#   tinyforge_kernel_families(<families_var> <op_kinds_var>)
# sets <families_var> to the family folders (`#include TF_FAMILY(f)` lines) and
# <op_kinds_var> to the operator kinds (`TF_OP_KIND(op, ...)` lines), in file order.
set(TINYFORGE_FAMILIES_DEF "${CMAKE_CURRENT_LIST_DIR}/families.def")

function(tinyforge_kernel_families families_var ops_var)
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${TINYFORGE_FAMILIES_DEF}")
  file(STRINGS "${TINYFORGE_FAMILIES_DEF}" _lines
       REGEX "^(#include TF_FAMILY\\(|TF_OP_KIND\\()")
  set(_families)
  set(_ops)
  foreach(_line IN LISTS _lines)
    if(_line MATCHES "^#include TF_FAMILY\\(([a-z0-9_]+)\\)")
      list(APPEND _families "${CMAKE_MATCH_1}")
    elseif(_line MATCHES "^TF_OP_KIND\\(([a-z0-9_]+),")
      list(APPEND _ops "${CMAKE_MATCH_1}")
    endif()
  endforeach()
  if(NOT _families OR NOT _ops)
    message(FATAL_ERROR "${TINYFORGE_FAMILIES_DEF}: no families or operator kinds found")
  endif()
  set(${families_var} "${_families}" PARENT_SCOPE)
  set(${ops_var} "${_ops}" PARENT_SCOPE)
endfunction()
