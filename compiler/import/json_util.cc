#include "import/json_util.h"

#include <cmath>
#include <limits>

namespace tinyforge::import {
namespace {

// Marker strings start with \u0001, which no exporter puts in a number's place.
constexpr std::string_view kNaN = "\x01NaN";
constexpr std::string_view kInf = "\x01Infinity";
constexpr std::string_view kNegInf = "\x01-Infinity";

bool IsWordChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '.' || c == '-' || c == '+';
}

std::optional<double> MarkedValue(const Json& v) {
  if (!v.is_string()) return std::nullopt;
  const auto& s = v.get_ref<const std::string&>();
  if (s == kNaN) return std::numeric_limits<double>::quiet_NaN();
  if (s == kInf) return std::numeric_limits<double>::infinity();
  if (s == kNegInf) return -std::numeric_limits<double>::infinity();
  return std::nullopt;
}

Error TypeError(const std::string& field, const char* want, const Json& got) {
  return Error(field + ": expected " + want + ", got " + JsonTypeName(got));
}

}  // namespace

std::string MarkNonFiniteTokens(std::string_view text) {
  static constexpr std::string_view kTokens[] = {"-Infinity", "Infinity", "NaN"};
  std::string out;
  out.reserve(text.size());
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      out += c;
      if (c == '\\' && i + 1 < text.size()) {
        out += text[++i];
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    if (c == '"') {
      in_string = true;
      out += c;
      continue;
    }
    bool replaced = false;
    if (i == 0 || !IsWordChar(text[i - 1])) {
      for (std::string_view tok : kTokens) {
        const size_t end = i + tok.size();
        if (text.substr(i, tok.size()) == tok && (end == text.size() || !IsWordChar(text[end]))) {
          out += "\"\\u0001" + std::string(tok) + "\"";
          i = end - 1;
          replaced = true;
          break;
        }
      }
    }
    if (!replaced) out += c;
  }
  return out;
}

std::string NonFiniteMarker(double v) {
  return std::string(std::isnan(v) ? kNaN : v > 0 ? kInf : kNegInf);
}

std::string UnmarkNonFinite(std::string text) {
  // nlohmann dumps the marker strings as "\u0001NaN" etc. One pass (replacing in place
  // would move the rest of the text once per marker).
  static constexpr std::string_view kPrefix = "\"\\u0001";
  std::string out;
  out.reserve(text.size());
  size_t done = 0;
  for (size_t pos = text.find(kPrefix); pos != std::string::npos;
       pos = text.find(kPrefix, pos + 1)) {
    if (pos < done) continue;
    for (std::string_view tok : {"-Infinity", "Infinity", "NaN"}) {
      const size_t end = pos + kPrefix.size() + tok.size();
      if (std::string_view(text).substr(pos + kPrefix.size(), tok.size()) == tok &&
          end < text.size() && text[end] == '"') {
        out.append(text, done, pos - done);
        out += tok;
        done = end + 1;
        break;
      }
    }
  }
  out.append(text, done, std::string::npos);
  return out;
}

std::string JsonTypeName(const Json& v) {
  if (auto m = MarkedValue(v)) return std::isnan(*m) ? "NaN" : *m > 0 ? "Infinity" : "-Infinity";
  switch (v.type()) {
    case Json::value_t::null:
      return "null";
    case Json::value_t::object:
      return "object";
    case Json::value_t::array:
      return "array";
    case Json::value_t::string:
      return "string";
    case Json::value_t::boolean:
      return "boolean";
    case Json::value_t::number_integer:
    case Json::value_t::number_unsigned:
      return "integer";
    case Json::value_t::number_float:
      return "number";
    default:
      return "binary";
  }
}

Expected<const Json*> Member(const Json& obj, std::string_view key, const std::string& field) {
  auto it = obj.find(key);
  if (it == obj.end()) return Error(field + ": missing");
  return &*it;
}

Expected<int64_t> GetInt(const Json& v, const std::string& field) {
  if (v.is_number_unsigned()) {
    const uint64_t u = v.get<uint64_t>();
    if (u > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
      return Error(field + ": integer " + std::to_string(u) + " out of range");
    }
    return static_cast<int64_t>(u);
  }
  if (v.is_number_integer()) return v.get<int64_t>();
  return TypeError(field, "an integer", v);
}

Expected<uint64_t> GetUint(const Json& v, const std::string& field) {
  if (v.is_number_unsigned()) return v.get<uint64_t>();
  if (v.is_number_integer()) {
    return Error(field + ": expected a non-negative integer, got " +
                 std::to_string(v.get<int64_t>()));
  }
  return TypeError(field, "a non-negative integer", v);
}

Expected<double> GetDouble(const Json& v, const std::string& field) {
  if (v.is_number()) return v.get<double>();
  if (auto m = MarkedValue(v)) return *m;
  return TypeError(field, "a number", v);
}

Expected<bool> GetBool(const Json& v, const std::string& field) {
  if (v.is_boolean()) return v.get<bool>();
  return TypeError(field, "true or false", v);
}

Expected<std::string> GetString(const Json& v, const std::string& field) {
  if (v.is_string() && !MarkedValue(v)) return v.get<std::string>();
  return TypeError(field, "a string", v);
}

Expected<std::vector<int64_t>> GetIntList(const Json& v, const std::string& field) {
  if (!v.is_array()) return TypeError(field, "a list of integers", v);
  std::vector<int64_t> out;
  out.reserve(v.size());
  for (size_t i = 0; i < v.size(); ++i) {
    TF_ASSIGN_OR_RETURN(int64_t x, GetInt(v[i], field + "[" + std::to_string(i) + "]"));
    out.push_back(x);
  }
  return out;
}

Expected<std::vector<double>> GetDoubleList(const Json& v, const std::string& field) {
  if (!v.is_array()) return TypeError(field, "a list of numbers", v);
  std::vector<double> out;
  out.reserve(v.size());
  for (size_t i = 0; i < v.size(); ++i) {
    TF_ASSIGN_OR_RETURN(double x, GetDouble(v[i], field + "[" + std::to_string(i) + "]"));
    out.push_back(x);
  }
  return out;
}

}  // namespace tinyforge::import
