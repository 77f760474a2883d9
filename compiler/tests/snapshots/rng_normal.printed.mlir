module @jit_rng_normal attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<2xui32>) -> tensor<4x4xf32> {
    %0 = call @_normal(%arg0) : (tensor<2xui32>) -> tensor<4x4xf32>
    return %0 : tensor<4x4xf32>
  }
  func.func private @_normal(%arg0: tensor<2xui32>) -> tensor<4x4xf32> {
    %0 = call @_normal_real(%arg0) : (tensor<2xui32>) -> tensor<4x4xf32>
    return %0 : tensor<4x4xf32>
  }
  func.func private @_normal_real(%arg0: tensor<2xui32>) -> tensor<4x4xf32> {
    %0 = stablehlo.constant dense<-0.99999994> : tensor<f32>
    %1 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %2 = call @_uniform(%arg0, %0, %1) : (tensor<2xui32>, tensor<f32>, tensor<f32>) -> tensor<4x4xf32>
    %3 = stablehlo.negate %2 : tensor<4x4xf32>
    %4 = stablehlo.multiply %2, %3 : tensor<4x4xf32>
    %5 = stablehlo.log_plus_one %4 : tensor<4x4xf32>
    %6 = stablehlo.negate %5 : tensor<4x4xf32>
    %7 = stablehlo.constant dense<5.000000e+00> : tensor<4x4xf32>
    %8 = stablehlo.compare LT, %6, %7 : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xi1>
    %9 = stablehlo.constant dense<2.500000e+00> : tensor<4x4xf32>
    %10 = stablehlo.subtract %6, %9 : tensor<4x4xf32>
    %11 = stablehlo.sqrt %6 : tensor<4x4xf32>
    %12 = stablehlo.constant dense<3.000000e+00> : tensor<4x4xf32>
    %13 = stablehlo.subtract %11, %12 : tensor<4x4xf32>
    %14 = stablehlo.select %8, %10, %13 : tensor<4x4xi1>, tensor<4x4xf32>
    %15 = stablehlo.constant dense<2.8102264e-8> : tensor<4x4xf32>
    %16 = stablehlo.constant dense<-0.00020021426> : tensor<4x4xf32>
    %17 = stablehlo.select %8, %15, %16 : tensor<4x4xi1>, tensor<4x4xf32>
    %18 = stablehlo.constant dense<3.4327394e-7> : tensor<4x4xf32>
    %19 = stablehlo.constant dense<0.00010095056> : tensor<4x4xf32>
    %20 = stablehlo.select %8, %18, %19 : tensor<4x4xi1>, tensor<4x4xf32>
    %21 = stablehlo.multiply %17, %14 : tensor<4x4xf32>
    %22 = stablehlo.add %20, %21 : tensor<4x4xf32>
    %23 = stablehlo.constant dense<-3.5233877e-6> : tensor<4x4xf32>
    %24 = stablehlo.constant dense<0.0013493432> : tensor<4x4xf32>
    %25 = stablehlo.select %8, %23, %24 : tensor<4x4xi1>, tensor<4x4xf32>
    %26 = stablehlo.multiply %22, %14 : tensor<4x4xf32>
    %27 = stablehlo.add %25, %26 : tensor<4x4xf32>
    %28 = stablehlo.constant dense<-4.3915065e-6> : tensor<4x4xf32>
    %29 = stablehlo.constant dense<-0.0036734284> : tensor<4x4xf32>
    %30 = stablehlo.select %8, %28, %29 : tensor<4x4xi1>, tensor<4x4xf32>
    %31 = stablehlo.multiply %27, %14 : tensor<4x4xf32>
    %32 = stablehlo.add %30, %31 : tensor<4x4xf32>
    %33 = stablehlo.constant dense<0.00021858087> : tensor<4x4xf32>
    %34 = stablehlo.constant dense<0.0057395077> : tensor<4x4xf32>
    %35 = stablehlo.select %8, %33, %34 : tensor<4x4xi1>, tensor<4x4xf32>
    %36 = stablehlo.multiply %32, %14 : tensor<4x4xf32>
    %37 = stablehlo.add %35, %36 : tensor<4x4xf32>
    %38 = stablehlo.constant dense<-1.253725e-03> : tensor<4x4xf32>
    %39 = stablehlo.constant dense<-0.0076224613> : tensor<4x4xf32>
    %40 = stablehlo.select %8, %38, %39 : tensor<4x4xi1>, tensor<4x4xf32>
    %41 = stablehlo.multiply %37, %14 : tensor<4x4xf32>
    %42 = stablehlo.add %40, %41 : tensor<4x4xf32>
    %43 = stablehlo.constant dense<-0.0041776816> : tensor<4x4xf32>
    %44 = stablehlo.constant dense<0.0094388705> : tensor<4x4xf32>
    %45 = stablehlo.select %8, %43, %44 : tensor<4x4xi1>, tensor<4x4xf32>
    %46 = stablehlo.multiply %42, %14 : tensor<4x4xf32>
    %47 = stablehlo.add %45, %46 : tensor<4x4xf32>
    %48 = stablehlo.constant dense<0.24664073> : tensor<4x4xf32>
    %49 = stablehlo.constant dense<1.001674e+00> : tensor<4x4xf32>
    %50 = stablehlo.select %8, %48, %49 : tensor<4x4xi1>, tensor<4x4xf32>
    %51 = stablehlo.multiply %47, %14 : tensor<4x4xf32>
    %52 = stablehlo.add %50, %51 : tensor<4x4xf32>
    %53 = stablehlo.constant dense<1.5014094> : tensor<4x4xf32>
    %54 = stablehlo.constant dense<2.8329768> : tensor<4x4xf32>
    %55 = stablehlo.select %8, %53, %54 : tensor<4x4xi1>, tensor<4x4xf32>
    %56 = stablehlo.multiply %52, %14 : tensor<4x4xf32>
    %57 = stablehlo.add %55, %56 : tensor<4x4xf32>
    %58 = stablehlo.multiply %57, %2 : tensor<4x4xf32>
    %59 = stablehlo.abs %2 : tensor<4x4xf32>
    %60 = stablehlo.constant dense<1.000000e+00> : tensor<4x4xf32>
    %61 = stablehlo.compare EQ, %59, %60 : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xi1>
    %62 = stablehlo.constant dense<0x7F800000> : tensor<4x4xf32>
    %63 = stablehlo.multiply %2, %62 : tensor<4x4xf32>
    %64 = stablehlo.select %61, %63, %58 : tensor<4x4xi1>, tensor<4x4xf32>
    %65 = stablehlo.constant dense<1.4142135> : tensor<f32>
    %66 = stablehlo.broadcast_in_dim %65, dims = [] : (tensor<f32>) -> tensor<4x4xf32>
    %67 = stablehlo.multiply %66, %64 : tensor<4x4xf32>
    return %67 : tensor<4x4xf32>
  }
  func.func private @_uniform(%arg0: tensor<2xui32>, %arg1: tensor<f32>, %arg2: tensor<f32>) -> tensor<4x4xf32> {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [] : (tensor<f32>) -> tensor<1x1xf32>
    %1 = stablehlo.broadcast_in_dim %arg2, dims = [] : (tensor<f32>) -> tensor<1x1xf32>
    %2 = stablehlo.slice %arg0 [0:1] : (tensor<2xui32>) -> tensor<1xui32>
    %3 = stablehlo.reshape %2 : (tensor<1xui32>) -> tensor<ui32>
    %4 = stablehlo.slice %arg0 [1:2] : (tensor<2xui32>) -> tensor<1xui32>
    %5 = stablehlo.reshape %4 : (tensor<1xui32>) -> tensor<ui32>
    %6 = stablehlo.iota dim = 0 : tensor<4x4xui64>
    %7 = stablehlo.iota dim = 1 : tensor<4x4xui64>
    %8 = stablehlo.constant dense<4> : tensor<ui64>
    %9 = stablehlo.broadcast_in_dim %8, dims = [] : (tensor<ui64>) -> tensor<4x4xui64>
    %10 = stablehlo.multiply %9, %6 : tensor<4x4xui64>
    %11 = stablehlo.constant dense<1> : tensor<ui64>
    %12 = stablehlo.broadcast_in_dim %11, dims = [] : (tensor<ui64>) -> tensor<4x4xui64>
    %13 = stablehlo.multiply %12, %7 : tensor<4x4xui64>
    %14 = stablehlo.add %10, %13 : tensor<4x4xui64>
    %15 = stablehlo.constant dense<32> : tensor<ui64>
    %16 = stablehlo.broadcast_in_dim %15, dims = [] : (tensor<ui64>) -> tensor<4x4xui64>
    %17 = stablehlo.shift_right_logical %14, %16 : tensor<4x4xui64>
    %18 = stablehlo.convert %14 : (tensor<4x4xui64>) -> tensor<4x4xui32>
    %19 = stablehlo.convert %17 : (tensor<4x4xui64>) -> tensor<4x4xui32>
    %20:2 = call @threefry2x32(%3, %5, %19, %18) : (tensor<ui32>, tensor<ui32>, tensor<4x4xui32>, tensor<4x4xui32>) -> (tensor<4x4xui32>, tensor<4x4xui32>)
    %21 = stablehlo.xor %20#0, %20#1 : tensor<4x4xui32>
    %22 = stablehlo.constant dense<9> : tensor<ui32>
    %23 = stablehlo.broadcast_in_dim %22, dims = [] : (tensor<ui32>) -> tensor<4x4xui32>
    %24 = stablehlo.shift_right_logical %21, %23 : tensor<4x4xui32>
    %25 = stablehlo.constant dense<1065353216> : tensor<ui32>
    %26 = stablehlo.broadcast_in_dim %25, dims = [] : (tensor<ui32>) -> tensor<4x4xui32>
    %27 = stablehlo.or %24, %26 : tensor<4x4xui32>
    %28 = stablehlo.bitcast_convert %27 : (tensor<4x4xui32>) -> tensor<4x4xf32>
    %29 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %30 = stablehlo.broadcast_in_dim %29, dims = [] : (tensor<f32>) -> tensor<4x4xf32>
    %31 = stablehlo.subtract %28, %30 : tensor<4x4xf32>
    %32 = stablehlo.subtract %1, %0 : tensor<1x1xf32>
    %33 = stablehlo.broadcast_in_dim %32, dims = [0, 1] : (tensor<1x1xf32>) -> tensor<4x4xf32>
    %34 = stablehlo.multiply %31, %33 : tensor<4x4xf32>
    %35 = stablehlo.broadcast_in_dim %0, dims = [0, 1] : (tensor<1x1xf32>) -> tensor<4x4xf32>
    %36 = stablehlo.add %34, %35 : tensor<4x4xf32>
    %37 = stablehlo.broadcast_in_dim %0, dims = [0, 1] : (tensor<1x1xf32>) -> tensor<4x4xf32>
    %38 = stablehlo.maximum %37, %36 : tensor<4x4xf32>
    return %38 : tensor<4x4xf32>
  }
  func.func private @threefry2x32(%arg0: tensor<ui32>, %arg1: tensor<ui32>, %arg2: tensor<4x4xui32>, %arg3: tensor<4x4xui32>) -> (tensor<4x4xui32>, tensor<4x4xui32>) {
    %0 = stablehlo.constant dense<[13, 15, 26, 6]> : tensor<4xui32>
    %1 = stablehlo.constant dense<[17, 29, 16, 24]> : tensor<4xui32>
    %2 = stablehlo.xor %arg0, %arg1 : tensor<ui32>
    %3 = stablehlo.constant dense<466688986> : tensor<ui32>
    %4 = stablehlo.xor %2, %3 : tensor<ui32>
    %5 = stablehlo.broadcast_in_dim %arg0, dims = [] : (tensor<ui32>) -> tensor<4x4xui32>
    %6 = stablehlo.add %arg2, %5 : tensor<4x4xui32>
    %7 = stablehlo.broadcast_in_dim %arg1, dims = [] : (tensor<ui32>) -> tensor<4x4xui32>
    %8 = stablehlo.add %arg3, %7 : tensor<4x4xui32>
    %9 = stablehlo.constant dense<0> : tensor<i32>
    %10 = stablehlo.constant dense<0> : tensor<i32>
    %11:9 = stablehlo.while(%iterArg = %10, %iterArg_0 = %9, %iterArg_1 = %6, %iterArg_2 = %8, %iterArg_3 = %arg1, %iterArg_4 = %4, %iterArg_5 = %arg0, %iterArg_6 = %0, %iterArg_7 = %1) : tensor<i32>, tensor<i32>, tensor<4x4xui32>, tensor<4x4xui32>, tensor<ui32>, tensor<ui32>, tensor<ui32>, tensor<4xui32>, tensor<4xui32>
    cond {
      %12 = stablehlo.constant dense<5> : tensor<i32>
      %13 = stablehlo.compare LT, %iterArg, %12, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %13 : tensor<i1>
    } do {
      %12:8 = func.call @closed_call(%iterArg_0, %iterArg_1, %iterArg_2, %iterArg_3, %iterArg_4, %iterArg_5, %iterArg_6, %iterArg_7) : (tensor<i32>, tensor<4x4xui32>, tensor<4x4xui32>, tensor<ui32>, tensor<ui32>, tensor<ui32>, tensor<4xui32>, tensor<4xui32>) -> (tensor<i32>, tensor<4x4xui32>, tensor<4x4xui32>, tensor<ui32>, tensor<ui32>, tensor<ui32>, tensor<4xui32>, tensor<4xui32>)
      %13 = stablehlo.constant dense<1> : tensor<i32>
      %14 = stablehlo.add %iterArg, %13 : tensor<i32>
      stablehlo.return %14, %12#0, %12#1, %12#2, %12#3, %12#4, %12#5, %12#6, %12#7 : tensor<i32>, tensor<i32>, tensor<4x4xui32>, tensor<4x4xui32>, tensor<ui32>, tensor<ui32>, tensor<ui32>, tensor<4xui32>, tensor<4xui32>
    }
    return %11#2, %11#3 : tensor<4x4xui32>, tensor<4x4xui32>
  }
  func.func private @closed_call(%arg0: tensor<i32>, %arg1: tensor<4x4xui32>, %arg2: tensor<4x4xui32>, %arg3: tensor<ui32>, %arg4: tensor<ui32>, %arg5: tensor<ui32>, %arg6: tensor<4xui32>, %arg7: tensor<4xui32>) -> (tensor<i32>, tensor<4x4xui32>, tensor<4x4xui32>, tensor<ui32>, tensor<ui32>, tensor<ui32>, tensor<4xui32>, tensor<4xui32>) {
    %0 = stablehlo.constant dense<1> : tensor<i32>
    %1 = stablehlo.add %arg0, %0 : tensor<i32>
    %2 = stablehlo.slice %arg6 [0:1] : (tensor<4xui32>) -> tensor<1xui32>
    %3 = stablehlo.reshape %2 : (tensor<1xui32>) -> tensor<ui32>
    %4 = stablehlo.add %arg1, %arg2 : tensor<4x4xui32>
    %5 = stablehlo.broadcast_in_dim %3, dims = [] : (tensor<ui32>) -> tensor<4x4xui32>
    %6 = stablehlo.shift_left %arg2, %5 : tensor<4x4xui32>
    %7 = stablehlo.constant dense<32> : tensor<ui32>
    %8 = stablehlo.subtract %7, %3 : tensor<ui32>
    %9 = stablehlo.broadcast_in_dim %8, dims = [] : (tensor<ui32>) -> tensor<4x4xui32>
    %10 = stablehlo.shift_right_logical %arg2, %9 : tensor<4x4xui32>
    %11 = stablehlo.or %6, %10 : tensor<4x4xui32>
    %12 = stablehlo.xor %4, %11 : tensor<4x4xui32>
    %13 = stablehlo.slice %arg6 [1:2] : (tensor<4xui32>) -> tensor<1xui32>
    %14 = stablehlo.reshape %13 : (tensor<1xui32>) -> tensor<ui32>
    %15 = stablehlo.add %4, %12 : tensor<4x4xui32>
    %16 = stablehlo.broadcast_in_dim %14, dims = [] : (tensor<ui32>) -> tensor<4x4xui32>
    %17 = stablehlo.shift_left %12, %16 : tensor<4x4xui32>
    %18 = stablehlo.constant dense<32> : tensor<ui32>
    %19 = stablehlo.subtract %18, %14 : tensor<ui32>
    %20 = stablehlo.broadcast_in_dim %19, dims = [] : (tensor<ui32>) -> tensor<4x4xui32>
    %21 = stablehlo.shift_right_logical %12, %20 : tensor<4x4xui32>
    %22 = stablehlo.or %17, %21 : tensor<4x4xui32>
    %23 = stablehlo.xor %15, %22 : tensor<4x4xui32>
    %24 = stablehlo.slice %arg6 [2:3] : (tensor<4xui32>) -> tensor<1xui32>
    %25 = stablehlo.reshape %24 : (tensor<1xui32>) -> tensor<ui32>
    %26 = stablehlo.add %15, %23 : tensor<4x4xui32>
    %27 = stablehlo.broadcast_in_dim %25, dims = [] : (tensor<ui32>) -> tensor<4x4xui32>
    %28 = stablehlo.shift_left %23, %27 : tensor<4x4xui32>
    %29 = stablehlo.constant dense<32> : tensor<ui32>
    %30 = stablehlo.subtract %29, %25 : tensor<ui32>
    %31 = stablehlo.broadcast_in_dim %30, dims = [] : (tensor<ui32>) -> tensor<4x4xui32>
    %32 = stablehlo.shift_right_logical %23, %31 : tensor<4x4xui32>
    %33 = stablehlo.or %28, %32 : tensor<4x4xui32>
    %34 = stablehlo.xor %26, %33 : tensor<4x4xui32>
    %35 = stablehlo.slice %arg6 [3:4] : (tensor<4xui32>) -> tensor<1xui32>
    %36 = stablehlo.reshape %35 : (tensor<1xui32>) -> tensor<ui32>
    %37 = stablehlo.add %26, %34 : tensor<4x4xui32>
    %38 = stablehlo.broadcast_in_dim %36, dims = [] : (tensor<ui32>) -> tensor<4x4xui32>
    %39 = stablehlo.shift_left %34, %38 : tensor<4x4xui32>
    %40 = stablehlo.constant dense<32> : tensor<ui32>
    %41 = stablehlo.subtract %40, %36 : tensor<ui32>
    %42 = stablehlo.broadcast_in_dim %41, dims = [] : (tensor<ui32>) -> tensor<4x4xui32>
    %43 = stablehlo.shift_right_logical %34, %42 : tensor<4x4xui32>
    %44 = stablehlo.or %39, %43 : tensor<4x4xui32>
    %45 = stablehlo.xor %37, %44 : tensor<4x4xui32>
    %46 = stablehlo.broadcast_in_dim %arg3, dims = [] : (tensor<ui32>) -> tensor<4x4xui32>
    %47 = stablehlo.add %37, %46 : tensor<4x4xui32>
    %48 = stablehlo.broadcast_in_dim %arg4, dims = [] : (tensor<ui32>) -> tensor<4x4xui32>
    %49 = stablehlo.add %45, %48 : tensor<4x4xui32>
    %50 = stablehlo.constant dense<1> : tensor<i32>
    %51 = stablehlo.add %arg0, %50 : tensor<i32>
    %52 = stablehlo.convert %51 : (tensor<i32>) -> tensor<ui32>
    %53 = stablehlo.broadcast_in_dim %52, dims = [] : (tensor<ui32>) -> tensor<4x4xui32>
    %54 = stablehlo.add %49, %53 : tensor<4x4xui32>
    return %1, %47, %54, %arg4, %arg5, %arg3, %arg7, %arg6 : tensor<i32>, tensor<4x4xui32>, tensor<4x4xui32>, tensor<ui32>, tensor<ui32>, tensor<ui32>, tensor<4xui32>, tensor<4xui32>
  }
}
