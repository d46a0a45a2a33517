// What `tinyforge compile --target` prints and writes to report.json: per region the bytes
// used and the capacity, the peak and the op that sets it, flash, kernels, per op and per
// buffer details. Host side.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "emit/emitter.h"

namespace tinyforge::emit {

// The whole report (report.json).
nlohmann::json Report(const Emitted& e);
// The summary (`--json` prints it): target, regions, peak, flash, kernels.
nlohmann::json Summary(const Emitted& e);
// The summary as text for the terminal.
std::string SummaryText(const Emitted& e);

}  // namespace tinyforge::emit
