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

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
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

class RuntimeArtifact : public ::testing::Test {
protected:
  void SetUp() override {
    char tmpl[] = "/tmp/sinter-rt-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir = tmpl;
  }
  void TearDown() override {
    std::remove((dir + "/manifest.json").c_str());
    std::remove((dir + "/kernels.cubin").c_str());
    rmdir(dir.c_str());
  }
  void write(const std::string &name, const std::string &text) {
    std::ofstream(dir + "/" + name) << text;
  }
  /// Loads `manifest` beside a bogus cubin: a well-formed manifest gets as
  /// far as the driver (no GPU: libcuda is missing; a GPU: the cubin is
  /// rejected), so the load fails with a driver error, never an artifact
  /// one. Returns the error text.
  std::string loadReachingTheDriver(const std::string &manifest) {
    write("manifest.json", manifest);
    write("kernels.cubin", "not a cubin");
    sinter_rt_program *p = nullptr;
    EXPECT_EQ(sinter_rt_load(dir.c_str(), 0, &p), SINTER_RT_ERROR_DRIVER)
        << sinter_rt_last_error();
    return sinter_rt_last_error();
  }
  std::string dir;
};

TEST_F(RuntimeArtifact, MissingManifestIsAnArtifactError) {
  sinter_rt_program *p = nullptr;
  EXPECT_EQ(sinter_rt_load(dir.c_str(), 0, &p), SINTER_RT_ERROR_ARTIFACT);
  EXPECT_EQ(p, nullptr);
  EXPECT_NE(std::string(sinter_rt_last_error()).find("manifest.json"),
            std::string::npos);
}

TEST_F(RuntimeArtifact, MalformedManifestNamesTheProblem) {
  write("manifest.json", R"({"target": "cuda:sm_90a", "functions": [
      {"name": "main", "arguments": [], "temps": [], "launches": [
        {"kernel": "k", "grid": [1, 1, 1], "block": [32, 1, 1],
         "shared_memory": 0, "args": [{"arg": 3}]}]}]})");
  write("kernels.cubin", "not a cubin");
  sinter_rt_program *p = nullptr;
  EXPECT_EQ(sinter_rt_load(dir.c_str(), 0, &p), SINTER_RT_ERROR_ARTIFACT);
  EXPECT_NE(std::string(sinter_rt_last_error()).find("argument 3 of 0"),
            std::string::npos)
      << sinter_rt_last_error();
}

TEST_F(RuntimeArtifact, NonFiniteConstantsTravelAsBits) {
  // -inf as f32 bits: the manifest parses (the failure comes later, from the
  // driver or the bogus cubin, not from the manifest).
  loadReachingTheDriver(R"({"target": "cuda:sm_90a", "functions": [
      {"name": "main", "arguments": [], "temps": [], "launches": [
        {"kernel": "k", "grid": [1, 1, 1], "block": [32, 1, 1],
         "shared_memory": 0,
         "args": [{"type": "f32", "bits": 4286578688}]}]}]})");
}

TEST_F(RuntimeArtifact, CpuManifestIsRejected) {
  write("manifest.json", R"({"target": "cpu", "functions": []})");
  write("kernels.cubin", "");
  sinter_rt_program *p = nullptr;
  EXPECT_EQ(sinter_rt_load(dir.c_str(), 0, &p), SINTER_RT_ERROR_ARTIFACT);
  EXPECT_NE(std::string(sinter_rt_last_error()).find("not a cuda target"),
            std::string::npos);
}

TEST_F(RuntimeArtifact, WellFormedArtifactNeedsTheDriverOnlyAtLoad) {
  // A valid manifest gets as far as the driver: without a GPU that is a
  // driver error naming libcuda (never a crash); with one, the bogus cubin
  // is rejected by cuModuleLoadData.
  write("manifest.json", R"({"target": "cuda:sm_90a", "functions": [
      {"name": "main", "arguments": [{"name": "arg0", "kind": "buffer"}],
       "temps": [], "launches": []}]})");
  write("kernels.cubin", "not a cubin");
  sinter_rt_program *p = nullptr;
  int rc = sinter_rt_load(dir.c_str(), 0, &p);
  EXPECT_EQ(rc, SINTER_RT_ERROR_DRIVER);
  std::string error = sinter_rt_last_error();
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
}

// --- Library calls (cublas_gemm entries) -----------------------------------

/// A manifest of one function main(a: 127x257 bf16, b: 257x65 bf16,
/// c0: 127x65 bf16) -> c: 127x65 bf16 whose one launch is `launch`.
std::string gemmManifest(const std::string &launch, int version = 2) {
  return R"({"format_version": )" + std::to_string(version) +
         R"(, "target": "cuda:sm_90a", "functions": [
      {"name": "main", "arguments": [
        {"name": "a", "kind": "buffer", "bytes": 65278},
        {"name": "b", "kind": "buffer", "bytes": 33410},
        {"name": "c0", "kind": "buffer", "bytes": 16510},
        {"name": "c", "kind": "buffer", "bytes": 16510}],
       "temps": [], "launches": [)" +
         launch + "]}]}";
}

/// A cublas_gemm entry as sinterc writes it, with `edit` replacing the
/// text `from` (to break one field).
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
    size_t at = e.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    if (at != std::string::npos)
      e.replace(at, from.size(), to);
  }
  return e;
}

TEST_F(RuntimeArtifact, GemmEntryParsesAndNeedsTheDriverOnlyAtLoad) {
  // Well formed: the failure comes from the driver (no GPU) or the bogus
  // cubin, not from the manifest; cuBLASLt is not needed to load.
  loadReachingTheDriver(gemmManifest(gemmEntry()));
  // A version-1 manifest (launches without a kind) still reads.
  loadReachingTheDriver(gemmManifest(R"({"kernel": "k", "grid": [1, 1, 1],
          "block": [32, 1, 1], "shared_memory": 0, "args": [{"arg": 0}]})",
                                     1));
}

/// Loads `manifest` and expects an artifact error containing `message`.
#define EXPECT_ARTIFACT_ERROR(manifest, message)                               \
  do {                                                                         \
    write("manifest.json", manifest);                                          \
    write("kernels.cubin", "not a cubin");                                     \
    sinter_rt_program *p_ = nullptr;                                           \
    EXPECT_EQ(sinter_rt_load(dir.c_str(), 0, &p_), SINTER_RT_ERROR_ARTIFACT)   \
        << sinter_rt_last_error();                                             \
    EXPECT_NE(std::string(sinter_rt_last_error()).find(message),               \
              std::string::npos)                                               \
        << sinter_rt_last_error();                                             \
  } while (0)

TEST_F(RuntimeArtifact, MalformedGemmEntriesNameTheProblem) {
  EXPECT_ARTIFACT_ERROR(gemmManifest(gemmEntry(R"(,
      "fallback": {"kind": "kernel", "kernel": "matmul_0",
        "grid": [4, 1, 1], "block": [256, 1, 1], "shared_memory": 0,
        "args": [{"arg": 0}, {"arg": 1}, {"arg": 2}, {"arg": 3}]})",
                                               "")),
                        "cublas_gemm matmul_0 of main has no fallback");
  EXPECT_ARTIFACT_ERROR(gemmManifest(gemmEntry(R"("b_dtype": "bfloat16")",
                                               R"("b_dtype": "float16")")),
                        "unsupported types a=bfloat16 b=float16 c=bfloat16");
  EXPECT_ARTIFACT_ERROR(gemmManifest(gemmEntry(R"("c_init": {"arg": 2})",
                                               R"("c_init": {"arg": 7})")),
                        "c_init refers to argument 7 of 4");
  EXPECT_ARTIFACT_ERROR(
      gemmManifest(gemmEntry(R"("a": {"arg": 0})", R"("a": 0)")),
      "matmul_0 of main: a is not a buffer");
  // m = 128 rows do not fit the 127-row buffers.
  EXPECT_ARTIFACT_ERROR(gemmManifest(gemmEntry(R"("m": 127)", R"("m": 128)")),
                        "a needs 65792 bytes, its buffer has 65278");
  EXPECT_ARTIFACT_ERROR(
      gemmManifest(gemmEntry(R"("lda": 257)", R"("lda": 256)")),
      "lda, ldb and ldc must be at least k, n and n");
  EXPECT_ARTIFACT_ERROR(
      gemmManifest(gemmEntry(R"("accumulate": true, "c_init": {"arg": 2},)",
                             R"("accumulate": false,)")),
      "beta is not 0 but there is no c_init");
  EXPECT_ARTIFACT_ERROR(
      gemmManifest(
          gemmEntry(R"("kind": "cublas_gemm")", R"("kind": "cudnn_conv")")),
      "has kind 'cudnn_conv'; this runtime runs 'kernel' and 'cublas_gemm'");
  EXPECT_ARTIFACT_ERROR(gemmManifest(gemmEntry(), 4),
                        "manifest format 4 is not supported (this runtime "
                        "reads formats 1 to 3)");
}

TEST_F(RuntimeArtifact, Format3Reads) {
  // Format 3 (tensor maps) reads, with or without a tensor map.
  loadReachingTheDriver(gemmManifest(gemmEntry(), 3));
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
    size_t at = t.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    if (at != std::string::npos)
      t.replace(at, from.size(), to);
  }
  return R"({"kind": "kernel", "kernel": "k", "grid": [1, 1, 1],
      "block": [128, 1, 1], "shared_memory": 0,
      "args": [{"arg": 1}, )" +
         t + R"(, {"arg": 3}]})";
}

/// gemmManifest's function with a scalar argument "s" added.
std::string withScalar(std::string manifest) {
  std::string c = R"({"name": "c", "kind": "buffer", "bytes": 16510})";
  manifest.replace(manifest.find(c), c.size(),
                   c + R"(, {"name": "s", "kind": "scalar"})");
  return manifest;
}

TEST_F(RuntimeArtifact, TensorMapParsesAndNeedsTheDriverOnlyAtLoad) {
  loadReachingTheDriver(gemmManifest(tensorMapLaunch(), 3));
  // A 16-byte box row; 1-D, as big as the buffer (32639 bf16); a box
  // reaching past a short tensor (128 rows of 127: the rest reads as zeros).
  for (const char *edit : {R"("shape": [127, 256], "box": [1, 8])",
                           R"("shape": [32639], "box": [64])",
                           R"("shape": [127, 256], "box": [128, 64])"}) {
    SCOPED_TRACE(edit);
    loadReachingTheDriver(gemmManifest(
        tensorMapLaunch(R"("shape": [127, 256], "box": [64, 64])", edit), 3));
  }
}

TEST_F(RuntimeArtifact, MalformedPersistentLaunchesNameTheProblem) {
  const std::string at = R"("shared_memory": 0,)";
  for (const char *bad :
       {R"({"work": 0, "ctas_per_sm": 4})", R"({"work": 100})",
        R"({"work": 100, "ctas_per_sm": 65})"}) {
    std::string launch = tensorMapLaunch();
    launch.replace(launch.find(at), at.size(),
                   at + R"( "persistent": )" + bad + ",");
    EXPECT_ARTIFACT_ERROR(gemmManifest(launch, 3),
                          "\"persistent\" of k needs \"work\" >= 1 and "
                          "\"ctas_per_sm\" in [1, 64]");
  }
}

TEST_F(RuntimeArtifact, MalformedTensorMapsNameTheProblem) {
  auto manifest = [](const std::string &from, const std::string &to) {
    return gemmManifest(tensorMapLaunch(from, to), 3);
  };
  const std::string where = "malformed manifest: k arg 1 in main (tensor map)";
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
      where + R"(: swizzle must be "none", "32B", "64B" or "128B")");
  EXPECT_ARTIFACT_ERROR(
      manifest(R"("oob_fill": "zero")", R"("oob_fill": "inf")"),
      R"(oob_fill must be "zero" or "nan")");
  EXPECT_ARTIFACT_ERROR(manifest(R"("dtype": "bfloat16")", R"("dtype": "f8")"),
                        "unsupported dtype 'f8'");
  EXPECT_ARTIFACT_ERROR(
      manifest(R"("l2_promotion": "256B", )", ""),
      R"(l2_promotion must be "none", "64B", "128B" or "256B")");
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
                        where + " is not a buffer");
  EXPECT_ARTIFACT_ERROR(withScalar(manifest(R"({"arg": 0})", R"({"arg": 4})")),
                        where + " refers to the scalar argument s");
  EXPECT_ARTIFACT_ERROR(manifest(R"("oob_fill": "zero", "interleave": "none")",
                                 R"("oob_fill": "zero", "interleave": "32B")"),
                        "an interleaved tensor map needs rank 3 or more");
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
