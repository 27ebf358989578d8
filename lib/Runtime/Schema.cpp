//===- Schema.cpp - Check manifest objects against the schema -------------===//
//
// Part of the Sinter project.
//
//===----------------------------------------------------------------------===//

#include "Schema.h"

using namespace sinter::rt;
namespace manifest = sinter::manifest;

namespace {

const char *typeName(const manifest::Field &f) {
  switch (f.type) {
  case manifest::FieldType::kString:
    return "a string";
  case manifest::FieldType::kBool:
    return "true or false";
  case manifest::FieldType::kNumber:
    return "a number";
  case manifest::FieldType::kInteger:
    return "an integer";
  case manifest::FieldType::kCount:
    return "an integer >= 0";
  case manifest::FieldType::kFile:
    return "a file name";
  case manifest::FieldType::kAnyObject:
  case manifest::FieldType::kObject:
    return "an object";
  case manifest::FieldType::kEnum:
    return "a string";
  }
  return "?";
}

/// Checks one value (an element, for arrays) of field `f`.
bool conformsTo(const JsonValue &v, const manifest::Field &f,
                const std::string &path, std::string &error) {
  auto bad = [&](const std::string &what) {
    error = path + ": " + what;
    return false;
  };
  switch (f.type) {
  case manifest::FieldType::kString:
    if (!v.isString())
      return bad(std::string("expected ") + typeName(f));
    return true;
  case manifest::FieldType::kFile:
    if (!v.isString() || !manifest::isPlainFileName(v.string))
      return bad("expected the name of a file in the artifact directory "
                 "(no '/')");
    return true;
  case manifest::FieldType::kBool:
    if (v.kind != JsonValue::Kind::Bool)
      return bad(std::string("expected ") + typeName(f));
    return true;
  case manifest::FieldType::kNumber:
    if (!v.isNumber())
      return bad(std::string("expected ") + typeName(f));
    return true;
  case manifest::FieldType::kInteger:
  case manifest::FieldType::kCount:
    if (!v.isNumber() || !v.isInteger ||
        (f.type == manifest::FieldType::kCount && v.integer < 0))
      return bad(std::string("expected ") + typeName(f));
    return true;
  case manifest::FieldType::kAnyObject:
    if (!v.isObject())
      return bad("expected an object");
    return true;
  case manifest::FieldType::kObject:
    if (!v.isObject())
      return bad("expected an object");
    return conforms(v, static_cast<manifest::ObjectId>(f.object), path, error);
  case manifest::FieldType::kEnum: {
    const manifest::Enum &e =
        manifest::enumOf(static_cast<manifest::EnumId>(f.enumeration));
    std::string allowed;
    for (size_t i = 0; i < e.size; ++i) {
      if (v.isString() && v.string == e.values[i])
        return true;
      allowed += std::string(i ? ", " : "") + "\"" + e.values[i] + "\"";
    }
    return bad("expected one of " + allowed +
               (v.isString() ? ", got \"" + v.string + "\"" : ""));
  }
  }
  return bad("unknown field type");
}

} // namespace

bool sinter::rt::conforms(const JsonValue &v, manifest::ObjectId id,
                          const std::string &path, std::string &error) {
  const manifest::Object &object = manifest::schemaOf(id);
  std::string at = path.empty() ? "" : path + ".";
  if (!v.isObject()) {
    error = (path.empty() ? std::string("the manifest") : path) +
            ": expected an object (" + object.name + ")";
    return false;
  }
  for (const auto &[key, value] : v.object) {
    bool known = false;
    for (size_t i = 0; i < object.size && !known; ++i)
      known = key == object.fields[i].key;
    if (!known) {
      error = at + key + ": unknown key (not a field of " + object.name + ")";
      return false;
    }
  }
  for (size_t i = 0; i < object.size; ++i) {
    const manifest::Field &f = object.fields[i];
    const JsonValue *value = v.get(f.key);
    std::string fieldPath = at + f.key;
    if (!value) {
      if (!f.required)
        continue;
      error = (path.empty() ? std::string("the manifest") : path) +
              ": missing key \"" + f.key + "\"";
      return false;
    }
    if (!f.isArray) {
      if (!conformsTo(*value, f, fieldPath, error))
        return false;
      continue;
    }
    if (!value->isArray()) {
      error = fieldPath + ": expected an array";
      return false;
    }
    for (size_t j = 0; j < value->array.size(); ++j)
      if (!conformsTo(value->array[j], f,
                      fieldPath + "[" + std::to_string(j) + "]", error))
        return false;
  }
  return true;
}
