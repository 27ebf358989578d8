//===- LibraryCalls.cpp - cuBLASLt GEMMs of a program ---------------------===//
//
// Part of the Sinter project.
//
//===----------------------------------------------------------------------===//

#include "LibraryCalls.h"

#include "sinter-c/Runtime.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

using namespace sinter::rt;

namespace {
std::mutex ltMutex;
std::map<CUcontext, LtContext> ltContexts;
} // namespace

/// SINTER_LOG=1: one line on stderr whenever a library call picks its path.
static bool logPaths() {
  static const bool enabled = [] {
    const char *v = std::getenv("SINTER_LOG");
    return v && *v && std::strcmp(v, "0") != 0;
  }();
  return enabled;
}

/// The context's cuBLASLt handle, created on first use (the program's
/// context is current).
static LtContext *acquireLt(sinter_rt_program &p, const lt::Api &api,
                            std::string &why) {
  std::lock_guard<std::mutex> lock(ltMutex);
  LtContext &c = ltContexts[p.context];
  if (!c.handle) {
    lt::Status st = api.create(&c.handle);
    if (st != lt::kStatusSuccess) {
      ltContexts.erase(p.context);
      why = "cublasLtCreate: " + api.describe(st);
      return nullptr;
    }
  }
  ++c.users;
  return &c;
}

/// Frees the context's cuBLASLt state when its last program goes (the
/// context is current).
static void releaseLt(sinter_rt_program &p) {
  if (!p.lt)
    return;
  std::lock_guard<std::mutex> lock(ltMutex);
  if (--p.lt->users == 0) {
    for (auto &[stream, ptr] : p.lt->workspaces)
      p.drv->cuMemFree(ptr);
    if (const lt::Api *api = lt::api())
      api->destroy(p.lt->handle);
    ltContexts.erase(p.context);
  }
  p.lt = nullptr;
}

/// The workspace of `stream` in the program's context; 0 with `why` set
/// when it cannot be allocated.
static CUdeviceptr workspaceFor(sinter_rt_program &p, CUstream stream,
                                std::string &why) {
  std::lock_guard<std::mutex> lock(ltMutex);
  auto it = p.lt->workspaces.find(stream);
  if (it != p.lt->workspaces.end())
    return it->second;
  CUdeviceptr ptr = 0;
  // (Outside any capture: the first GEMM on a stream being captured into
  // a CUDA graph allocates its workspace here.)
  CUresult r = p.drv->memAllocOutsideCapture(&ptr, kWorkspaceBytes);
  if (r != 0) {
    why = "cuMemAlloc(" + std::to_string(kWorkspaceBytes) +
          " bytes) for the cuBLASLt workspace: " + p.drv->describe(r);
    return 0;
  }
  p.lt->workspaces[stream] = ptr;
  return ptr;
}

static void destroyDescriptors(const lt::Api &api, Gemm &g) {
  if (g.op)
    api.matmulDescDestroy(g.op);
  for (lt::MatrixLayout layout : {g.first, g.second, g.cLayout})
    if (layout)
      api.matrixLayoutDestroy(layout);
  g.op = g.first = g.second = g.cLayout = nullptr;
  g.described = false;
}

/// The cuBLASLt descriptors of `g`: f32 compute and scaling, the row-major
/// GEMM as the column-major C^T = B^T x A^T (lt::toColumnMajor).
/// Whether a cuBLASLt call succeeded; when it did not, `why` (if still
/// empty) names the call and its status.
static bool ltOk(const lt::Api &api, lt::Status st, const char *call,
                 std::string &why) {
  if (st != lt::kStatusSuccess && why.empty())
    why = std::string(call) + ": " + api.describe(st);
  return st == lt::kStatusSuccess;
}

static bool describeGemm(const lt::Api &api, Gemm &g, std::string &why) {
  if (g.described)
    return true;
  lt::ColumnMajorGemm cm = lt::toColumnMajor(g.shape);
  auto check = [&](lt::Status st, const char *call) {
    return ltOk(api, st, call, why);
  };
  // One attribute of the matmul descriptor, when `wanted`; `what` names it
  // in the error.
  auto setDesc = [&](bool wanted, int attr, const auto &value,
                     const char *what) {
    return !wanted ||
           check(api.matmulDescSetAttribute(g.op, attr, &value, sizeof(value)),
                 what);
  };
  auto layout = [&](lt::MatrixLayout &out, const std::string &dtype,
                    const lt::ColumnMajorOperand &o) {
    if (!check(api.matrixLayoutCreate(&out, lt::dataType(dtype), o.rows, o.cols,
                                      o.ld),
               "cublasLtMatrixLayoutCreate"))
      return false;
    if (cm.batch <= 1)
      return true;
    return check(api.matrixLayoutSetAttribute(out, lt::kLayoutBatchCount,
                                              &cm.batch, sizeof(cm.batch)),
                 "cublasLtMatrixLayoutSetAttribute(BATCH_COUNT)") &&
           check(api.matrixLayoutSetAttribute(out, lt::kLayoutBatchStride,
                                              &o.batchStride,
                                              sizeof(o.batchStride)),
                 "cublasLtMatrixLayoutSetAttribute(STRIDED_BATCH_OFFSET)");
  };
  // The epilogue: cuBLASLt adds the bias to each row of its column-major D
  // (C^T), that is to each row of the row-major C; the activation's aux
  // matrix has D's layout (n rows of C^T apart).
  auto epilogue = [&] {
    using A = Gemm::Activation;
    uint32_t kind = lt::epilogueOf(g.bias.used, g.activation == A::GeluTanh,
                                   g.aux.used, g.activation == A::GeluTanhGrad);
    if (kind == lt::kEpilogueDefault)
      return true;
    int32_t type = lt::dataType(g.biasType);
    int64_t auxLd = g.shape.n;
    return setDesc(true, lt::kDescEpilogue, kind,
                   "cublasLtMatmulDescSetAttribute(EPILOGUE)") &&
           setDesc(g.bias.used, lt::kDescBiasDataType, type,
                   "cublasLtMatmulDescSetAttribute(BIAS_DATA_TYPE)") &&
           setDesc(g.aux.used, lt::kDescAuxLd, auxLd,
                   "cublasLtMatmulDescSetAttribute(EPILOGUE_AUX_LD)");
  };
  // Operands stored transposed are read through CUBLAS_OP_T (cuBLASLt's
  // A is the first operand, its B the second).
  auto transposes = [&] {
    int32_t t = lt::kOpTranspose;
    return setDesc(cm.first.transposed, lt::kDescTransA, t,
                   "cublasLtMatmulDescSetAttribute(TRANSA)") &&
           setDesc(cm.second.transposed, lt::kDescTransB, t,
                   "cublasLtMatmulDescSetAttribute(TRANSB)");
  };
  bool ok = check(api.matmulDescCreate(&g.op, lt::kComputeF32, lt::kDataF32),
                  "cublasLtMatmulDescCreate") &&
            transposes() && epilogue() && layout(g.first, g.bType, cm.first) &&
            layout(g.second, g.aType, cm.second) &&
            layout(g.cLayout, g.cType, cm.c);
  if (!ok) {
    destroyDescriptors(api, g);
    return false;
  }
  g.described = true;
  return true;
}

/// Asks the heuristic for its best algorithms under the pointer alignments
/// of this call (at most `wanted`, best first); false with `why` when it
/// has none.
static bool candidateAlgorithms(const lt::Api &api, LtContext &c, Gemm &g,
                                const uint32_t aligned[4], int wanted,
                                std::vector<lt::HeuristicResult> &found,
                                std::string &why) {
  lt::MatmulPreference pref = nullptr;
  if (!ltOk(api, api.preferenceCreate(&pref), "cublasLtMatmulPreferenceCreate",
            why))
    return false;
  uint64_t workspace = kWorkspaceBytes;
  lt::Status st = api.preferenceSetAttribute(pref, lt::kPrefMaxWorkspace,
                                             &workspace, sizeof(workspace));
  for (int i = 0; i < 4 && st == lt::kStatusSuccess; ++i)
    st = api.preferenceSetAttribute(pref, lt::kPrefMinAlignmentA + i,
                                    &aligned[i], sizeof(aligned[i]));
  if (!ltOk(api, st, "cublasLtMatmulPreferenceSetAttribute", why)) {
    api.preferenceDestroy(pref);
    return false;
  }
  found.assign(wanted, lt::HeuristicResult{});
  int returned = 0;
  st = api.algoGetHeuristic(c.handle, g.op, g.first, g.second, g.cLayout,
                            g.cLayout, pref, wanted, found.data(), &returned);
  api.preferenceDestroy(pref);
  if (!ltOk(api, st, "cublasLtMatmulAlgoGetHeuristic", why))
    return false;
  found.resize(std::max(0, std::min(returned, wanted)));
  found.erase(std::remove_if(found.begin(), found.end(),
                             [](const lt::HeuristicResult &r) {
                               return r.state != lt::kStatusSuccess;
                             }),
              found.end());
  if (found.empty()) {
    why = "cublasLtMatmulAlgoGetHeuristic found no algorithm";
    return false;
  }
  return true;
}

namespace {
/// The device pointers of one call of a library GEMM.
struct Operands {
  uint64_t a, b, c, d;
  CUdeviceptr workspace;
};
} // namespace

/// Enqueues `g` with `algo` on `stream`.
static lt::Status matmulWith(const lt::Api &api, LtContext &lt, Gemm &g,
                             const Operands &o, const lt::MatmulAlgo &algo,
                             CUstream stream) {
  auto ptr = [](uint64_t v) { return reinterpret_cast<void *>(v); };
  return api.matmul(lt.handle, g.op, &g.alpha, ptr(o.b), g.first, ptr(o.a),
                    g.second, &g.beta, ptr(o.c), g.cLayout, ptr(o.d), g.cLayout,
                    &algo, ptr(o.workspace), kWorkspaceBytes, stream);
}

/// Whether running `g` again leaves its inputs as they were, so that its
/// candidates may be timed on the call's own buffers: D is none of them
/// (C when it accumulates, the aux matrix DGELU reads, A, B, the bias).
static bool rerunnable(const Gemm &g, const Operands &o, uint64_t bias,
                       uint64_t aux) {
  bool auxRead = g.aux.used && g.activation == Gemm::Activation::GeluTanhGrad;
  return o.d != o.a && o.d != o.b && (!g.accumulate || o.d != o.c) &&
         (!g.bias.used || o.d != bias) && (!auxRead || o.d != aux);
}

/// Decides `g`'s algorithm for this call: the heuristic's candidates,
/// timed when tuning may (GemmTuning.h), else its first; false with `why`.
static bool decideAlgorithm(sinter_rt_program &p, const lt::Api &api, Gemm &g,
                            const Operands &o, bool rerun,
                            const uint32_t aligned[4], CUstream stream,
                            std::string &why) {
  bool tune = rerun && gemmTuningEnabled();
  std::vector<lt::HeuristicResult> found;
  if (!candidateAlgorithms(api, *p.lt, g, aligned, tune ? kTunedCandidates : 1,
                           found, why))
    return false;
  g.candidates = found.size();
  g.tuning = TuningResult();
  if (tune)
    g.tuning = fastestCandidate(*p.drv, stream, found.size(), [&](size_t i) {
      return matmulWith(api, *p.lt, g, o, found[i].algo, stream) ==
             lt::kStatusSuccess;
    });
  else
    g.tuning.skipped = rerun ? "SINTER_GEMM_TUNING=0" : "D overwrites an input";
  g.algo = found[g.tuning.index].algo;
  return true;
}

/// SINTER_LOG's words for how `g`'s algorithm was picked.
static std::string describeChoice(const Gemm &g) {
  char buf[160];
  if (g.tuning.timed)
    std::snprintf(buf, sizeof(buf),
                  "algorithm %zu of %zu, timed: %.1f us (heuristic's first "
                  "%.1f us)",
                  g.tuning.index + 1, g.candidates, g.tuning.fastestUs,
                  g.tuning.firstUs);
  else
    std::snprintf(buf, sizeof(buf), "heuristic's first of %zu (%s)",
                  g.candidates, g.tuning.skipped.c_str());
  return buf;
}

/// Runs the library call of `l` through cuBLASLt when it can: `ran` says
/// whether it did; when it did not, the caller launches the fallback kernel.
/// A failing cublasLtMatmul is an error, as a failing kernel launch is.
int sinter::rt::runGemm(sinter_rt_program &p, const Function &f, Launch &l,
                        void *const *args, CUstream stream, bool &ran) {
  Gemm &g = *l.gemm;
  ran = false;
  auto pointer = [&](const Param &b) -> uint64_t {
    return b.kind == Param::Argument ? reinterpret_cast<uint64_t>(args[b.index])
                                     : static_cast<uint64_t>(f.temps[b.index]);
  };
  std::string why;
  const lt::Api *api = lt::api();
  CUdeviceptr workspace = 0;
  if (!api) {
    why = lt::status();
  } else if (!p.lt && !p.ltFailure.empty()) {
    why = p.ltFailure;
  } else if (!p.lt && !(p.lt = acquireLt(p, *api, p.ltFailure))) {
    why = p.ltFailure;
  } else {
    workspace = workspaceFor(p, stream, why);
  }
  uint64_t a = pointer(g.a), b = pointer(g.b), d = pointer(g.c);
  uint64_t c = g.accumulate ? pointer(g.cInit) : d;
  if (workspace) {
    // What the heuristic may assume: cuBLASLt's first operand is B, its
    // second A (C^T = B^T x A^T).
    const lt::RowMajorGemm &s = g.shape;
    size_t cBytes = lt::elementBytes(g.cType);
    uint32_t aligned[4] = {
        lt::alignment(b, s.strideB * lt::elementBytes(g.bType), s.batch),
        lt::alignment(a, s.strideA * lt::elementBytes(g.aType), s.batch),
        lt::alignment(c, s.strideC * cBytes, s.batch),
        lt::alignment(d, s.strideC * cBytes, s.batch)};
    // The bias and aux pointers live in the descriptor; the heuristic reads
    // their alignment, so a change of alignment decides again.
    auto moved = [&](const Gemm::DescribedBuffer &d) {
      return d.used && pointer(d.buffer) != d.pointer;
    };
    auto realigned = [&](const Gemm::DescribedBuffer &d) {
      return moved(d) && lt::alignment(pointer(d.buffer), 0, 1) !=
                             lt::alignment(d.pointer, 0, 1);
    };
    auto setPointer = [&](Gemm::DescribedBuffer &d, int attr, const char *call,
                          std::string &reason) {
      if (!moved(d))
        return true;
      void *ptr = reinterpret_cast<void *>(pointer(d.buffer));
      if (!ltOk(*api,
                api->matmulDescSetAttribute(g.op, attr, &ptr, sizeof(ptr)),
                call, reason))
        return false;
      d.pointer = pointer(d.buffer);
      return true;
    };
    auto setPointers = [&](std::string &reason) {
      return setPointer(g.bias, lt::kDescBiasPointer,
                        "cublasLtMatmulDescSetAttribute(BIAS_POINTER)",
                        reason) &&
             setPointer(g.aux, lt::kDescAuxPointer,
                        "cublasLtMatmulDescSetAttribute(EPILOGUE_AUX_POINTER)",
                        reason);
    };
    bool decide = g.path == Gemm::Path::Undecided || realigned(g.bias) ||
                  realigned(g.aux) ||
                  !std::equal(aligned, aligned + 4, g.aligned);
    Operands o{a, b, c, d, workspace};
    if (decide) {
      std::copy(aligned, aligned + 4, g.aligned);
      std::string reason;
      bool rerun = rerunnable(g, o, g.bias.used ? pointer(g.bias.buffer) : 0,
                              g.aux.used ? pointer(g.aux.buffer) : 0);
      bool ok = describeGemm(*api, g, reason) && setPointers(reason) &&
                decideAlgorithm(p, *api, g, o, rerun, aligned, stream, reason);
      g.path = ok ? Gemm::Path::Library : Gemm::Path::Fallback;
      g.fallbackReason = reason;
      g.logged = Gemm::Path::Undecided; // log the new decision
    }
    std::string pointerFailure;
    if (g.path == Gemm::Path::Library && !setPointers(pointerFailure))
      return fail(SINTER_RT_ERROR_DRIVER, pointerFailure + " in " + f.name);
    if (g.path == Gemm::Path::Library) {
      lt::Status st = matmulWith(*api, *p.lt, g, o, g.algo, stream);
      if (st != lt::kStatusSuccess)
        return fail(SINTER_RT_ERROR_DRIVER, "cublasLtMatmul(" + g.name +
                                                ") in " + f.name + ": " +
                                                api->describe(st));
      ran = true;
    } else {
      why = g.fallbackReason;
    }
  }
  Gemm::Path now = ran ? Gemm::Path::Library : Gemm::Path::Fallback;
  if (ran) {
    ++p.libraryCalls;
  } else {
    ++p.fallbackLaunches;
    p.lastFallback = g.name + " in " + f.name + ": " + why;
  }
  if (logPaths() && now != g.logged) {
    g.logged = now;
    const lt::RowMajorGemm &s = g.shape;
    std::string detail =
        ran ? lt::status() + ", " + describeChoice(g) : std::string(why);
    std::fprintf(stderr,
                 "sinter: %s in %s: %s (m=%lld n=%lld k=%lld batch=%lld "
                 "%s x %s -> %s)%s%s\n",
                 g.name.c_str(), f.name.c_str(),
                 ran ? "cuBLASLt GEMM" : "fallback kernel",
                 static_cast<long long>(s.m), static_cast<long long>(s.n),
                 static_cast<long long>(s.k), static_cast<long long>(s.batch),
                 g.aType.c_str(), g.bType.c_str(), g.cType.c_str(),
                 ran ? ", " : ": ", detail.c_str());
  }
  return SINTER_RT_OK;
}

extern "C" int sinter_rt_cublaslt_available(void) {
  return lt::api() != nullptr;
}

extern "C" const char *sinter_rt_cublaslt_status(void) {
  return lt::status().c_str();
}

extern "C" int sinter_rt_library_counts(sinter_rt_program *program,
                                        uint64_t *library_calls,
                                        uint64_t *fallback_launches,
                                        const char **last_fallback) {
  if (!program)
    return fail(SINTER_RT_ERROR_ARGUMENT, "no program");
  std::lock_guard<std::mutex> lock(program->mutex);
  if (library_calls)
    *library_calls = program->libraryCalls;
  if (fallback_launches)
    *fallback_launches = program->fallbackLaunches;
  if (last_fallback)
    *last_fallback = program->lastFallback.c_str();
  return SINTER_RT_OK;
}

void sinter::rt::releaseLibraryCalls(sinter_rt_program &p) {
  if (const lt::Api *api = lt::api())
    for (auto &[name, f] : p.functions)
      for (Launch &l : f.launches)
        if (l.gemm)
          destroyDescriptors(*api, *l.gemm);
  releaseLt(p);
}
