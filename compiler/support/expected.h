// Expected<T>: the host compiler's result type. A value or one Error, never an exception.
//
// Contract: no exception crosses a module boundary (import, ir, exec, the CLI). Code that
// calls a throwing library (nlohmann::json, std::filesystem) catches inside the module
// and returns an Error. An Error holds one line of text already formatted for the user,
// e.g. `m.tfg: op 'conv1' (#3): attrs.stride: expected 2 integers, got 3`; context is
// prepended as the error travels outwards (WithPrefix).
#pragma once

#include <cassert>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

namespace tinyforge {

class Error {
 public:
  explicit Error(std::string message) : message_(std::move(message)) {}
  const std::string& message() const { return message_; }
  // "PREFIX: message". Used to add the file, op or field an inner check did not know.
  Error WithPrefix(std::string_view prefix) const {
    return Error(std::string(prefix) + ": " + message_);
  }

 private:
  std::string message_;
};

template <class T>
class [[nodiscard]] Expected {
 public:
  Expected(T value) : v_(std::in_place_index<0>, std::move(value)) {}      // NOLINT: implicit
  Expected(Error error) : v_(std::in_place_index<1>, std::move(error)) {}  // NOLINT: implicit

  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }

  // Precondition for the value accessors: ok(). For error(): !ok().
  T& value() & { return *std::get_if<0>(&Checked(true)); }
  const T& value() const& { return *std::get_if<0>(&Checked(true)); }
  T&& value() && { return std::move(*std::get_if<0>(&Checked(true))); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  const Error& error() const { return *std::get_if<1>(&Checked(false)); }

 private:
  std::variant<T, Error>& Checked(bool want_value) {
    assert(ok() == want_value);
    (void)want_value;
    return v_;
  }
  const std::variant<T, Error>& Checked(bool want_value) const {
    assert(ok() == want_value);
    (void)want_value;
    return v_;
  }
  std::variant<T, Error> v_;
};

// Success-or-error with no value.
template <>
class [[nodiscard]] Expected<void> {
 public:
  Expected() = default;
  Expected(Error error) : error_(std::move(error)) {}  // NOLINT: implicit
  bool ok() const { return !error_.has_value(); }
  explicit operator bool() const { return ok(); }
  const Error& error() const {
    assert(!ok());
    return *error_;
  }

 private:
  std::optional<Error> error_;
};

using Status = Expected<void>;

inline Status OkStatus() { return {}; }

}  // namespace tinyforge

// Propagation helpers. TF_RETURN_IF_ERROR(expr) returns the Error of a failed Expected;
// TF_ASSIGN_OR_RETURN(decl, expr) declares `decl` from the value of a successful one.
#define TF_CONCAT_INNER_(a, b) a##b
#define TF_CONCAT_(a, b) TF_CONCAT_INNER_(a, b)
#define TF_RETURN_IF_ERROR(expr)                     \
  do {                                               \
    auto&& tf_status_ = (expr);                      \
    if (!tf_status_.ok()) return tf_status_.error(); \
  } while (0)
#define TF_ASSIGN_OR_RETURN(decl, expr) \
  TF_ASSIGN_OR_RETURN_IMPL_(TF_CONCAT_(tf_expected_, __LINE__), decl, expr)
#define TF_ASSIGN_OR_RETURN_IMPL_(tmp, decl, expr) \
  auto tmp = (expr);                               \
  if (!tmp.ok()) return tmp.error();               \
  decl = std::move(tmp).value()
