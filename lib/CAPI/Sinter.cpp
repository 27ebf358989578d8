//===- Sinter.cpp - C API of the Sinter compiler --------------------------===//
//
// Part of the Sinter project.
//
//===----------------------------------------------------------------------===//

#include "sinter-c/Sinter.h"

#include "sinter/Target/CPU/CPUPipeline.h"
#include "sinter/Target/Compiler.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ThreadPool.h"
#include "llvm/Support/Threading.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <unistd.h>

#ifndef SINTER_VERSION_STRING
#define SINTER_VERSION_STRING "unknown"
#endif

/// A malloc'ed copy of `text` for the caller to free with sinter_free_string.
static char *copyString(const std::string &text) {
  char *copy = static_cast<char *>(std::malloc(text.size() + 1));
  if (copy)
    std::memcpy(copy, text.c_str(), text.size() + 1);
  return copy;
}

/// The threads every compilation of the process runs its parallel work on
/// (the kernels' LLVM compile in parts, the per-kernel passes): one pool,
/// so that concurrent compilations (sinter.torch compiles a graph's
/// programs on several host threads) share the CPUs instead of each context
/// starting a pool of its own. A forked child makes its own (the parent's
/// threads are not in it). Never destroyed: a compile may still be running
/// on another thread when the process exits.
static llvm::ThreadPoolInterface &sharedThreadPool() {
  static std::mutex mutex;
  static llvm::ThreadPoolInterface *pool = nullptr;
  static pid_t owner = 0;
  std::lock_guard<std::mutex> lock(mutex);
  if (!pool || owner != getpid()) {
    pool = new llvm::DefaultThreadPool(llvm::hardware_concurrency());
    owner = getpid();
  }
  return *pool;
}

namespace {
/// Sets the options of a call; false with the message naming the option.
using Configure =
    llvm::function_ref<bool(sinter::CompileOptions &, std::string &)>;

int compile(const char *ir, size_t len, const char *sourceName,
            const char *outDir, Configure configure, char **errorOut) {
  if (errorOut)
    *errorOut = nullptr;
  auto fail = [&](int code, const std::string &message) {
    if (errorOut)
      *errorOut = copyString(message);
    return code;
  };
  if (!ir)
    return fail(SINTER_ERROR_OPTIONS, "sinter_compile: `ir` is NULL");
  if (!outDir || !*outDir)
    return fail(SINTER_ERROR_OPTIONS,
                "sinter_compile: `out_dir` is NULL or empty");
  sinter::CompileOptions options;
  std::string optionError;
  if (!configure(options, optionError))
    return fail(SINTER_ERROR_OPTIONS, "sinter_compile: " + optionError);

  mlir::DialectRegistry registry;
  sinter::registerCompilerDialects(registry);
  mlir::MLIRContext context(registry, mlir::MLIRContext::Threading::DISABLED);
  context.setThreadPool(sharedThreadPool());
  // Diagnostics point at the source; the generic form of the op adds noise.
  context.printOpOnDiagnostic(false);

  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(
          llvm::StringRef(ir, len),
          sourceName && *sourceName ? sourceName : "<input>"),
      llvm::SMLoc());
  std::string diagnostics;
  llvm::raw_string_ostream diagnosticStream(diagnostics);
  mlir::SourceMgrDiagnosticHandler handler(sourceMgr, &context,
                                           diagnosticStream);
  // Fusion remarks are not errors: keep them out of the error text.
  context.getDiagEngine().registerHandler([](mlir::Diagnostic &d) {
    return mlir::success(d.getSeverity() == mlir::DiagnosticSeverity::Remark);
  });
  if (mlir::failed(
          sinter::compileSource(sourceMgr, context, outDir, options))) {
    if (diagnostics.empty())
      diagnostics = "compilation failed without a diagnostic";
    return fail(SINTER_ERROR_COMPILE, diagnostics);
  }
  return SINTER_OK;
}
} // namespace

int sinter_compile(const char *ir, size_t len, const char *source_name,
                   const char *out_dir, const char *options, char **error_out) {
  return compile(
      ir, len, source_name, out_dir,
      [&](sinter::CompileOptions &o, std::string &error) {
        return o.parse(options ? options : "", error);
      },
      error_out);
}

int sinter_compile_to_dir_with_options(const char *ir, size_t len,
                                       const char *source_name,
                                       const char *target, const char *out_dir,
                                       int fusion, int allow_rng_change,
                                       const char *attention_config,
                                       char **error_out) {
  int rc = compile(
      ir, len, source_name, out_dir,
      [&](sinter::CompileOptions &o, std::string &error) {
        return o.set("target", target && *target ? target : "cpu", error) &&
               o.set("no-fusion", fusion ? "false" : "true", error) &&
               o.set("allow-rng-change", allow_rng_change ? "true" : "false",
                     error) &&
               (!attention_config || !*attention_config ||
                o.set("attention-config", attention_config, error));
      },
      error_out);
  return rc == SINTER_OK ? 0 : 1;
}

int sinter_compile_to_dir_named(const char *ir, size_t len,
                                const char *source_name, const char *target,
                                const char *out_dir, int fusion,
                                char **error_out) {
  return sinter_compile_to_dir_with_options(
      ir, len, source_name, target, out_dir, fusion, 0, nullptr, error_out);
}

int sinter_compile_to_dir(const char *ir, size_t len, const char *target,
                          const char *out_dir, int fusion, char **error_out) {
  return sinter_compile_to_dir_named(ir, len, nullptr, target, out_dir, fusion,
                                     error_out);
}

void sinter_free_string(char *str) { std::free(str); }

const char *sinter_version(void) { return SINTER_VERSION_STRING; }
