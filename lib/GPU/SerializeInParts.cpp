//===- SerializeInParts.cpp - LLVM codegen of kernels on threads ----------===//
//
// Part of the Sinter project.
//
// The serializer compiles a gpu.module as one LLVM module: translation,
// LLVM's optimization and the NVPTX backend on one thread (GPT-2's backward
// step program: ~1.8 of its ~4 s of compile on one core, bench/NOTES.md).
// Sinter's kernels are independent functions (every helper is inlined:
// the module scope holds only declarations -- dynamic shared memory, an
// assert's strings and __assertfail), so the module can be compiled in
// parts, each a clone keeping a group of the kernels, and their PTX joined
// into one file for one ptxas: one cubin, as before. Each kernel goes
// through the same passes as in the whole module; LLVM's output for a
// kernel can still depend on the rest of its module (bench/NOTES.md,
// session 16: in 330 programs and GPT-2's two, one kernel of ~600 came out
// with its instructions in another order).
//
//===----------------------------------------------------------------------===//

#include "SerializeInParts.h"

#include "mlir/Dialect/GPU/IR/CompilationInterfaces.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/IR/Threading.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"

#include <algorithm>

using namespace mlir;

namespace {

/// A module-scope item of a PTX file: a declaration (up to its `;`) or a
/// function (up to its closing brace), with its name.
struct PtxItem {
  std::string name, text;
  bool isEntry = false, hasBody = false;
};

/// A PTX file as its header (.version, .target, .address_size) and items;
/// comments between items are dropped.
struct PtxFile {
  std::string header;
  std::vector<PtxItem> items;
};

bool isIdentifierChar(char c) {
  return llvm::isAlnum(c) || c == '_' || c == '$' || c == '.';
}

/// The name an item's first line declares: the identifier after `.entry` or
/// `.func` (past a return value's parentheses), else the last identifier
/// before `[`, `=` or `;`.
std::string itemName(StringRef line) {
  for (StringRef key : {".entry ", ".func "}) {
    size_t at = line.find(key);
    if (at == StringRef::npos)
      continue;
    StringRef rest = line.drop_front(at + key.size()).ltrim();
    if (rest.starts_with("(")) // .func (.param ...) name
      rest =
          rest.drop_until([](char c) { return c == ')'; }).drop_front().ltrim();
    return rest.take_while(isIdentifierChar).str();
  }
  StringRef head =
      line.take_until([](char c) { return c == '[' || c == '=' || c == ';'; });
  head = head.rtrim();
  size_t start = head.size();
  while (start > 0 && isIdentifierChar(head[start - 1]))
    --start;
  return head.drop_front(start).str();
}

std::optional<PtxFile> parsePtx(StringRef text) {
  PtxFile file;
  SmallVector<StringRef> lines;
  text.split(lines, '\n');
  size_t i = 0;
  for (; i < lines.size(); ++i) {
    StringRef l = lines[i];
    if (l.starts_with(".version") || l.starts_with(".target") ||
        l.starts_with(".address_size"))
      file.header += l.str() + "\n";
    if (l.starts_with(".address_size")) {
      ++i;
      break;
    }
  }
  if (file.header.empty())
    return std::nullopt;
  while (i < lines.size()) {
    StringRef l = lines[i];
    if (!l.starts_with(".")) { // blank lines, comments
      ++i;
      continue;
    }
    PtxItem item;
    item.name = itemName(l);
    item.isEntry = l.contains(".entry ");
    bool function = item.isEntry || l.contains(".func ");
    // A function definition runs to the brace that closes its body (inline
    // asm opens and closes braces of its own inside it, at any column); a
    // declaration (`.extern .func` with its parameters too) to the `;` that
    // ends it.
    int depth = 0;
    for (; i < lines.size(); ++i) {
      StringRef line = lines[i];
      item.text += line.str() + "\n";
      if (function) {
        depth += static_cast<int>(line.count('{')) -
                 static_cast<int>(line.count('}'));
        item.hasBody |= depth > 0;
      }
      bool ends = item.hasBody ? depth == 0
                               : !item.isEntry && line.rtrim().ends_with(";");
      if (ends) {
        ++i;
        break;
      }
    }
    if (item.name.empty())
      return std::nullopt;
    file.items.push_back(std::move(item));
  }
  return file;
}

/// `text` with every whole-word `from` replaced by `to`.
std::string renameWord(StringRef text, StringRef from, StringRef to) {
  std::string out;
  size_t at = 0;
  while (true) {
    size_t hit = text.find(from, at);
    if (hit == StringRef::npos)
      break;
    bool whole = (hit == 0 || !isIdentifierChar(text[hit - 1])) &&
                 (hit + from.size() == text.size() ||
                  !isIdentifierChar(text[hit + from.size()]));
    out += text.slice(at, hit).str();
    out += whole ? to.str() : from.str();
    at = hit + from.size();
  }
  out += text.drop_front(at).str();
  return out;
}

} // namespace

std::optional<std::string> sinter::mergePtx(ArrayRef<std::string> parts,
                                            ArrayRef<std::string> entryOrder) {
  std::string header;
  std::vector<PtxItem> decls;           // in the order first declared
  llvm::StringMap<size_t> declared;     // name -> its index in decls
  llvm::StringMap<std::string> entries; // name -> text
  for (auto [p, text] : llvm::enumerate(parts)) {
    std::optional<PtxFile> file = parsePtx(text);
    if (!file)
      return std::nullopt;
    if (p == 0)
      header = file->header;
    else if (file->header != header)
      return std::nullopt;
    // A declaration this part makes differently from an earlier part's of
    // the same name is renamed in this part (its entries' uses too).
    std::string renamed = text;
    bool changed = false;
    for (const PtxItem &item : file->items) {
      if (item.isEntry)
        continue;
      if (item.hasBody) // a device function: not in Sinter's kernels
        return std::nullopt;
      auto it = declared.find(item.name);
      if (it != declared.end() && decls[it->second].text != item.text) {
        renamed = renameWord(renamed, item.name,
                             item.name + "_part" + std::to_string(p));
        changed = true;
      }
    }
    if (changed)
      file = parsePtx(renamed);
    if (!file)
      return std::nullopt;
    for (PtxItem &item : file->items) {
      if (item.isEntry) {
        entries[item.name] = std::move(item.text);
        continue;
      }
      auto [it, inserted] = declared.try_emplace(item.name, decls.size());
      if (inserted)
        decls.push_back(std::move(item));
      else if (decls[it->second].text != item.text)
        return std::nullopt;
    }
  }
  std::string out = "//\n// Generated by LLVM NVPTX Back-End (Sinter: the "
                    "kernels compiled in " +
                    std::to_string(parts.size()) + " parts)\n//\n\n" + header +
                    "\n";
  for (const PtxItem &d : decls)
    out += d.text;
  for (const std::string &name : entryOrder) {
    auto it = entries.find(name);
    if (it == entries.end())
      return std::nullopt;
    out += "\n" + it->second;
  }
  return out;
}

namespace {

/// A kernel of a lowered gpu.module (gpu-to-nvvm keeps gpu.kernel on it).
bool isKernel(Operation *op) {
  return op->hasAttr(gpu::GPUDialect::getKernelFuncAttrName());
}

/// The kernels of a lowered gpu.module in `parts` groups of similar size
/// (operations counted; the largest first into the lightest group).
SmallVector<SmallVector<StringRef>> groupKernels(ArrayRef<LLVM::LLVMFuncOp> ks,
                                                 unsigned parts) {
  SmallVector<std::pair<int64_t, size_t>> bySize;
  for (auto [i, k] : llvm::enumerate(ks)) {
    int64_t ops = 0;
    LLVM::LLVMFuncOp f = k;
    f.walk([&](Operation *) { ++ops; });
    bySize.push_back({ops, i});
  }
  // Largest first; equal sizes in the module's order.
  llvm::sort(bySize, [](auto a, auto b) {
    return a.first != b.first ? a.first > b.first : a.second < b.second;
  });
  SmallVector<SmallVector<StringRef>> groups(parts);
  SmallVector<int64_t> load(parts, 0);
  for (auto [ops, i] : bySize) {
    size_t g = std::min_element(load.begin(), load.end()) - load.begin();
    load[g] += ops;
    LLVM::LLVMFuncOp f = ks[i];
    groups[g].push_back(f.getSymName());
  }
  return groups;
}

/// A copy of `kernels` beside it that holds only the kernels `keep` and the
/// module-scope symbols they use (the other kernels are not copied: the
/// copies together cost one module's).
gpu::GPUModuleOp cloneKeeping(gpu::GPUModuleOp kernels,
                              const llvm::StringSet<> &keep, unsigned part) {
  OpBuilder b(kernels);
  b.setInsertionPointAfter(kernels);
  Operation *copy = b.insert(kernels->cloneWithoutRegions());
  auto clone = cast<gpu::GPUModuleOp>(copy);
  clone.setSymName((kernels.getSymName() + "_part" + Twine(part)).str());
  clone.getBodyRegion().push_back(new Block());
  OpBuilder inside = OpBuilder::atBlockEnd(clone.getBody());
  for (Operation &op : kernels.getOps()) {
    auto f = dyn_cast<LLVM::LLVMFuncOp>(op);
    if (f && isKernel(f) && !keep.contains(f.getSymName()))
      continue;
    inside.clone(op);
  }
  bool erased = true;
  while (erased) {
    erased = false;
    for (Operation &op : llvm::make_early_inc_range(clone.getOps()))
      if (isa<SymbolOpInterface>(op) && !isKernel(&op) &&
          SymbolTable::symbolKnownUseEmpty(&op, clone)) {
        op.erase();
        erased = true;
      }
  }
  return clone;
}

} // namespace

FailureOr<std::optional<sinter::PtxInParts>>
sinter::serializePtxInParts(ModuleOp top, gpu::GPUModuleOp kernels,
                            unsigned parts, StringRef toolkit) {
  SmallVector<LLVM::LLVMFuncOp> ks;
  for (auto f : kernels.getOps<LLVM::LLVMFuncOp>())
    if (isKernel(f))
      ks.push_back(f);
  parts = std::min<unsigned>(parts, ks.size());
  ArrayAttr targets = kernels.getTargetsAttr();
  auto target = targets && targets.size() == 1
                    ? dyn_cast<gpu::TargetAttrInterface>(targets[0])
                    : gpu::TargetAttrInterface();
  if (parts < 2 || !target)
    return std::optional<PtxInParts>();
  SmallVector<std::string> order;
  for (LLVM::LLVMFuncOp f : ks)
    order.push_back(f.getSymName().str());
  SmallVector<gpu::GPUModuleOp> clones;
  for (auto [p, group] : llvm::enumerate(groupKernels(ks, parts))) {
    llvm::StringSet<> keep;
    for (StringRef k : group)
      keep.insert(k);
    clones.push_back(cloneKeeping(kernels, keep, p));
  }
  llvm::scope_exit eraseClones([&] {
    for (gpu::GPUModuleOp c : clones)
      c.erase();
  });
  // The symbol table is built before the threads read it.
  SymbolTable table(top);
  SmallVector<std::string> ptx(clones.size());
  LogicalResult compiled = failableParallelForEach(
      top.getContext(), llvm::seq<size_t>(0, clones.size()), [&](size_t p) {
        gpu::TargetOptions options(
            toolkit, /*librariesToLink=*/{}, /*cmdOptions=*/{},
            /*elfSection=*/{}, gpu::CompilationTarget::Assembly,
            [&]() -> SymbolTable * { return &table; });
        std::optional<SmallVector<char, 0>> object =
            target.serializeToObject(clones[p], options);
        if (!object)
          return failure();
        ptx[p].assign(object->begin(), object->end());
        return success();
      });
  if (failed(compiled))
    return failure();
  std::optional<std::string> merged = mergePtx(ptx, order);
  if (!merged)
    return std::optional<PtxInParts>();
  return std::optional<PtxInParts>(
      PtxInParts{std::move(*merged), static_cast<unsigned>(clones.size())});
}
