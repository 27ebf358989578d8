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
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>
#include <cstring>
#include <string>

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

int sinter_compile_to_dir_with_options(const char *ir, size_t len,
                                       const char *source_name,
                                       const char *target, const char *out_dir,
                                       int fusion, int allow_rng_change,
                                       const char *attention_config,
                                       char **error_out) {
  if (error_out)
    *error_out = nullptr;
  auto fail = [&](const std::string &message) {
    if (error_out)
      *error_out = copyString(message);
    return 1;
  };
  if (!ir)
    return fail("sinter_compile_to_dir: `ir` is NULL");
  if (!out_dir || !*out_dir)
    return fail("sinter_compile_to_dir: `out_dir` is NULL or empty");

  mlir::DialectRegistry registry;
  sinter::registerCompilerDialects(registry);
  mlir::MLIRContext context(registry);
  // Compilations run concurrently from several host threads; keep each one
  // on its own thread instead of sharing a pool per context.
  context.disableMultithreading();
  // Diagnostics point at the source; the generic form of the op adds noise.
  context.printOpOnDiagnostic(false);

  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(
          llvm::StringRef(ir, len),
          source_name && *source_name ? source_name : "<input>"),
      llvm::SMLoc());
  std::string diagnostics;
  llvm::raw_string_ostream diagnosticStream(diagnostics);
  mlir::SourceMgrDiagnosticHandler handler(sourceMgr, &context,
                                           diagnosticStream);
  // Fusion remarks are not errors: keep them out of the error text.
  context.getDiagEngine().registerHandler([](mlir::Diagnostic &d) {
    return mlir::success(d.getSeverity() == mlir::DiagnosticSeverity::Remark);
  });

  sinter::CompileOptions options;
  options.target = target && *target ? target : "cpu";
  options.fusion = fusion != 0;
  options.allowRngChange = allow_rng_change != 0;
  if (attention_config)
    options.attentionConfig = attention_config;
  if (mlir::failed(
          sinter::compileSource(sourceMgr, context, out_dir, options))) {
    if (diagnostics.empty())
      diagnostics = "compilation failed without a diagnostic";
    return fail(diagnostics);
  }
  return 0;
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
