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
// (Launches without library calls: RuntimeFakeDriverTest.cpp.)
//
//===----------------------------------------------------------------------===//

#include "FakeRuntime.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

namespace {
using namespace sinter::test::fake;

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
  /// Accumulating in place: C's buffer, holding C_init, is passed as c0 too.
  bool cInPlace = false;

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
    if (c.cInPlace)
      out32 = c0;
    bool in16 = c.inType != "float32";
    std::vector<void *> args = {in16 ? static_cast<void *>(a16.data())
                                     : static_cast<void *>(a32.data() + offset),
                                in16 ? static_cast<void *>(b16.data())
                                     : static_cast<void *>(b32.data())};
    if (c.accumulate)
      args.push_back(c.cInPlace ? out32.data() : c0.data());
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

  /// Runs `c` (f32, an activation) once: each element of C is
  /// `want(i, the reference of A B (+ bias))` to f32's rounding through
  /// cuBLASLt; without it, the fallback kernel ran.
  void expectActivation(const Case &c,
                        const std::function<double(size_t, float)> &want) {
    ASSERT_EQ(run(c), SINTER_RT_OK) << sinter_rt_last_error();
    if (fakes().disabled) {
      EXPECT_STREQ(fakes().launches(), "matmul_0");
      return;
    }
    std::vector<float> r = reference(c);
    for (size_t i = 0; i < r.size(); ++i) {
      double w = want(i, r[i]);
      EXPECT_NEAR(out32[i], w, 1e-5 * (1 + std::abs(w))) << i;
    }
    expectLibraryCalls(1, 0);
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
  expectActivation(c, [&](size_t i, float product) {
    EXPECT_EQ(aux32[i], product) << i;
    return geluTanh(product);
  });
}

TEST_F(LibraryCalls, GeluGradientEpilogueReadsAux) {
  // The MLP's backward: C = (A B) * gelu'(aux), aux the saved
  // pre-activation.
  Case c{5, 3, 7, 1};
  c.activation = "gelu_tanh_grad";
  c.aux = true;
  expectActivation(c, [](size_t i, float product) {
    return product * geluTanhGrad(value(i, 5) / 4);
  });
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

// --- Timing the heuristic's candidates (GemmTuning.h) -----------------------

/// Four candidates, the heuristic's first not the fastest: 50, 30, 20 and
/// 40 us of the fake clock per call.
constexpr float kCosts[] = {50, 30, 20, 40};
constexpr uint64_t kFirstAlgo = 42; // the fake's first algorithm id
/// Matmuls of timing n candidates: a warm-up and kTimedRuns timed each.
constexpr int timingRuns(int n) { return n * (1 + 3); }

TEST_F(LibraryCalls, TimingKeepsTheFastestCandidate) {
  if (fakes().disabled)
    GTEST_SKIP();
  fakes().setAlgorithms(4, kCosts);
  Case c{5, 3, 7, 1};
  ASSERT_EQ(run(c), SINTER_RT_OK) << sinter_rt_last_error();
  EXPECT_EQ(fakes().lastAlgo(), kFirstAlgo + 2);
  EXPECT_EQ(fakes().matmuls(), timingRuns(4) + 1);
  EXPECT_EQ(out32, reference(c));
  // Decided once: the next call runs the kept algorithm alone.
  ASSERT_EQ(run(c), SINTER_RT_OK);
  EXPECT_EQ(fakes().matmuls(), timingRuns(4) + 2);
  EXPECT_EQ(fakes().heuristics(), 1);
  expectLibraryCalls(2, 0);
}

TEST_F(LibraryCalls, ACandidateCuBlasLtRefusesIsRuledOut) {
  if (fakes().disabled)
    GTEST_SKIP();
  const float costs[] = {50, -1, 40};
  fakes().setAlgorithms(3, costs);
  Case c{5, 3, 7, 1};
  ASSERT_EQ(run(c), SINTER_RT_OK) << sinter_rt_last_error();
  EXPECT_EQ(fakes().lastAlgo(), kFirstAlgo + 2);
  EXPECT_EQ(out32, reference(c));
}

TEST_F(LibraryCalls, AnAccumulationInPlaceIsNotTimed) {
  // D over C_init: every timed run would add A x B once more.
  if (fakes().disabled)
    GTEST_SKIP();
  fakes().setAlgorithms(4, kCosts);
  Case c{6, 5, 4, 2};
  c.accumulate = c.cInPlace = true;
  ASSERT_EQ(run(c), SINTER_RT_OK) << sinter_rt_last_error();
  EXPECT_EQ(fakes().matmuls(), 1);
  EXPECT_EQ(fakes().lastAlgo(), kFirstAlgo);
  EXPECT_EQ(out32, reference(c));
}

TEST_F(LibraryCalls, TheGeluGradientOverItsAuxIsNotTimed) {
  // DGELU reads aux: D written over it would change the next run's input.
  if (fakes().disabled)
    GTEST_SKIP();
  fakes().setAlgorithms(4, kCosts);
  Case c{4, 6, 5, 1};
  c.activation = "gelu_tanh_grad";
  c.aux = true;
  ASSERT_EQ(load(c.manifest()), SINTER_RT_OK) << sinter_rt_last_error();
  std::vector<float> a(c.m * c.k, 1), b(c.k * c.n, 1), d(c.m * c.n, 0.5f);
  void *args[] = {a.data(), b.data(), d.data(), d.data()};
  ASSERT_EQ(sinter_rt_run(program, "main", args, 4, nullptr), SINTER_RT_OK)
      << sinter_rt_last_error();
  EXPECT_EQ(fakes().matmuls(), 1);
  EXPECT_NEAR(d[0], c.k * geluTanhGrad(0.5), 1e-5);
}

TEST_F(LibraryCalls, TimingCanBeTurnedOff) {
  if (fakes().disabled)
    GTEST_SKIP();
  fakes().setAlgorithms(4, kCosts);
  ASSERT_EQ(setenv("SINTER_GEMM_TUNING", "0", 1), 0);
  Case c{5, 3, 7, 1};
  int rc = run(c);
  unsetenv("SINTER_GEMM_TUNING");
  ASSERT_EQ(rc, SINTER_RT_OK) << sinter_rt_last_error();
  EXPECT_EQ(fakes().matmuls(), 1);
  EXPECT_EQ(fakes().lastAlgo(), kFirstAlgo);
}

TEST_F(LibraryCalls, ACallBeingCapturedIsNotTimed) {
  // A stream being captured into a CUDA graph (torch.cuda.graph around the
  // first call) allows no synchronization: the heuristic's first candidate
  // is kept.
  if (fakes().disabled)
    GTEST_SKIP();
  void *cuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
  ASSERT_NE(cuda, nullptr);
  auto begin = reinterpret_cast<int (*)(void *, int)>(
      dlsym(cuda, "cuStreamBeginCapture_v2"));
  auto end = reinterpret_cast<int (*)(void *, void **)>(
      dlsym(cuda, "cuStreamEndCapture"));
  auto destroy =
      reinterpret_cast<int (*)(void *)>(dlsym(cuda, "cuGraphDestroy"));
  ASSERT_TRUE(begin && end && destroy);
  fakes().setAlgorithms(4, kCosts);
  void *stream = reinterpret_cast<void *>(0x5678);
  ASSERT_EQ(begin(stream, 0), 0);
  Case c{5, 3, 7, 1};
  int rc = run(c, 1, stream);
  void *graph = nullptr;
  ASSERT_EQ(end(stream, &graph), 0);
  destroy(graph);
  ASSERT_EQ(rc, SINTER_RT_OK) << sinter_rt_last_error();
  EXPECT_EQ(fakes().matmuls(), 1);
  EXPECT_EQ(fakes().lastAlgo(), kFirstAlgo);
}

// --- Tensor maps ------------------------------------------------------------

} // namespace
