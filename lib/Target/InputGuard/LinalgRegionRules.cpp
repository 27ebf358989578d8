//===- LinalgRegionRules.cpp - Operand types upstream's builders crash on -===//
//
// Part of the Sinter project.
//
// The parser of a custom-form named linalg op builds the op's body from the
// element types of its operands (linalg's fillStructuredOpRegion and the
// op's regionBuilder). In MLIR 22 the builders of linalg.batch_matmul,
// linalg.batch_reduce_matmul and linalg.elementwise go on after a cast or
// an arithmetic function they could not build (a null value) and crash the
// process; the generated named ops (linalg.matmul, linalg.add, linalg.exp,
// convolutions, pooling, fill, copy ...) and linalg.contract stop there and
// fail to verify instead. No verifier runs before the crash, so the rules
// below, measured on the Debian build of MLIR 22.1 over every pairing of
// f32, bf16, i1, i8, i64, index, complex<f32>, vector<2xf32> and !llvm.ptr
// elements (test/Hardening/linalg-region-builders.mlir), are checked on the
// text before it is parsed. They are conservative where the measurement
// left a corner (mixed complex and real operands are refused).
//
//===----------------------------------------------------------------------===//

#include "sinter/Target/InputGuard.h"

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

namespace {
/// What the region builders distinguish.
enum class Class { Float, Integer, Complex, Other };

/// The block argument type the parser derives from an operand type: the
/// element type of a ranked tensor or a memref, else the type itself.
Type blockArgumentType(Type t) {
  if (isa<RankedTensorType, MemRefType>(t))
    return cast<ShapedType>(t).getElementType();
  return t;
}

Class classOf(Type t) {
  t = blockArgumentType(t);
  if (isa<FloatType>(t))
    return Class::Float;
  if (isa<IntegerType>(t))
    return Class::Integer;
  if (isa<ComplexType>(t))
    return Class::Complex;
  return Class::Other;
}

std::string str(Type t) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << blockArgumentType(t);
  return s;
}

bool isI1(Type t) { return blockArgumentType(t).isInteger(1); }

/// linalg.batch_matmul and linalg.batch_reduce_matmul cast each input to the
/// init's element type, then multiply and add.
std::optional<std::string> matmulRule(ArrayRef<Type> inputs,
                                      ArrayRef<Type> outputs) {
  auto all = llvm::concat<const Type>(inputs, outputs);
  bool real = llvm::all_of(all, [](Type t) {
    Class c = classOf(t);
    return c == Class::Float || c == Class::Integer;
  });
  bool complex =
      llvm::all_of(all, [](Type t) { return classOf(t) == Class::Complex; });
  if (real || complex)
    return std::nullopt;
  std::string types;
  llvm::raw_string_ostream os(types);
  llvm::interleaveComma(all, os, [&](Type t) { os << str(t); });
  return "operands of element types " + types +
         ": its body casts every input to the init's element type, which "
         "works between integer and floating-point types (or complex ones) "
         "only";
}

/// linalg.elementwise applies its kind to the inputs as they are.
std::optional<std::string> elementwiseRule(StringRef kind,
                                           ArrayRef<Type> inputs) {
  static const llvm::StringSet<> floatOnly = {
      "exp",   "log",  "abs",   "ceil",   "floor", "negf", "reciprocal",
      "round", "sqrt", "rsqrt", "square", "tanh",  "erf"};
  static const llvm::StringSet<> sameClass = {
      "add", "sub", "mul", "div", "powf", "max_signed", "min_signed"};
  static const llvm::StringSet<> unsignedInts = {"div_unsigned", "max_unsigned",
                                                 "min_unsigned"};
  if (inputs.empty())
    return std::nullopt;
  std::string first = str(inputs.front());
  if (floatOnly.contains(kind)) {
    for (Type t : inputs)
      if (classOf(t) != Class::Float)
        return "kind " + kind.str() + " on " + str(t) +
               " elements: it is a floating-point function";
    return std::nullopt;
  }
  if (unsignedInts.contains(kind)) {
    for (Type t : inputs)
      if (classOf(t) != Class::Integer || isI1(t))
        return "kind " + kind.str() + " on " + str(t) +
               " elements: it takes integers wider than i1";
    return std::nullopt;
  }
  if (!sameClass.contains(kind))
    return std::nullopt; // select, or a kind the parser will reject
  Class c = classOf(inputs.front());
  for (Type t : inputs) {
    if (classOf(t) == Class::Other)
      return "kind " + kind.str() + " on " + str(t) +
             " elements: it takes integer, floating-point or complex ones";
    if (classOf(t) != c)
      return "kind " + kind.str() + " on " + first + " and " + str(t) +
             " elements: its inputs must be all integers, all floating-point "
             "or all complex";
    if ((kind == "sub" || kind == "div") && isI1(t))
      return "kind " + kind.str() + " on i1 elements";
  }
  return std::nullopt;
}
} // namespace

std::optional<std::string>
sinter::whyLinalgRegionBuilderFails(StringRef opName, ArrayRef<Type> inputs,
                                    ArrayRef<Type> outputs, StringRef kind) {
  if (opName == "batch_matmul" || opName == "batch_reduce_matmul")
    return matmulRule(inputs, outputs);
  if (opName == "elementwise")
    return elementwiseRule(kind, inputs);
  return std::nullopt;
}
