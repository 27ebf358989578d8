// One elementwise kernel (codegen-threads.test: a program of one kernel compiles whole).
func.func @f(%a: tensor<1024xf32>) -> tensor<1024xf32> {
  %0 = arith.addf %a, %a : tensor<1024xf32>
  return %0 : tensor<1024xf32>
}
