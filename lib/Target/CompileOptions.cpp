//===- CompileOptions.cpp - The options of a compilation ------------------===//
//
// Part of the Sinter project.
//
//===----------------------------------------------------------------------===//

#include "sinter/Target/CompileOptions.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/ErrorHandling.h"

#include <algorithm>

using namespace sinter;
using Group = CompileOptionInfo::Group;

namespace {
/// How a group's options are named in the table.
struct GroupNaming {
  Group group;
  const char *prefix;
  /// Set by the compiler, not by users.
  std::vector<llvm::StringRef> hidden;
  /// Named without the prefix (sinterc's flag names since before the
  /// table).
  std::vector<llvm::StringRef> unprefixed;
};

const GroupNaming kNamings[] = {
    {Group::Driver, "", {}, {}},
    {Group::Fusion, "", {}, {}},
    {Group::CUDA, "cuda-", {"chip", "format"}, {"attention-config"}},
};

template <typename Options>
void addGroup(const OptionGroup<Options> &options, const GroupNaming &naming,
              std::vector<CompileOptionInfo> &table) {
  for (auto &[inner, option] : options.all()) {
    if (llvm::is_contained(naming.hidden, inner))
      continue;
    CompileOptionInfo info;
    info.name = llvm::is_contained(naming.unprefixed, inner)
                    ? inner
                    : std::string(naming.prefix) + inner;
    info.group = naming.group;
    info.groupName = inner;
    info.help = option->HelpStr.str();
    // Options that take no value are the bools.
    info.isFlag = option->getValueExpectedFlag() == llvm::cl::ValueOptional;
    if (!info.isFlag)
      info.valueName =
          option->ValueStr.empty() ? "value" : option->ValueStr.str();
    table.push_back(std::move(info));
  }
}

std::vector<CompileOptionInfo> buildTable() {
  CompileOptions prototype;
  std::vector<CompileOptionInfo> table;
  addGroup(prototype.driver, kNamings[0], table);
  addGroup(prototype.fusion, kNamings[1], table);
  addGroup(prototype.cuda, kNamings[2], table);
  llvm::sort(table, [](const CompileOptionInfo &a, const CompileOptionInfo &b) {
    return a.name < b.name;
  });
  for (size_t i = 1; i < table.size(); ++i)
    if (table[i].name == table[i - 1].name)
      llvm::report_fatal_error("compile option '" + llvm::Twine(table[i].name) +
                               "' is declared by two option groups");
  return table;
}

const CompileOptionInfo *lookup(llvm::StringRef name) {
  const std::vector<CompileOptionInfo> &table = compileOptionTable();
  auto it = llvm::lower_bound(table, name,
                              [](const CompileOptionInfo &info,
                                 llvm::StringRef n) { return info.name < n; });
  return it != table.end() && it->name == name ? &*it : nullptr;
}
} // namespace

const std::vector<CompileOptionInfo> &sinter::compileOptionTable() {
  static const std::vector<CompileOptionInfo> table = buildTable();
  return table;
}

bool CompileOptions::set(llvm::StringRef name, llvm::StringRef value,
                         std::string &error) {
  const CompileOptionInfo *info = lookup(name);
  if (!info) {
    error = "unknown option '" + name.str() + "'";
    return false;
  }
  llvm::cl::Option *option = nullptr;
  switch (info->group) {
  case Group::Driver:
    option = driver.find(info->groupName);
    break;
  case Group::Fusion:
    option = fusion.find(info->groupName);
    break;
  case Group::CUDA:
    option = cuda.find(info->groupName);
    break;
  }
  if (!info->isFlag && value.empty()) {
    error = "option '" + name.str() + "' needs a value (" + name.str() + "=<" +
            info->valueName + ">)";
    return false;
  }
  // As `--name=value` on a command line (the option's own parser: ints,
  // bools, enum names).
  if (!option || llvm::cl::ProvidePositionalOption(option, value, 0)) {
    error = "option '" + name.str() + "': invalid value '" + value.str() + "'";
    return false;
  }
  return true;
}

bool CompileOptions::parse(llvm::StringRef text, std::string &error) {
  while (true) {
    text = text.ltrim();
    if (text.empty())
      return true;
    size_t end = 0;
    while (end < text.size() && !llvm::isSpace(text[end]) && text[end] != '=')
      ++end;
    llvm::StringRef name = text.take_front(end);
    text = text.drop_front(end);
    name.consume_front("--");
    std::string value;
    if (text.consume_front("=")) {
      if (text.consume_front("\"")) {
        size_t close = text.find('"');
        if (close == llvm::StringRef::npos) {
          error = "option '" + name.str() + "': unterminated quoted value";
          return false;
        }
        value = text.take_front(close).str();
        text = text.drop_front(close + 1);
      } else {
        size_t stop = 0;
        while (stop < text.size() && !llvm::isSpace(text[stop]))
          ++stop;
        value = text.take_front(stop).str();
        text = text.drop_front(stop);
      }
      if (value.empty()) {
        error = "option '" + name.str() + "': empty value";
        return false;
      }
    }
    if (name.empty()) {
      error = "an option without a name";
      return false;
    }
    if (!set(name, value, error))
      return false;
  }
}
