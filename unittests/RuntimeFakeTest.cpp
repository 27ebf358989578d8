//===- RuntimeFakeTest.cpp - Library calls end to end, without a GPU ------===//
//
// Part of the Sinter project.
//
// Runs with the stand-in driver and cuBLASLt of unittests/fake/ (see
// test/Unit/runtime-library-calls.test): LD_LIBRARY_PATH puts the fake
// libcuda.so.1 first and SINTER_CUBLASLT names the fake cuBLASLt, whose
// cublasLtMatmul computes the documented column-major product on host
// memory. So these tests check what the runtime asks of cuBLASLt -- the
// row-major GEMM as C^T = B^T x A^T, strides, beta and C_init, the
// workspace, the alignments -- and when it runs the fallback kernel
// instead. With SINTER_CUBLASLT=off every library call must fall back.
//
// Kernel parameters that are tensor maps (TensorMaps.*): what the runtime
// asks cuTensorMapEncodeTiled for, and that the kernel gets the encoded
// bytes. Run with the fake driver that lacks cuTensorMapEncodeTiled
// (unittests/fakecuda-notma), only manifests without tensor maps load.
//
//===----------------------------------------------------------------------===//

#include "sinter-c/Runtime.h"

#include "ArtifactText.h"
#include "fake/FakeCuda.h"

#include <cmath>
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <fstream>
#include <string>
#include <type_traits>
#include <unistd.h>
#include <vector>

namespace {

/// The fakes' control functions.
struct Fakes {
  const char *(*launches)() = nullptr;
  int (*allocations)(size_t) = nullptr;
  int (*frees)() = nullptr;
  void (*reset)() = nullptr;
  void (*setParamSizes)(const char *, const unsigned *, int) = nullptr;
  int (*paramCount)() = nullptr;
  const void *(*paramAddress)(int) = nullptr;
  const unsigned char *(*paramBytes)(int) = nullptr;
  int (*encodes)() = nullptr;
  const FakeTensorMapEncode *(*encode)(int) = nullptr;
  void (*setEncodeStatus)(int) = nullptr;
  void (*setSmCount)(int) = nullptr;
  unsigned (*lastGrid)() = nullptr;
  int (*moduleLoads)() = nullptr;
  int (*graphLaunches)() = nullptr;
  bool hasEncoder = false; // the fake driver has cuTensorMapEncodeTiled
  void (*resetLt)() = nullptr;
  void (*setMode)(int) = nullptr;
  int (*matmuls)() = nullptr;
  int (*heuristics)() = nullptr;
  uint32_t (*alignment)(int) = nullptr;
  uint64_t (*workspace)() = nullptr;
  bool disabled = false; // SINTER_CUBLASLT=off

  bool load() {
    void *cuda = dlopen("libcuda.so.1", RTLD_NOW);
    const char *env = std::getenv("SINTER_CUBLASLT");
    disabled = env && std::strcmp(env, "off") == 0;
    if (!cuda)
      return false;
    launches =
        reinterpret_cast<decltype(launches)>(dlsym(cuda, "fake_cuda_launches"));
    allocations = reinterpret_cast<decltype(allocations)>(
        dlsym(cuda, "fake_cuda_allocations"));
    frees = reinterpret_cast<decltype(frees)>(dlsym(cuda, "fake_cuda_frees"));
    reset = reinterpret_cast<decltype(reset)>(dlsym(cuda, "fake_cuda_reset"));
    auto control = [&](auto &fn, const char *name) {
      fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(
          dlsym(cuda, name));
      return fn != nullptr;
    };
    if (!launches || !allocations || !frees || !reset ||
        !control(setParamSizes, "fake_cuda_set_param_sizes") ||
        !control(paramCount, "fake_cuda_param_count") ||
        !control(paramAddress, "fake_cuda_param_address") ||
        !control(paramBytes, "fake_cuda_param_bytes") ||
        !control(encodes, "fake_cuda_encodes") ||
        !control(encode, "fake_cuda_encode") ||
        !control(setEncodeStatus, "fake_cuda_set_encode_status") ||
        !control(setSmCount, "fake_cuda_set_sm_count") ||
        !control(lastGrid, "fake_cuda_last_grid") ||
        !control(moduleLoads, "fake_cuda_module_loads") ||
        !control(graphLaunches, "fake_cuda_graph_launches"))
      return false;
    hasEncoder = dlsym(cuda, "cuTensorMapEncodeTiled") != nullptr;
    if (disabled)
      return true;
    void *lt = env ? dlopen(env, RTLD_NOW) : nullptr;
    if (!lt)
      return false;
    resetLt = reinterpret_cast<decltype(resetLt)>(dlsym(lt, "fake_lt_reset"));
    setMode =
        reinterpret_cast<decltype(setMode)>(dlsym(lt, "fake_lt_set_mode"));
    matmuls = reinterpret_cast<decltype(matmuls)>(dlsym(lt, "fake_lt_matmuls"));
    heuristics =
        reinterpret_cast<decltype(heuristics)>(dlsym(lt, "fake_lt_heuristics"));
    alignment =
        reinterpret_cast<decltype(alignment)>(dlsym(lt, "fake_lt_alignment"));
    workspace =
        reinterpret_cast<decltype(workspace)>(dlsym(lt, "fake_lt_workspace"));
    return resetLt && setMode && matmuls && heuristics && alignment &&
           workspace;
  }
};

Fakes &fakes() {
  static Fakes f;
  static bool ok = f.load();
  if (!ok)
    f.launches = nullptr;
  return f;
}

constexpr size_t kWorkspace = 32u << 20;

/// One GEMM function main(a, b[, c0]) -> c as sinterc writes it, with
/// row-major operands: a batch x m x k, b batch x k x n, c batch x m x n
/// (stored transposed with transA / transB: k x m, n x k).
struct Case {
  int64_t m, n, k, batch;
  std::string inType = "float32", outType = "float32";
  bool accumulate = false;
  bool transA = false, transB = false;
  /// The bias epilogue: a vector of n of outType, argument after c0.
  bool bias = false;
  /// The activation ("gelu_tanh", "gelu_tanh_grad" or none) and its aux
  /// matrix (m x n of outType): gelu_tanh's written after c when `aux`,
  /// gelu_tanh_grad's read before c.
  std::string activation;
  bool aux = false;

  int biasArg() const { return accumulate ? 3 : 2; }
  bool auxIn() const { return aux && activation == "gelu_tanh_grad"; }
  int cArg() const { return biasArg() + (bias ? 1 : 0) + (auxIn() ? 1 : 0); }
  int auxArg() const { return auxIn() ? cArg() - 1 : cArg() + 1; }

  std::string manifest() const {
    using sinter::test::argument;
    auto num = [](int64_t v) { return std::to_string(v); };
    std::vector<std::string> args = {
        argument(0, "a", "input", inType,
                 {batch, transA ? k : m, transA ? m : k}),
        argument(1, "b", "input", inType,
                 {batch, transB ? n : k, transB ? k : n})};
    if (accumulate)
      args.push_back(argument(2, "c0", "input", outType, {batch, m, n}));
    if (bias)
      args.push_back(argument(biasArg(), "bias", "input", outType, {n}));
    if (auxIn())
      args.push_back(argument(auxArg(), "aux", "input", outType, {m, n}));
    int c = cArg();
    args.push_back(argument(c, "c", "output", outType, {batch, m, n}));
    if (aux && !auxIn())
      args.push_back(argument(auxArg(), "aux", "output", outType, {m, n}));
    std::string kernelArgs;
    for (int i = 0; i < static_cast<int>(args.size()); ++i)
      kernelArgs += (i ? ", " : "") + std::string(R"({"arg": )") + num(i) + "}";
    std::string gemm =
        R"({"kind": "cublas_gemm", "name": "matmul_0", "layout": "row-major",
         "m": )" +
        num(m) + R"(, "n": )" + num(n) + R"(, "k": )" + num(k) +
        R"(, "batch": )" + num(batch) +
        R"(, "a": {"arg": 0}, "b": {"arg": 1}, "c": {"arg": )" + num(c) +
        "}, " + (transA ? R"("trans_a": true, )" : "") +
        (transB ? R"("trans_b": true, )" : "") +
        (accumulate ? R"("accumulate": true, "c_init": {"arg": 2}, )"
                    : R"("accumulate": false, )") +
        (bias ? R"("bias": {"arg": )" + num(biasArg()) +
                    R"(}, "bias_dtype": ")" + outType + R"(", )"
              : std::string()) +
        (activation.empty() ? std::string()
                            : R"("activation": ")" + activation + R"(", )") +
        (aux ? R"("aux": {"arg": )" + num(auxArg()) + "}, " : std::string()) +
        R"("alpha": 1, "beta": )" + (accumulate ? "1" : "0") +
        R"(, "a_dtype": ")" + inType + R"(", "b_dtype": ")" + inType +
        R"(", "c_dtype": ")" + outType +
        R"(", "compute_dtype": "float32", "lda": )" + num(transA ? m : k) +
        R"(, "ldb": )" + num(transB ? k : n) + R"(, "ldc": )" + num(n) +
        R"(, "stride_a": )" + num(m * k) + R"(, "stride_b": )" + num(k * n) +
        R"(, "stride_c": )" + num(m * n) +
        R"(,
         "fallback": {"kind": "kernel", "kernel": "matmul_0",
           "grid": [1, 1, 1], "block": [256, 1, 1], "shared_memory": 0,
           "args": [)" +
        kernelArgs + "]}}";
    return sinter::test::cudaManifest(
        {sinter::test::function("main", args, {}, {gemm})}, {"matmul_0"});
  }
};

/// Small integers: every product and sum is exact in f32 and bf16.
float value(int64_t i, int salt) {
  return static_cast<float>((i * 7 + salt * 3) % 9 - 4);
}

uint16_t bf16(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  return static_cast<uint16_t>(bits >> 16);
}

/// An artifact directory (a fake cubin and `manifest`) loaded through the
/// fake driver.
class FakeDriver : public ::testing::Test {
protected:
  void SetUp() override {
    if (!fakes().launches)
      GTEST_SKIP() << "needs the fake driver and cuBLASLt "
                      "(test/Unit/runtime-library-calls.test)";
    fakes().reset();
    if (!fakes().disabled)
      fakes().resetLt();
    char tmpl[] = "/tmp/sinter-rt-fake-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir = tmpl;
  }
  void TearDown() override {
    if (program)
      sinter_rt_unload(program);
    for (const char *file : {"manifest.json", "kernels.cubin", "SHA256SUMS"})
      std::remove((dir + "/" + file).c_str());
    rmdir(dir.c_str());
  }

  /// Loads `manifest` (beside a fake cubin, with their checksums) unless a
  /// program is loaded.
  int load(const std::string &manifest) {
    if (program)
      return SINTER_RT_OK;
    sinter::test::writeArtifact(dir, manifest, "fake");
    return sinter_rt_load(dir.c_str(), 0, &program);
  }

  std::string dir;
  sinter_rt_program *program = nullptr;
};

class LibraryCalls : public FakeDriver {
protected:
  /// Loads `c`, fills its inputs and runs it `runs` times on `stream`;
  /// `offset` shifts A by that many elements (to break its alignment).
  int run(const Case &c, int runs = 1, void *stream = nullptr,
          size_t offset = 0) {
    if (int rc = load(c.manifest())) {
      EXPECT_EQ(rc, SINTER_RT_OK) << sinter_rt_last_error();
      return rc;
    }
    size_t aCount = c.batch * c.m * c.k, bCount = c.batch * c.k * c.n,
           cCount = c.batch * c.m * c.n;
    a32.assign(aCount + offset, 0);
    b32.assign(bCount, 0);
    c0.assign(cCount, 0);
    a16.assign(aCount, 0);
    b16.assign(bCount, 0);
    out32.assign(cCount, -1e30f); // poison
    out16.assign(cCount, 0xffff);
    for (size_t i = 0; i < aCount; ++i) {
      a32[offset + i] = value(i, 1);
      a16[i] = bf16(value(i, 1));
    }
    for (size_t i = 0; i < bCount; ++i) {
      b32[i] = value(i, 2);
      b16[i] = bf16(value(i, 2));
    }
    for (size_t i = 0; i < cCount; ++i)
      c0[i] = value(i, 3);
    bool in16 = c.inType != "float32";
    std::vector<void *> args = {in16 ? static_cast<void *>(a16.data())
                                     : static_cast<void *>(a32.data() + offset),
                                in16 ? static_cast<void *>(b16.data())
                                     : static_cast<void *>(b32.data())};
    if (c.accumulate)
      args.push_back(c0.data());
    biasValues.assign(c.n, 0);
    bias16.assign(c.n, 0);
    for (int64_t j = 0; j < c.n; ++j) {
      biasValues[j] = value(j, 4);
      bias16[j] = bf16(value(j, 4));
    }
    if (c.bias)
      args.push_back(c.outType == "float32"
                         ? static_cast<void *>(biasValues.data())
                         : static_cast<void *>(bias16.data()));
    aux32.assign(c.m * c.n, -1e30f); // poison, or the saved pre-activation
    for (int64_t i = 0; c.auxIn() && i < c.m * c.n; ++i)
      aux32[i] = value(i, 5) / 4;
    if (c.auxIn())
      args.push_back(aux32.data());
    args.push_back(c.outType == "float32" ? static_cast<void *>(out32.data())
                                          : static_cast<void *>(out16.data()));
    if (c.aux && !c.auxIn())
      args.push_back(aux32.data());
    for (int i = 0; i < runs; ++i)
      if (int rc =
              sinter_rt_run(program, "main", args.data(), args.size(), stream))
        return rc;
    return SINTER_RT_OK;
  }

  /// The row-major reference of `c` on the inputs `run` made.
  std::vector<float> reference(const Case &c) const {
    std::vector<float> r(c.batch * c.m * c.n);
    for (int64_t n = 0; n < c.batch; ++n)
      for (int64_t i = 0; i < c.m; ++i)
        for (int64_t j = 0; j < c.n; ++j) {
          float sum = 0;
          for (int64_t p = 0; p < c.k; ++p)
            sum += value(n * c.m * c.k + (c.transA ? p * c.m + i : i * c.k + p),
                         1) *
                   value(n * c.k * c.n + (c.transB ? j * c.k + p : p * c.n + j),
                         2);
          int64_t o = n * c.m * c.n + i * c.n + j;
          r[o] = sum + (c.accumulate ? value(o, 3) : 0.0f) +
                 (c.bias ? value(j, 4) : 0.0f);
        }
    return r;
  }

  void expectLibraryCalls(uint64_t library, uint64_t fallback,
                          const char *why = "") {
    uint64_t l = 0, f = 0;
    const char *last = nullptr;
    ASSERT_EQ(sinter_rt_library_counts(program, &l, &f, &last), SINTER_RT_OK);
    EXPECT_EQ(l, library);
    EXPECT_EQ(f, fallback);
    EXPECT_NE(std::string(last).find(why), std::string::npos) << last;
  }

  std::vector<float> a32, b32, c0, out32, biasValues, aux32;
  std::vector<uint16_t> a16, b16, out16, bias16;
};

TEST_F(LibraryCalls, RowMajorGemmRunsAsTransposedColumnMajor) {
  Case c{5, 3, 7, 1};
  ASSERT_EQ(run(c), SINTER_RT_OK) << sinter_rt_last_error();
  if (fakes().disabled) {
    // No cuBLASLt: the fallback kernel ran (the fake driver records it).
    EXPECT_STREQ(fakes().launches(), "matmul_0");
    expectLibraryCalls(0, 1, "disabled by SINTER_CUBLASLT=off");
    return;
  }
  EXPECT_STREQ(fakes().launches(), "");
  EXPECT_EQ(fakes().matmuls(), 1);
  EXPECT_EQ(out32, reference(c));
  expectLibraryCalls(1, 0);
}

TEST_F(LibraryCalls, TransposedOperandsAreReadInPlace) {
  // trans_a / trans_b (InPlaceOperands.cpp): A stored as A^T (k x m), B as
  // B^T (n x k); cuBLASLt reads them through CUBLAS_OP_T.
  for (auto [ta, tb] : {std::pair{true, false}, {false, true}, {true, true}}) {
    Case c{5, 3, 7, 2};
    c.transA = ta;
    c.transB = tb;
    c.accumulate = ta && tb;
    if (program)
      sinter_rt_unload(program);
    program = nullptr;
    ASSERT_EQ(run(c), SINTER_RT_OK) << sinter_rt_last_error();
    if (fakes().disabled)
      return;
    EXPECT_EQ(out32, reference(c)) << ta << tb;
  }
}

TEST_F(LibraryCalls, BatchesAccumulateIntoTheirInitialC) {
  Case c{6, 5, 4, 3};
  c.accumulate = true;
  ASSERT_EQ(run(c, 2), SINTER_RT_OK) << sinter_rt_last_error();
  if (fakes().disabled) {
    EXPECT_STREQ(fakes().launches(), "matmul_0,matmul_0");
    expectLibraryCalls(0, 2);
    return;
  }
  EXPECT_EQ(out32, reference(c));
  // The algorithm is chosen once for these pointers; one workspace.
  EXPECT_EQ(fakes().heuristics(), 1);
  EXPECT_EQ(fakes().matmuls(), 2);
  EXPECT_EQ(fakes().workspace(), kWorkspace);
  EXPECT_EQ(fakes().allocations(kWorkspace), 1);
  expectLibraryCalls(2, 0);
}

TEST_F(LibraryCalls, Bf16InputsGiveF32Results) {
  Case c{4, 9, 8, 2};
  c.inType = "bfloat16";
  ASSERT_EQ(run(c), SINTER_RT_OK) << sinter_rt_last_error();
  if (fakes().disabled)
    return;
  EXPECT_EQ(out32, reference(c));
}

TEST_F(LibraryCalls, Bf16Results) {
  Case c{3, 4, 5, 1};
  c.inType = c.outType = "bfloat16";
  ASSERT_EQ(run(c), SINTER_RT_OK) << sinter_rt_last_error();
  if (fakes().disabled)
    return;
  std::vector<float> r = reference(c);
  for (size_t i = 0; i < r.size(); ++i)
    EXPECT_EQ(out16[i], bf16(r[i])) << i;
}

TEST_F(LibraryCalls, TheBiasEpilogueAddsOneValuePerColumn) {
  // A bf16 linear layer with its bias (MatmulEpilogue.cpp): cuBLASLt adds
  // the bias to the rows of its column-major D, the columns of row-major C.
  Case c{5, 3, 7, 1};
  c.inType = c.outType = "bfloat16";
  c.bias = true;
  ASSERT_EQ(run(c, 2), SINTER_RT_OK) << sinter_rt_last_error();
  if (fakes().disabled) {
    EXPECT_STREQ(fakes().launches(), "matmul_0,matmul_0");
    return;
  }
  std::vector<float> r = reference(c);
  for (size_t i = 0; i < r.size(); ++i)
    EXPECT_EQ(out16[i], bf16(r[i])) << i;
  EXPECT_EQ(fakes().heuristics(), 1);
  expectLibraryCalls(2, 0);
}

/// GELU's tanh form and its derivative, in f64.
static double geluTanh(double x) {
  return 0.5 * x *
         (1 + std::tanh(0.7978845608028654 * (x + 0.044715 * x * x * x)));
}
static double geluTanhGrad(double x) {
  double t = std::tanh(0.7978845608028654 * (x + 0.044715 * x * x * x));
  return 0.5 * (1 + t) + 0.5 * x * (1 - t * t) * 0.7978845608028654 *
                             (1 + 3 * 0.044715 * x * x);
}

TEST_F(LibraryCalls, GeluEpilogueStoresItsInputAsAux) {
  // An MLP's first matmul in training (GeluEpilogue.cpp): C = gelu(A B +
  // bias), aux = A B + bias, in the row-major layout of C.
  Case c{5, 3, 7, 1};
  c.bias = true;
  c.activation = "gelu_tanh";
  c.aux = true;
  ASSERT_EQ(run(c), SINTER_RT_OK) << sinter_rt_last_error();
  if (fakes().disabled) {
    EXPECT_STREQ(fakes().launches(), "matmul_0");
    return;
  }
  std::vector<float> r = reference(c);
  for (size_t i = 0; i < r.size(); ++i) {
    EXPECT_EQ(aux32[i], r[i]) << i;
    EXPECT_NEAR(out32[i], geluTanh(r[i]), 1e-5 * (1 + std::abs(r[i]))) << i;
  }
  expectLibraryCalls(1, 0);
}

TEST_F(LibraryCalls, GeluGradientEpilogueReadsAux) {
  // The MLP's backward: C = (A B) * gelu'(aux), aux the saved
  // pre-activation.
  Case c{5, 3, 7, 1};
  c.activation = "gelu_tanh_grad";
  c.aux = true;
  ASSERT_EQ(run(c), SINTER_RT_OK) << sinter_rt_last_error();
  if (fakes().disabled) {
    EXPECT_STREQ(fakes().launches(), "matmul_0");
    return;
  }
  std::vector<float> r = reference(c);
  for (size_t i = 0; i < r.size(); ++i) {
    double want = r[i] * geluTanhGrad(value(i, 5) / 4);
    EXPECT_NEAR(out32[i], want, 1e-5 * (1 + std::abs(want))) << i;
  }
  expectLibraryCalls(1, 0);
}

TEST_F(LibraryCalls, ActivationsAreChecked) {
  // A gradient activation with a bias, and aux without an activation, are
  // artifact errors, not GEMMs that compute something else.
  Case grad{5, 3, 7, 1};
  grad.activation = "gelu_tanh_grad";
  grad.aux = true;
  grad.bias = true;
  EXPECT_EQ(load(grad.manifest()), SINTER_RT_ERROR_ARTIFACT);
  EXPECT_NE(std::string(sinter_rt_last_error())
                .find("gelu_tanh_grad reads aux and takes no bias"),
            std::string::npos)
      << sinter_rt_last_error();
  Case lone{5, 3, 7, 1};
  lone.aux = true;
  lone.activation = "gelu_tanh";
  std::string m = lone.manifest();
  m.replace(m.find(R"("activation": "gelu_tanh", )"), 27, "");
  EXPECT_EQ(load(m), SINTER_RT_ERROR_ARTIFACT);
  EXPECT_NE(
      std::string(sinter_rt_last_error()).find("aux without an activation"),
      std::string::npos)
      << sinter_rt_last_error();
}

TEST_F(LibraryCalls, EveryStreamHasItsWorkspace) {
  if (fakes().disabled)
    GTEST_SKIP();
  Case c{5, 3, 7, 1};
  ASSERT_EQ(run(c, 2, nullptr), SINTER_RT_OK);
  ASSERT_EQ(run(c, 1, reinterpret_cast<void *>(0x1234)), SINTER_RT_OK);
  EXPECT_EQ(fakes().allocations(kWorkspace), 2);
  int freed = fakes().frees();
  sinter_rt_unload(program);
  program = nullptr;
  EXPECT_EQ(fakes().frees(), freed + 2); // both workspaces
}

TEST_F(LibraryCalls, TheHeuristicIsToldThePointersAlignment) {
  if (fakes().disabled)
    GTEST_SKIP();
  Case c{5, 3, 8, 1};
  ASSERT_EQ(run(c), SINTER_RT_OK);
  // cuBLASLt's first operand is B, its second A; vectors are 256-aligned
  // at most as far as the heap goes, so check A shifted by one f32.
  ASSERT_EQ(run(c, 1, nullptr, 1), SINTER_RT_OK);
  EXPECT_EQ(fakes().heuristics(), 2);
  EXPECT_EQ(fakes().alignment(1), 4u);
  EXPECT_EQ(out32, reference(c));
}

TEST_F(LibraryCalls, NoAlgorithmRunsTheFallbackKernel) {
  if (fakes().disabled)
    GTEST_SKIP();
  fakes().setMode(1);
  Case c{5, 3, 7, 1};
  ASSERT_EQ(run(c, 2), SINTER_RT_OK) << sinter_rt_last_error();
  EXPECT_STREQ(fakes().launches(), "matmul_0,matmul_0");
  EXPECT_EQ(fakes().matmuls(), 0);
  EXPECT_EQ(fakes().heuristics(), 1); // not asked again
  expectLibraryCalls(0, 2,
                     "matmul_0 in main: cublasLtMatmulAlgoGetHeuristic found "
                     "no algorithm");
}

TEST_F(LibraryCalls, AFailingMatmulIsAnError) {
  if (fakes().disabled)
    GTEST_SKIP();
  fakes().setMode(2);
  Case c{5, 3, 7, 1};
  EXPECT_EQ(run(c), SINTER_RT_ERROR_DRIVER);
  EXPECT_STREQ(sinter_rt_last_error(),
               "cublasLtMatmul(matmul_0) in main: "
               "CUBLAS_STATUS_EXECUTION_FAILED (13): the fake cuBLASLt failed");
}

// --- Tensor maps ------------------------------------------------------------

/// attn(q: 2x16x4096x128 bf16, o) with one temp (32x64 f32): its kernel
/// attn_0 takes a tensor map of q, o, a tensor map of the temp and an i32.
std::string tensorMapManifest(bool withTensorMaps = true) {
  using sinter::test::argument;
  std::string args =
      withTensorMaps
          ? R"({"tensor_map": {"arg": 0}, "dtype": "bfloat16",
               "shape": [2, 16, 4096, 128], "box": [1, 1, 128, 64],
               "swizzle": "128B", "l2_promotion": "256B", "oob_fill": "zero",
               "interleave": "none"},
              {"arg": 1},
              {"tensor_map": {"temp": 0}, "dtype": "float32",
               "shape": [32, 64], "box": [8, 32], "swizzle": "none",
               "l2_promotion": "none", "oob_fill": "nan",
               "interleave": "none"},
              {"type": "i32", "value": 7})"
          : R"({"arg": 0}, {"arg": 1}, {"temp": 0}, {"type": "i32", "value": 7})";
  std::string launch = R"({"kind": "kernel", "kernel": "attn_0",
      "grid": [1, 1, 1], "block": [128, 1, 1], "shared_memory": 0,
      "args": [)" + args +
                       "]}";
  return sinter::test::cudaManifest(
      {sinter::test::function(
          "attn",
          {argument(0, "q", "input", "bfloat16", {2, 16, 4096, 128}),
           argument(1, "o", "output", "float32", {1024})},
          {sinter::test::temp("t0", "float32", {32, 64})}, {launch})},
      {"attn_0"});
}

/// Device pointers (never dereferenced: the fake driver runs nothing).
void *const kQ = reinterpret_cast<void *>(0x7f0000100000);
void *const kO = reinterpret_cast<void *>(0x7f0000200000);

class TensorMaps : public FakeDriver {
protected:
  void SetUp() override {
    FakeDriver::SetUp();
    if (IsSkipped())
      return;
    static const unsigned sizes[] = {128, 8, 128, 4};
    fakes().setParamSizes("attn_0", sizes, 4);
  }

  /// Loads the manifest (the fake driver must have the encoder) and runs
  /// attn(q, o).
  int run(void *q, void *o = kO) {
    if (!fakes().hasEncoder)
      return -1;
    if (int rc = load(tensorMapManifest())) {
      ADD_FAILURE() << sinter_rt_last_error();
      return rc;
    }
    void *args[] = {q, o};
    return sinter_rt_run(program, "attn", args, 2, nullptr);
  }

  uint64_t paramWord(int param, int word) {
    uint64_t v;
    std::memcpy(&v, fakes().paramBytes(param) + 8 * word, sizeof(v));
    return v;
  }

  /// Kernel parameter `param` is the map of encode `index`, which encoded
  /// it for `base`.
  void expectEncodedMap(int param, int index, void *base) {
    const FakeTensorMapEncode *e = fakes().encode(index);
    EXPECT_EQ(fakes().paramAddress(param), e->tensorMap);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(e->tensorMap) % 64, 0u);
    EXPECT_EQ(paramWord(param, 0), kFakeTensorMapMagic);
    EXPECT_EQ(paramWord(param, 1), reinterpret_cast<uintptr_t>(base));
    EXPECT_EQ(paramWord(param, 2), static_cast<uint64_t>(index + 1));
    for (int b = 24; b < 128; ++b)
      ASSERT_EQ(fakes().paramBytes(param)[b], b ^ 0x5a) << b;
  }
};

// A persistent kernel's grid is sized at load for the device's SMs: as many
// blocks as `ctas_per_sm` per SM hold, each taking the same number of the
// `work` items; other launches keep the manifest's grid.
TEST_F(FakeDriver, PersistentGridsFollowTheDeviceSMCount) {
  std::string plain = tensorMapManifest(false);
  std::string persistent = plain;
  const std::string at = R"("shared_memory": 0,)";
  persistent.replace(persistent.find(at), at.size(),
                     at +
                         R"( "persistent": {"work": 1000, "ctas_per_sm": 4},)");
  void *args[] = {kQ, kO};
  // sms -> grid: 10 SMs x 4 = 40 slots, 25 items each; 132 x 4 = 528
  // slots, 2 items each on 500 blocks; 300 x 4 slots: one item each.
  for (auto [sms, grid] : {std::pair{10, 40u}, {132, 500u}, {300, 1000u}}) {
    fakes().setSmCount(sms);
    ASSERT_EQ(load(persistent), SINTER_RT_OK) << sinter_rt_last_error();
    ASSERT_EQ(sinter_rt_run(program, "attn", args, 2, nullptr), SINTER_RT_OK)
        << sinter_rt_last_error();
    EXPECT_EQ(fakes().lastGrid(), grid) << sms << " SMs";
    sinter_rt_unload(program);
    program = nullptr;
  }
  ASSERT_EQ(load(plain), SINTER_RT_OK) << sinter_rt_last_error();
  ASSERT_EQ(sinter_rt_run(program, "attn", args, 2, nullptr), SINTER_RT_OK);
  EXPECT_EQ(fakes().lastGrid(), 1u);
}

// SINTER_CUDA_GRAPH=1 (Graph.cpp): the first call with some arguments runs
// directly, the second captures the launches and replays them, the third
// replays; new arguments start over, with a graph of their own, and the
// first arguments' graph is kept. Every call runs every kernel once.
TEST_F(FakeDriver, GraphsReplayTheLaunchesOfTheSameArguments) {
  ASSERT_EQ(setenv("SINTER_CUDA_GRAPH", "1", 1), 0);
  ASSERT_EQ(load(tensorMapManifest(false)), SINTER_RT_OK)
      << sinter_rt_last_error();
  void *args[] = {kQ, kO};
  for (int i = 0; i < 3; ++i)
    ASSERT_EQ(sinter_rt_run(program, "attn", args, 2, nullptr), SINTER_RT_OK)
        << sinter_rt_last_error();
  EXPECT_STREQ(fakes().launches(), "attn_0,attn_0,attn_0");
  EXPECT_EQ(fakes().graphLaunches(), 2);
  void *moved[] = {kQ, reinterpret_cast<void *>(0x7f0000300000)};
  ASSERT_EQ(sinter_rt_run(program, "attn", moved, 2, nullptr), SINTER_RT_OK);
  EXPECT_EQ(fakes().graphLaunches(), 2); // new arguments: run directly
  // Alternating between the two argument sets (a loop over two batches):
  // the second set gets a graph of its own, the first keeps its graph.
  for (int i = 0; i < 2; ++i) {
    ASSERT_EQ(sinter_rt_run(program, "attn", args, 2, nullptr), SINTER_RT_OK);
    ASSERT_EQ(sinter_rt_run(program, "attn", moved, 2, nullptr), SINTER_RT_OK);
  }
  EXPECT_EQ(fakes().graphLaunches(), 6);
  unsetenv("SINTER_CUDA_GRAPH");
  ASSERT_EQ(sinter_rt_run(program, "attn", args, 2, nullptr), SINTER_RT_OK);
  EXPECT_STREQ(fakes().launches(),
               "attn_0,attn_0,attn_0,attn_0,attn_0,attn_0,attn_0,attn_0,"
               "attn_0");
  EXPECT_EQ(fakes().graphLaunches(), 6);
}

// A corrupt, truncated or modified artifact is refused before anything
// reaches the driver (issue #17, items 8 and 11): no module is loaded, no
// buffer allocated, nothing launched.
TEST_F(FakeDriver, ACorruptArtifactNeverReachesTheDriver) {
  std::string manifest = tensorMapManifest(false);
  sinter::test::writeArtifact(dir, manifest, "fake cubin");
  sinter::test::writeFile(dir + "/kernels.cubin", "fake cu"); // truncated
  EXPECT_EQ(sinter_rt_load(dir.c_str(), 0, &program), SINTER_RT_ERROR_ARTIFACT);
  EXPECT_NE(std::string(sinter_rt_last_error())
                .find("kernels.cubin does not match its SHA-256"),
            std::string::npos)
      << sinter_rt_last_error();
  // The output made smaller than what the kernel writes.
  sinter::test::writeArtifact(dir, manifest, "fake cubin");
  sinter::test::writeFile(
      dir + "/manifest.json",
      sinter::test::edit(manifest, R"("shape": [1024], "bytes": 4096)",
                         R"("shape": [16], "bytes": 64)"));
  EXPECT_EQ(sinter_rt_load(dir.c_str(), 0, &program), SINTER_RT_ERROR_ARTIFACT);
  EXPECT_NE(std::string(sinter_rt_last_error())
                .find("manifest.json does not match its SHA-256"),
            std::string::npos)
      << sinter_rt_last_error();
  EXPECT_EQ(program, nullptr);
  EXPECT_EQ(fakes().moduleLoads(), 0);
  EXPECT_EQ(fakes().allocations(8192), 0);
  EXPECT_STREQ(fakes().launches(), "");
  // The artifact as written loads and runs.
  ASSERT_EQ(load(manifest), SINTER_RT_OK) << sinter_rt_last_error();
  EXPECT_EQ(fakes().moduleLoads(), 1);
  void *args[] = {kQ, kO};
  EXPECT_EQ(sinter_rt_run(program, "attn", args, 2, nullptr), SINTER_RT_OK);
  EXPECT_EQ(sinter_rt_run(program, "attn", nullptr, 2, nullptr),
            SINTER_RT_ERROR_ARGUMENT);
  EXPECT_STREQ(fakes().launches(), "attn_0");
}

TEST_F(TensorMaps, OnlyManifestsWithTensorMapsNeedTheEncoder) {
  // Without tensor maps the program runs on any driver. (Its parameters
  // are 8 bytes each: the fake must not copy the fixture's 128-byte tensor
  // map sizes out of them, which ASan reported as a heap overflow.)
  fakes().reset();
  ASSERT_EQ(load(tensorMapManifest(false)), SINTER_RT_OK)
      << sinter_rt_last_error();
  void *args[] = {kQ, kO};
  ASSERT_EQ(sinter_rt_run(program, "attn", args, 2, nullptr), SINTER_RT_OK)
      << sinter_rt_last_error();
  EXPECT_STREQ(fakes().launches(), "attn_0");
  sinter_rt_unload(program);
  program = nullptr;
  int rc = load(tensorMapManifest());
  if (fakes().hasEncoder) {
    EXPECT_EQ(rc, SINTER_RT_OK) << sinter_rt_last_error();
    return;
  }
  EXPECT_EQ(rc, SINTER_RT_ERROR_DRIVER);
  EXPECT_EQ(program, nullptr);
  EXPECT_STREQ(sinter_rt_last_error(),
               "the CUDA driver has no cuTensorMapEncodeTiled (CUDA 12 or "
               "newer), which the tensor map arguments of attn_0 in attn "
               "need");
}

TEST_F(TensorMaps, EncodedInnermostFirstAndPassedByValue) {
  if (!fakes().hasEncoder)
    GTEST_SKIP() << "the fake driver has no cuTensorMapEncodeTiled";
  ASSERT_EQ(run(kQ), SINTER_RT_OK) << sinter_rt_last_error();
  EXPECT_STREQ(fakes().launches(), "attn_0");
  ASSERT_EQ(fakes().encodes(), 2);
  // q: bf16 [2, 16, 4096, 128], box [1, 1, 128, 64], outermost first.
  const FakeTensorMapEncode &q = *fakes().encode(0);
  EXPECT_EQ(q.dataType, 9); // CU_TENSOR_MAP_DATA_TYPE_BFLOAT16
  EXPECT_EQ(q.rank, 4u);
  EXPECT_EQ(q.globalAddress, kQ);
  EXPECT_EQ(std::vector<uint64_t>(q.globalDim, q.globalDim + 4),
            (std::vector<uint64_t>{128, 4096, 16, 2}));
  EXPECT_EQ(std::vector<uint64_t>(q.globalStrides, q.globalStrides + 3),
            (std::vector<uint64_t>{256, 256 * 4096, 256 * 4096 * 16}));
  EXPECT_EQ(std::vector<uint32_t>(q.boxDim, q.boxDim + 4),
            (std::vector<uint32_t>{64, 128, 1, 1}));
  EXPECT_EQ(std::vector<uint32_t>(q.elementStrides, q.elementStrides + 4),
            (std::vector<uint32_t>{1, 1, 1, 1}));
  EXPECT_EQ(q.interleave, 0);
  EXPECT_EQ(q.swizzle, 3);     // CU_TENSOR_MAP_SWIZZLE_128B
  EXPECT_EQ(q.l2Promotion, 3); // CU_TENSOR_MAP_L2_PROMOTION_L2_256B
  EXPECT_EQ(q.oobFill, 0);     // CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE
  // The temp: f32 [32, 64], box [8, 32], at its (256-aligned) allocation.
  const FakeTensorMapEncode &t = *fakes().encode(1);
  EXPECT_EQ(fakes().allocations(8192), 1);
  EXPECT_EQ(t.dataType, 7); // CU_TENSOR_MAP_DATA_TYPE_FLOAT32
  EXPECT_EQ(t.rank, 2u);
  EXPECT_NE(t.globalAddress, nullptr);
  EXPECT_EQ(t.globalDim[0], 64u);
  EXPECT_EQ(t.globalDim[1], 32u);
  EXPECT_EQ(t.globalStrides[0], 256u);
  EXPECT_EQ(t.boxDim[0], 32u);
  EXPECT_EQ(t.boxDim[1], 8u);
  EXPECT_EQ(t.swizzle, 0);
  EXPECT_EQ(t.l2Promotion, 0);
  EXPECT_EQ(t.oobFill, 1); // CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA
  // The kernel got the 128 encoded bytes of each map, the pointer of o and
  // the constant.
  ASSERT_EQ(fakes().paramCount(), 4);
  expectEncodedMap(0, 0, kQ);
  expectEncodedMap(2, 1, t.globalAddress);
  EXPECT_EQ(paramWord(1, 0), reinterpret_cast<uintptr_t>(kO));
  int32_t c;
  std::memcpy(&c, fakes().paramBytes(3), sizeof(c));
  EXPECT_EQ(c, 7);
}

TEST_F(TensorMaps, ReencodedOnlyWhenThePointerChanges) {
  if (!fakes().hasEncoder)
    GTEST_SKIP() << "the fake driver has no cuTensorMapEncodeTiled";
  ASSERT_EQ(run(kQ), SINTER_RT_OK) << sinter_rt_last_error();
  ASSERT_EQ(run(kQ), SINTER_RT_OK) << sinter_rt_last_error();
  EXPECT_EQ(fakes().encodes(), 2);
  expectEncodedMap(0, 0, kQ);
  // Another q (o does not matter): only q's map is encoded again.
  void *q2 = static_cast<char *>(kQ) + 64;
  ASSERT_EQ(run(q2, static_cast<char *>(kO) + 8), SINTER_RT_OK)
      << sinter_rt_last_error();
  ASSERT_EQ(fakes().encodes(), 3);
  EXPECT_EQ(fakes().encode(2)->globalAddress, q2);
  expectEncodedMap(0, 2, q2);
  ASSERT_EQ(run(kQ), SINTER_RT_OK) << sinter_rt_last_error();
  EXPECT_EQ(fakes().encodes(), 4);
  expectEncodedMap(0, 3, kQ);
  EXPECT_STREQ(fakes().launches(), "attn_0,attn_0,attn_0,attn_0");
}

TEST_F(TensorMaps, AMisalignedTensorIsAnArgumentError) {
  if (!fakes().hasEncoder)
    GTEST_SKIP() << "the fake driver has no cuTensorMapEncodeTiled";
  EXPECT_EQ(run(static_cast<char *>(kQ) + 8), SINTER_RT_ERROR_ARGUMENT);
  EXPECT_STREQ(sinter_rt_last_error(),
               "attn: argument q (0x7f0000100008), the tensor map of attn_0 "
               "arg 0, is not 16-byte aligned: the TMA needs 16-byte aligned "
               "tensors");
  EXPECT_EQ(fakes().encodes(), 0);
  EXPECT_STREQ(fakes().launches(), "");
  // An aligned one runs.
  EXPECT_EQ(run(kQ), SINTER_RT_OK) << sinter_rt_last_error();
}

TEST_F(TensorMaps, AFailingEncodeIsADriverError) {
  if (!fakes().hasEncoder)
    GTEST_SKIP() << "the fake driver has no cuTensorMapEncodeTiled";
  fakes().setEncodeStatus(1);
  EXPECT_EQ(run(kQ), SINTER_RT_ERROR_DRIVER);
  EXPECT_STREQ(sinter_rt_last_error(),
               "cuTensorMapEncodeTiled(attn_0 arg 0) in attn: CUDA_ERROR_FAKE "
               "(1): the fake driver failed");
  EXPECT_STREQ(fakes().launches(), "");
  // Nothing was cached: the next run encodes.
  fakes().setEncodeStatus(0);
  EXPECT_EQ(run(kQ), SINTER_RT_OK) << sinter_rt_last_error();
  EXPECT_EQ(fakes().encodes(), 3);
  expectEncodedMap(0, 1, kQ);
}

} // namespace
