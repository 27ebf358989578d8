//===- Artifact.h - Read and verify an artifact directory -------*- C++ -*-===//
//
// Part of the Sinter project.
//
// An artifact is code, like any shared library: loading one means trusting
// it. But a corrupt, truncated or mismatched one must be refused, never
// run. So the manifest and the cubin are read once, checked against the
// SHA-256 digests that the compiler recorded in SHA256SUMS, and only those
// verified bytes are parsed and handed to the driver.
//
//===----------------------------------------------------------------------===//

#ifndef SINTER_LIB_RUNTIME_ARTIFACT_H
#define SINTER_LIB_RUNTIME_ARTIFACT_H

#include "Json.h"

#include <string>

namespace sinter::rt {

/// What sinter_rt_load reads from an artifact directory, verified.
struct ArtifactFiles {
  JsonValue manifest;    // parsed, of this runtime's format
  std::string cubinPath; // for messages
  std::string cubin;     // the kernels' bytes
};

/// Reads `dir`'s manifest.json and the cubin it names, verifying both
/// against `dir`/SHA256SUMS before parsing or returning them; returns
/// SINTER_RT_OK or SINTER_RT_ERROR_ARTIFACT (with the last error set).
int readArtifact(const std::string &dir, ArtifactFiles &out);

} // namespace sinter::rt

#endif // SINTER_LIB_RUNTIME_ARTIFACT_H
