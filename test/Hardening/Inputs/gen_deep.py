# The deep inputs of ../nesting-limits.test and ../reproducers.py:
#   gen_deep.py <kind> <n>    writes one to stdout
import sys

FUNC = "func.func @f(%s)%s {\n  return\n}\n"


def generate(kind, n):
    """The text of input `kind` of size `n`."""
    if kind == "regions":  # n regions nested in each other
        body = '"test.op"() ({\n' * n + "}) : () -> ()\n" * n
        return "func.func @f() {\n" + body + "  return\n}\n"
    if kind == "tuples":  # tuple<tuple<...>> n deep
        return FUNC % ("%a: " + "tuple<" * n + ">" * n, "")
    if kind == "sum":  # d0 + d0 + ... (n operators)
        terms = " + ".join(["d0"] * (n + 1))
        return ("#m = affine_map<(d0) -> (%s)>\n" % terms +
                FUNC % ("", " attributes {m = #m}"))
    if kind == "negation":  # - - - d0
        return ("#m = affine_map<(d0) -> (%sd0)>\n" % ("- " * n) +
                FUNC % ("", " attributes {m = #m}"))
    if kind == "alias-chain":  # !t1 = tuple<!t0>, ...: nesting with no text
        lines = ["!t0 = i32"] + ["!t%d = tuple<!t%d>" % (i, i - 1)
                                 for i in range(1, n + 1)]
        return "\n".join(lines) + "\n" + FUNC % ("%%a: !t%d" % n, "")
    if kind == "alias-doubling":  # !t1 = tuple<!t0, !t0>: 2^n leaves
        lines = ["!t0 = i32"] + ["!t%d = tuple<!t%d, !t%d>" % (i, i - 1, i - 1)
                                 for i in range(1, n + 1)]
        return "\n".join(lines) + "\n" + FUNC % ("%%a: !t%d" % n, "")
    if kind == "quoted":  # brackets in comments and strings do not nest
        return ("// " + "(" * n + "\n" +
                FUNC % ("", ' attributes {s = "%s"}' % ("<" * n)))
    raise ValueError("unknown kind " + kind)


if __name__ == "__main__":
    sys.stdout.write(generate(sys.argv[1], int(sys.argv[2])))
