//===- Ptxas.cpp - What Sinter asks of the toolkit's ptxas ----------------===//
//
// Part of the Sinter project.
//
// ptxas is the longest single step of a large program's compile (a GPT-2
// training step's backward: 0.8 of 4.7 s on one core, bench/NOTES.md). Its
// --split-compile N optimizes the functions of one PTX file on N threads;
// the cubin's code and its resource notes are those of the unsplit compile
// (only the symbol table's order and the note that records ptxas' command
// line differ), and the same for every N > 1. A ptxas that does not know
// the option (it is not in every CUDA release) gets none.
//
//===----------------------------------------------------------------------===//

#include "Ptxas.h"

#include "sinter/GPU/Passes.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

#include <mutex>
#include <optional>
#include <string>

using namespace mlir;

/// ptxas' option for the threads its optimizations run on.
static constexpr llvm::StringLiteral kSplitCompileOption = "--split-compile";

/// The ptxas that serializing the kernels runs: the toolkit's, else the
/// first on $PATH (the NVVM target's own search order).
static std::optional<std::string> findPtxas(StringRef toolkit) {
  if (!toolkit.empty()) {
    llvm::SmallString<256> path(toolkit);
    llvm::sys::path::append(path, "bin", "ptxas");
    if (llvm::sys::fs::can_execute(path))
      return path.str().str();
  }
  if (llvm::ErrorOr<std::string> onPath = llvm::sys::findProgramByName("ptxas"))
    return *onPath;
  return std::nullopt;
}

/// Whether `ptxas --help` lists --split-compile.
static bool knowsSplitCompile(StringRef ptxas) {
  llvm::SmallString<128> helpFile;
  if (llvm::sys::fs::createTemporaryFile("sinter-ptxas-help", "txt", helpFile))
    return false;
  llvm::FileRemover remover(helpFile);
  std::optional<StringRef> redirects[] = {std::nullopt, StringRef(helpFile),
                                          StringRef(helpFile)};
  if (llvm::sys::ExecuteAndWait(ptxas, {ptxas, "--help"}, std::nullopt,
                                redirects) != 0)
    return false;
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> help =
      llvm::MemoryBuffer::getFile(helpFile);
  return help && (*help)->getBuffer().contains(kSplitCompileOption);
}

std::string sinter::ptxasCommandOptions(StringRef toolkit, unsigned threads) {
  if (threads == 1)
    return "";
  std::optional<std::string> ptxas = findPtxas(toolkit);
  if (!ptxas)
    return "";
  // One `--help` per ptxas and process (compiles may run on several
  // threads: sinter.torch compiles its optimizer's programs in the
  // background).
  static std::mutex mutex;
  static llvm::StringMap<bool> known;
  bool splits;
  {
    std::lock_guard<std::mutex> lock(mutex);
    auto [it, inserted] = known.try_emplace(*ptxas, false);
    if (inserted)
      it->second = knowsSplitCompile(*ptxas);
    splits = it->second;
  }
  if (!splits)
    return "";
  return (kSplitCompileOption + " " + llvm::Twine(threads)).str();
}

mlir::FailureOr<std::string> sinter::runPtxas(StringRef toolkit, StringRef ptx,
                                              StringRef chip, int optLevel,
                                              ArrayRef<StringRef> options,
                                              std::string &error) {
  std::optional<std::string> ptxas = findPtxas(toolkit);
  if (!ptxas) {
    error = "no ptxas: name a CUDA toolkit ($SINTER_CUDA_PATH) or put ptxas "
            "on $PATH";
    return mlir::failure();
  }
  llvm::SmallString<128> in, out, log;
  if (llvm::sys::fs::createTemporaryFile("sinter-kernels", "ptx", in) ||
      llvm::sys::fs::createTemporaryFile("sinter-kernels", "cubin", out) ||
      llvm::sys::fs::createTemporaryFile("sinter-ptxas", "log", log)) {
    error = "cannot create ptxas' temporary files";
    return mlir::failure();
  }
  llvm::FileRemover removeIn(in), removeOut(out), removeLog(log);
  {
    std::error_code ec;
    llvm::raw_fd_ostream os(in, ec);
    if (ec) {
      error = "cannot write " + in.str().str() + ": " + ec.message();
      return mlir::failure();
    }
    os << ptx;
  }
  std::string level = std::to_string(optLevel);
  SmallVector<StringRef> args = {*ptxas, "-arch", chip,          in,
                                 "-o",   out,     "--opt-level", level};
  llvm::append_range(args, options);
  std::optional<StringRef> redirects[] = {std::nullopt, StringRef(log),
                                          StringRef(log)};
  std::string message;
  int rc = llvm::sys::ExecuteAndWait(*ptxas, args, std::nullopt, redirects, 0,
                                     0, &message);
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> text =
      llvm::MemoryBuffer::getFile(log);
  if (rc != 0) {
    error = "ptxas failed" + (message.empty() ? "" : ": " + message) +
            (text ? "\n" + (*text)->getBuffer().str() : "");
    return mlir::failure();
  }
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> cubin =
      llvm::MemoryBuffer::getFile(out, /*IsText=*/false,
                                  /*RequiresNullTerminator=*/false);
  if (!cubin) {
    error = "ptxas wrote no cubin";
    return mlir::failure();
  }
  return (*cubin)->getBuffer().str();
}
