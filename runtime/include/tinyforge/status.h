// The runtime's result type: a small enum, returned by value and marked [[nodiscard]].
// Values and texts come from tinyforge/status.def (shared with the C API's TF_* codes).
#ifndef TINYFORGE_RUNTIME_STATUS_H_
#define TINYFORGE_RUNTIME_STATUS_H_

#include <cstdint>

namespace tinyforge::rt {

enum class [[nodiscard]] Status : uint8_t{
#define TF_STATUS(cpp_name, c_name, value, text) cpp_name = value,
#include "tinyforge/status.def"
#undef TF_STATUS
};

inline constexpr bool Ok(Status s) { return s == Status::kOk; }

// "program CRC mismatch"; never null.
const char* StatusText(Status s);

}  // namespace tinyforge::rt

// Returns the status of a failing expression from the enclosing function.
#define TF_RT_TRY(expr)                                                      \
  do {                                                                       \
    const ::tinyforge::rt::Status tf_rt_status_ = (expr);                    \
    if (tf_rt_status_ != ::tinyforge::rt::Status::kOk) return tf_rt_status_; \
  } while (0)

#endif  // TINYFORGE_RUNTIME_STATUS_H_
