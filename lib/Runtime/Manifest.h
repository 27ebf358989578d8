//===- Manifest.h - Read an artifact's manifest.json ------------*- C++ -*-===//
//
// Part of the Sinter project.
//
// Turns the manifest (docs/Manifest.md) into the program's functions and
// launches. Everything the driver and cuBLASLt would be told is checked
// here, so that a bad manifest is an artifact error naming the field and
// never a wild access; kernels are resolved later, at load.
//
//===----------------------------------------------------------------------===//

#ifndef SINTER_LIB_RUNTIME_MANIFEST_H
#define SINTER_LIB_RUNTIME_MANIFEST_H

#include "Json.h"
#include "Program.h"

namespace sinter::rt {

/// Whether `root` is a manifest of the format this runtime reads
/// (manifest::kCUDAFormatVersion): SINTER_RT_OK, or
/// SINTER_RT_ERROR_ARTIFACT saying which format it is.
int checkFormat(const JsonValue &root);

/// Converts the manifest `root` into the functions of `p`; returns
/// SINTER_RT_OK or SINTER_RT_ERROR_ARTIFACT (with the last error set,
/// naming the field).
int parseManifest(const JsonValue &root, sinter_rt_program &p);

} // namespace sinter::rt

#endif // SINTER_LIB_RUNTIME_MANIFEST_H
