//===- ManifestFuzzer.cpp - libFuzzer target over the manifest loader -----===//
//
// Part of the Sinter project.
//
// One input is the text of a manifest.json, or of a SHA256SUMS: what the
// CUDA runtime reads from an artifact directory before anything reaches the
// driver (lib/Runtime: the JSON reader, the format check, the schema and
// the meaning of every field, Manifest.cpp; the checksum list,
// lib/Artifact). A load error is the expected outcome; a crash, a hang or
// a sanitizer report is a finding.
//
//===----------------------------------------------------------------------===//

#include "Json.h"
#include "Manifest.h"
#include "Program.h"

#include "sinter-c/Runtime.h"
#include "sinter/Artifact/Checksums.h"

#include <cstdint>
#include <map>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string text(reinterpret_cast<const char *>(data), size);
  std::string error;
  sinter::rt::JsonValue root;
  if (sinter::rt::parseJson(text, root, error) &&
      sinter::rt::checkFormat(root) == SINTER_RT_OK) {
    sinter_rt_program program;
    (void)sinter::rt::parseManifest(root, program);
  }
  std::map<std::string, std::string> digests;
  if (sinter::parseChecksums(text, digests, error))
    (void)sinter::verifyChecksum(digests, "manifest.json", text, error);
  return 0;
}
