//===- SourceScan.cpp - The pre-parse scan of model IR --------------------===//
//
// Part of the Sinter project.
//
// checkSourceBeforeParsing (InputGuard.h): one pass over the tokens of the
// text, lexed as MLIR lexes them (comments, strings, identifiers with their
// sigils, numbers, `->` and `>=`), keeping
//
//  * the open brackets, with the depth each type or attribute alias stands
//    for (an alias referenced inside brackets nests what it names there);
//  * per bracket group, the operators of the current comma-separated item
//    (`d0 + d0 + ...`, `- - d0`: the affine parser recurses per operator);
//  * the aliases defined so far: their text, depth and expanded size;
//
// and, at every custom-form named linalg op, the element types of its ins
// and outs (aliases expanded, read with MLIR's own type parser) and its
// elementwise kind, which LinalgRegionRules.cpp judges. The scan is linear
// in the text: the operands of an op are read once more, and nothing else.
//
//===----------------------------------------------------------------------===//

#include "sinter/Target/InputGuard.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/SourceMgr.h"

using namespace mlir;

namespace {
//===----------------------------------------------------------------------===//
// Lexer
//===----------------------------------------------------------------------===//

enum class Tok {
  Eof,
  Bare,
  Hash,
  Bang,
  Percent,
  Caret,
  At,
  String,
  Number,
  Punct
};

struct Token {
  Tok kind = Tok::Eof;
  StringRef text;
  bool is(StringRef punct) const { return kind == Tok::Punct && text == punct; }
};

/// MLIR's lexical rules, enough to tell brackets, operators, identifiers and
/// aliases apart from what looks like them inside strings, comments,
/// numbers (`1.0e-5`) and SSA names (`%a-b`).
class Lexer {
public:
  explicit Lexer(StringRef buffer, size_t pos = 0) : buf(buffer), pos(pos) {}

  Token next() {
    skipSpaceAndComments();
    if (pos >= buf.size())
      return {Tok::Eof, buf.substr(buf.size())};
    size_t start = pos;
    char c = buf[pos];
    auto make = [&](Tok kind) { return Token{kind, buf.slice(start, pos)}; };
    if (c == '"') {
      skipString();
      return make(Tok::String);
    }
    if (llvm::isAlpha(c) || c == '_') {
      while (pos < buf.size() && isBareIdChar(buf[pos]))
        ++pos;
      return make(Tok::Bare);
    }
    if (llvm::isDigit(c)) {
      lexNumber();
      return make(Tok::Number);
    }
    if (startsWith("{-#") || startsWith("#-}")) {
      pos += 3;
      return make(Tok::Punct);
    }
    if (startsWith("->") || startsWith(">=") || startsWith("==") ||
        startsWith("<=")) {
      pos += 2;
      return make(Tok::Punct);
    }
    ++pos;
    switch (c) {
    case '#':
      return sigil(start, Tok::Hash);
    case '!':
      return sigil(start, Tok::Bang);
    case '%':
      return sigil(start, Tok::Percent);
    case '^':
      return sigil(start, Tok::Caret);
    case '@':
      if (pos < buf.size() && buf[pos] == '"')
        skipString();
      else
        while (pos < buf.size() && isSuffixIdChar(buf[pos]))
          ++pos;
      return make(Tok::At);
    default:
      return make(Tok::Punct);
    }
  }

  size_t position() const { return pos; }

private:
  static bool isBareIdChar(char c) {
    return llvm::isAlnum(c) || c == '_' || c == '$' || c == '.';
  }
  static bool isSuffixIdChar(char c) {
    return llvm::isAlnum(c) || c == '_' || c == '$' || c == '.' || c == '-';
  }
  bool startsWith(StringRef s) const { return buf.substr(pos).starts_with(s); }

  void skipSpaceAndComments() {
    while (pos < buf.size()) {
      if (llvm::isSpace(buf[pos])) {
        ++pos;
      } else if (startsWith("//")) {
        size_t eol = buf.find('\n', pos);
        pos = eol == StringRef::npos ? buf.size() : eol;
      } else {
        return;
      }
    }
  }
  // At the opening quote; stops past the closing one (or at the end).
  void skipString() {
    for (++pos; pos < buf.size(); ++pos) {
      if (buf[pos] == '\\')
        ++pos;
      else if (buf[pos] == '"' || buf[pos] == '\n')
        break;
    }
    pos = std::min(pos + 1, buf.size());
  }
  void lexNumber() {
    if (startsWith("0x")) {
      pos += 2;
      while (pos < buf.size() && llvm::isHexDigit(buf[pos]))
        ++pos;
      return;
    }
    auto digits = [&] {
      while (pos < buf.size() && llvm::isDigit(buf[pos]))
        ++pos;
    };
    digits();
    if (pos < buf.size() && buf[pos] == '.') {
      ++pos;
      digits();
      if (pos < buf.size() && (buf[pos] == 'e' || buf[pos] == 'E')) {
        size_t mark = pos++;
        if (pos < buf.size() && (buf[pos] == '+' || buf[pos] == '-'))
          ++pos;
        if (pos < buf.size() && llvm::isDigit(buf[pos]))
          digits();
        else
          pos = mark;
      }
    }
  }
  Token sigil(size_t start, Tok kind) {
    while (pos < buf.size() && isSuffixIdChar(buf[pos]))
      ++pos;
    return {kind, buf.slice(start, pos)};
  }

  StringRef buf;
  size_t pos;
};

//===----------------------------------------------------------------------===//
// Scanner
//===----------------------------------------------------------------------===//

/// What an alias (`#name = ...`, `!name = ...`) stands for.
struct Alias {
  StringRef value;           // the text after `=`
  unsigned depth = 0;        // brackets it opens, with the aliases in it
  uint64_t size = 0;         // tokens, with the aliases in it expanded
  const char *end = nullptr; // past the last token read so far
};

/// The named linalg ops whose region builder crashes for some operand types
/// (LinalgRegionRules.cpp).
bool hasRegionRules(StringRef op) {
  return op == "batch_matmul" || op == "batch_reduce_matmul" ||
         op == "elementwise";
}

/// The linalg ops whose parser stores whatever DenseI64ArrayAttr::parse
/// returned, null when the array is malformed (MLIR 22 then crashes), and
/// the keyword that introduces the array.
StringRef i64ArrayKeyword(StringRef op) {
  if (op == "reduce" || op == "broadcast")
    return "dimensions";
  if (op == "transpose")
    return "permutation";
  return "";
}

bool isOpen(Token t) {
  return (t.kind == Tok::Punct && t.text.size() == 1 &&
          StringRef("([{<").contains(t.text[0])) ||
         t.is("{-#");
}

bool isClose(Token t) {
  return (t.kind == Tok::Punct && t.text.size() == 1 &&
          StringRef(")]}>").contains(t.text[0])) ||
         t.is("#-}");
}

class Scanner {
public:
  Scanner(llvm::SourceMgr &sourceMgr, MLIRContext &context,
          const sinter::SourceLimits &limits)
      : sourceMgr(sourceMgr), context(context), limits(limits),
        buffer(
            sourceMgr.getMemoryBuffer(sourceMgr.getMainFileID())->getBuffer()) {
  }

  LogicalResult run();

private:
  InFlightDiagnostic error(StringRef at);
  LogicalResult nest(StringRef at, unsigned depth);
  LogicalResult onAliasReference(Token t);
  void finishAlias();
  bool startsTopLevelItem(Token t, Token next) const;
  std::optional<std::string> expand(StringRef text, unsigned depth = 0);
  LogicalResult checkNamedLinalgOp(Token name, size_t after);
  LogicalResult checkI64Array(Token name, size_t after, StringRef keyword);
  LogicalResult readTypes(Lexer &lexer, SmallVectorImpl<Type> &types);

  llvm::SourceMgr &sourceMgr;
  MLIRContext &context;
  const sinter::SourceLimits &limits;
  StringRef buffer;

  llvm::StringMap<Alias> aliases;  // by name, sigil included
  SmallVector<char> open;          // the open brackets
  SmallVector<unsigned> operators; // per group: operators in this item
  // The alias whose value is being read.
  std::optional<StringRef> defining;
  Alias current;
};
} // namespace

InFlightDiagnostic Scanner::error(StringRef at) {
  unsigned id = sourceMgr.getMainFileID();
  auto [line, col] =
      sourceMgr.getLineAndColumn(llvm::SMLoc::getFromPointer(at.data()), id);
  StringRef file = sourceMgr.getMemoryBuffer(id)->getBufferIdentifier();
  return mlir::emitError(FileLineColLoc::get(&context, file, line, col));
}

LogicalResult Scanner::nest(StringRef at, unsigned depth) {
  if (defining)
    current.depth = std::max(current.depth, depth);
  if (depth <= limits.maxNesting)
    return success();
  return error(at) << "nesting deeper than " << limits.maxNesting
                   << " (brackets, counting the aliases referenced in them): "
                      "the parser would run out of stack";
}

LogicalResult Scanner::onAliasReference(Token t) {
  auto it = aliases.find(t.text);
  if (it == aliases.end())
    return success(); // a dialect attribute or type, or undefined
  if (defining) {
    current.size =
        std::min(current.size + it->second.size, limits.maxAliasExpansion + 1);
    if (current.size > limits.maxAliasExpansion)
      return error(*defining)
             << "alias " << *defining << " expands to more than "
             << limits.maxAliasExpansion << " tokens";
  }
  // A reference is one level more than what the alias opens, so that a
  // chain of aliases naming aliases is bounded too.
  return nest(t.text, open.size() + it->second.depth + 1);
}

void Scanner::finishAlias() {
  // Up to the last token (not a comment after it).
  const char *end = current.end ? current.end : current.value.data();
  current.value =
      StringRef(current.value.data(), end - current.value.data()).ltrim();
  aliases[*defining] = current;
  defining.reset();
}

/// At the top level, an alias definition ends where the next definition or
/// an operation begins.
bool Scanner::startsTopLevelItem(Token t, Token next) const {
  if ((t.kind == Tok::Hash || t.kind == Tok::Bang) && next.is("="))
    return true;
  if (t.kind == Tok::Percent || t.kind == Tok::String || t.is("{-#"))
    return true;
  return t.kind == Tok::Bare && (t.text.contains('.') || t.text == "module");
}

LogicalResult Scanner::run() {
  Lexer lexer(buffer);
  operators.push_back(0);
  for (Token t = lexer.next(); t.kind != Tok::Eof; t = lexer.next()) {
    Lexer peek = lexer;
    Token next = peek.next();
    if (open.empty() && defining && startsTopLevelItem(t, next))
      finishAlias();
    if (defining)
      current.end = t.text.end();
    if (defining && ++current.size > limits.maxAliasExpansion)
      return error(*defining)
             << "alias " << *defining << " expands to more than "
             << limits.maxAliasExpansion << " tokens";
    if (open.empty() && (t.kind == Tok::Hash || t.kind == Tok::Bang) &&
        next.is("=")) {
      lexer = peek; // past `=`
      defining = t.text;
      current = Alias();
      current.value = buffer.substr(lexer.position());
      continue;
    }
    if (isOpen(t)) {
      open.push_back(t.text[0]);
      operators.push_back(0);
      if (failed(nest(t.text, open.size())))
        return failure();
      continue;
    }
    if (isClose(t)) {
      if (!open.empty()) {
        open.pop_back();
        operators.pop_back();
      }
      continue;
    }
    if (t.is(",")) {
      operators.back() = 0;
      continue;
    }
    bool isOperator =
        t.is("+") || t.is("-") || t.is("*") ||
        (t.kind == Tok::Bare &&
         (t.text == "floordiv" || t.text == "ceildiv" || t.text == "mod"));
    if (isOperator && ++operators.back() > limits.maxExpressionOperators)
      return error(t.text) << "an expression of more than "
                           << limits.maxExpressionOperators
                           << " operators: the parser would run out of stack";
    if ((t.kind == Tok::Hash || t.kind == Tok::Bang) &&
        failed(onAliasReference(t)))
      return failure();
    if (t.kind == Tok::Bare && t.text.starts_with("linalg.") &&
        hasRegionRules(t.text.drop_front(7)) &&
        failed(checkNamedLinalgOp(t, lexer.position())))
      return failure();
    if (t.kind == Tok::Bare && t.text.starts_with("linalg.") &&
        !i64ArrayKeyword(t.text.drop_front(7)).empty() &&
        failed(checkI64Array(t, lexer.position(),
                             i64ArrayKeyword(t.text.drop_front(7)))))
      return failure();
  }
  if (defining)
    finishAlias();
  return success();
}

/// `text` with every alias in it replaced by its value, recursively; none
/// when that exceeds the expansion or the nesting limit.
std::optional<std::string> Scanner::expand(StringRef text, unsigned depth) {
  // An alias naming itself (invalid, but the table holds what the text
  // says) or a chain longer than the nesting limit.
  if (depth > limits.maxNesting)
    return std::nullopt;
  std::string out;
  Lexer lexer(text);
  size_t copied = 0;
  for (Token t = lexer.next(); t.kind != Tok::Eof; t = lexer.next()) {
    if (t.kind != Tok::Hash && t.kind != Tok::Bang)
      continue;
    auto it = aliases.find(t.text);
    if (it == aliases.end())
      continue;
    std::optional<std::string> value = expand(it->second.value, depth + 1);
    if (!value)
      return std::nullopt;
    size_t begin = t.text.data() - text.data();
    out += text.slice(copied, begin);
    out += *value;
    copied = begin + t.text.size();
    if (out.size() > limits.maxAliasExpansion)
      return std::nullopt;
  }
  out += text.substr(copied);
  return out;
}

/// Reads the types of an `ins(...)`/`outs(...)` group, the lexer being past
/// its `(`: the comma-separated types after the group's `:`, with aliases
/// expanded, through MLIR's type parser.
LogicalResult Scanner::readTypes(Lexer &lexer, SmallVectorImpl<Type> &types) {
  SmallVector<StringRef> spans;
  int depth = 0;
  bool afterColon = false;
  const char *begin = nullptr, *end = nullptr;
  for (Token t = lexer.next(); t.kind != Tok::Eof; t = lexer.next()) {
    if (depth == 0 && (t.is(")") || t.is(","))) {
      if (afterColon && begin)
        spans.push_back(StringRef(begin, end - begin));
      begin = nullptr;
      if (t.is(")"))
        break;
      continue;
    }
    if (depth == 0 && t.is(":")) {
      afterColon = true;
      continue;
    }
    if (isOpen(t))
      ++depth;
    else if (isClose(t) && --depth < 0)
      break;
    if (afterColon) {
      begin = begin ? begin : t.text.data();
      end = t.text.end();
    }
  }
  for (StringRef span : spans) {
    std::optional<std::string> text = expand(span);
    if (!text)
      return error(span) << "the aliases in this type expand to more than "
                         << limits.maxAliasExpansion
                         << " characters or refer to themselves";
    std::string message;
    Type type;
    {
      ScopedDiagnosticHandler quiet(&context, [&](Diagnostic &d) {
        if (message.empty())
          message = d.str();
        return success();
      });
      // (MLIR 22's parseType misreads text with leading spaces.)
      type = mlir::parseType(StringRef(*text).trim(), &context);
    }
    if (!type)
      return error(span) << "cannot read this type before parsing: " << message;
    types.push_back(type);
  }
  return success();
}

/// Reads the operand types and the elementwise kind of the named linalg op
/// `name` (the lexer is past it at `after`) and refuses those its region
/// builder would crash on.
LogicalResult Scanner::checkNamedLinalgOp(Token name, size_t after) {
  Lexer lexer(buffer, after);
  SmallVector<Type> ins, outs;
  std::string kind;
  int depth = 0;
  for (Token t = lexer.next(); t.kind != Tok::Eof; t = lexer.next()) {
    if (isOpen(t)) {
      ++depth;
      continue;
    }
    if (isClose(t)) {
      if (--depth < 0)
        break;
      continue;
    }
    Lexer peek = lexer;
    Token next = peek.next();
    if (t.kind == Tok::Bare && t.text == "kind" && next.is("=")) {
      // `kind = #linalg.elementwise_kind<tanh>`, or an alias of it.
      Token value = peek.next();
      const char *end = value.text.end();
      Lexer inner = peek;
      if (inner.next().is("<")) {
        for (int d = 1; d > 0;) {
          Token u = inner.next();
          if (u.kind == Tok::Eof)
            break;
          d += isOpen(u) ? 1 : isClose(u) ? -1 : 0;
          end = u.text.end();
        }
      }
      StringRef span(value.text.data(), end - value.text.data());
      std::optional<std::string> text = expand(span);
      Attribute attr;
      if (text) {
        ScopedDiagnosticHandler quiet(&context,
                                      [](Diagnostic &) { return success(); });
        attr = mlir::parseAttribute(StringRef(*text).trim(), &context);
      }
      if (auto k = dyn_cast_or_null<linalg::ElementwiseKindAttr>(attr))
        kind = linalg::stringifyElementwiseKind(k.getValue()).str();
      continue;
    }
    if (depth != 0)
      continue;
    if (t.kind == Tok::Bare && (t.text == "ins" || t.text == "outs") &&
        next.is("(")) {
      lexer = peek;
      if (failed(readTypes(lexer, t.text == "ins" ? ins : outs)))
        return failure();
      if (t.text == "outs")
        break;
      continue;
    }
    // The next operation.
    if (t.is("->") || t.kind == Tok::Percent || t.kind == Tok::String ||
        (t.kind == Tok::Bare && t.text.contains('.')))
      break;
  }
  std::optional<std::string> why = sinter::whyLinalgRegionBuilderFails(
      name.text.drop_front(7), ins, outs, kind);
  if (!why)
    return success();
  return error(name.text) << "'" << name.text << "' with " << *why
                          << " (MLIR 22 crashes building the body of such "
                             "an op; write it as a linalg.generic)";
}

/// The `keyword = [i, j, ...]` of the linalg op `name` (the lexer is past it
/// at `after`), if it has one, is a list of integers within int64.
LogicalResult Scanner::checkI64Array(Token name, size_t after,
                                     StringRef keyword) {
  Lexer lexer(buffer, after);
  int depth = 0;
  for (Token t = lexer.next(); t.kind != Tok::Eof; t = lexer.next()) {
    if (isOpen(t) || isClose(t)) {
      depth += isOpen(t) ? 1 : -1;
      if (depth < 0)
        return success();
      continue;
    }
    if (depth != 0)
      continue;
    if (t.is("->") || t.kind == Tok::Percent || t.kind == Tok::String ||
        t.kind == Tok::Caret || (t.kind == Tok::Bare && t.text.contains('.')))
      return success(); // the next operation, or the region
    Lexer peek = lexer;
    if (t.kind != Tok::Bare || t.text != keyword || !peek.next().is("="))
      continue;
    auto malformed = [&](StringRef at) {
      return error(at) << "'" << name.text << "' " << keyword
                       << " must be a list of 64-bit integers such as [0, 1] "
                          "(MLIR 22 crashes parsing anything else)";
    };
    Token u = peek.next();
    if (!u.is("["))
      return malformed(u.text);
    for (bool first = true;; first = false) {
      u = peek.next();
      if (u.is("]") && first)
        return success();
      if (u.is("-"))
        u = peek.next();
      int64_t value;
      if (u.kind != Tok::Number || u.text.getAsInteger(0, value))
        return malformed(u.text);
      u = peek.next();
      if (u.is("]"))
        return success();
      if (!u.is(","))
        return malformed(u.text);
    }
  }
  return success();
}

LogicalResult sinter::checkSourceBeforeParsing(llvm::SourceMgr &sourceMgr,
                                               MLIRContext &context,
                                               const SourceLimits &limits) {
  return Scanner(sourceMgr, context, limits).run();
}
