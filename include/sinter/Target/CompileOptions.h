//===- CompileOptions.h - The options of a compilation ----------*- C++ -*-===//
//
// Part of the Sinter project.
//
// Every option of sinterc, of the C API's option string and of
// sinter.compile(**options) is declared once, in one of three groups that
// CompileOptions embeds by value:
//
//   driver  the driver's own: target, no-fusion, emit (DriverOptions);
//   fusion  the fusion pipeline's (sinter::FusionOptions), by their names:
//           allow-rng-change, report, ...;
//   cuda    the CUDA pipeline's (sinter::NVVMPipelineOptions), named
//           "cuda-" + their name (cuda-row-vectors, cuda-matmul, ...), but
//           attention-config, which keeps its name; chip and format are
//           set by the target and the artifact, not by users.
//
// compileOptionTable() reads the names, help and kinds from the groups
// themselves, so an option added to FusionOptions or NVVMPipelineOptions is
// a sinterc flag and an option-string key with no other change. Option
// strings are "name[=value] ..." (sinterc's flags, "--" optional; a value
// with spaces in double quotes).
//
//===----------------------------------------------------------------------===//

#ifndef SINTER_TARGET_COMPILEOPTIONS_H
#define SINTER_TARGET_COMPILEOPTIONS_H

#include "mlir/Pass/PassOptions.h"
#include "sinter/GPU/Passes.h"
#include "sinter/Pipelines/Pipelines.h"
#include "sinter/Pipelines/Stages.h"
#include "llvm/ADT/StringRef.h"

#include <functional>
#include <string>
#include <vector>

namespace sinter {

/// What a compilation writes into the output directory.
enum class EmitKind {
  /// The artifact: kernels.so (CPU) or kernels.cubin/.ptx (CUDA),
  /// manifest.json and SHA256SUMS.
  Artifact,
  /// kernels.mlir: the module lowered to the LLVM dialect.
  MLIR,
  /// kernels.ll: the optimized LLVM IR.
  LLVMIR,
  /// kernels.ptx: the kernels of a CUDA target as PTX.
  PTX,
};

/// The compiler driver's own options.
struct DriverOptions : public mlir::PassPipelineOptions<DriverOptions> {
  Option<std::string> target{
      *this, "target",
      llvm::cl::desc("Target to compile for: 'cpu' (the host) or "
                     "'cuda:sm_<arch>', e.g. cuda:sm_90a"),
      llvm::cl::value_desc("target"), llvm::cl::init("cpu")};
  Option<bool> noFusion{
      *this, "no-fusion",
      llvm::cl::desc("Skip the fusion pipeline: lower the program as "
                     "written (unfused ops take the linalg-to-loops path)"),
      llvm::cl::init(false)};
  Option<EmitKind> emit{
      *this, "emit",
      llvm::cl::desc("What to write into the output directory: 'artifact' "
                     "(default: the kernels, manifest.json and SHA256SUMS), "
                     "'mlir' (kernels.mlir: the module lowered to the LLVM "
                     "dialect), 'llvm' (kernels.ll: the optimized LLVM IR) "
                     "or 'ptx' (kernels.ptx: the kernels of a CUDA target)"),
      llvm::cl::init(EmitKind::Artifact),
      llvm::cl::values(clEnumValN(EmitKind::Artifact, "artifact", ""),
                       clEnumValN(EmitKind::MLIR, "mlir", ""),
                       clEnumValN(EmitKind::LLVMIR, "llvm", ""),
                       clEnumValN(EmitKind::PTX, "ptx", ""))};
  Option<unsigned> cpuOptLevel{
      *this, "cpu-opt-level",
      llvm::cl::desc("LLVM optimization level of a CPU target's host code, "
                     "0 to 3 (default 2): 0 compiles large unfused programs "
                     "several times faster, for references and debugging"),
      llvm::cl::init(2)};
};

/// A group of pass-pipeline options whose options can be looked up by name
/// (the option table reads them; PassOptions keeps its map protected).
template <typename Options> class OptionGroup : public Options {
public:
  /// The option whose argument string is `name`, or null.
  llvm::cl::Option *find(llvm::StringRef name) const {
    auto it = this->OptionsMap.find(name);
    return it == this->OptionsMap.end() ? nullptr : it->second;
  }
  /// Every option, by name.
  std::vector<std::pair<std::string, llvm::cl::Option *>> all() const {
    std::vector<std::pair<std::string, llvm::cl::Option *>> options;
    for (const auto &entry : this->OptionsMap)
      options.emplace_back(entry.first.str(), entry.second);
    return options;
  }
};

/// One option of the table: its name in option strings and sinterc flags.
struct CompileOptionInfo {
  enum class Group { Driver, Fusion, CUDA };
  std::string name;
  Group group;
  /// Its name inside its group.
  std::string groupName;
  std::string help;
  /// How sinterc shows its value ("target", "value"); empty for flags.
  std::string valueName;
  /// A bool: the name alone sets it.
  bool isFlag = false;
};

struct CompileOptions {
  OptionGroup<DriverOptions> driver;
  OptionGroup<FusionOptions> fusion;
  /// Its chip is the target's; its format the artifact's.
  OptionGroup<NVVMPipelineOptions> cuda;
  /// Called after each stage ("parsing", "fusion", "lowering", "codegen",
  /// "link"; for CUDA also codegen's "outline", "nvvm" and "serialize")
  /// with its wall time and a note (the fusion and kernel census, "skipped:
  /// ..." or empty).
  StageCallback onStage;

  /// Sets option `name` of the table to `value` ("" sets a flag); false
  /// with `error` naming the option when it is unknown or the value
  /// invalid.
  bool set(llvm::StringRef name, llvm::StringRef value, std::string &error);

  /// Sets every option of `text`, "name[=value] ..." ("--" before a name
  /// is allowed, a value with spaces goes in double quotes); false with
  /// `error` at the first bad one.
  bool parse(llvm::StringRef text, std::string &error);
};

/// The options of a compilation, sorted by name, as the groups of
/// CompileOptions declare them (see the file comment for the names).
const std::vector<CompileOptionInfo> &compileOptionTable();

} // namespace sinter

#endif // SINTER_TARGET_COMPILEOPTIONS_H
