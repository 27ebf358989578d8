//===- Json.h - A small JSON reader for artifact manifests ------*- C++ -*-===//
//
// Part of the Sinter project.
//
// The runtime must not depend on LLVM, so it carries this reader: objects,
// arrays, strings (with escapes), numbers, booleans and null.
//
//===----------------------------------------------------------------------===//

#ifndef SINTER_LIB_RUNTIME_JSON_H
#define SINTER_LIB_RUNTIME_JSON_H

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace sinter::rt {

class JsonValue {
public:
  enum class Kind { Null, Bool, Number, String, Array, Object };

  Kind kind = Kind::Null;
  bool boolean = false;
  double number = 0;
  int64_t integer = 0; // exact when isInteger
  /// The literal was an integer (no fraction, no exponent) within int64.
  bool isInteger = false;
  std::string string;
  std::vector<JsonValue> array;
  std::map<std::string, JsonValue> object;

  bool isObject() const { return kind == Kind::Object; }
  bool isArray() const { return kind == Kind::Array; }
  bool isString() const { return kind == Kind::String; }
  bool isNumber() const { return kind == Kind::Number; }
  /// The member `key`, or nullptr.
  const JsonValue *get(const std::string &key) const;
};

/// Parses `text`; on failure returns false and sets `error` to a message
/// with the byte offset. An object that names a member twice is an error.
bool parseJson(const std::string &text, JsonValue &out, std::string &error);

} // namespace sinter::rt

#endif // SINTER_LIB_RUNTIME_JSON_H
