// RUN: sinter-opt %s --sinter-fusion-report -verify-diagnostics -split-input-file
// RUN: not sinter-opt %s --split-input-file --sinter-fusion-report=%t.missing/dir/r.json 2>&1 | FileCheck %s

// CHECK: cannot write fusion report '{{.*}}r.json'

// expected-error @below {{malformed 'sinter.fusion' attribute: expected an array of {pattern, bytes_avoided} dictionaries}}
%0 = arith.constant {sinter.fusion = 3 : i64} 1.0 : f32

// -----

// expected-error @below {{malformed 'sinter.fusion' attribute}}
%0 = arith.constant {sinter.fusion = [{pattern = "softmax"}]} 1.0 : f32

// -----

// A file that cannot be written (second RUN line).
func.func @ok() {
  return
}

