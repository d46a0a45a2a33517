#include "tinyforge/status.h"

#include "tinyforge/tf_model.h"

namespace tinyforge::rt {

const char* StatusText(Status s) {
  switch (s) {
#define TF_STATUS(cpp_name, c_name, value, text) \
  case Status::cpp_name:                         \
    return text;
#include "tinyforge/status.def"
#undef TF_STATUS
  }
  return "unknown status";
}

}  // namespace tinyforge::rt

extern "C" const char* tf_status_str(tf_status status) {
  return tinyforge::rt::StatusText(static_cast<tinyforge::rt::Status>(status));
}
