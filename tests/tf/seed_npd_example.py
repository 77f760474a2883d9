# The NextPluggableDevice seed's example (/work/shared/seeds, "Start with XLA using NextPluggableDevice"),
# verbatim; run with TF_XLA_FLAGS="--tf_xla_use_device_api=true --tf_xla_auto_jit=2".
import tensorflow as tf  # TensorFlow registers NextPluggableDevice here
@tf.function(experimental_compile=True)
def add_with_xla(a, b):
    return a + b
a = tf.constant([1.0, 2.0, 3.0])
b = tf.constant([4.0, 5.0, 6.0])
result = add_with_xla(a, b)
print("Result: ", result)
