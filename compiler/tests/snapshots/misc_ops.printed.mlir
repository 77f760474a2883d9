module @jit_misc_ops attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<6x5xf32>) -> (tensor<6xi32>, tensor<12x3xf32>, tensor<6x5xf32>, tensor<6x5xf32>, tensor<6x5xf32>) {
    %0 = call @argmax(%arg0) : (tensor<6x5xf32>) -> tensor<6xi32>
    %1 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %2 = stablehlo.broadcast_in_dim %1, dims = [] : (tensor<f32>) -> tensor<6x5xf32>
    %3 = stablehlo.compare GT, %arg0, %2, FLOAT : (tensor<6x5xf32>, tensor<6x5xf32>) -> tensor<6x5xi1>
    %4 = stablehlo.negate %arg0 : tensor<6x5xf32>
    %5 = call @_where(%3, %arg0, %4) : (tensor<6x5xi1>, tensor<6x5xf32>, tensor<6x5xf32>) -> tensor<6x5xf32>
    %6 = stablehlo.concatenate %arg0, %5, dim = 0 : (tensor<6x5xf32>, tensor<6x5xf32>) -> tensor<12x5xf32>
    %7 = stablehlo.slice %6 [0:12, 0:5:2] : (tensor<12x5xf32>) -> tensor<12x3xf32>
    %8 = stablehlo.constant dense<-4.000000e+00> : tensor<6x5xf32>
    %9 = stablehlo.constant dense<4.000000e+00> : tensor<6x5xf32>
    %10 = stablehlo.clamp %8, %arg0, %9 : tensor<6x5xf32>
    %11 = stablehlo.multiply %10, %10 : tensor<6x5xf32>
    %12 = stablehlo.constant dense<-2.7261424e-10> : tensor<6x5xf32>
    %13 = stablehlo.multiply %12, %11 : tensor<6x5xf32>
    %14 = stablehlo.constant dense<2.7706815e-8> : tensor<6x5xf32>
    %15 = stablehlo.add %13, %14 : tensor<6x5xf32>
    %16 = stablehlo.multiply %15, %11 : tensor<6x5xf32>
    %17 = stablehlo.constant dense<-2.101024e-06> : tensor<6x5xf32>
    %18 = stablehlo.add %16, %17 : tensor<6x5xf32>
    %19 = stablehlo.multiply %18, %11 : tensor<6x5xf32>
    %20 = stablehlo.constant dense<-5.6925062e-5> : tensor<6x5xf32>
    %21 = stablehlo.add %19, %20 : tensor<6x5xf32>
    %22 = stablehlo.multiply %21, %11 : tensor<6x5xf32>
    %23 = stablehlo.constant dense<-0.00073499064> : tensor<6x5xf32>
    %24 = stablehlo.add %22, %23 : tensor<6x5xf32>
    %25 = stablehlo.multiply %24, %11 : tensor<6x5xf32>
    %26 = stablehlo.constant dense<-2.954600e-03> : tensor<6x5xf32>
    %27 = stablehlo.add %25, %26 : tensor<6x5xf32>
    %28 = stablehlo.multiply %27, %11 : tensor<6x5xf32>
    %29 = stablehlo.constant dense<-0.016096033> : tensor<6x5xf32>
    %30 = stablehlo.add %28, %29 : tensor<6x5xf32>
    %31 = stablehlo.constant dense<-1.45660715e-5> : tensor<6x5xf32>
    %32 = stablehlo.multiply %31, %11 : tensor<6x5xf32>
    %33 = stablehlo.constant dense<-0.00021337405> : tensor<6x5xf32>
    %34 = stablehlo.add %32, %33 : tensor<6x5xf32>
    %35 = stablehlo.multiply %34, %11 : tensor<6x5xf32>
    %36 = stablehlo.constant dense<-1.682827e-03> : tensor<6x5xf32>
    %37 = stablehlo.add %35, %36 : tensor<6x5xf32>
    %38 = stablehlo.multiply %37, %11 : tensor<6x5xf32>
    %39 = stablehlo.constant dense<-0.0073733293> : tensor<6x5xf32>
    %40 = stablehlo.add %38, %39 : tensor<6x5xf32>
    %41 = stablehlo.multiply %40, %11 : tensor<6x5xf32>
    %42 = stablehlo.constant dense<-0.014264739> : tensor<6x5xf32>
    %43 = stablehlo.add %41, %42 : tensor<6x5xf32>
    %44 = stablehlo.multiply %10, %30 : tensor<6x5xf32>
    %45 = stablehlo.divide %44, %43 : tensor<6x5xf32>
    %46 = stablehlo.constant dense<-1.000000e+00> : tensor<6x5xf32>
    %47 = stablehlo.constant dense<1.000000e+00> : tensor<6x5xf32>
    %48 = stablehlo.clamp %46, %45, %47 : tensor<6x5xf32>
    %49 = stablehlo.convert %arg0 : (tensor<6x5xf32>) -> tensor<6x5xbf16>
    %50 = stablehlo.convert %49 : (tensor<6x5xbf16>) -> tensor<6x5xf32>
    %51 = call @cumsum(%arg0) : (tensor<6x5xf32>) -> tensor<6x5xf32>
    return %0, %7, %48, %50, %51 : tensor<6xi32>, tensor<12x3xf32>, tensor<6x5xf32>, tensor<6x5xf32>, tensor<6x5xf32>
  }
  func.func private @argmax(%arg0: tensor<6x5xf32>) -> tensor<6xi32> {
    %0 = stablehlo.iota dim = 1 : tensor<6x5xi32>
    %1 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %2 = stablehlo.constant dense<0> : tensor<i32>
    %3:2 = stablehlo.reduce(%arg0 init: %1), (%0 init: %2) across dimensions = [1] : (tensor<6x5xf32>, tensor<6x5xi32>, tensor<f32>, tensor<i32>) -> (tensor<6xf32>, tensor<6xi32>)
     reducer(%arg1: tensor<f32>, %arg3: tensor<f32>) (%arg2: tensor<i32>, %arg4: tensor<i32>) {
      %4 = stablehlo.compare GT, %arg1, %arg3, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %5 = stablehlo.compare NE, %arg1, %arg1, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %6 = stablehlo.or %4, %5 : tensor<i1>
      %7 = stablehlo.compare EQ, %arg1, %arg3, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %8 = stablehlo.compare LT, %arg2, %arg4, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      %9 = stablehlo.and %7, %8 : tensor<i1>
      %10 = stablehlo.or %6, %9 : tensor<i1>
      %11 = stablehlo.select %6, %arg1, %arg3 : tensor<i1>, tensor<f32>
      %12 = stablehlo.select %10, %arg2, %arg4 : tensor<i1>, tensor<i32>
      stablehlo.return %11, %12 : tensor<f32>, tensor<i32>
    }
    return %3#1 : tensor<6xi32>
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
    %0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %1 = stablehlo.broadcast_in_dim %0, dims = [] : (tensor<f32>) -> tensor<f32>
    %2 = "stablehlo.reduce_window"(%arg0, %1) <{base_dilations = array<i64: 1, 1>, padding = dense<[[5, 0], [0, 0]]> : tensor<2x2xi64>, window_dilations = array<i64: 1, 1>, window_dimensions = array<i64: 6, 1>, window_strides = array<i64: 1, 1>}> ({
    ^bb0(%arg1: tensor<f32>, %arg2: tensor<f32>):
      %3 = stablehlo.add %arg1, %arg2 : tensor<f32>
      stablehlo.return %3 : tensor<f32>
    }) : (tensor<6x5xf32>, tensor<f32>) -> tensor<6x5xf32>
    return %2 : tensor<6x5xf32>
  }
}
