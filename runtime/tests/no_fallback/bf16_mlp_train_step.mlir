module @jit_f attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<16x32xf32>, %arg1: tensor<32xf32>, %arg2: tensor<32x32xf32>, %arg3: tensor<32xf32>, %arg4: tensor<32x4xf32>, %arg5: tensor<4xf32>, %arg6: tensor<8x16xf32>, %arg7: tensor<8x4xf32>) -> (tensor<f32> {jax.result_info = "result[0]"}, tensor<16x32xf32> {jax.result_info = "result[1][0][0]"}, tensor<32xf32> {jax.result_info = "result[1][0][1]"}, tensor<32x32xf32> {jax.result_info = "result[1][1][0]"}, tensor<32xf32> {jax.result_info = "result[1][1][1]"}, tensor<32x4xf32> {jax.result_info = "result[1][2][0]"}, tensor<4xf32> {jax.result_info = "result[1][2][1]"}) {
    %0 = stablehlo.convert %arg6 : (tensor<8x16xf32>) -> tensor<8x16xbf16>
    %1 = stablehlo.convert %arg0 : (tensor<16x32xf32>) -> tensor<16x32xbf16>
    %2 = stablehlo.dot_general %0, %1, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<8x16xbf16>, tensor<16x32xbf16>) -> tensor<8x32xbf16>
    %3 = stablehlo.convert %arg1 : (tensor<32xf32>) -> tensor<32xbf16>
    %4 = stablehlo.broadcast_in_dim %3, dims = [1] : (tensor<32xbf16>) -> tensor<1x32xbf16>
    %5 = stablehlo.broadcast_in_dim %4, dims = [0, 1] : (tensor<1x32xbf16>) -> tensor<8x32xbf16>
    %6 = stablehlo.add %2, %5 : tensor<8x32xbf16>
    %7 = stablehlo.multiply %6, %6 : tensor<8x32xbf16>
    %8 = stablehlo.multiply %7, %6 : tensor<8x32xbf16>
    %9 = stablehlo.multiply %6, %6 : tensor<8x32xbf16>
    %cst = stablehlo.constant dense<3.000000e+00> : tensor<bf16>
    %10 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<bf16>) -> tensor<8x32xbf16>
    %11 = stablehlo.multiply %10, %9 : tensor<8x32xbf16>
    %cst_0 = stablehlo.constant dense<4.467770e-02> : tensor<bf16>
    %12 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<bf16>) -> tensor<8x32xbf16>
    %13 = stablehlo.multiply %12, %8 : tensor<8x32xbf16>
    %14 = stablehlo.add %6, %13 : tensor<8x32xbf16>
    %cst_1 = stablehlo.constant dense<7.968750e-01> : tensor<bf16>
    %15 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<bf16>) -> tensor<8x32xbf16>
    %16 = stablehlo.multiply %15, %14 : tensor<8x32xbf16>
    %17 = stablehlo.tanh %16 : tensor<8x32xbf16>
    %cst_2 = stablehlo.constant dense<1.000000e+00> : tensor<bf16>
    %18 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<bf16>) -> tensor<8x32xbf16>
    %19 = stablehlo.subtract %18, %17 : tensor<8x32xbf16>
    %cst_3 = stablehlo.constant dense<1.000000e+00> : tensor<bf16>
    %20 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<bf16>) -> tensor<8x32xbf16>
    %21 = stablehlo.add %20, %17 : tensor<8x32xbf16>
    %cst_4 = stablehlo.constant dense<5.000000e-01> : tensor<bf16>
    %22 = stablehlo.broadcast_in_dim %cst_4, dims = [] : (tensor<bf16>) -> tensor<8x32xbf16>
    %23 = stablehlo.multiply %22, %21 : tensor<8x32xbf16>
    %24 = stablehlo.multiply %6, %23 : tensor<8x32xbf16>
    %25 = stablehlo.multiply %24, %24 : tensor<8x32xbf16>
    %26 = stablehlo.convert %25 : (tensor<8x32xbf16>) -> tensor<8x32xf32>
    %cst_5 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %27 = stablehlo.reduce(%26 init: %cst_5) applies stablehlo.add across dimensions = [1] : (tensor<8x32xf32>, tensor<f32>) -> tensor<8xf32>
    %28 = stablehlo.broadcast_in_dim %27, dims = [0] : (tensor<8xf32>) -> tensor<8x1xf32>
    %cst_6 = stablehlo.constant dense<3.200000e+01> : tensor<f32>
    %29 = stablehlo.broadcast_in_dim %cst_6, dims = [] : (tensor<f32>) -> tensor<8x1xf32>
    %30 = stablehlo.divide %28, %29 : tensor<8x1xf32>
    %31 = stablehlo.convert %30 : (tensor<8x1xf32>) -> tensor<8x1xbf16>
    %32 = stablehlo.sqrt %31 : tensor<8x1xbf16>
    %cst_7 = stablehlo.constant dense<5.000000e-01> : tensor<bf16>
    %33 = stablehlo.broadcast_in_dim %cst_7, dims = [] : (tensor<bf16>) -> tensor<8x1xbf16>
    %34 = stablehlo.divide %33, %32 : tensor<8x1xbf16>
    %cst_8 = stablehlo.constant dense<9.994500e-04> : tensor<bf16>
    %35 = stablehlo.broadcast_in_dim %cst_8, dims = [] : (tensor<bf16>) -> tensor<8x1xbf16>
    %36 = stablehlo.add %32, %35 : tensor<8x1xbf16>
    %37 = stablehlo.broadcast_in_dim %36, dims = [0, 1] : (tensor<8x1xbf16>) -> tensor<8x32xbf16>
    %38 = stablehlo.divide %24, %37 : tensor<8x32xbf16>
    %39 = stablehlo.multiply %36, %36 : tensor<8x1xbf16>
    %cst_9 = stablehlo.constant dense<1.000000e+00> : tensor<bf16>
    %40 = stablehlo.broadcast_in_dim %cst_9, dims = [] : (tensor<bf16>) -> tensor<8x1xbf16>
    %41 = stablehlo.divide %40, %39 : tensor<8x1xbf16>
    %42 = stablehlo.convert %arg2 : (tensor<32x32xf32>) -> tensor<32x32xbf16>
    %43 = stablehlo.dot_general %38, %42, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<8x32xbf16>, tensor<32x32xbf16>) -> tensor<8x32xbf16>
    %44 = stablehlo.convert %arg3 : (tensor<32xf32>) -> tensor<32xbf16>
    %45 = stablehlo.broadcast_in_dim %44, dims = [1] : (tensor<32xbf16>) -> tensor<1x32xbf16>
    %46 = stablehlo.broadcast_in_dim %45, dims = [0, 1] : (tensor<1x32xbf16>) -> tensor<8x32xbf16>
    %47 = stablehlo.add %43, %46 : tensor<8x32xbf16>
    %48 = stablehlo.multiply %47, %47 : tensor<8x32xbf16>
    %49 = stablehlo.multiply %48, %47 : tensor<8x32xbf16>
    %50 = stablehlo.multiply %47, %47 : tensor<8x32xbf16>
    %cst_10 = stablehlo.constant dense<3.000000e+00> : tensor<bf16>
    %51 = stablehlo.broadcast_in_dim %cst_10, dims = [] : (tensor<bf16>) -> tensor<8x32xbf16>
    %52 = stablehlo.multiply %51, %50 : tensor<8x32xbf16>
    %cst_11 = stablehlo.constant dense<4.467770e-02> : tensor<bf16>
    %53 = stablehlo.broadcast_in_dim %cst_11, dims = [] : (tensor<bf16>) -> tensor<8x32xbf16>
    %54 = stablehlo.multiply %53, %49 : tensor<8x32xbf16>
    %55 = stablehlo.add %47, %54 : tensor<8x32xbf16>
    %cst_12 = stablehlo.constant dense<7.968750e-01> : tensor<bf16>
    %56 = stablehlo.broadcast_in_dim %cst_12, dims = [] : (tensor<bf16>) -> tensor<8x32xbf16>
    %57 = stablehlo.multiply %56, %55 : tensor<8x32xbf16>
    %58 = stablehlo.tanh %57 : tensor<8x32xbf16>
    %cst_13 = stablehlo.constant dense<1.000000e+00> : tensor<bf16>
    %59 = stablehlo.broadcast_in_dim %cst_13, dims = [] : (tensor<bf16>) -> tensor<8x32xbf16>
    %60 = stablehlo.subtract %59, %58 : tensor<8x32xbf16>
    %cst_14 = stablehlo.constant dense<1.000000e+00> : tensor<bf16>
    %61 = stablehlo.broadcast_in_dim %cst_14, dims = [] : (tensor<bf16>) -> tensor<8x32xbf16>
    %62 = stablehlo.add %61, %58 : tensor<8x32xbf16>
    %cst_15 = stablehlo.constant dense<5.000000e-01> : tensor<bf16>
    %63 = stablehlo.broadcast_in_dim %cst_15, dims = [] : (tensor<bf16>) -> tensor<8x32xbf16>
    %64 = stablehlo.multiply %63, %62 : tensor<8x32xbf16>
    %65 = stablehlo.multiply %47, %64 : tensor<8x32xbf16>
    %66 = stablehlo.multiply %65, %65 : tensor<8x32xbf16>
    %67 = stablehlo.convert %66 : (tensor<8x32xbf16>) -> tensor<8x32xf32>
    %cst_16 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %68 = stablehlo.reduce(%67 init: %cst_16) applies stablehlo.add across dimensions = [1] : (tensor<8x32xf32>, tensor<f32>) -> tensor<8xf32>
    %69 = stablehlo.broadcast_in_dim %68, dims = [0] : (tensor<8xf32>) -> tensor<8x1xf32>
    %cst_17 = stablehlo.constant dense<3.200000e+01> : tensor<f32>
    %70 = stablehlo.broadcast_in_dim %cst_17, dims = [] : (tensor<f32>) -> tensor<8x1xf32>
    %71 = stablehlo.divide %69, %70 : tensor<8x1xf32>
    %72 = stablehlo.convert %71 : (tensor<8x1xf32>) -> tensor<8x1xbf16>
    %73 = stablehlo.sqrt %72 : tensor<8x1xbf16>
    %cst_18 = stablehlo.constant dense<5.000000e-01> : tensor<bf16>
    %74 = stablehlo.broadcast_in_dim %cst_18, dims = [] : (tensor<bf16>) -> tensor<8x1xbf16>
    %75 = stablehlo.divide %74, %73 : tensor<8x1xbf16>
    %cst_19 = stablehlo.constant dense<9.994500e-04> : tensor<bf16>
    %76 = stablehlo.broadcast_in_dim %cst_19, dims = [] : (tensor<bf16>) -> tensor<8x1xbf16>
    %77 = stablehlo.add %73, %76 : tensor<8x1xbf16>
    %78 = stablehlo.broadcast_in_dim %77, dims = [0, 1] : (tensor<8x1xbf16>) -> tensor<8x32xbf16>
    %79 = stablehlo.divide %65, %78 : tensor<8x32xbf16>
    %80 = stablehlo.multiply %77, %77 : tensor<8x1xbf16>
    %cst_20 = stablehlo.constant dense<1.000000e+00> : tensor<bf16>
    %81 = stablehlo.broadcast_in_dim %cst_20, dims = [] : (tensor<bf16>) -> tensor<8x1xbf16>
    %82 = stablehlo.divide %81, %80 : tensor<8x1xbf16>
    %83 = stablehlo.convert %arg4 : (tensor<32x4xf32>) -> tensor<32x4xbf16>
    %84 = stablehlo.dot_general %79, %83, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<8x32xbf16>, tensor<32x4xbf16>) -> tensor<8x4xbf16>
    %85 = stablehlo.convert %arg5 : (tensor<4xf32>) -> tensor<4xbf16>
    %86 = stablehlo.broadcast_in_dim %85, dims = [1] : (tensor<4xbf16>) -> tensor<1x4xbf16>
    %87 = stablehlo.broadcast_in_dim %86, dims = [0, 1] : (tensor<1x4xbf16>) -> tensor<8x4xbf16>
    %88 = stablehlo.add %84, %87 : tensor<8x4xbf16>
    %89 = stablehlo.convert %88 : (tensor<8x4xbf16>) -> tensor<8x4xf32>
    %90:3 = call @log_softmax(%89) : (tensor<8x4xf32>) -> (tensor<8x4xf32>, tensor<8x4xf32>, tensor<8x1xf32>)
    %91 = stablehlo.multiply %90#0, %arg7 : tensor<8x4xf32>
    %cst_21 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %92 = stablehlo.reduce(%91 init: %cst_21) applies stablehlo.add across dimensions = [1] : (tensor<8x4xf32>, tensor<f32>) -> tensor<8xf32>
    %cst_22 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %93 = stablehlo.reduce(%92 init: %cst_22) applies stablehlo.add across dimensions = [0] : (tensor<8xf32>, tensor<f32>) -> tensor<f32>
    %cst_23 = stablehlo.constant dense<8.000000e+00> : tensor<f32>
    %94 = stablehlo.divide %93, %cst_23 : tensor<f32>
    %95 = stablehlo.negate %94 : tensor<f32>
    %cst_24 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %96 = stablehlo.negate %cst_24 : tensor<f32>
    %cst_25 = stablehlo.constant dense<8.000000e+00> : tensor<f32>
    %97 = stablehlo.divide %96, %cst_25 : tensor<f32>
    %98 = stablehlo.broadcast_in_dim %97, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %99 = stablehlo.broadcast_in_dim %98, dims = [0] : (tensor<8xf32>) -> tensor<8x4xf32>
    %100 = stablehlo.multiply %99, %arg7 : tensor<8x4xf32>
    %101 = call @log_softmax_0(%90#1, %90#2, %100) : (tensor<8x4xf32>, tensor<8x1xf32>, tensor<8x4xf32>) -> tensor<8x4xf32>
    %102 = stablehlo.convert %101 : (tensor<8x4xf32>) -> tensor<8x4xbf16>
    %cst_26 = stablehlo.constant dense<0.000000e+00> : tensor<bf16>
    %103 = stablehlo.reduce(%102 init: %cst_26) applies stablehlo.add across dimensions = [0] : (tensor<8x4xbf16>, tensor<bf16>) -> tensor<4xbf16>
    %104 = stablehlo.reshape %103 : (tensor<4xbf16>) -> tensor<1x4xbf16>
    %cst_27 = stablehlo.constant dense<0.000000e+00> : tensor<bf16>
    %105 = stablehlo.reduce(%104 init: %cst_27) applies stablehlo.add across dimensions = [0] : (tensor<1x4xbf16>, tensor<bf16>) -> tensor<4xbf16>
    %106 = stablehlo.convert %105 : (tensor<4xbf16>) -> tensor<4xf32>
    %107 = stablehlo.dot_general %102, %79, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<8x4xbf16>, tensor<8x32xbf16>) -> tensor<4x32xbf16>
    %108 = stablehlo.transpose %107, dims = [1, 0] : (tensor<4x32xbf16>) -> tensor<32x4xbf16>
    %109 = stablehlo.dot_general %102, %83, contracting_dims = [1] x [1], precision = [DEFAULT, DEFAULT] : (tensor<8x4xbf16>, tensor<32x4xbf16>) -> tensor<8x32xbf16>
    %110 = stablehlo.convert %108 : (tensor<32x4xbf16>) -> tensor<32x4xf32>
    %111 = stablehlo.broadcast_in_dim %82, dims = [0, 1] : (tensor<8x1xbf16>) -> tensor<8x32xbf16>
    %112 = stablehlo.multiply %109, %111 : tensor<8x32xbf16>
    %113 = stablehlo.multiply %112, %65 : tensor<8x32xbf16>
    %cst_28 = stablehlo.constant dense<0.000000e+00> : tensor<bf16>
    %114 = stablehlo.reduce(%113 init: %cst_28) applies stablehlo.add across dimensions = [1] : (tensor<8x32xbf16>, tensor<bf16>) -> tensor<8xbf16>
    %115 = stablehlo.reshape %114 : (tensor<8xbf16>) -> tensor<8x1xbf16>
    %116 = stablehlo.negate %115 : tensor<8x1xbf16>
    %117 = stablehlo.broadcast_in_dim %77, dims = [0, 1] : (tensor<8x1xbf16>) -> tensor<8x32xbf16>
    %118 = stablehlo.divide %109, %117 : tensor<8x32xbf16>
    %119 = stablehlo.multiply %116, %75 : tensor<8x1xbf16>
    %120 = stablehlo.convert %119 : (tensor<8x1xbf16>) -> tensor<8x1xf32>
    %cst_29 = stablehlo.constant dense<3.200000e+01> : tensor<f32>
    %121 = stablehlo.broadcast_in_dim %cst_29, dims = [] : (tensor<f32>) -> tensor<8x1xf32>
    %122 = stablehlo.divide %120, %121 : tensor<8x1xf32>
    %cst_30 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %123 = stablehlo.reduce(%122 init: %cst_30) applies stablehlo.add across dimensions = [1] : (tensor<8x1xf32>, tensor<f32>) -> tensor<8xf32>
    %124 = stablehlo.broadcast_in_dim %123, dims = [0] : (tensor<8xf32>) -> tensor<8x32xf32>
    %125 = stablehlo.convert %124 : (tensor<8x32xf32>) -> tensor<8x32xbf16>
    %126 = stablehlo.multiply %65, %125 : tensor<8x32xbf16>
    %127 = stablehlo.add %118, %126 : tensor<8x32xbf16>
    %128 = stablehlo.multiply %125, %65 : tensor<8x32xbf16>
    %129 = stablehlo.add %127, %128 : tensor<8x32xbf16>
    %130 = stablehlo.multiply %47, %129 : tensor<8x32xbf16>
    %131 = stablehlo.multiply %129, %64 : tensor<8x32xbf16>
    %cst_31 = stablehlo.constant dense<5.000000e-01> : tensor<bf16>
    %132 = stablehlo.broadcast_in_dim %cst_31, dims = [] : (tensor<bf16>) -> tensor<8x32xbf16>
    %133 = stablehlo.multiply %132, %130 : tensor<8x32xbf16>
    %134 = stablehlo.multiply %133, %60 : tensor<8x32xbf16>
    %135 = stablehlo.multiply %134, %58 : tensor<8x32xbf16>
    %136 = stablehlo.add %134, %135 : tensor<8x32xbf16>
    %cst_32 = stablehlo.constant dense<7.968750e-01> : tensor<bf16>
    %137 = stablehlo.broadcast_in_dim %cst_32, dims = [] : (tensor<bf16>) -> tensor<8x32xbf16>
    %138 = stablehlo.multiply %137, %136 : tensor<8x32xbf16>
    %139 = stablehlo.add %131, %138 : tensor<8x32xbf16>
    %cst_33 = stablehlo.constant dense<4.467770e-02> : tensor<bf16>
    %140 = stablehlo.broadcast_in_dim %cst_33, dims = [] : (tensor<bf16>) -> tensor<8x32xbf16>
    %141 = stablehlo.multiply %140, %138 : tensor<8x32xbf16>
    %142 = stablehlo.multiply %141, %52 : tensor<8x32xbf16>
    %143 = stablehlo.add %139, %142 : tensor<8x32xbf16>
    %cst_34 = stablehlo.constant dense<0.000000e+00> : tensor<bf16>
    %144 = stablehlo.reduce(%143 init: %cst_34) applies stablehlo.add across dimensions = [0] : (tensor<8x32xbf16>, tensor<bf16>) -> tensor<32xbf16>
    %145 = stablehlo.reshape %144 : (tensor<32xbf16>) -> tensor<1x32xbf16>
    %cst_35 = stablehlo.constant dense<0.000000e+00> : tensor<bf16>
    %146 = stablehlo.reduce(%145 init: %cst_35) applies stablehlo.add across dimensions = [0] : (tensor<1x32xbf16>, tensor<bf16>) -> tensor<32xbf16>
    %147 = stablehlo.convert %146 : (tensor<32xbf16>) -> tensor<32xf32>
    %148 = stablehlo.dot_general %143, %38, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<8x32xbf16>, tensor<8x32xbf16>) -> tensor<32x32xbf16>
    %149 = stablehlo.transpose %148, dims = [1, 0] : (tensor<32x32xbf16>) -> tensor<32x32xbf16>
    %150 = stablehlo.dot_general %143, %42, contracting_dims = [1] x [1], precision = [DEFAULT, DEFAULT] : (tensor<8x32xbf16>, tensor<32x32xbf16>) -> tensor<8x32xbf16>
    %151 = stablehlo.convert %149 : (tensor<32x32xbf16>) -> tensor<32x32xf32>
    %152 = stablehlo.broadcast_in_dim %41, dims = [0, 1] : (tensor<8x1xbf16>) -> tensor<8x32xbf16>
    %153 = stablehlo.multiply %150, %152 : tensor<8x32xbf16>
    %154 = stablehlo.multiply %153, %24 : tensor<8x32xbf16>
    %cst_36 = stablehlo.constant dense<0.000000e+00> : tensor<bf16>
    %155 = stablehlo.reduce(%154 init: %cst_36) applies stablehlo.add across dimensions = [1] : (tensor<8x32xbf16>, tensor<bf16>) -> tensor<8xbf16>
    %156 = stablehlo.reshape %155 : (tensor<8xbf16>) -> tensor<8x1xbf16>
    %157 = stablehlo.negate %156 : tensor<8x1xbf16>
    %158 = stablehlo.broadcast_in_dim %36, dims = [0, 1] : (tensor<8x1xbf16>) -> tensor<8x32xbf16>
    %159 = stablehlo.divide %150, %158 : tensor<8x32xbf16>
    %160 = stablehlo.multiply %157, %34 : tensor<8x1xbf16>
    %161 = stablehlo.convert %160 : (tensor<8x1xbf16>) -> tensor<8x1xf32>
    %cst_37 = stablehlo.constant dense<3.200000e+01> : tensor<f32>
    %162 = stablehlo.broadcast_in_dim %cst_37, dims = [] : (tensor<f32>) -> tensor<8x1xf32>
    %163 = stablehlo.divide %161, %162 : tensor<8x1xf32>
    %cst_38 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %164 = stablehlo.reduce(%163 init: %cst_38) applies stablehlo.add across dimensions = [1] : (tensor<8x1xf32>, tensor<f32>) -> tensor<8xf32>
    %165 = stablehlo.broadcast_in_dim %164, dims = [0] : (tensor<8xf32>) -> tensor<8x32xf32>
    %166 = stablehlo.convert %165 : (tensor<8x32xf32>) -> tensor<8x32xbf16>
    %167 = stablehlo.multiply %24, %166 : tensor<8x32xbf16>
    %168 = stablehlo.add %159, %167 : tensor<8x32xbf16>
    %169 = stablehlo.multiply %166, %24 : tensor<8x32xbf16>
    %170 = stablehlo.add %168, %169 : tensor<8x32xbf16>
    %171 = stablehlo.multiply %6, %170 : tensor<8x32xbf16>
    %172 = stablehlo.multiply %170, %23 : tensor<8x32xbf16>
    %cst_39 = stablehlo.constant dense<5.000000e-01> : tensor<bf16>
    %173 = stablehlo.broadcast_in_dim %cst_39, dims = [] : (tensor<bf16>) -> tensor<8x32xbf16>
    %174 = stablehlo.multiply %173, %171 : tensor<8x32xbf16>
    %175 = stablehlo.multiply %174, %19 : tensor<8x32xbf16>
    %176 = stablehlo.multiply %175, %17 : tensor<8x32xbf16>
    %177 = stablehlo.add %175, %176 : tensor<8x32xbf16>
    %cst_40 = stablehlo.constant dense<7.968750e-01> : tensor<bf16>
    %178 = stablehlo.broadcast_in_dim %cst_40, dims = [] : (tensor<bf16>) -> tensor<8x32xbf16>
    %179 = stablehlo.multiply %178, %177 : tensor<8x32xbf16>
    %180 = stablehlo.add %172, %179 : tensor<8x32xbf16>
    %cst_41 = stablehlo.constant dense<4.467770e-02> : tensor<bf16>
    %181 = stablehlo.broadcast_in_dim %cst_41, dims = [] : (tensor<bf16>) -> tensor<8x32xbf16>
    %182 = stablehlo.multiply %181, %179 : tensor<8x32xbf16>
    %183 = stablehlo.multiply %182, %11 : tensor<8x32xbf16>
    %184 = stablehlo.add %180, %183 : tensor<8x32xbf16>
    %cst_42 = stablehlo.constant dense<0.000000e+00> : tensor<bf16>
    %185 = stablehlo.reduce(%184 init: %cst_42) applies stablehlo.add across dimensions = [0] : (tensor<8x32xbf16>, tensor<bf16>) -> tensor<32xbf16>
    %186 = stablehlo.reshape %185 : (tensor<32xbf16>) -> tensor<1x32xbf16>
    %cst_43 = stablehlo.constant dense<0.000000e+00> : tensor<bf16>
    %187 = stablehlo.reduce(%186 init: %cst_43) applies stablehlo.add across dimensions = [0] : (tensor<1x32xbf16>, tensor<bf16>) -> tensor<32xbf16>
    %188 = stablehlo.convert %187 : (tensor<32xbf16>) -> tensor<32xf32>
    %189 = stablehlo.dot_general %184, %0, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<8x32xbf16>, tensor<8x16xbf16>) -> tensor<32x16xbf16>
    %190 = stablehlo.transpose %189, dims = [1, 0] : (tensor<32x16xbf16>) -> tensor<16x32xbf16>
    %191 = stablehlo.convert %190 : (tensor<16x32xbf16>) -> tensor<16x32xf32>
    %cst_44 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %192 = stablehlo.broadcast_in_dim %cst_44, dims = [] : (tensor<f32>) -> tensor<16x32xf32>
    %193 = stablehlo.multiply %192, %191 : tensor<16x32xf32>
    %194 = stablehlo.subtract %arg0, %193 : tensor<16x32xf32>
    %cst_45 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %195 = stablehlo.broadcast_in_dim %cst_45, dims = [] : (tensor<f32>) -> tensor<32xf32>
    %196 = stablehlo.multiply %195, %188 : tensor<32xf32>
    %197 = stablehlo.subtract %arg1, %196 : tensor<32xf32>
    %cst_46 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %198 = stablehlo.broadcast_in_dim %cst_46, dims = [] : (tensor<f32>) -> tensor<32x32xf32>
    %199 = stablehlo.multiply %198, %151 : tensor<32x32xf32>
    %200 = stablehlo.subtract %arg2, %199 : tensor<32x32xf32>
    %cst_47 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %201 = stablehlo.broadcast_in_dim %cst_47, dims = [] : (tensor<f32>) -> tensor<32xf32>
    %202 = stablehlo.multiply %201, %147 : tensor<32xf32>
    %203 = stablehlo.subtract %arg3, %202 : tensor<32xf32>
    %cst_48 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %204 = stablehlo.broadcast_in_dim %cst_48, dims = [] : (tensor<f32>) -> tensor<32x4xf32>
    %205 = stablehlo.multiply %204, %110 : tensor<32x4xf32>
    %206 = stablehlo.subtract %arg4, %205 : tensor<32x4xf32>
    %cst_49 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %207 = stablehlo.broadcast_in_dim %cst_49, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %208 = stablehlo.multiply %207, %106 : tensor<4xf32>
    %209 = stablehlo.subtract %arg5, %208 : tensor<4xf32>
    return %95, %194, %197, %200, %203, %206, %209 : tensor<f32>, tensor<16x32xf32>, tensor<32xf32>, tensor<32x32xf32>, tensor<32xf32>, tensor<32x4xf32>, tensor<4xf32>
  }
  func.func private @log_softmax(%arg0: tensor<8x4xf32>) -> (tensor<8x4xf32>, tensor<8x4xf32>, tensor<8x1xf32>) {
    %cst = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %0 = stablehlo.reduce(%arg0 init: %cst) applies stablehlo.maximum across dimensions = [1] : (tensor<8x4xf32>, tensor<f32>) -> tensor<8xf32>
    %cst_0 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %1 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %2 = stablehlo.maximum %1, %0 : tensor<8xf32>
    %3 = stablehlo.broadcast_in_dim %2, dims = [0] : (tensor<8xf32>) -> tensor<8x1xf32>
    %4 = stablehlo.broadcast_in_dim %3, dims = [0, 1] : (tensor<8x1xf32>) -> tensor<8x4xf32>
    %5 = stablehlo.subtract %arg0, %4 : tensor<8x4xf32>
    %6 = stablehlo.exponential %5 : tensor<8x4xf32>
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %7 = stablehlo.reduce(%6 init: %cst_1) applies stablehlo.add across dimensions = [1] : (tensor<8x4xf32>, tensor<f32>) -> tensor<8xf32>
    %8 = stablehlo.broadcast_in_dim %7, dims = [0] : (tensor<8xf32>) -> tensor<8x1xf32>
    %9 = stablehlo.log %8 : tensor<8x1xf32>
    %10 = stablehlo.broadcast_in_dim %9, dims = [0, 1] : (tensor<8x1xf32>) -> tensor<8x4xf32>
    %11 = stablehlo.subtract %5, %10 : tensor<8x4xf32>
    return %11, %6, %8 : tensor<8x4xf32>, tensor<8x4xf32>, tensor<8x1xf32>
  }
  func.func private @log_softmax_0(%arg0: tensor<8x4xf32>, %arg1: tensor<8x1xf32>, %arg2: tensor<8x4xf32>) -> tensor<8x4xf32> {
    %0 = stablehlo.negate %arg2 : tensor<8x4xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %1 = stablehlo.reduce(%0 init: %cst) applies stablehlo.add across dimensions = [1] : (tensor<8x4xf32>, tensor<f32>) -> tensor<8xf32>
    %2 = stablehlo.reshape %1 : (tensor<8xf32>) -> tensor<8x1xf32>
    %3 = stablehlo.divide %2, %arg1 : tensor<8x1xf32>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %4 = stablehlo.reduce(%3 init: %cst_0) applies stablehlo.add across dimensions = [1] : (tensor<8x1xf32>, tensor<f32>) -> tensor<8xf32>
    %5 = stablehlo.broadcast_in_dim %4, dims = [0] : (tensor<8xf32>) -> tensor<8x4xf32>
    %6 = stablehlo.multiply %5, %arg0 : tensor<8x4xf32>
    %7 = stablehlo.add %arg2, %6 : tensor<8x4xf32>
    return %7 : tensor<8x4xf32>
  }
}
