//===- Checksums.h - SHA-256 and an artifact's SHA256SUMS -------*- C++ -*-===//
//
// Part of the Sinter project.
//
// Every artifact records the SHA-256 of its manifest and kernels in
// SHA256SUMS (manifest::kChecksumFile), in the format of coreutils'
// sha256sum ("<64 hex digits>  <file name>" per line), so that
// `sha256sum -c SHA256SUMS` checks it too. The compiler writes it last; the
// loaders verify what they read against it before using it. No LLVM or
// MLIR here: the runtime links it.
//
//===----------------------------------------------------------------------===//

#ifndef SINTER_ARTIFACT_CHECKSUMS_H
#define SINTER_ARTIFACT_CHECKSUMS_H

#include <cstddef>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace sinter {

/// The SHA-256 (FIPS 180-4) of `size` bytes at `data`, as 64 lowercase hex
/// digits.
std::string sha256Hex(const void *data, size_t size);
inline std::string sha256Hex(const std::string &bytes) {
  return sha256Hex(bytes.data(), bytes.size());
}

/// SHA256SUMS for `files`, (file name, contents) pairs, in that order.
std::string
formatChecksums(const std::vector<std::pair<std::string, std::string>> &files);

/// Reads SHA256SUMS `text` into `digests` (file name -> hex digest); false
/// with `error` naming the line when a line is malformed, a name is not a
/// plain file name or appears twice.
bool parseChecksums(const std::string &text,
                    std::map<std::string, std::string> &digests,
                    std::string &error);

/// Whether `bytes`, the contents of `file`, match its digest in `digests`;
/// when not, `error` says whether the file has no entry or another digest.
bool verifyChecksum(const std::map<std::string, std::string> &digests,
                    const std::string &file, const std::string &bytes,
                    std::string &error);

} // namespace sinter

#endif // SINTER_ARTIFACT_CHECKSUMS_H
