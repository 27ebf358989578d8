//===- CublasLt.h - cuBLASLt through dlopen, for library calls --*- C++ -*-===//
//
// Part of the Sinter project.
//
// The runtime builds and loads with the CUDA driver only, so cuBLASLt is
// opened with dlopen on the first library call, and the few types, enum
// values and entry points used are declared here with the values of the
// public cuBLASLt API (cublasLt.h, cublas_api.h, library_types.h); no CUDA
// header is included.
//
// Also here, because the unit tests check them without a GPU: the mapping
// of a row-major GEMM onto column-major cuBLASLt and the pointer alignment
// the algorithm heuristic is told about.
//
//===----------------------------------------------------------------------===//

#ifndef SINTER_LIB_RUNTIME_CUBLASLT_H
#define SINTER_LIB_RUNTIME_CUBLASLT_H

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace sinter::rt::lt {

// --- The public cuBLASLt C API, as much of it as the runtime uses. ---------
using Status = int;              // cublasStatus_t; 0 is CUBLAS_STATUS_SUCCESS
using Handle = void *;           // cublasLtHandle_t
using MatmulDesc = void *;       // cublasLtMatmulDesc_t
using MatrixLayout = void *;     // cublasLtMatrixLayout_t
using MatmulPreference = void *; // cublasLtMatmulPreference_t
using Stream = void *;           // cudaStream_t == CUstream

/// cublasLtMatmulAlgo_t.
struct MatmulAlgo {
  uint64_t data[8];
};
/// cublasLtMatmulHeuristicResult_t.
struct HeuristicResult {
  MatmulAlgo algo;
  size_t workspaceSize;
  Status state;
  float wavesCount;
  int reserved[4];
};

constexpr Status kStatusSuccess = 0;  // CUBLAS_STATUS_SUCCESS
constexpr int kComputeF32 = 68;       // CUBLAS_COMPUTE_32F
constexpr int kDataF32 = 0;           // CUDA_R_32F
constexpr int kDataF16 = 2;           // CUDA_R_16F
constexpr int kDataBF16 = 14;         // CUDA_R_16BF
constexpr int kLayoutBatchCount = 5;  // CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT
constexpr int kLayoutBatchStride = 6; // ..._STRIDED_BATCH_OFFSET
constexpr int kDescTransA = 3;        // CUBLASLT_MATMUL_DESC_TRANSA (int32_t)
constexpr int kDescTransB = 4;        // CUBLASLT_MATMUL_DESC_TRANSB (int32_t)
constexpr int32_t kOpTranspose = 1;   // CUBLAS_OP_T
constexpr int kDescEpilogue = 7;    // CUBLASLT_MATMUL_DESC_EPILOGUE (uint32_t)
constexpr int kDescBiasPointer = 8; // CUBLASLT_MATMUL_DESC_BIAS_POINTER
constexpr int kDescBiasDataType = 26; // ..._BIAS_DATA_TYPE (int32_t)
constexpr int kDescAuxPointer = 11;   // ..._EPILOGUE_AUX_POINTER
constexpr int kDescAuxLd = 12;        // ..._EPILOGUE_AUX_LD (int64_t)
// cublasLtEpilogue_t: flags that combine (GELU_AUX_BIAS = GELU | AUX | BIAS).
constexpr uint32_t kEpilogueDefault = 1; // CUBLASLT_EPILOGUE_DEFAULT: D = AB
constexpr uint32_t kEpilogueBias = 4;  // CUBLASLT_EPILOGUE_BIAS: D = AB + bias
constexpr uint32_t kEpilogueGelu = 32; // CUBLASLT_EPILOGUE_GELU (tanh form)
constexpr uint32_t kEpilogueAux = 128; // ..._AUX: the GELU input stored too
constexpr uint32_t kEpilogueDGelu = 64 | 128; // CUBLASLT_EPILOGUE_DGELU
constexpr int kPrefMaxWorkspace = 1; // CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES
constexpr int kPrefMinAlignmentA =
    5; // ..._MIN_ALIGNMENT_A_BYTES (B 6, C 7, D 8)

/// The entry points, resolved once per process.
struct Api {
  void *library = nullptr;
  std::string path;   // what was opened
  std::string status; // which library and version, or why none
  size_t version = 0;
  Status (*create)(Handle *) = nullptr;
  Status (*destroy)(Handle) = nullptr;
  size_t (*getVersion)() = nullptr;
  const char *(*getStatusName)(Status) = nullptr;   // optional
  const char *(*getStatusString)(Status) = nullptr; // optional
  Status (*matmulDescCreate)(MatmulDesc *, int computeType,
                             int scaleType) = nullptr;
  Status (*matmulDescDestroy)(MatmulDesc) = nullptr;
  Status (*matmulDescSetAttribute)(MatmulDesc, int attr, const void *buf,
                                   size_t size) = nullptr;
  Status (*matrixLayoutCreate)(MatrixLayout *, int type, uint64_t rows,
                               uint64_t cols, int64_t ld) = nullptr;
  Status (*matrixLayoutDestroy)(MatrixLayout) = nullptr;
  Status (*matrixLayoutSetAttribute)(MatrixLayout, int attr, const void *buf,
                                     size_t size) = nullptr;
  Status (*preferenceCreate)(MatmulPreference *) = nullptr;
  Status (*preferenceDestroy)(MatmulPreference) = nullptr;
  Status (*preferenceSetAttribute)(MatmulPreference, int attr, const void *buf,
                                   size_t size) = nullptr;
  Status (*algoGetHeuristic)(Handle, MatmulDesc, MatrixLayout, MatrixLayout,
                             MatrixLayout, MatrixLayout, MatmulPreference,
                             int requested, HeuristicResult *,
                             int *returned) = nullptr;
  Status (*matmul)(Handle, MatmulDesc, const void *alpha, const void *A,
                   MatrixLayout, const void *B, MatrixLayout, const void *beta,
                   const void *C, MatrixLayout, void *D, MatrixLayout,
                   const MatmulAlgo *, void *workspace, size_t workspaceBytes,
                   Stream) = nullptr;

  /// "CUBLAS_STATUS_NOT_SUPPORTED (15): <text>".
  std::string describe(Status s) const;
};

/// Whether $SINTER_CUBLASLT (`env`) turns library calls off: "0", "off",
/// "none" or "false".
bool disabledBy(const char *env);

/// The libraries to try, in order: `env` ($SINTER_CUBLASLT) when it names
/// one, then libcublasLt.so.13, .so.12 and .so. Opening by soname finds a
/// copy that the process already loaded (torch's).
std::vector<std::string> candidates(const char *env);

/// Opens the first of `paths` that has every entry point; otherwise returns
/// false with `api.status` saying what each attempt found.
bool open(Api &api, const std::vector<std::string> &paths);

/// The process's cuBLASLt: opened on the first call (as $SINTER_CUBLASLT
/// says); null when it is disabled or cannot be opened. `status()` says
/// which library was opened, or why none was.
const Api *api();
const std::string &status();

/// The cublasLtEpilogue_t of a GEMM with a bias (`bias`), a GELU after it
/// (`gelu`) whose input is also stored (`aux`), or GELU's gradient at the
/// aux input (`geluGrad`).
uint32_t epilogueOf(bool bias, bool gelu, bool aux, bool geluGrad);

/// cudaDataType_t of a manifest dtype ("float32", "float16", "bfloat16");
/// -1 for any other.
int dataType(const std::string &dtype);
size_t elementBytes(const std::string &dtype);

/// A row-major GEMM as the manifest describes it: C[i] = A[i] x B[i]
/// (+ C[i] when beta is 1), A m x k, B k x n, C m x n, leading dimensions
/// and batch strides in elements.
struct RowMajorGemm {
  int64_t m, n, k, batch;
  int64_t lda, ldb, ldc;
  int64_t strideA, strideB, strideC;
  /// A's buffer holds A^T (k x m, rows lda apart), B's holds B^T (n x k).
  bool transA = false, transB = false;
};

/// One column-major matrix operand of cuBLASLt, as stored (`transposed`:
/// cuBLASLt reads it through CUBLAS_OP_T).
struct ColumnMajorOperand {
  uint64_t rows, cols;
  int64_t ld, batchStride;
  bool transposed = false;
};

/// The cuBLASLt form of a row-major GEMM. A row-major matrix is its
/// transpose in column-major order, so C = A x B is computed as
/// C^T = B^T x A^T: cuBLASLt's first operand is B (n x k, ld = ldb), its
/// second is A (k x m, ld = lda), and C is n x m (ld = ldc), untransposed.
/// An operand stored transposed (transA, transB) is the column-major
/// matrix as stored, read with CUBLAS_OP_T.
struct ColumnMajorGemm {
  bool swapped; // first operand is the row-major B
  ColumnMajorOperand first, second, c;
  int32_t batch;
};
ColumnMajorGemm toColumnMajor(const RowMajorGemm &g);

/// The alignment (a power of two, at most 256 bytes) that holds for every
/// matrix of a batch that starts at `address` with `strideBytes` between
/// matrices: what the algorithm heuristic may assume.
uint32_t alignment(uint64_t address, uint64_t strideBytes, int64_t batch);

} // namespace sinter::rt::lt

#endif // SINTER_LIB_RUNTIME_CUBLASLT_H
