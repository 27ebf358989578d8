//===- Program.h - A loaded CUDA artifact -----------------------*- C++ -*-===//
//
// Part of the Sinter project.
//
// What the manifest of an artifact becomes once read (Manifest.cpp) and
// loaded into a context (Runtime.cpp): functions, their buffers and their
// ordered launches, kernels and library calls, ready for sinter_rt_run
// (Launch.cpp, LibraryCalls.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef SINTER_LIB_RUNTIME_PROGRAM_H
#define SINTER_LIB_RUNTIME_PROGRAM_H

#include "CublasLt.h"
#include "Driver.h"
#include "GemmTuning.h"

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace sinter::rt {

/// CUtensorMap: 128 opaque bytes, 64-byte aligned (CU_TENSOR_MAP_NUM_QWORDS).
constexpr size_t kTensorMapBytes = 128;
constexpr size_t kTensorMapAlign = 64;
/// cuTensorMapEncodeTiled's limits (rank, box dims, strides).
constexpr unsigned kTensorMapMaxRank = 5;

struct Param {
  enum Kind { Argument, Temp, Constant, TensorMap } kind;
  size_t index = 0;  // argument, temp or (TensorMap) Launch::tensorMaps index
  uint64_t bits = 0; // constant payload (little-endian)
};

/// A kernel parameter that is a CUtensorMap (docs/Manifest.md), passed by
/// value: what cuTensorMapEncodeTiled is told (innermost dimension first),
/// and the map last encoded, for the base pointer it was encoded for.
struct TensorMap {
  Param buffer;        // Argument or Temp: the tensor's base
  size_t position = 0; // the launch argument's position, for messages
  int dataType = 0, interleave = 0, swizzle = 0, l2Promotion = 0, oobFill = 0;
  uint32_t rank = 0;
  uint64_t globalDim[kTensorMapMaxRank] = {};
  uint64_t globalStrides[kTensorMapMaxRank - 1] = {};
  uint32_t boxDim[kTensorMapMaxRank] = {};
  uint32_t elementStrides[kTensorMapMaxRank] = {};
  bool encoded = false;
  uint64_t encodedFor = 0;
  alignas(kTensorMapAlign) unsigned char map[kTensorMapBytes] = {};
};

/// A "cublas_gemm" entry (docs/Manifest.md) and its cuBLASLt state.
struct Gemm {
  std::string name; // the entry's name (its fallback kernel's)
  sinter::rt::lt::RowMajorGemm shape{};
  std::string aType, bType, cType;
  Param a, b, c, cInit; // buffers (Argument or Temp)
  bool accumulate = false;
  float alpha = 1.0f, beta = 0.0f;
  // A buffer whose pointer the descriptor holds (not cublasLtMatmul's
  // arguments): the pointer it holds now.
  struct DescribedBuffer {
    bool used = false;
    Param buffer;
    uint64_t pointer = 0;
  };
  // The bias epilogue (D = A x B + bias, bias broadcast over the rows of the
  // row-major D).
  DescribedBuffer bias;
  std::string biasType;
  // The activation after it (docs/Manifest.md) and its aux matrix (m x n,
  // of D's type): written by GeluTanh when used, read by GeluTanhGrad.
  enum class Activation { None, GeluTanh, GeluTanhGrad };
  Activation activation = Activation::None;
  DescribedBuffer aux;
  // Descriptors, made on first use, destroyed at unload.
  bool described = false;
  sinter::rt::lt::MatmulDesc op = nullptr;
  sinter::rt::lt::MatrixLayout first = nullptr, second = nullptr,
                               cLayout = nullptr;
  // The algorithm for the pointer alignments in `aligned` (first operand,
  // second, C, D), or why there is none.
  enum class Path { Undecided, Library, Fallback };
  Path path = Path::Undecided, logged = Path::Undecided;
  uint32_t aligned[4] = {0, 0, 0, 0};
  sinter::rt::lt::MatmulAlgo algo{};
  // How `algo` was picked among the heuristic's `candidates` (GemmTuning.h).
  size_t candidates = 0;
  sinter::rt::TuningResult tuning;
  std::string fallbackReason;
};

struct Launch {
  std::string kernel;
  CUfunction function = nullptr;
  unsigned grid[3], block[3];
  unsigned sharedMemory = 0;
  std::vector<Param> params;
  std::vector<TensorMap> tensorMaps; // of the TensorMap params
  /// A persistent kernel (docs/Manifest.md): its blocks loop over
  /// `persistentWork` items, so the grid is sized at load for the device's
  /// SMs, `ctasPerSM` resident blocks each.
  uint64_t persistentWork = 0;
  unsigned ctasPerSM = 0;
  /// Set for a library call: the kernel above is its fallback.
  std::unique_ptr<Gemm> gemm;
};

struct Function {
  std::string name;
  std::vector<std::string> argumentNames;
  std::vector<bool> argumentIsScalar;
  std::vector<size_t> argumentBytes; // 0 when the manifest does not say
  std::vector<size_t> tempBytes;
  std::vector<CUdeviceptr> temps; // allocated on first run
  std::vector<Launch> launches;
  /// CUDA-graph replay (SINTER_CUDA_GRAPH=1, Graph.cpp): the launches for
  /// an argument set (pointers, scalar bits), captured on a stream of the
  /// runtime's own and replayed in order with the caller's stream; one
  /// graph per argument set seen twice, the least recently used of
  /// kMaxGraphs replaced (a training loop cycling through a few batches, or
  /// a forward whose saved tensors alternate between two buffers, replays).
  struct Graph {
    struct Captured {
      std::vector<uint64_t> key;
      CUgraphExec exec = nullptr;
      uint64_t lastUse = 0;
    };
    static constexpr size_t kMaxGraphs = 8;
    std::vector<Captured> captured;
    std::vector<std::vector<uint64_t>> seenOnce; // run directly, once
    uint64_t clock = 0;
    CUstream stream = nullptr;
    CUevent in = nullptr, out = nullptr;
  } graph;
};

/// The cuBLASLt handle of a context and one workspace per stream (two
/// streams must not share one), shared by every program using the context.
struct LtContext {
  sinter::rt::lt::Handle handle = nullptr;
  std::map<CUstream, CUdeviceptr> workspaces;
  int users = 0;
};

/// Workspace of each library call: what cuBLAS recommends for Hopper.
constexpr size_t kWorkspaceBytes = 32u << 20;

} // namespace sinter::rt

/// The C API's opaque program (include/sinter-c/Runtime.h).
struct sinter_rt_program {
  sinter::rt::Driver *drv = nullptr;
  sinter::rt::CUdevice device = 0;
  sinter::rt::CUcontext context = nullptr;
  sinter::rt::CUmodule module = nullptr;
  std::map<std::string, sinter::rt::Function> functions;
  std::mutex mutex;
  // Library calls: the context's cuBLASLt state (acquired on first use),
  // how the entries ran, and why the last fallback happened.
  sinter::rt::LtContext *lt = nullptr;
  std::string ltFailure; // cublasLtCreate failed: never retried
  uint64_t libraryCalls = 0, fallbackLaunches = 0;
  std::string lastFallback;
};

#endif // SINTER_LIB_RUNTIME_PROGRAM_H
