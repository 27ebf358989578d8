//===- Json.cpp - A small JSON reader for artifact manifests --------------===//
//
// Part of the Sinter project.
//
//===----------------------------------------------------------------------===//

#include "Json.h"

#include <cctype>
#include <cerrno>
#include <cstdlib>

using namespace sinter::rt;

const JsonValue *JsonValue::get(const std::string &key) const {
  auto it = object.find(key);
  return it == object.end() ? nullptr : &it->second;
}

namespace {
class Parser {
public:
  explicit Parser(const std::string &text) : s(text) {}

  bool parse(JsonValue &out, std::string &error) {
    if (!value(out, 0) || (skip(), pos != s.size())) {
      if (message.empty())
        message = "trailing characters";
      error = "JSON error at byte " + std::to_string(pos) + ": " + message;
      return false;
    }
    return true;
  }

private:
  const std::string &s;
  size_t pos = 0;
  std::string message;

  bool fail(const char *m) {
    message = m;
    return false;
  }
  void skip() {
    while (pos < s.size() && std::isspace(static_cast<unsigned char>(s[pos])))
      ++pos;
  }
  bool literal(const char *word) {
    size_t n = std::char_traits<char>::length(word);
    if (s.compare(pos, n, word) != 0)
      return fail("unexpected token");
    pos += n;
    return true;
  }

  bool value(JsonValue &v, int depth) {
    if (depth > 64)
      return fail("nesting too deep");
    skip();
    if (pos >= s.size())
      return fail("unexpected end of input");
    char c = s[pos];
    if (c == '{')
      return objectValue(v, depth);
    if (c == '[')
      return arrayValue(v, depth);
    if (c == '"') {
      v.kind = JsonValue::Kind::String;
      return stringValue(v.string);
    }
    if (c == 't' || c == 'f') {
      v.kind = JsonValue::Kind::Bool;
      v.boolean = c == 't';
      return literal(c == 't' ? "true" : "false");
    }
    if (c == 'n') {
      v.kind = JsonValue::Kind::Null;
      return literal("null");
    }
    return numberValue(v);
  }

  bool objectValue(JsonValue &v, int depth) {
    v.kind = JsonValue::Kind::Object;
    ++pos;
    skip();
    if (pos < s.size() && s[pos] == '}') {
      ++pos;
      return true;
    }
    while (true) {
      skip();
      std::string key;
      if (pos >= s.size() || s[pos] != '"')
        return fail("expected a member name");
      if (!stringValue(key))
        return false;
      if (v.object.count(key))
        return fail("duplicate member name");
      skip();
      if (pos >= s.size() || s[pos] != ':')
        return fail("expected ':'");
      ++pos;
      if (!value(v.object[key], depth + 1))
        return false;
      skip();
      if (pos < s.size() && s[pos] == ',') {
        ++pos;
        continue;
      }
      if (pos < s.size() && s[pos] == '}') {
        ++pos;
        return true;
      }
      return fail("expected ',' or '}'");
    }
  }

  bool arrayValue(JsonValue &v, int depth) {
    v.kind = JsonValue::Kind::Array;
    ++pos;
    skip();
    if (pos < s.size() && s[pos] == ']') {
      ++pos;
      return true;
    }
    while (true) {
      v.array.emplace_back();
      if (!value(v.array.back(), depth + 1))
        return false;
      skip();
      if (pos < s.size() && s[pos] == ',') {
        ++pos;
        continue;
      }
      if (pos < s.size() && s[pos] == ']') {
        ++pos;
        return true;
      }
      return fail("expected ',' or ']'");
    }
  }

  bool stringValue(std::string &out) {
    ++pos; // opening quote
    while (pos < s.size()) {
      char c = s[pos++];
      if (c == '"')
        return true;
      if (c != '\\') {
        out += c;
        continue;
      }
      if (pos >= s.size())
        break;
      char e = s[pos++];
      switch (e) {
      case '"':
        out += '"';
        break;
      case '\\':
        out += '\\';
        break;
      case '/':
        out += '/';
        break;
      case 'b':
        out += '\b';
        break;
      case 'f':
        out += '\f';
        break;
      case 'n':
        out += '\n';
        break;
      case 'r':
        out += '\r';
        break;
      case 't':
        out += '\t';
        break;
      case 'u': {
        if (pos + 4 > s.size())
          return fail("truncated \\u escape");
        unsigned code = std::strtoul(s.substr(pos, 4).c_str(), nullptr, 16);
        pos += 4;
        // Manifests are ASCII; encode the BMP code point as UTF-8.
        if (code < 0x80) {
          out += static_cast<char>(code);
        } else if (code < 0x800) {
          out += static_cast<char>(0xC0 | (code >> 6));
          out += static_cast<char>(0x80 | (code & 0x3F));
        } else {
          out += static_cast<char>(0xE0 | (code >> 12));
          out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
          out += static_cast<char>(0x80 | (code & 0x3F));
        }
        break;
      }
      default:
        return fail("bad escape");
      }
    }
    return fail("unterminated string");
  }

  bool numberValue(JsonValue &v) {
    size_t start = pos;
    bool isInteger = true;
    if (pos < s.size() && (s[pos] == '-' || s[pos] == '+'))
      ++pos;
    while (pos < s.size() &&
           (std::isdigit(static_cast<unsigned char>(s[pos])) || s[pos] == '.' ||
            s[pos] == 'e' || s[pos] == 'E' || s[pos] == '-' || s[pos] == '+')) {
      if (!std::isdigit(static_cast<unsigned char>(s[pos])))
        isInteger = false;
      ++pos;
    }
    if (pos == start)
      return fail("unexpected character");
    std::string text = s.substr(start, pos - start);
    char *end = nullptr;
    v.kind = JsonValue::Kind::Number;
    v.number = std::strtod(text.c_str(), &end);
    if (end != text.c_str() + text.size())
      return fail("malformed number");
    errno = 0;
    if (isInteger) {
      v.integer = std::strtoll(text.c_str(), nullptr, 10);
      v.isInteger = errno != ERANGE;
    } else {
      // Truncated toward zero where int64 holds it (no undefined cast of
      // 1e300 or nan); readers that need an integer check isInteger.
      v.integer = v.number > -9.2e18 && v.number < 9.2e18
                      ? static_cast<int64_t>(v.number)
                      : 0;
    }
    return true;
  }
};
} // namespace

bool sinter::rt::parseJson(const std::string &text, JsonValue &out,
                           std::string &error) {
  out = JsonValue();
  return Parser(text).parse(out, error);
}
