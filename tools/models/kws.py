"""kws: keyword-spotting models on 49x40 features (49 frames of 40 log-mel bins), 12 classes
(untrained, seeded, random BN statistics). tests/models/kws_{conv1d,lstm}_{f32,int8,f16}.tflite

- kws_conv1d: Conv1D stack (as the converter writes it: EXPAND_DIMS/RESHAPE to H=1, CONV_2D,
  RESHAPE back), BatchNormalization folded, stride 2 in the middle, global average pool, Dense.
- kws_lstm: LSTM(64) over the 49 frames, Dense 12 softmax; the converter fuses the LSTM into
  UNIDIRECTIONAL_SEQUENCE_LSTM, in int8 TFLite's integer LSTM (int8 weights, int16 cell state).
  Built with tf_keras (Keras 2), whose LSTM the converter fuses (see lstm.py)."""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402

common.setup()

import keras  # noqa: E402
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

SPEC = [tf.TensorSpec([1, 49, 40], tf.float32, name="features")]
RANGES = [(-4.0, 4.0)]


def conv1d():
    common.reseed(23)
    L = keras.layers
    inp = keras.Input((49, 40), batch_size=1, name="features")
    h = inp
    for c, k, s in [(64, 3, 1), (64, 3, 1), (96, 3, 2), (96, 3, 1), (128, 3, 1)]:
        h = L.Conv1D(c, k, strides=s, padding="same", use_bias=False)(h)
        h = L.ReLU()(L.BatchNormalization()(h))
    h = L.GlobalAveragePooling1D()(h)
    out = L.Dense(12)(h)
    model = keras.Model(inp, out, name="kws_conv1d")
    common.randomize_batchnorm(model)
    common.emit("kws_conv1d", model, SPEC, ranges=RANGES)


def lstm():
    import tf_keras

    common.reseed(24)
    tf_keras.utils.set_random_seed(common.SEED + 24)
    inp = tf_keras.Input((49, 40), batch_size=1, name="features")
    h = tf_keras.layers.LSTM(64)(inp)
    out = tf_keras.layers.Dense(12, activation="softmax")(h)
    model = tf_keras.Model(inp, out, name="kws_lstm")
    # Less saturated gates than the default init, so the output moves with the input.
    rng = np.random.default_rng(common.SEED + 24)
    model.set_weights([(rng.standard_normal(w.shape) * 0.15).astype(np.float32) for w in model.get_weights()])
    st = common.emit("kws_lstm", model, SPEC, ranges=RANGES, from_keras=True)
    for v, s in st.items():
        if s.startswith("ok") and "UNIDIRECTIONAL_SEQUENCE_LSTM" not in s:
            print(f"  NOTE kws_lstm_{v}: not fused into UNIDIRECTIONAL_SEQUENCE_LSTM ({s})")


def main():
    common.family_args()
    conv1d()
    lstm()


if __name__ == "__main__":
    main()
