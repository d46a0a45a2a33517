// Internal: typed access to nlohmann::json values for the graph-file reader and writer.
// Every getter returns an Error "FIELD: what" instead of throwing; FIELD is the path the
// caller passes ("shape", "quant.scale[3]", "attrs.stride").
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "support/expected.h"

namespace tinyforge::import {

using Json = nlohmann::json;

// Python's json.dumps writes NaN, Infinity and -Infinity as bare tokens, which are not JSON.
// Rewrites them (outside strings) into marker strings that GetDouble reads back as the
// non-finite value, so validation can say "must be finite" instead of "syntax error".
std::string MarkNonFiniteTokens(std::string_view json_text);
// The marker string for a non-finite double (used by the writer, which then calls
// UnmarkNonFinite on the dumped text to emit Python's bare tokens).
std::string NonFiniteMarker(double v);
std::string UnmarkNonFinite(std::string text);

// "string", "integer", "number", "array", "object", "boolean", "null", or "NaN"/"Infinity"
// for marked non-finite numbers.
std::string JsonTypeName(const Json& v);

// Member `key` of object `obj`; Error "FIELD: missing" (FIELD = prefix + key) if absent.
Expected<const Json*> Member(const Json& obj, std::string_view key, const std::string& field);

Expected<int64_t> GetInt(const Json& v, const std::string& field);
Expected<uint64_t> GetUint(const Json& v, const std::string& field);
// Any JSON number, or a marked NaN/Infinity (returned as such; range checks come later).
Expected<double> GetDouble(const Json& v, const std::string& field);
Expected<bool> GetBool(const Json& v, const std::string& field);
Expected<std::string> GetString(const Json& v, const std::string& field);
Expected<std::vector<int64_t>> GetIntList(const Json& v, const std::string& field);
Expected<std::vector<double>> GetDoubleList(const Json& v, const std::string& field);

}  // namespace tinyforge::import
