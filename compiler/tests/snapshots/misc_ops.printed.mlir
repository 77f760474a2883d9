module @jit_misc_ops attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<6x5xf32>) -> (tensor<6xi32>, tensor<12x3xf32>, tensor<6x5xf32>, tensor<6x5xf32>, tensor<6x5xf32>) {
    %0 = call @argmax(%arg0) : (tensor<6x5xf32>) -> tensor<6xi32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %1 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<6x5xf32>
    %2 = stablehlo.compare GT, %arg0, %1, FLOAT : (tensor<6x5xf32>, tensor<6x5xf32>) -> tensor<6x5xi1>
    %3 = stablehlo.negate %arg0 : tensor<6x5xf32>
    %4 = call @_where(%2, %arg0, %3) : (tensor<6x5xi1>, tensor<6x5xf32>, tensor<6x5xf32>) -> tensor<6x5xf32>
    %5 = stablehlo.concatenate %arg0, %4, dim = 0 : (tensor<6x5xf32>, tensor<6x5xf32>) -> tensor<12x5xf32>
    %6 = stablehlo.slice %5 [0:12, 0:5:2] : (tensor<12x5xf32>) -> tensor<12x3xf32>
    %cst_0 = stablehlo.constant dense<-4.000000e+00> : tensor<6x5xf32>
    %cst_1 = stablehlo.constant dense<4.000000e+00> : tensor<6x5xf32>
    %7 = stablehlo.clamp %cst_0, %arg0, %cst_1 : tensor<6x5xf32>
    %8 = stablehlo.multiply %7, %7 : tensor<6x5xf32>
    %cst_2 = stablehlo.constant dense<-2.72614237E-10> : tensor<6x5xf32>
    %9 = stablehlo.multiply %cst_2, %8 : tensor<6x5xf32>
    %cst_3 = stablehlo.constant dense<2.77068146E-8> : tensor<6x5xf32>
    %10 = stablehlo.add %9, %cst_3 : tensor<6x5xf32>
    %11 = stablehlo.multiply %10, %8 : tensor<6x5xf32>
    %cst_4 = stablehlo.constant dense<-2.101024e-06> : tensor<6x5xf32>
    %12 = stablehlo.add %11, %cst_4 : tensor<6x5xf32>
    %13 = stablehlo.multiply %12, %8 : tensor<6x5xf32>
    %cst_5 = stablehlo.constant dense<-5.69250624E-5> : tensor<6x5xf32>
    %14 = stablehlo.add %13, %cst_5 : tensor<6x5xf32>
    %15 = stablehlo.multiply %14, %8 : tensor<6x5xf32>
    %cst_6 = stablehlo.constant dense<-7.34990637E-4> : tensor<6x5xf32>
    %16 = stablehlo.add %15, %cst_6 : tensor<6x5xf32>
    %17 = stablehlo.multiply %16, %8 : tensor<6x5xf32>
    %cst_7 = stablehlo.constant dense<-2.954600e-03> : tensor<6x5xf32>
    %18 = stablehlo.add %17, %cst_7 : tensor<6x5xf32>
    %19 = stablehlo.multiply %18, %8 : tensor<6x5xf32>
    %cst_8 = stablehlo.constant dense<-0.0160960332> : tensor<6x5xf32>
    %20 = stablehlo.add %19, %cst_8 : tensor<6x5xf32>
    %cst_9 = stablehlo.constant dense<-1.45660715E-5> : tensor<6x5xf32>
    %21 = stablehlo.multiply %cst_9, %8 : tensor<6x5xf32>
    %cst_10 = stablehlo.constant dense<-2.13374049E-4> : tensor<6x5xf32>
    %22 = stablehlo.add %21, %cst_10 : tensor<6x5xf32>
    %23 = stablehlo.multiply %22, %8 : tensor<6x5xf32>
    %cst_11 = stablehlo.constant dense<-1.682827e-03> : tensor<6x5xf32>
    %24 = stablehlo.add %23, %cst_11 : tensor<6x5xf32>
    %25 = stablehlo.multiply %24, %8 : tensor<6x5xf32>
    %cst_12 = stablehlo.constant dense<-0.00737332925> : tensor<6x5xf32>
    %26 = stablehlo.add %25, %cst_12 : tensor<6x5xf32>
    %27 = stablehlo.multiply %26, %8 : tensor<6x5xf32>
    %cst_13 = stablehlo.constant dense<-0.0142647391> : tensor<6x5xf32>
    %28 = stablehlo.add %27, %cst_13 : tensor<6x5xf32>
    %29 = stablehlo.multiply %7, %20 : tensor<6x5xf32>
    %30 = stablehlo.divide %29, %28 : tensor<6x5xf32>
    %cst_14 = stablehlo.constant dense<-1.000000e+00> : tensor<6x5xf32>
    %cst_15 = stablehlo.constant dense<1.000000e+00> : tensor<6x5xf32>
    %31 = stablehlo.clamp %cst_14, %30, %cst_15 : tensor<6x5xf32>
    %32 = stablehlo.convert %arg0 : (tensor<6x5xf32>) -> tensor<6x5xbf16>
    %33 = stablehlo.convert %32 : (tensor<6x5xbf16>) -> tensor<6x5xf32>
    %34 = call @cumsum(%arg0) : (tensor<6x5xf32>) -> tensor<6x5xf32>
    return %0, %6, %31, %33, %34 : tensor<6xi32>, tensor<12x3xf32>, tensor<6x5xf32>, tensor<6x5xf32>, tensor<6x5xf32>
  }
  func.func private @argmax(%arg0: tensor<6x5xf32>) -> tensor<6xi32> {
    %0 = stablehlo.iota dim = 1 : tensor<6x5xi32>
    %cst = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %1:2 = stablehlo.reduce(%arg0 init: %cst), (%0 init: %c) across dimensions = [1] : (tensor<6x5xf32>, tensor<6x5xi32>, tensor<f32>, tensor<i32>) -> (tensor<6xf32>, tensor<6xi32>)
     reducer(%arg1: tensor<f32>, %arg3: tensor<f32>) (%arg2: tensor<i32>, %arg4: tensor<i32>) {
      %2 = stablehlo.compare GT, %arg1, %arg3, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %3 = stablehlo.compare NE, %arg1, %arg1, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %4 = stablehlo.or %2, %3 : tensor<i1>
      %5 = stablehlo.compare EQ, %arg1, %arg3, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %6 = stablehlo.compare LT, %arg2, %arg4, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      %7 = stablehlo.and %5, %6 : tensor<i1>
      %8 = stablehlo.or %4, %7 : tensor<i1>
      %9 = stablehlo.select %4, %arg1, %arg3 : tensor<i1>, tensor<f32>
      %10 = stablehlo.select %8, %arg2, %arg4 : tensor<i1>, tensor<i32>
      stablehlo.return %9, %10 : tensor<f32>, tensor<i32>
    }
    return %1#1 : tensor<6xi32>
  }
  func.func private @_where(%arg0: tensor<6x5xi1>, %arg1: tensor<6x5xf32>, %arg2: tensor<6x5xf32>) -> tensor<6x5xf32> {
    %0 = stablehlo.select %arg0, %arg1, %arg2 : tensor<6x5xi1>, tensor<6x5xf32>
    return %0 : tensor<6x5xf32>
  }
  func.func private @cumsum(%arg0: tensor<6x5xf32>) -> tensor<6x5xf32> {
    %0 = call @cumsum_0(%arg0) : (tensor<6x5xf32>) -> tensor<6x5xf32>
    return %0 : tensor<6x5xf32>
  }
  func.func private @cumsum_0(%arg0: tensor<6x5xf32>) -> tensor<6x5xf32> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<f32>
    %1 = "stablehlo.reduce_window"(%arg0, %0) <{base_dilations = array<i64: 1, 1>, padding = dense<[[5, 0], [0, 0]]> : tensor<2x2xi64>, window_dilations = array<i64: 1, 1>, window_dimensions = array<i64: 6, 1>, window_strides = array<i64: 1, 1>}> ({
    ^bb0(%arg1: tensor<f32>, %arg2: tensor<f32>):
      %2 = stablehlo.add %arg1, %arg2 : tensor<f32>
      stablehlo.return %2 : tensor<f32>
    }) : (tensor<6x5xf32>, tensor<f32>) -> tensor<6x5xf32>
    return %1 : tensor<6x5xf32>
  }
}
