// RUN: sinter-opt %s --sinter-fuse-elementwise=allow-rng-change=true --split-input-file -verify-diagnostics -mlir-print-op-on-diagnostic=false | FileCheck %s

// Frontend dropouts that must not become sinter.dropout even with
// allow-rng-change: each stays as written (the chain still fuses) with a
// near-miss remark saying why.

// The random value compared with a per-element threshold tensor: not a
// dropout with one probability.
#id = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @threshold_tensor(
// CHECK: linalg.generic
// CHECK: sinter.fused
// CHECK: arith.cmpf olt
// CHECK-NOT: sinter.dropout
func.func @threshold_tensor(%x: tensor<8x16xf32>, %t: tensor<8x16xf32>, %seed: i64) -> tensor<8x16xf32> {
  %eu = tensor.empty() : tensor<8x16xf32>
  %u = linalg.generic {indexing_maps = [#id], iterator_types = ["parallel", "parallel"]} outs(%eu : tensor<8x16xf32>) {
  ^bb0(%o: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %a = arith.index_cast %i : index to i64
    %b = arith.index_cast %j : index to i64
    %c16 = arith.constant 16 : i64
    %r = arith.muli %a, %c16 : i64
    %ctr = arith.addi %r, %b : i64
    %h0 = arith.xori %ctr, %seed : i64
    %k1 = arith.constant -7046029254386353131 : i64
    %h1 = arith.muli %h0, %k1 : i64
    %c40 = arith.constant 40 : i64
    %h2 = arith.shrui %h1, %c40 : i64
    %f = arith.uitofp %h2 : i64 to f32
    %s = arith.constant 5.96046448E-8 : f32
    %v = arith.mulf %f, %s : f32
    linalg.yield %v : f32
  } -> tensor<8x16xf32>
  // expected-remark @below {{fused elementwise}}
  %d = linalg.generic {indexing_maps = [#id, #id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%u, %t, %x : tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x16xf32>) outs(%eu : tensor<8x16xf32>) {
  ^bb0(%uv: f32, %tv: f32, %xv: f32, %o: f32):
    // expected-remark @below {{not fused as dropout: the random value is compared with a threshold that is not a uniform constant}}
    %keep = arith.cmpf olt, %uv, %tv : f32
    %m = arith.uitofp %keep : i1 to f32
    %y = arith.mulf %m, %xv : f32
    %q = arith.constant 0.899999976 : f32
    %z = arith.divf %y, %q : f32
    linalg.yield %z : f32
  } -> tensor<8x16xf32>
  return %d : tensor<8x16xf32>
}

// -----

// Kept elements scaled by 2 where p = 0.1 asks for 1/0.9.
#id = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @wrong_scale(
// CHECK: linalg.generic
// CHECK: sinter.fused
// CHECK-NOT: sinter.dropout
func.func @wrong_scale(%x: tensor<8x16xf32>, %seed: i64) -> tensor<8x16xf32> {
  %eu = tensor.empty() : tensor<8x16xf32>
  %u = linalg.generic {indexing_maps = [#id], iterator_types = ["parallel", "parallel"]} outs(%eu : tensor<8x16xf32>) {
  ^bb0(%o: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %a = arith.index_cast %i : index to i64
    %b = arith.index_cast %j : index to i64
    %c16 = arith.constant 16 : i64
    %r = arith.muli %a, %c16 : i64
    %ctr = arith.addi %r, %b : i64
    %h0 = arith.xori %ctr, %seed : i64
    %k1 = arith.constant -7046029254386353131 : i64
    %h1 = arith.muli %h0, %k1 : i64
    %c40 = arith.constant 40 : i64
    %h2 = arith.shrui %h1, %c40 : i64
    %f = arith.uitofp %h2 : i64 to f32
    %s = arith.constant 5.96046448E-8 : f32
    %v = arith.mulf %f, %s : f32
    linalg.yield %v : f32
  } -> tensor<8x16xf32>
  %e1 = tensor.empty() : tensor<8x16xi1>
  %keep = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%u : tensor<8x16xf32>) outs(%e1 : tensor<8x16xi1>) {
  ^bb0(%uv: f32, %o: i1):
    %q = arith.constant 0.899999976 : f32
    %k = arith.cmpf olt, %uv, %q : f32
    linalg.yield %k : i1
  } -> tensor<8x16xi1>
  // expected-remark @below {{fused elementwise}}
  %d = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%keep, %x : tensor<8x16xi1>, tensor<8x16xf32>) outs(%eu : tensor<8x16xf32>) {
  ^bb0(%k: i1, %xv: f32, %o: f32):
    %m = arith.uitofp %k : i1 to f32
    %y = arith.mulf %m, %xv : f32
    %two = arith.constant 2.000000e+00 : f32
    // expected-remark @below {{not fused as dropout: the kept elements are scaled by 2, not 1/(1 - p) = 1.11111}}
    %z = arith.mulf %y, %two : f32
    linalg.yield %z : f32
  } -> tensor<8x16xf32>
  return %d : tensor<8x16xf32>
}

// -----

// One row of random numbers broadcast over the rows: elements of a column
// share one draw, so the mask's shape does not match the dropped tensor.
#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>
#id1 = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @broadcast_random(
// CHECK: linalg.generic
// CHECK: sinter.fused
// CHECK-NOT: sinter.dropout
func.func @broadcast_random(%x: tensor<8x16xf32>, %seed: i64) -> tensor<8x16xf32> {
  %eu = tensor.empty() : tensor<16xf32>
  %u = linalg.generic {indexing_maps = [#id1], iterator_types = ["parallel"]} outs(%eu : tensor<16xf32>) {
  ^bb0(%o: f32):
    %j = linalg.index 0 : index
    %ctr = arith.index_cast %j : index to i64
    %h0 = arith.xori %ctr, %seed : i64
    %k1 = arith.constant -7046029254386353131 : i64
    %h1 = arith.muli %h0, %k1 : i64
    %c40 = arith.constant 40 : i64
    %h2 = arith.shrui %h1, %c40 : i64
    %f = arith.uitofp %h2 : i64 to f32
    %s = arith.constant 5.96046448E-8 : f32
    %v = arith.mulf %f, %s : f32
    linalg.yield %v : f32
  } -> tensor<16xf32>
  %e = tensor.empty() : tensor<8x16xf32>
  // expected-remark @below {{fused elementwise}}
  // expected-remark @below {{not fused as dropout: the random tensor is read through a broadcast or transpose map, not one draw per element}}
  %d = linalg.generic {indexing_maps = [#col, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%u, %x : tensor<16xf32>, tensor<8x16xf32>) outs(%e : tensor<8x16xf32>) {
  ^bb0(%uv: f32, %xv: f32, %o: f32):
    %q = arith.constant 0.899999976 : f32
    %k = arith.cmpf olt, %uv, %q : f32
    %xs = arith.divf %xv, %q : f32
    %z = arith.constant 0.000000e+00 : f32
    %y = arith.select %k, %xs, %z : f32
    linalg.yield %y : f32
  } -> tensor<8x16xf32>
  return %d : tensor<8x16xf32>
}

// -----

// A generator whose values do not depend on the row index: every row
// draws the same numbers.
#id = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @row_shared_draws(
// CHECK: linalg.generic
// CHECK: sinter.fused
// CHECK-NOT: sinter.dropout
func.func @row_shared_draws(%x: tensor<8x16xf32>, %seed: i64) -> tensor<8x16xf32> {
  %eu = tensor.empty() : tensor<8x16xf32>
  %u = linalg.generic {indexing_maps = [#id], iterator_types = ["parallel", "parallel"]} outs(%eu : tensor<8x16xf32>) {
  ^bb0(%o: f32):
    %j = linalg.index 1 : index
    %ctr = arith.index_cast %j : index to i64
    %h0 = arith.xori %ctr, %seed : i64
    %k1 = arith.constant -7046029254386353131 : i64
    %h1 = arith.muli %h0, %k1 : i64
    %c40 = arith.constant 40 : i64
    %h2 = arith.shrui %h1, %c40 : i64
    %f = arith.uitofp %h2 : i64 to f32
    %s = arith.constant 5.96046448E-8 : f32
    %v = arith.mulf %f, %s : f32
    linalg.yield %v : f32
  } -> tensor<8x16xf32>
  // expected-remark @below {{fused elementwise}}
  // expected-remark @below {{not fused as dropout: the random tensor cannot be replaced: its random values do not depend on dimension 0 (elements along it share one draw)}}
  %d = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%u, %x : tensor<8x16xf32>, tensor<8x16xf32>) outs(%eu : tensor<8x16xf32>) {
  ^bb0(%uv: f32, %xv: f32, %o: f32):
    %q = arith.constant 0.899999976 : f32
    %k = arith.cmpf olt, %uv, %q : f32
    %xs = arith.divf %xv, %q : f32
    %z = arith.constant 0.000000e+00 : f32
    %y = arith.select %k, %xs, %z : f32
    linalg.yield %y : f32
  } -> tensor<8x16xf32>
  return %d : tensor<8x16xf32>
}

// -----

// The mask is also returned: the dropout cannot hide it in sinter.dropout.
#id = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @mask_returned(
// CHECK: linalg.generic
// CHECK: sinter.fused
// CHECK-NOT: sinter.dropout
func.func @mask_returned(%x: tensor<8x16xf32>, %seed: i64) -> (tensor<8x16xf32>, tensor<8x16xf32>) {
  %eu = tensor.empty() : tensor<8x16xf32>
  %u = linalg.generic {indexing_maps = [#id], iterator_types = ["parallel", "parallel"]} outs(%eu : tensor<8x16xf32>) {
  ^bb0(%o: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %a = arith.index_cast %i : index to i64
    %b = arith.index_cast %j : index to i64
    %c16 = arith.constant 16 : i64
    %r = arith.muli %a, %c16 : i64
    %ctr = arith.addi %r, %b : i64
    %h0 = arith.xori %ctr, %seed : i64
    %k1 = arith.constant -7046029254386353131 : i64
    %h1 = arith.muli %h0, %k1 : i64
    %c40 = arith.constant 40 : i64
    %h2 = arith.shrui %h1, %c40 : i64
    %f = arith.uitofp %h2 : i64 to f32
    %s = arith.constant 5.96046448E-8 : f32
    %v = arith.mulf %f, %s : f32
    linalg.yield %v : f32
  } -> tensor<8x16xf32>
  %mask = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%u : tensor<8x16xf32>) outs(%eu : tensor<8x16xf32>) {
  ^bb0(%uv: f32, %o: f32):
    %q = arith.constant 0.899999976 : f32
    %k = arith.cmpf olt, %uv, %q : f32
    // expected-remark @below {{not fused as dropout: the keep mask is used more than once}}
    %m = arith.uitofp %k : i1 to f32
    linalg.yield %m : f32
  } -> tensor<8x16xf32>
  // expected-remark @below {{fused elementwise}}
  %d = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%mask, %x : tensor<8x16xf32>, tensor<8x16xf32>) outs(%eu : tensor<8x16xf32>) {
  ^bb0(%m: f32, %xv: f32, %o: f32):
    %y = arith.mulf %m, %xv : f32
    %q = arith.constant 0.899999976 : f32
    %z = arith.divf %y, %q : f32
    linalg.yield %z : f32
  } -> tensor<8x16xf32>
  return %d, %mask : tensor<8x16xf32>, tensor<8x16xf32>
}

// -----

// A generator reading two run-time values: which one is the seed (and
// whether the other changes the stream) is not known.
#id = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @two_runtime_keys(
// CHECK: linalg.generic
// CHECK: sinter.fused
// CHECK-NOT: sinter.dropout
func.func @two_runtime_keys(%x: tensor<8x16xf32>, %seed: i64, %offset: i64) -> tensor<8x16xf32> {
  %eu = tensor.empty() : tensor<8x16xf32>
  %u = linalg.generic {indexing_maps = [#id], iterator_types = ["parallel", "parallel"]} outs(%eu : tensor<8x16xf32>) {
  ^bb0(%o: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %a = arith.index_cast %i : index to i64
    %b = arith.index_cast %j : index to i64
    %c16 = arith.constant 16 : i64
    %r = arith.muli %a, %c16 : i64
    %ctr0 = arith.addi %r, %b : i64
    %ctr = arith.addi %ctr0, %offset : i64
    %h0 = arith.xori %ctr, %seed : i64
    %k1 = arith.constant -7046029254386353131 : i64
    %h1 = arith.muli %h0, %k1 : i64
    %c40 = arith.constant 40 : i64
    %h2 = arith.shrui %h1, %c40 : i64
    %f = arith.uitofp %h2 : i64 to f32
    %s = arith.constant 5.96046448E-8 : f32
    %v = arith.mulf %f, %s : f32
    linalg.yield %v : f32
  } -> tensor<8x16xf32>
  // expected-remark @below {{fused elementwise}}
  // expected-remark @below {{not fused as dropout: the random tensor cannot be replaced: its generator reads 2 run-time values, so which one is the seed is ambiguous}}
  %d = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%u, %x : tensor<8x16xf32>, tensor<8x16xf32>) outs(%eu : tensor<8x16xf32>) {
  ^bb0(%uv: f32, %xv: f32, %o: f32):
    %q = arith.constant 0.899999976 : f32
    %k = arith.cmpf olt, %uv, %q : f32
    %xs = arith.divf %xv, %q : f32
    %z = arith.constant 0.000000e+00 : f32
    %y = arith.select %k, %xs, %z : f32
    linalg.yield %y : f32
  } -> tensor<8x16xf32>
  return %d : tensor<8x16xf32>
}

// -----

// Not random at all: an index-computed mask (a causal fill made from a
// comparison, -1e9 above the diagonal) is an ordinary elementwise input,
// with no dropout remark.
#id = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @index_mask(
// CHECK: linalg.generic
// CHECK: sinter.fused
func.func @index_mask(%x: tensor<16x16xf32>) -> tensor<16x16xf32> {
  %e = tensor.empty() : tensor<16x16xf32>
  %mk = linalg.generic {indexing_maps = [#id], iterator_types = ["parallel", "parallel"]} outs(%e : tensor<16x16xf32>) {
  ^bb0(%o: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %gt = arith.cmpi ugt, %j, %i : index
    %f = arith.uitofp %gt : i1 to f32
    %big = arith.constant -1.000000e+09 : f32
    %v = arith.mulf %f, %big : f32
    linalg.yield %v : f32
  } -> tensor<16x16xf32>
  // expected-remark @below {{fused elementwise}}
  %y = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%x, %mk : tensor<16x16xf32>, tensor<16x16xf32>) outs(%e : tensor<16x16xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %0 = arith.addf %a, %b : f32
    linalg.yield %0 : f32
  } -> tensor<16x16xf32>
  return %y : tensor<16x16xf32>
}

// -----

// The random value decides the mask and is also added to the result: the
// draws cannot be replaced one by one.
#id = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @random_used_twice(
// CHECK: linalg.generic
// CHECK: sinter.fused
// CHECK-NOT: sinter.dropout
func.func @random_used_twice(%x: tensor<8x16xf32>, %seed: i64) -> tensor<8x16xf32> {
  %eu = tensor.empty() : tensor<8x16xf32>
  %u = linalg.generic {indexing_maps = [#id], iterator_types = ["parallel", "parallel"]} outs(%eu : tensor<8x16xf32>) {
  ^bb0(%o: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %a = arith.index_cast %i : index to i64
    %b = arith.index_cast %j : index to i64
    %c16 = arith.constant 16 : i64
    %r = arith.muli %a, %c16 : i64
    %ctr = arith.addi %r, %b : i64
    %h0 = arith.xori %ctr, %seed : i64
    %k1 = arith.constant -7046029254386353131 : i64
    %h1 = arith.muli %h0, %k1 : i64
    %c40 = arith.constant 40 : i64
    %h2 = arith.shrui %h1, %c40 : i64
    %f = arith.uitofp %h2 : i64 to f32
    %s = arith.constant 5.96046448E-8 : f32
    %v = arith.mulf %f, %s : f32
    linalg.yield %v : f32
  } -> tensor<8x16xf32>
  // expected-remark @below {{fused elementwise}}
  %d = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%u, %x : tensor<8x16xf32>, tensor<8x16xf32>) outs(%eu : tensor<8x16xf32>) {
  ^bb0(%uv: f32, %xv: f32, %o: f32):
    %q = arith.constant 0.899999976 : f32
    // expected-remark @below {{not fused as dropout: the random value is used more than once (each draw may decide one element)}}
    %k = arith.cmpf olt, %uv, %q : f32
    %xs = arith.divf %xv, %q : f32
    %z = arith.constant 0.000000e+00 : f32
    %y = arith.select %k, %xs, %z : f32
    %w = arith.addf %y, %uv : f32
    linalg.yield %w : f32
  } -> tensor<8x16xf32>
  return %d : tensor<8x16xf32>
}

// -----

// Random noise added to a value, never compared: not a dropout, no dropout
// remark, the generator stays.
#id = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @noise(
// CHECK: linalg.generic
// CHECK: sinter.fused
// CHECK-NOT: sinter.dropout
func.func @noise(%x: tensor<8x16xf32>, %seed: i64) -> tensor<8x16xf32> {
  %eu = tensor.empty() : tensor<8x16xf32>
  %u = linalg.generic {indexing_maps = [#id], iterator_types = ["parallel", "parallel"]} outs(%eu : tensor<8x16xf32>) {
  ^bb0(%o: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %a = arith.index_cast %i : index to i64
    %b = arith.index_cast %j : index to i64
    %c16 = arith.constant 16 : i64
    %r = arith.muli %a, %c16 : i64
    %ctr = arith.addi %r, %b : i64
    %h0 = arith.xori %ctr, %seed : i64
    %k1 = arith.constant -7046029254386353131 : i64
    %h1 = arith.muli %h0, %k1 : i64
    %c40 = arith.constant 40 : i64
    %h2 = arith.shrui %h1, %c40 : i64
    %f = arith.uitofp %h2 : i64 to f32
    %s = arith.constant 5.96046448E-8 : f32
    %v = arith.mulf %f, %s : f32
    linalg.yield %v : f32
  } -> tensor<8x16xf32>
  // expected-remark @below {{fused elementwise}}
  %d = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%u, %x : tensor<8x16xf32>, tensor<8x16xf32>) outs(%eu : tensor<8x16xf32>) {
  ^bb0(%uv: f32, %xv: f32, %o: f32):
    %c = arith.constant 1.000000e-02 : f32
    %n = arith.mulf %uv, %c : f32
    %w = arith.addf %xv, %n : f32
    linalg.yield %w : f32
  } -> tensor<8x16xf32>
  return %d : tensor<8x16xf32>
}
