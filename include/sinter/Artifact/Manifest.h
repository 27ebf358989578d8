//===- Manifest.h - The one definition of manifest.json ---------*- C++ -*-===//
//
// Part of the Sinter project.
//
// An artifact's manifest.json (docs/Manifest.md) is defined once, in
// python/sinter/manifest_schema.json: its file names, format versions, the
// keys and their types of every object, the enum values and the dtypes.
// The Python package reads that file; the build generates
// ManifestSchema.h.inc from it for the C++ writers (CPU and CUDA
// artifacts) and the runtime. Write keys and values through these
// constants (manifest::key::kShape, manifest::value::kFloat32), never as
// literals. No LLVM or MLIR here: the runtime includes it.
//
//===----------------------------------------------------------------------===//

#ifndef SINTER_ARTIFACT_MANIFEST_H
#define SINTER_ARTIFACT_MANIFEST_H

#include <cstddef>
#include <cstdint>
#include <string>

namespace sinter::manifest {

/// What a dtype holds: floating-point, signed or unsigned integers, bool.
enum class DTypeClass { kFloat, kInt, kUint, kBool };

/// An element type of the manifest: its name and size.
struct DType {
  const char *name;
  unsigned bytes;
  DTypeClass cls;
};

/// The type of a field's value (each may also be an array of it).
enum class FieldType {
  kString,
  kBool,
  kNumber,
  kInteger,
  kCount,     // an integer >= 0
  kFile,      // a plain file name in the artifact directory
  kAnyObject, // an object the reader checks against the object it is
  kEnum,      // a string among an enum's values
  kObject,    // an object of this schema
};

/// A field of an object: `object` (ObjectId) for kObject, `enumeration`
/// (EnumId) for kEnum, -1 otherwise.
struct Field {
  const char *key;
  FieldType type;
  bool isArray;
  bool required;
  int object;
  int enumeration;
};

struct Enum {
  const char *name;
  const char *const *values;
  size_t size;
};

struct Object {
  const char *name;
  const Field *fields;
  size_t size;
};

} // namespace sinter::manifest

#include "sinter/Artifact/ManifestSchema.h.inc"

namespace sinter::manifest {

inline const Object &schemaOf(ObjectId id) {
  return kObjects[static_cast<int>(id)];
}

inline const Enum &enumOf(EnumId id) { return kEnums[static_cast<int>(id)]; }

/// The dtype named `name`, or null.
inline const DType *findDType(const std::string &name) {
  for (const DType &d : kDTypes)
    if (name == d.name)
      return &d;
  return nullptr;
}

/// The C symbol of the CPU entry point of function `name`.
inline std::string cpuSymbol(const std::string &name) {
  return kCPUSymbolPrefix + name;
}

/// Whether `name` may name a file of the artifact directory: not empty, no
/// '/', not "." or "..".
inline bool isPlainFileName(const std::string &name) {
  return !name.empty() && name != "." && name != ".." &&
         name.find('/') == std::string::npos &&
         name.find('\0') == std::string::npos;
}

} // namespace sinter::manifest

#endif // SINTER_ARTIFACT_MANIFEST_H
