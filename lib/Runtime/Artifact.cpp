//===- Artifact.cpp - Read and verify an artifact directory ---------------===//
//
// Part of the Sinter project.
//
//===----------------------------------------------------------------------===//

#include "Artifact.h"

#include "Error.h"
#include "Manifest.h"

#include "sinter-c/Runtime.h"
#include "sinter/Artifact/Checksums.h"
#include "sinter/Artifact/Manifest.h"

#include <fstream>
#include <map>
#include <sstream>

using namespace sinter::rt;
namespace manifest = sinter::manifest;

static bool readFile(const std::string &path, std::string &out) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return false;
  std::ostringstream os;
  os << in.rdbuf();
  out = os.str();
  return static_cast<bool>(in) || in.eof();
}

int sinter::rt::readArtifact(const std::string &dir, ArtifactFiles &out) {
  auto artifactError = [](const std::string &message) {
    return fail(SINTER_RT_ERROR_ARTIFACT, message);
  };
  std::string manifestPath = dir + "/" + manifest::kManifestFile;
  std::string sumsPath = dir + "/" + manifest::kChecksumFile;
  std::string manifestText, sumsText, error;
  if (!readFile(manifestPath, manifestText))
    return artifactError("cannot read " + manifestPath);
  // A corrupt manifest is reported as such, before it is parsed.
  std::map<std::string, std::string> digests;
  bool haveSums = readFile(sumsPath, sumsText);
  if (haveSums && (!sinter::parseChecksums(sumsText, digests, error) ||
                   !sinter::verifyChecksum(digests, manifest::kManifestFile,
                                           manifestText, error)))
    return artifactError(dir + ": " + error);
  if (!parseJson(manifestText, out.manifest, error))
    return artifactError(manifestPath + ": " + error);
  // An artifact of another format says so first: older ones have no
  // SHA256SUMS.
  if (int rc = checkFormat(out.manifest))
    return rc;
  if (!haveSums)
    return artifactError("cannot read " + sumsPath +
                         ": an artifact records the SHA-256 of its files "
                         "there (the directory is incomplete)");
  const JsonValue *cubin = out.manifest.get(manifest::key::kCubin);
  if (!cubin || !cubin->isString() || !manifest::isPlainFileName(cubin->string))
    return artifactError("malformed manifest: cubin: expected the name of a "
                         "file in the artifact directory (no '/')");
  out.cubinPath = dir + "/" + cubin->string;
  if (!readFile(out.cubinPath, out.cubin))
    return artifactError("cannot read " + out.cubinPath);
  if (!sinter::verifyChecksum(digests, cubin->string, out.cubin, error))
    return artifactError(dir + ": " + error);
  return SINTER_RT_OK;
}
