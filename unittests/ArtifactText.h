//===- ArtifactText.h - CUDA artifacts written by the tests -----*- C++ -*-===//
//
// Part of the Sinter project.
//
// The runtime's tests write their artifacts by hand: these build the
// manifest's entries (with every field the schema requires, bytes computed
// from the dtype and shape) and write a directory as sinterc does, with
// SHA256SUMS last.
//
//===----------------------------------------------------------------------===//

#ifndef SINTER_UNITTESTS_ARTIFACTTEXT_H
#define SINTER_UNITTESTS_ARTIFACTTEXT_H

#include "sinter/Artifact/Checksums.h"
#include "sinter/Artifact/Manifest.h"

#include <cstdint>
#include <fstream>
#include <string>
#include <vector>

namespace sinter::test {

inline std::string join(const std::vector<std::string> &items,
                        const char *separator = ", ") {
  std::string text;
  for (size_t i = 0; i < items.size(); ++i)
    text += (i ? separator : "") + items[i];
  return text;
}

inline std::string shapeText(const std::vector<int64_t> &shape) {
  std::vector<std::string> dims;
  for (int64_t d : shape)
    dims.push_back(std::to_string(d));
  return "[" + join(dims) + "]";
}

inline int64_t bytesOf(const std::string &dtype,
                       const std::vector<int64_t> &shape) {
  const manifest::DType *dt = manifest::findDType(dtype);
  int64_t bytes = dt ? dt->bytes : 0;
  for (int64_t d : shape)
    bytes *= d;
  return bytes;
}

/// An entry of a function's "arguments": a buffer of `dtype` and `shape`
/// (`kind` "scalar": shape []), `role` "input" or "output".
inline std::string argument(int index, const std::string &name,
                            const std::string &role, const std::string &dtype,
                            const std::vector<int64_t> &shape,
                            const std::string &kind = "buffer") {
  return R"({"index": )" + std::to_string(index) + R"(, "name": ")" + name +
         R"(", "role": ")" + role + R"(", "kind": ")" + kind +
         R"(", "dtype": ")" + dtype + R"(", "shape": )" + shapeText(shape) +
         R"(, "bytes": )" + std::to_string(bytesOf(dtype, shape)) + "}";
}

/// An entry of a function's "temps".
inline std::string temp(const std::string &name, const std::string &dtype,
                        const std::vector<int64_t> &shape) {
  return R"({"name": ")" + name +
         R"(", "role": "temp", "kind": "buffer", "dtype": ")" + dtype +
         R"(", "shape": )" + shapeText(shape) + R"(, "bytes": )" +
         std::to_string(bytesOf(dtype, shape)) + "}";
}

/// A function: `arguments`, `temps` and `launches` are the entries'
/// JSON texts.
inline std::string function(const std::string &name,
                            const std::vector<std::string> &arguments,
                            const std::vector<std::string> &temps,
                            const std::vector<std::string> &launches) {
  return R"({"name": ")" + name + R"(", "arguments": [)" + join(arguments) +
         R"(], "temps": [)" + join(temps) + R"(], "launches": [)" +
         join(launches) + "]}";
}

/// A kernel launch of `kernel` on a 1x1x1 grid of 32 threads, with the
/// launch arguments `args` (JSON text of the array's elements).
inline std::string kernelLaunch(const std::string &kernel,
                                const std::string &args) {
  return R"({"kind": "kernel", "kernel": ")" + kernel +
         R"(", "grid": [1, 1, 1], "block": [32, 1, 1], "shared_memory": 0,
            "args": [)" +
         args + "]}";
}

/// A CUDA manifest of `functions` whose cubin defines `entryPoints`.
inline std::string
cudaManifest(const std::vector<std::string> &functions,
             const std::vector<std::string> &entryPoints,
             int64_t version = manifest::kCUDAFormatVersion) {
  std::vector<std::string> quoted;
  for (const std::string &e : entryPoints)
    quoted.push_back("\"" + e + "\"");
  return R"({"format_version": )" + std::to_string(version) +
         R"(, "target": "cuda:sm_90a", "cubin": "kernels.cubin",
      "ptx": "kernels.ptx", "calling_convention": "kernel parameters",
      "entry_points": [)" +
         join(quoted) + R"(], "functions": [)" + join(functions) + "]}\n";
}

/// `text` with its first `from` replaced by `to` (to break one field).
inline std::string edit(std::string text, const std::string &from,
                        const std::string &to) {
  size_t at = text.find(from);
  if (at != std::string::npos)
    text.replace(at, from.size(), to);
  return text;
}

inline void writeFile(const std::string &path, const std::string &text) {
  std::ofstream(path, std::ios::binary) << text;
}

/// Writes an artifact into `dir` as sinterc does: the cubin, the manifest,
/// then SHA256SUMS with the SHA-256 of both.
inline void writeArtifact(const std::string &dir, const std::string &manifest,
                          const std::string &cubin = "not a cubin") {
  writeFile(dir + "/kernels.cubin", cubin);
  writeFile(dir + "/manifest.json", manifest);
  writeFile(dir + "/SHA256SUMS", formatChecksums({{"manifest.json", manifest},
                                                  {"kernels.cubin", cubin}}));
}

} // namespace sinter::test

#endif // SINTER_UNITTESTS_ARTIFACTTEXT_H
