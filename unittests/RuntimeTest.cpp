//===- RuntimeTest.cpp - Unit tests for the CUDA runtime ------------------===//
//
// Part of the Sinter project.
//
// The runtime must build and fail cleanly without a GPU: these tests run
// everywhere, and check the manifest reader and the error paths.
//
//===----------------------------------------------------------------------===//

#include "sinter-c/Runtime.h"
#include "../lib/Runtime/CublasLt.h"
#include "../lib/Runtime/Json.h"
#include "ArtifactText.h"
#include "sinter/Artifact/Checksums.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <string>
#include <unistd.h>

using sinter::rt::JsonValue;

namespace {

TEST(RuntimeJson, ParsesManifestShapes) {
  JsonValue v;
  std::string error;
  ASSERT_TRUE(sinter::rt::parseJson(
      R"({"a": [1, -2, 3.5e2, true, null], "s": "x\"y\u0041",
          "seed": 9007199254740993, "o": {}})",
      v, error))
      << error;
  ASSERT_TRUE(v.isObject());
  const JsonValue *a = v.get("a");
  ASSERT_TRUE(a && a->isArray());
  ASSERT_EQ(a->array.size(), 5u);
  EXPECT_EQ(a->array[1].integer, -2);
  EXPECT_DOUBLE_EQ(a->array[2].number, 350.0);
  EXPECT_TRUE(a->array[3].boolean);
  EXPECT_EQ(a->array[4].kind, JsonValue::Kind::Null);
  EXPECT_EQ(v.get("s")->string, "x\"yA");
  // 64-bit integers (dropout seeds) survive exactly.
  EXPECT_EQ(v.get("seed")->integer, 9007199254740993LL);
  EXPECT_TRUE(v.get("o")->isObject());
  EXPECT_EQ(v.get("missing"), nullptr);
}

TEST(RuntimeJson, ReportsErrorsWithOffsets) {
  JsonValue v;
  std::string error;
  EXPECT_FALSE(sinter::rt::parseJson(R"({"a": [1, 2})", v, error));
  EXPECT_NE(error.find("byte"), std::string::npos) << error;
  EXPECT_FALSE(sinter::rt::parseJson(R"({"a": 1} x)", v, error));
  EXPECT_NE(error.find("trailing"), std::string::npos) << error;
  EXPECT_FALSE(sinter::rt::parseJson(R"("unterminated)", v, error));
  EXPECT_FALSE(sinter::rt::parseJson("", v, error));
}

using sinter::test::argument;
using sinter::test::cudaManifest;
using sinter::test::edit;
using sinter::test::function;
using sinter::test::kernelLaunch;
using sinter::test::temp;

class RuntimeArtifact : public ::testing::Test {
protected:
  void SetUp() override {
    char tmpl[] = "/tmp/sinter-rt-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir = tmpl;
  }
  void TearDown() override {
    for (const char *file : {"manifest.json", "kernels.cubin", "SHA256SUMS"})
      std::remove((dir + "/" + file).c_str());
    rmdir(dir.c_str());
  }
  void write(const std::string &name, const std::string &text) {
    sinter::test::writeFile(dir + "/" + name, text);
  }
  /// Writes `manifest` beside a bogus cubin, with their SHA256SUMS.
  void writeArtifact(const std::string &manifest) {
    sinter::test::writeArtifact(dir, manifest);
  }
  /// Loads `manifest` beside a bogus cubin: a well-formed manifest gets as
  /// far as the driver (no GPU: libcuda is missing; a GPU: the cubin is
  /// rejected), so the load fails with a driver error, never an artifact
  /// one. Returns the error text.
  std::string loadReachingTheDriver(const std::string &manifest) {
    writeArtifact(manifest);
    sinter_rt_program *p = nullptr;
    EXPECT_EQ(sinter_rt_load(dir.c_str(), 0, &p), SINTER_RT_ERROR_DRIVER)
        << sinter_rt_last_error();
    return sinter_rt_last_error();
  }
  /// Loads the directory as it is and expects an artifact error containing
  /// `message`.
  void expectArtifactError(const std::string &message) {
    sinter_rt_program *p = nullptr;
    EXPECT_EQ(sinter_rt_load(dir.c_str(), 0, &p), SINTER_RT_ERROR_ARTIFACT)
        << sinter_rt_last_error();
    EXPECT_EQ(p, nullptr);
    EXPECT_NE(std::string(sinter_rt_last_error()).find(message),
              std::string::npos)
        << sinter_rt_last_error();
  }
  std::string dir;
};

/// Writes `manifest` (with its checksums) and expects an artifact error
/// containing `message`.
#define EXPECT_ARTIFACT_ERROR(manifest, message)                               \
  do {                                                                         \
    SCOPED_TRACE(message);                                                     \
    writeArtifact(manifest);                                                   \
    expectArtifactError(message);                                              \
  } while (0)

/// main() of no argument whose one launch runs kernel k with `args`.
std::string oneKernel(const std::string &args) {
  return cudaManifest({function("main", {}, {}, {kernelLaunch("k", args)})},
                      {"k"});
}

TEST_F(RuntimeArtifact, MissingManifestIsAnArtifactError) {
  sinter_rt_program *p = nullptr;
  EXPECT_EQ(sinter_rt_load(dir.c_str(), 0, &p), SINTER_RT_ERROR_ARTIFACT);
  EXPECT_EQ(p, nullptr);
  EXPECT_NE(std::string(sinter_rt_last_error()).find("manifest.json"),
            std::string::npos);
}

TEST_F(RuntimeArtifact, MalformedManifestNamesTheProblem) {
  EXPECT_ARTIFACT_ERROR(oneKernel(R"({"arg": 3})"),
                        "launch of k refers to argument 3 of 0");
}

TEST_F(RuntimeArtifact, NonFiniteConstantsTravelAsBits) {
  // -inf as f32 bits: the manifest parses (the failure comes later, from the
  // driver or the bogus cubin, not from the manifest).
  loadReachingTheDriver(oneKernel(R"({"type": "f32", "bits": 4286578688})"));
}

TEST_F(RuntimeArtifact, CpuManifestIsRejected) {
  write("manifest.json",
        R"({"format_version": 2, "target": "cpu", "functions": []})");
  expectArtifactError("target: \"cpu\" is not a cuda target");
}

TEST_F(RuntimeArtifact, WellFormedArtifactNeedsTheDriverOnlyAtLoad) {
  // A valid manifest gets as far as the driver: without a GPU that is a
  // driver error naming libcuda (never a crash); with one, the bogus cubin
  // is rejected by cuModuleLoadData.
  std::string error = loadReachingTheDriver(cudaManifest(
      {function("main", {argument(0, "x", "input", "float32", {4})}, {}, {})},
      {}));
  if (sinter_rt_cuda_available())
    EXPECT_NE(error.find("cuModuleLoadData"), std::string::npos) << error;
  else
    EXPECT_FALSE(error.empty());
}

TEST(Runtime, RunWithoutProgramIsAnArgumentError) {
  EXPECT_EQ(sinter_rt_run(nullptr, "main", nullptr, 0, nullptr),
            SINTER_RT_ERROR_ARGUMENT);
  EXPECT_EQ(sinter_rt_library_counts(nullptr, nullptr, nullptr, nullptr),
            SINTER_RT_ERROR_ARGUMENT);
  EXPECT_EQ(sinter_rt_load("/tmp", 0, nullptr), SINTER_RT_ERROR_ARGUMENT);
}

// --- Library calls (cublas_gemm entries) -----------------------------------

/// A manifest of one function main(a: 127x257 bf16, b: 257x65 bf16,
/// c0: 127x65 bf16) -> c: 127x65 bf16 whose one launch is `launch`, with
/// the kernels `k` and `matmul_0`.
std::string
gemmManifest(const std::string &launch,
             int64_t version = sinter::manifest::kCUDAFormatVersion) {
  return cudaManifest(
      {function("main",
                {argument(0, "a", "input", "bfloat16", {127, 257}),
                 argument(1, "b", "input", "bfloat16", {257, 65}),
                 argument(2, "c0", "input", "bfloat16", {127, 65}),
                 argument(3, "c", "output", "bfloat16", {127, 65})},
                {}, {launch})},
      {"k", "matmul_0"}, version);
}

/// A cublas_gemm entry as sinterc writes it, with the text `from` replaced
/// by `to` (to break one field).
std::string gemmEntry(const std::string &from = "",
                      const std::string &to = "") {
  std::string e = R"({"kind": "cublas_gemm", "name": "matmul_0",
      "layout": "row-major", "m": 127, "n": 65, "k": 257, "batch": 1,
      "a": {"arg": 0}, "b": {"arg": 1}, "c": {"arg": 3},
      "accumulate": true, "c_init": {"arg": 2}, "alpha": 1, "beta": 1,
      "a_dtype": "bfloat16", "b_dtype": "bfloat16", "c_dtype": "bfloat16",
      "compute_dtype": "float32", "lda": 257, "ldb": 65, "ldc": 65,
      "stride_a": 32639, "stride_b": 16705, "stride_c": 8255,
      "fallback": {"kind": "kernel", "kernel": "matmul_0",
        "grid": [4, 1, 1], "block": [256, 1, 1], "shared_memory": 0,
        "args": [{"arg": 0}, {"arg": 1}, {"arg": 2}, {"arg": 3}]}})";
  if (!from.empty()) {
    EXPECT_NE(e.find(from), std::string::npos) << from;
    e = edit(e, from, to);
  }
  return e;
}

TEST_F(RuntimeArtifact, GemmEntryParsesAndNeedsTheDriverOnlyAtLoad) {
  // Well formed: the failure comes from the driver (no GPU) or the bogus
  // cubin, not from the manifest; cuBLASLt is not needed to load.
  loadReachingTheDriver(gemmManifest(gemmEntry()));
}

TEST_F(RuntimeArtifact, MalformedGemmEntriesNameTheProblem) {
  EXPECT_ARTIFACT_ERROR(gemmManifest(gemmEntry(R"(,
      "fallback": {"kind": "kernel", "kernel": "matmul_0",
        "grid": [4, 1, 1], "block": [256, 1, 1], "shared_memory": 0,
        "args": [{"arg": 0}, {"arg": 1}, {"arg": 2}, {"arg": 3}]})",
                                               "")),
                        "functions[0].launches[0]: missing key \"fallback\"");
  EXPECT_ARTIFACT_ERROR(gemmManifest(gemmEntry(R"("b_dtype": "bfloat16")",
                                               R"("b_dtype": "float16")")),
                        "unsupported types a=bfloat16 b=float16 c=bfloat16");
  EXPECT_ARTIFACT_ERROR(gemmManifest(gemmEntry(R"("c_init": {"arg": 2})",
                                               R"("c_init": {"arg": 7})")),
                        "c_init refers to argument 7 of 4");
  EXPECT_ARTIFACT_ERROR(
      gemmManifest(gemmEntry(R"("a": {"arg": 0})", R"("a": 0)")),
      "functions[0].launches[0].a: expected an object");
  // m = 128 rows do not fit the 127-row buffers.
  EXPECT_ARTIFACT_ERROR(gemmManifest(gemmEntry(R"("m": 127)", R"("m": 128)")),
                        "a needs 65792 bytes, its buffer has 65278");
  EXPECT_ARTIFACT_ERROR(
      gemmManifest(gemmEntry(R"("lda": 257)", R"("lda": 256)")),
      "lda, ldb and ldc must be at least the columns of a, b and c as "
      "stored");
  EXPECT_ARTIFACT_ERROR(
      gemmManifest(gemmEntry(R"("accumulate": true, "c_init": {"arg": 2},)",
                             R"("accumulate": false,)")),
      "beta is not 0 but there is no c_init");
  EXPECT_ARTIFACT_ERROR(gemmManifest(gemmEntry(R"("accumulate": true,)",
                                               R"("accumulate": false,)")),
                        "c_init is given exactly when accumulate is true");
  EXPECT_ARTIFACT_ERROR(
      gemmManifest(
          gemmEntry(R"("kind": "cublas_gemm")", R"("kind": "cudnn_conv")")),
      "has kind 'cudnn_conv'; this runtime runs 'kernel' and 'cublas_gemm'");
  // The fallback kernel is one the compiler emitted.
  EXPECT_ARTIFACT_ERROR(
      gemmManifest(
          gemmEntry(R"("kernel": "matmul_0")", R"("kernel": "matmul_9")")),
      "functions[0].launches[0].fallback.kernel: matmul_9 is not among the "
      "artifact's entry_points");
}

// --- Verification: the format, the checksums, the schema -------------------

TEST_F(RuntimeArtifact, OtherFormatsAreRefused) {
  // Formats 1 to 3 had no checksums: they cannot be verified, so they are
  // not run; format 4 had no transposed GEMM operands, format 5 no GEMM
  // activations, and their readers refuse the keys that came after.
  for (int64_t version : {1, 2, 3, 4, 5, 7})
    EXPECT_ARTIFACT_ERROR(gemmManifest(gemmEntry(), version),
                          "manifest format " + std::to_string(version) +
                              " is not supported (this runtime reads format "
                              "6; recompile the artifact with this version "
                              "of sinterc)");
  EXPECT_ARTIFACT_ERROR(R"({"target": "cuda:sm_90a", "functions": []})",
                        "manifest format (none) is not supported");
}

TEST_F(RuntimeArtifact, ATruncatedOrFlippedCubinIsRefused) {
  // Item 11 of issue #17: never handed to the driver (the fake-driver test
  // checks that cuModuleLoadData is not even called).
  writeArtifact(gemmManifest(gemmEntry()));
  write("kernels.cubin", "not a cu");
  expectArtifactError("kernels.cubin does not match its SHA-256 in "
                      "SHA256SUMS (8 bytes with digest");
  write("kernels.cubin", "not a cubim");
  expectArtifactError("the artifact is corrupt, truncated or was modified "
                      "after it was compiled");
}

TEST_F(RuntimeArtifact, AModifiedManifestIsRefused) {
  // Item 8: an output made smaller than what the kernel writes.
  std::string manifest = gemmManifest(gemmEntry());
  writeArtifact(manifest);
  write("manifest.json",
        edit(manifest, R"("shape": [127, 65], "bytes": 16510})",
             R"("shape": [12, 65], "bytes": 1560})"));
  expectArtifactError("manifest.json does not match its SHA-256");
  // With its checksum made again, the buffer no longer holds the GEMM.
  EXPECT_ARTIFACT_ERROR(edit(manifest, R"("shape": [127, 65], "bytes": 16510})",
                             R"("shape": [12, 65], "bytes": 1560})"),
                        "c_init needs 16510 bytes, its buffer has 1560");
  // The bytes must be those of the shape.
  EXPECT_ARTIFACT_ERROR(
      edit(manifest, R"("bytes": 16510})", R"("bytes": 1560})"),
      "functions[0].arguments[2].bytes: 1560, but its shape and dtype make "
      "16510");
}

TEST_F(RuntimeArtifact, MissingChecksumsAreRefused) {
  writeArtifact(gemmManifest(gemmEntry()));
  std::remove((dir + "/SHA256SUMS").c_str());
  expectArtifactError("SHA256SUMS: an artifact records the SHA-256 of its "
                      "files there");
  write("SHA256SUMS", "0123  manifest.json\n");
  expectArtifactError("SHA256SUMS line 1: expected '<64 lowercase hex "
                      "digits>  <file name>'");
  write("SHA256SUMS", sinter::formatChecksums(
                          {{"manifest.json", gemmManifest(gemmEntry())}}));
  expectArtifactError("SHA256SUMS has no digest for kernels.cubin");
}

TEST_F(RuntimeArtifact, FieldsAreCheckedAgainstTheSchema) {
  std::string m = gemmManifest(gemmEntry());
  // Item 9: an argument's kind changed; an output removed.
  EXPECT_ARTIFACT_ERROR(
      edit(m, R"("kind": "buffer")", R"("kind": "scalar")"),
      "functions[0].arguments[0].shape: a scalar has shape []");
  EXPECT_ARTIFACT_ERROR(
      edit(m, R"("kind": "buffer")", R"("kind": "tensor")"),
      "functions[0].arguments[0].kind: expected one of \"buffer\", "
      "\"scalar\", got \"tensor\"");
  EXPECT_ARTIFACT_ERROR(
      edit(m, ", " + argument(3, "c", "output", "bfloat16", {127, 65}), ""),
      "c refers to argument 3 of 3");
  // Float shapes, a changed dtype, a missing key, an unknown one.
  EXPECT_ARTIFACT_ERROR(
      edit(m, R"("shape": [127, 257])", R"("shape": [127.0, 257])"),
      "functions[0].arguments[0].shape[0]: expected an "
      "integer >= 0");
  EXPECT_ARTIFACT_ERROR(
      edit(m, R"("dtype": "bfloat16")", R"("dtype": "float32")"),
      "functions[0].arguments[0].bytes: 65278, but its "
      "shape and dtype make 130556");
  EXPECT_ARTIFACT_ERROR(edit(m, R"("dtype": "bfloat16")", R"("dtype": "bf16")"),
                        "functions[0].arguments[0].dtype: expected one of");
  EXPECT_ARTIFACT_ERROR(edit(m, R"("ptx": "kernels.ptx",)", ""),
                        "the manifest: missing key \"ptx\"");
  EXPECT_ARTIFACT_ERROR(edit(m, R"("index": 1,)", R"("index": 1, "x": 2,)"),
                        "functions[0].arguments[1].x: unknown key (not a "
                        "field of argument)");
  EXPECT_ARTIFACT_ERROR(edit(m, R"("index": 1,)", R"("index": 2,)"),
                        "functions[0].arguments[1].index: 2, expected its "
                        "position 1");
  // Duplicate function names; a key given twice.
  std::string f = function("main", {}, {}, {});
  EXPECT_ARTIFACT_ERROR(cudaManifest({f, f}, {}),
                        "functions[1].name: a second function named main");
  EXPECT_ARTIFACT_ERROR(edit(m, R"("index": 1,)", R"("index": 1, "index": 1,)"),
                        "duplicate member name");
  // The cubin is a file of the artifact directory.
  EXPECT_ARTIFACT_ERROR(
      edit(m, R"("cubin": "kernels.cubin")", R"("cubin": "../kernels.cubin")"),
      "cubin: expected the name of a file in the artifact "
      "directory");
  // A JSON list, null, a string: not a manifest.
  for (const char *notAnObject : {"[]", "null", "\"manifest\""})
    EXPECT_ARTIFACT_ERROR(notAnObject, "the manifest is not a JSON object");
}

TEST_F(RuntimeArtifact, KernelsAreTheArtifactsEntryPoints) {
  // Item 10's equivalent: a launch names only a kernel the compiler
  // emitted into the cubin.
  EXPECT_ARTIFACT_ERROR(
      cudaManifest({function("main", {}, {}, {kernelLaunch("abort", "")})},
                   {"k"}),
      "functions[0].launches[0].kernel: abort is not among the artifact's "
      "entry_points");
  EXPECT_ARTIFACT_ERROR(
      cudaManifest({function("main", {}, {}, {})}, {"k", "k"}),
      "entry_points: k appears twice");
}

TEST_F(RuntimeArtifact, ConstantsAreCheckedForTheirType) {
  EXPECT_ARTIFACT_ERROR(oneKernel(R"({"type": "i32", "value": 4294967296})"),
                        "functions[0].launches[0].args[0].value: expected an "
                        "integer that fits i32");
  EXPECT_ARTIFACT_ERROR(oneKernel(R"({"type": "i64", "value": 0.5})"),
                        "expected an integer that fits i64");
  EXPECT_ARTIFACT_ERROR(oneKernel(R"({"type": "f32"})"),
                        "a constant argument of k has no value");
  EXPECT_ARTIFACT_ERROR(oneKernel(R"({"type": "f16", "value": 1})"),
                        "args[0].type: expected one of");
}

// --- Tensor maps (kernel parameters) ---------------------------------------

/// A kernel launch of gemmManifest's function whose first argument is a
/// tensor map of a (127x257 bf16, 65278 bytes), with `edit` replacing the
/// text `from` of the tensor map (to break one field).
std::string tensorMapLaunch(const std::string &from = "",
                            const std::string &to = "") {
  std::string t = R"({"tensor_map": {"arg": 0}, "dtype": "bfloat16",
      "shape": [127, 256], "box": [64, 64], "swizzle": "128B",
      "l2_promotion": "256B", "oob_fill": "zero", "interleave": "none"})";
  if (!from.empty()) {
    EXPECT_NE(t.find(from), std::string::npos) << from;
    t = edit(t, from, to);
  }
  return R"({"kind": "kernel", "kernel": "k", "grid": [1, 1, 1],
      "block": [128, 1, 1], "shared_memory": 0,
      "args": [{"arg": 1}, )" +
         t + R"(, {"arg": 3}]})";
}

/// gemmManifest's function with a scalar argument "s" added (after the
/// output).
std::string withScalar(const std::string &manifest) {
  std::string c = argument(3, "c", "output", "bfloat16", {127, 65});
  return edit(manifest, c,
              c + ", " + argument(4, "s", "output", "float32", {}, "scalar"));
}

TEST_F(RuntimeArtifact, TensorMapParsesAndNeedsTheDriverOnlyAtLoad) {
  loadReachingTheDriver(gemmManifest(tensorMapLaunch()));
  // A 16-byte box row; 1-D, as big as the buffer (32639 bf16); a box
  // reaching past a short tensor (128 rows of 127: the rest reads as zeros).
  for (const char *change : {R"("shape": [127, 256], "box": [1, 8])",
                             R"("shape": [32639], "box": [64])",
                             R"("shape": [127, 256], "box": [128, 64])"}) {
    SCOPED_TRACE(change);
    loadReachingTheDriver(gemmManifest(
        tensorMapLaunch(R"("shape": [127, 256], "box": [64, 64])", change)));
  }
}

TEST_F(RuntimeArtifact, MalformedPersistentLaunchesNameTheProblem) {
  const std::string at = R"("shared_memory": 0,)";
  for (const char *bad : {R"({"work": 0, "ctas_per_sm": 4})",
                          R"({"work": 100, "ctas_per_sm": 65})"}) {
    std::string launch = tensorMapLaunch();
    launch = edit(launch, at, at + R"( "persistent": )" + bad + ",");
    EXPECT_ARTIFACT_ERROR(gemmManifest(launch),
                          "\"persistent\" of k needs \"work\" >= 1 and "
                          "\"ctas_per_sm\" in [1, 64]");
  }
  EXPECT_ARTIFACT_ERROR(
      gemmManifest(
          edit(tensorMapLaunch(), at, at + R"( "persistent": {"work": 100},)")),
      "functions[0].launches[0].persistent: missing key \"ctas_per_sm\"");
}

TEST_F(RuntimeArtifact, MalformedTensorMapsNameTheProblem) {
  auto manifest = [](const std::string &from, const std::string &to) {
    return gemmManifest(tensorMapLaunch(from, to));
  };
  const std::string where = "malformed manifest: k arg 1 in main (tensor map)";
  const std::string path = "functions[0].launches[0].args[1]";
  EXPECT_ARTIFACT_ERROR(
      manifest(
          R"("shape": [127, 256], "box": [64, 64])",
          R"("shape": [1, 1, 1, 1, 127, 256], "box": [1, 1, 1, 1, 1, 64])"),
      where + ": rank 6 is not in [1, 5]");
  EXPECT_ARTIFACT_ERROR(manifest(R"("shape": [127, 256], "box": [64, 64])",
                                 R"("shape": [16, 1024], "box": [16, 300])"),
                        where + ": box dimension 1 is 300, not in [1, 256]");
  // 12 bf16 = 24 bytes.
  EXPECT_ARTIFACT_ERROR(
      manifest(R"("box": [64, 64])", R"("box": [64, 12])"),
      where + ": the box's innermost dimension is 24 bytes, not a multiple "
              "of 16");
  // 128 bf16 = 256 bytes, twice the 128B swizzle span.
  EXPECT_ARTIFACT_ERROR(manifest(R"("box": [64, 64])", R"("box": [64, 128])"),
                        where + ": the box's innermost dimension is 256 "
                                "bytes, more than the 128-byte swizzle span");
  EXPECT_ARTIFACT_ERROR(
      manifest(R"("swizzle": "128B")", R"("swizzle": "256B")"),
      path +
          R"(.swizzle: expected one of "none", "32B", "64B", "128B", got "256B")");
  EXPECT_ARTIFACT_ERROR(
      manifest(R"("oob_fill": "zero")", R"("oob_fill": "inf")"),
      path + R"(.oob_fill: expected one of "zero", "nan", got "inf")");
  EXPECT_ARTIFACT_ERROR(manifest(R"("dtype": "bfloat16")", R"("dtype": "f8")"),
                        path + ".dtype: expected one of");
  EXPECT_ARTIFACT_ERROR(
      manifest(R"("dtype": "bfloat16")", R"("dtype": "int8")"),
      where + ": unsupported dtype 'int8'");
  EXPECT_ARTIFACT_ERROR(manifest(R"("l2_promotion": "256B", )", ""),
                        path + ": missing key \"l2_promotion\"");
  // 100 bf16 rows are 200 bytes apart: not a multiple of 16.
  EXPECT_ARTIFACT_ERROR(manifest(R"("shape": [127, 256], "box": [64, 64])",
                                 R"("shape": [127, 100], "box": [64, 8])"),
                        where + ": the stride of shape dimension 0 is 200 "
                                "bytes, not a multiple of 16 below 2^40");
  // 128 x 256 bf16 do not fit a's 65278 bytes.
  EXPECT_ARTIFACT_ERROR(
      manifest(R"("shape": [127, 256])", R"("shape": [128, 256])"),
      where + ": the shape needs 65536 bytes, its buffer has 65278");
  EXPECT_ARTIFACT_ERROR(manifest(R"({"arg": 0})", R"({"arg": 9})"),
                        where + " refers to argument 9 of 4");
  EXPECT_ARTIFACT_ERROR(manifest(R"({"arg": 0})", R"(0)"),
                        path + ".tensor_map: expected an object");
  EXPECT_ARTIFACT_ERROR(manifest(R"({"arg": 0})", R"({"arg": 0, "temp": 0})"),
                        where + " is not a buffer");
  EXPECT_ARTIFACT_ERROR(withScalar(manifest(R"({"arg": 0})", R"({"arg": 4})")),
                        where + " refers to the scalar argument s");
  EXPECT_ARTIFACT_ERROR(manifest(R"("oob_fill": "zero", "interleave": "none")",
                                 R"("oob_fill": "zero", "interleave": "32B")"),
                        "an interleaved tensor map needs rank 3 or more");
}

// --- The artifact library: SHA-256 and SHA256SUMS ---------------------------

TEST(Checksums, Sha256MatchesTheStandardsVectors) {
  // FIPS 180-4 examples (one block, two blocks) and the empty string.
  EXPECT_EQ(sinter::sha256Hex(std::string("abc")),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(sinter::sha256Hex(std::string(
                "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq")),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  EXPECT_EQ(sinter::sha256Hex(std::string()),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  // A million 'a's: many blocks; 55 and 56 bytes: the length word fits the
  // last block or needs another.
  EXPECT_EQ(sinter::sha256Hex(std::string(1000000, 'a')),
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
  EXPECT_EQ(sinter::sha256Hex(std::string(55, 'a')),
            "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318");
  EXPECT_EQ(sinter::sha256Hex(std::string(56, 'a')),
            "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a");
}

TEST(Checksums, FileIsTheFormatOfSha256sum) {
  std::string sums = sinter::formatChecksums({{"manifest.json", "abc"}});
  EXPECT_EQ(sums, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f2"
                  "0015ad  manifest.json\n");
  std::map<std::string, std::string> digests;
  std::string error;
  ASSERT_TRUE(sinter::parseChecksums(sums, digests, error)) << error;
  EXPECT_TRUE(sinter::verifyChecksum(digests, "manifest.json", "abc", error));
  EXPECT_FALSE(sinter::verifyChecksum(digests, "manifest.json", "abd", error));
  EXPECT_FALSE(sinter::verifyChecksum(digests, "kernels.cubin", "abc", error));
  EXPECT_EQ(error, "SHA256SUMS has no digest for kernels.cubin");
  for (const char *bad : {"xyz  manifest.json\n",
                          "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb4"
                          "10ff61f20015ad  ../etc/passwd\n"}) {
    EXPECT_FALSE(sinter::parseChecksums(bad, digests, error)) << bad;
    EXPECT_EQ(error.rfind("SHA256SUMS line 1: ", 0), 0u) << error;
  }
  EXPECT_FALSE(sinter::parseChecksums(sums + sums, digests, error));
  EXPECT_EQ(error, "SHA256SUMS line 2: a second digest for manifest.json");
}

namespace lt = sinter::rt::lt;

TEST(CublasLt, RowMajorGemmRunsAsTransposedColumnMajor) {
  // C (m x n) = A (m x k) x B (k x n), row-major, batch 3, ragged sizes:
  // cuBLASLt computes C^T (n x m) = B^T (n x k) x A^T (k x m).
  lt::RowMajorGemm g{127, 65, 257,       3,        257,
                     65,  65, 127 * 257, 257 * 65, 127 * 65};
  lt::ColumnMajorGemm c = lt::toColumnMajor(g);
  EXPECT_TRUE(c.swapped);
  EXPECT_EQ(c.first.rows, 65u);
  EXPECT_EQ(c.first.cols, 257u);
  EXPECT_EQ(c.first.ld, 65);
  EXPECT_EQ(c.first.batchStride, 257 * 65);
  EXPECT_EQ(c.second.rows, 257u);
  EXPECT_EQ(c.second.cols, 127u);
  EXPECT_EQ(c.second.ld, 257);
  EXPECT_EQ(c.second.batchStride, 127 * 257);
  EXPECT_EQ(c.c.rows, 65u);
  EXPECT_EQ(c.c.cols, 127u);
  EXPECT_EQ(c.c.ld, 65);
  EXPECT_EQ(c.c.batchStride, 127 * 65);
  EXPECT_EQ(c.batch, 3);
}

TEST(CublasLt, AlignmentHoldsForEveryMatrixOfTheBatch) {
  EXPECT_EQ(lt::alignment(0x7f0000000000, 0, 1), 256u);
  EXPECT_EQ(lt::alignment(0x7f0000000010, 0, 1), 16u);
  EXPECT_EQ(lt::alignment(0x7f0000000002, 0, 1), 2u);
  // A bf16 batch of 127x65 matrices: 16510 bytes apart, so only 2-byte
  // alignment holds for every matrix; one matrix ignores the stride.
  EXPECT_EQ(lt::alignment(0x7f0000000000, 16510, 2), 2u);
  EXPECT_EQ(lt::alignment(0x7f0000000000, 16510, 1), 256u);
  EXPECT_EQ(lt::alignment(0x7f0000000000, 4096, 8), 256u);
}

TEST(CublasLt, TypesFollowTheManifestNames) {
  EXPECT_EQ(lt::dataType("float32"), 0);   // CUDA_R_32F
  EXPECT_EQ(lt::dataType("float16"), 2);   // CUDA_R_16F
  EXPECT_EQ(lt::dataType("bfloat16"), 14); // CUDA_R_16BF
  EXPECT_EQ(lt::dataType("float64"), -1);
  EXPECT_EQ(lt::elementBytes("bfloat16"), 2u);
  EXPECT_EQ(lt::elementBytes("float32"), 4u);
}

TEST(CublasLt, CandidatesAreTheEnvironmentThenTheSonames) {
  std::vector<std::string> sonames = {"libcublasLt.so.13", "libcublasLt.so.12",
                                      "libcublasLt.so"};
  EXPECT_EQ(lt::candidates(nullptr), sonames);
  EXPECT_EQ(lt::candidates(""), sonames);
  std::vector<std::string> withPath = {"/opt/x/libcublasLt.so.13"};
  withPath.insert(withPath.end(), sonames.begin(), sonames.end());
  EXPECT_EQ(lt::candidates("/opt/x/libcublasLt.so.13"), withPath);
  EXPECT_TRUE(lt::disabledBy("off"));
  EXPECT_TRUE(lt::disabledBy("0"));
  EXPECT_FALSE(lt::disabledBy(nullptr));
  EXPECT_FALSE(lt::disabledBy("/opt/x/libcublasLt.so"));
  EXPECT_EQ(lt::candidates("off"), sonames);
}

TEST(CublasLt, OpeningSaysWhatEachCandidateFound) {
  // A missing library is skipped with its reason; the sonames follow.
  lt::Api api;
  EXPECT_FALSE(lt::open(api, {"/nonexistent/libcublasLt.so.13"}));
  EXPECT_NE(api.status.find("/nonexistent/libcublasLt.so.13"),
            std::string::npos)
      << api.status;
  lt::Api found;
  bool opened = lt::open(found, lt::candidates("/nonexistent/libcublasLt.so"));
  if (!opened) {
    // No cuBLASLt on this machine: every candidate is in the reason (which
    // is all there is to check here; not a skip, the lit wrappers count
    // skips).
    for (const char *soname : {"/nonexistent/libcublasLt.so",
                               "libcublasLt.so.13", "libcublasLt.so.12"})
      EXPECT_NE(found.status.find(soname), std::string::npos) << found.status;
    return;
  }
  // Every entry point resolved; the version needs no GPU.
  EXPECT_NE(found.matmul, nullptr);
  EXPECT_NE(found.algoGetHeuristic, nullptr);
  EXPECT_GT(found.version, 0u);
  EXPECT_EQ(found.status.rfind("opened libcublasLt.so", 0), 0u) << found.status;
  if (found.getStatusName) {
    EXPECT_EQ(found.describe(15).rfind("CUBLAS_STATUS_NOT_SUPPORTED (15)", 0),
              0u)
        << found.describe(15);
  }
}

TEST(CublasLt, TheProcessOpensItAsTheEnvironmentSays) {
  // runtime-cublaslt.test runs this with SINTER_CUBLASLT=off and with a
  // path that does not exist; without the variable it is whatever the
  // machine has.
  const char *env = std::getenv("SINTER_CUBLASLT");
  std::string status = sinter_rt_cublaslt_status();
  EXPECT_FALSE(status.empty());
  if (lt::disabledBy(env)) {
    EXPECT_EQ(sinter_rt_cublaslt_available(), 0);
    EXPECT_EQ(status, std::string("disabled by SINTER_CUBLASLT=") + env);
  } else if (sinter_rt_cublaslt_available()) {
    EXPECT_EQ(status.rfind("opened ", 0), 0u) << status;
  } else {
    EXPECT_EQ(status.rfind("cannot open cuBLASLt", 0), 0u) << status;
  }
  // A path that did not open is named, whether a soname opened after it or
  // not.
  if (env && *env && !lt::disabledBy(env) &&
      std::string(env).find("/nonexistent/") != std::string::npos) {
    EXPECT_NE(status.find(env), std::string::npos) << status;
  }
}

} // namespace
