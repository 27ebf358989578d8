#!/usr/bin/env python3
"""Prints the FileCheck expectations of the corpus tests (gpt2.test, ...)
from what the fusion pipeline does today:

    cd test/Frontends/Inputs && python3 ../tools/expectations.py gpt2_*.mlir

It is a starting point for a reviewer, not an oracle: each difference from
the committed expectations must be checked (is the new fusion right? is the
lost one a regression?) before the test file is updated. SUFFIX and OPTS
(" allow-rng-change=true") select a second run of the train-mode files.
Uses build/bin/sinter-opt of the checkout this script is in.
"""
import os
import re
import subprocess
import sys
HERE = os.path.dirname(os.path.abspath(__file__))
inputs = os.path.join(HERE, "..", "Inputs")
SINTER_OPT = os.path.join(HERE, "..", "..", "..", "build", "bin", "sinter-opt")
def prefix(name):
    p = name.replace('.mlir','').replace('.linalg','').replace('.tosa','-TOSA').upper()
    return re.sub(r'[^A-Z0-9]+', '-', p).strip('-')
def run(path, opts):
    r = subprocess.run([SINTER_OPT, path, "--sinter-fusion-pipeline=report-summary=true" + opts, "-mlir-print-op-on-diagnostic=false"], capture_output=True, text=True)
    return r.stdout, r.stderr
opts = os.environ.get("OPTS", "")
for name in sys.argv[1:]:
    path = os.path.join(inputs, name)
    P = prefix(name) + os.environ.get("SUFFIX", "")
    out, err = run(path, opts)
    summ = [l for l in err.splitlines() if l.startswith("sinter-fusion-report")]
    rem = []
    for l in err.splitlines():
        if ("remark: not fused as" in l and "not fused as elementwise" not in l) or "remark: attention mask" in l:
            m = re.match(r'^.*?:(\d+):\d+: remark: (.*)$', l)
            rem.append((m.group(1), m.group(2)))
    att = [l.strip() for l in out.splitlines() if "= sinter.attention" in l]
    o = ' allow-rng-change=true' if opts else ''
    print('// RUN: sinter-opt %%S/Inputs/%s --sinter-fusion-pipeline="report-summary=true%s" \\\n// RUN:   -mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %%s --check-prefix=%s' % (name, o, P))
    print('// RUN: sinter-opt %%S/Inputs/%s --sinter-fusion-pipeline=\"report-summary=true%s\" 2>/dev/null \\\n// RUN:   | FileCheck %%s --check-prefix=%s-IR' % (name, ('="allow-rng-change=true"' if opts else ''), P))
    for line, msg in rem:
        msg = msg.replace('[', '{{\\[}}')
        print("// %s-DAG: :%s:{{[0-9]+}}: remark: %s" % (P, line, msg))
    for i, l in enumerate(summ):
        l = re.sub(r', \d+ bytes avoided', '', l)
        print("// %s%s: %s" % (P, "" if i == 0 else "-NEXT", l))
    print("// %s-NOT: sinter-fusion-report" % P)
    for a in att:
        a = re.sub(r'%[\w]+', '%{{.*}}', a)
        a = re.sub(r'sinter.fusion = \[[^\]]*\]', '', a).replace('{, ','{').replace(', }','}').replace(' {} ',' ')
        print("// %s-IR: %s" % (P, a.split("= ",1)[1]))
    if not att:
        print("// %s-IR-NOT: sinter.attention" % P)
    print("")
