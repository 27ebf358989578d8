# Part of the Sinter project.
"""Prints one line per launch of a CUDA manifest (docs/Manifest.md), for
FileCheck: `<function>: kernel <name>` or, for a library call,
`<function>: cublas_gemm <name> m= n= k= batch= a= b= c= [c_init=]
[bias=<ref>:<dtype>] [activation=<name> [aux=<ref>]] [trans=a|b|ab] accumulate= beta= <a> x <b> -> <c>
(<compute>) ld= stride= fallback=`."""

import json
import sys


def ref(r):
    return "arg%d" % r["arg"] if "arg" in r else "temp%d" % r["temp"]


def main(path):
    with open(path) as f:
        manifest = json.load(f)
    for fn in manifest["functions"]:
        for l in fn["launches"]:
            kind = l.get("kind", "kernel")
            if kind == "kernel":
                print("%s: kernel %s" % (fn["name"], l["kernel"]))
                continue
            fb = l["fallback"]
            trans = "".join(x for x in "ab" if l.get("trans_" + x))
            print("%s: %s %s m=%d n=%d k=%d batch=%d a=%s b=%s c=%s%s%s%s%s "
                  "accumulate=%s beta=%g %s x %s -> %s (%s) ld=%d,%d,%d "
                  "stride=%d,%d,%d fallback=%s[%s]" % (
                      fn["name"], kind, l["name"], l["m"], l["n"], l["k"],
                      l["batch"], ref(l["a"]), ref(l["b"]), ref(l["c"]),
                      " c_init=" + ref(l["c_init"]) if "c_init" in l else "",
                      " bias=%s:%s" % (ref(l["bias"]), l["bias_dtype"])
                      if "bias" in l else "",
                      (" activation=" + l["activation"] +
                       (" aux=" + ref(l["aux"]) if "aux" in l else ""))
                      if "activation" in l else "",
                      " trans=" + trans if trans else "",
                      l["accumulate"], l["beta"], l["a_dtype"], l["b_dtype"],
                      l["c_dtype"], l["compute_dtype"], l["lda"], l["ldb"],
                      l["ldc"], l["stride_a"], l["stride_b"], l["stride_c"],
                      fb["kernel"], ",".join(ref(a) if "type" not in a
                                             else a["type"]
                                             for a in fb["args"])))


if __name__ == "__main__":
    main(sys.argv[1])
