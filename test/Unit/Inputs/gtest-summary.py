# Part of the Sinter project.
"""Runs a GoogleTest binary and prints what ran, for FileCheck:

    gtest-summary.py [--] COMMAND ARGS...

prints "<N> tests, <P> passed, <S> skipped, <F> failed", then one line
"skipped <Suite.Test>" per skipped test and one "failed <Suite.Test>" per
failure (each sorted), then "end". The binary's own output goes to stderr;
the exit status is the binary's. So a lit test can check the count of tests
that ran and exactly which were skipped, instead of a bare [  PASSED  ].
"""

import json
import os
import subprocess
import sys
import tempfile


def main():
    command = sys.argv[1:]
    if command and command[0] == "--":
        command = command[1:]
    if not command:
        sys.exit("usage: gtest-summary.py [--] COMMAND ARGS...")
    fd, report = tempfile.mkstemp(suffix=".json")
    os.close(fd)
    try:
        proc = subprocess.run(command + ["--gtest_output=json:" + report],
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        sys.stderr.write(proc.stdout.decode("utf-8", "replace"))
        try:
            with open(report) as f:
                results = json.load(f)
        except (OSError, ValueError) as e:
            print("no test report (%s); exit status %d" % (e, proc.returncode))
            return proc.returncode or 1
    finally:
        os.remove(report)
    skipped, failed, passed = [], [], 0
    for suite in results.get("testsuites", []):
        for test in suite.get("testsuite", []):
            name = "%s.%s" % (suite["name"], test["name"])
            if test.get("failures"):
                failed.append(name)
            elif test.get("result") == "SKIPPED":
                skipped.append(name)
            elif test.get("status") == "RUN":
                passed += 1
    print("%d tests, %d passed, %d skipped, %d failed"
          % (passed + len(skipped) + len(failed), passed, len(skipped),
             len(failed)))
    for name in sorted(skipped):
        print("skipped " + name)
    for name in sorted(failed):
        print("failed " + name)
    print("end")
    return proc.returncode


if __name__ == "__main__":
    sys.exit(main())
