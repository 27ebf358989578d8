//===- Schema.h - Check manifest objects against the schema -----*- C++ -*-===//
//
// Part of the Sinter project.
//
// The generic half of reading a manifest: an object has every required key
// of its schema (sinter/Artifact/Manifest.h, from manifest_schema.json) and
// no other, each value of its type (counts are integers >= 0, enums among
// their values, files plain file names). Objects of the schema inside it
// are checked too; "object" fields (launches, launch arguments) are checked
// by the reader that knows which object they are. What a field means
// (indices in range, sizes that fit) is Manifest.cpp's.
//
//===----------------------------------------------------------------------===//

#ifndef SINTER_LIB_RUNTIME_SCHEMA_H
#define SINTER_LIB_RUNTIME_SCHEMA_H

#include "Json.h"

#include "sinter/Artifact/Manifest.h"

#include <string>

namespace sinter::rt {

/// Checks `v`, at `path` of the manifest ("functions[0].launches[2]"),
/// against `id`; false with `error` ("<path>.<key>: <problem>") if it does
/// not conform.
bool conforms(const JsonValue &v, manifest::ObjectId id,
              const std::string &path, std::string &error);

} // namespace sinter::rt

#endif // SINTER_LIB_RUNTIME_SCHEMA_H
