"""Keras builds of the everyday network families (issue #14 part 5), the .tflite side of
tinyforge.families: MobileNetV2, MobileNetV3-Small, ShuffleNetV2, SqueezeNet, EfficientNet-B0
style, ResNet-18 (64x64), a U-Net-style segmenter, a two-scale YOLO-style detector, a 1-D
accelerometer CNN, and a model with two inputs and two outputs. Each is the family's
characteristic structure at test size (a few blocks, few channels), built with Keras'
standard layers as a user would write them, so the converter writes the builtins such a model
brings (HARD_SWISH, LOGISTIC + MUL for SiLU, SPLIT / TRANSPOSE for the channel shuffle,
RESIZE_NEAREST_NEIGHBOR, RESIZE_BILINEAR, TRANSPOSE_CONV, CONCATENATION, MEAN, ...; not
Keras 3's UpSampling2D, which converts to RESHAPE + TILE, and TF's reference kernels have no
int8 TILE: test_tile.py compares it with TF's default kernels).
Weights: tflite_cases' seeded ones, scaled by fan-in (no BatchNorm statistics keep the
activations in range otherwise).

`batch`: 1 (static) or None (saved with a dynamic batch: the SHAPE -> STRIDED_SLICE -> PACK
-> RESHAPE pattern in front of reshapes, folded by the importer for batch 1).
"""
from __future__ import annotations

import tflite_cases

tf = tflite_cases.tf
layers = tflite_cases.layers


def _conv(x, c, k=3, s=1, act="relu", name=None):
    return layers.Conv2D(c, k, strides=s, padding="same", activation=act, name=name)(x)


def _dw(x, k=3, s=1, act="relu"):
    return layers.DepthwiseConv2D(k, strides=s, padding="same", activation=act)(x)


def mobilenet_v2(batch=1):
    x = tf.keras.Input((32, 32, 3), batch_size=batch)
    h = _conv(x, 8, s=2, act="relu6")
    for cin, cout, s in ((8, 8, 1), (8, 12, 2), (12, 12, 1)):
        y = _conv(h, cin * 4, 1, act="relu6")          # expand
        y = _dw(y, s=s, act="relu6")
        y = _conv(y, cout, 1, act=None)                # linear bottleneck
        h = layers.Add()([h, y]) if s == 1 and cin == cout else y
    h = layers.GlobalAveragePooling2D()(_conv(h, 32, 1, act="relu6"))
    return tf.keras.Model(x, layers.Dense(10)(h))


def _se(x, c, gate="hard_sigmoid"):
    s = layers.GlobalAveragePooling2D(keepdims=True)(x)
    s = layers.Conv2D(max(c // 4, 4), 1, activation="relu")(s)
    s = layers.Conv2D(c, 1, activation=gate)(s)
    return layers.Multiply()([x, s])


def mobilenet_v3_small(batch=1):
    x = tf.keras.Input((32, 32, 3), batch_size=batch)
    h = _conv(x, 8, s=2, act="hard_silu")
    h = _se(_dw(h, s=2), 8)                             # SE + hard-sigmoid gate
    h = _conv(h, 8, 1, act=None)
    y = _conv(h, 24, 1, act="hard_silu")
    y = _se(_dw(y, k=5, act="hard_silu"), 24)
    h = layers.Add()([h, _conv(y, 8, 1, act=None)])
    h = layers.GlobalAveragePooling2D()(_conv(h, 32, 1, act="hard_silu"))
    return tf.keras.Model(x, layers.Dense(10)(h))


def _shuffle(x, groups=2):
    h, w, c = x.shape[1:]
    y = layers.Reshape((h, w, groups, c // groups))(x)
    y = layers.Permute((1, 2, 4, 3))(y)
    return layers.Reshape((h, w, c))(y)


def shufflenet_v2(batch=1):
    x = tf.keras.Input((32, 32, 3), batch_size=batch)
    h = layers.MaxPooling2D(3, 2, padding="same")(_conv(x, 16, s=2))
    for _ in range(2):
        a, b = layers.Lambda(lambda t: tf.split(t, 2, axis=-1))(h)
        b = _conv(_dw(_conv(b, 8, 1), act=None), 8, 1)
        h = _shuffle(layers.Concatenate()([a, b]))
    h = layers.GlobalAveragePooling2D()(_conv(h, 32, 1))
    return tf.keras.Model(x, layers.Dense(10)(h))


def _fire(x, squeeze, expand):
    s = _conv(x, squeeze, 1)
    return layers.Concatenate()([_conv(s, expand, 1), _conv(s, expand, 3)])


def squeezenet(batch=1):
    x = tf.keras.Input((32, 32, 3), batch_size=batch)
    h = layers.MaxPooling2D(3, 2)(_conv(x, 16, s=2))
    h = _fire(_fire(h, 4, 8), 4, 8)
    h = layers.MaxPooling2D(3, 2)(h)
    h = _conv(_fire(h, 8, 16), 10, 1)
    return tf.keras.Model(x, layers.GlobalAveragePooling2D()(h))


def efficientnet(batch=1):
    x = tf.keras.Input((32, 32, 3), batch_size=batch)
    h = _conv(x, 8, s=2, act="swish")
    for cin, cout, s in ((8, 8, 1), (8, 16, 2)):
        y = _conv(h, cin * 4, 1, act="swish")
        y = _se(_dw(y, s=s, act="swish"), cin * 4, gate="sigmoid")
        y = _conv(y, cout, 1, act=None)
        h = layers.Add()([h, y]) if s == 1 and cin == cout else y
    h = layers.GlobalAveragePooling2D()(_conv(h, 32, 1, act="swish"))
    return tf.keras.Model(x, layers.Dense(10)(h))


def resnet18_64(batch=1):
    x = tf.keras.Input((64, 64, 3), batch_size=batch)
    h = layers.MaxPooling2D(3, 2, padding="same")(_conv(x, 8, 7, s=2))
    for c, s in ((8, 1), (16, 2), (24, 2)):
        y = _conv(_conv(h, c, s=s), c, act=None)
        sc = h if s == 1 else _conv(h, c, 1, s=s, act=None)
        h = layers.ReLU()(layers.Add()([sc, y]))
    return tf.keras.Model(x, layers.Dense(10)(layers.GlobalAveragePooling2D()(h)))


def unet(batch=1):
    x = tf.keras.Input((32, 32, 3), batch_size=batch)
    e1 = _conv(x, 8)
    e2 = _conv(layers.MaxPooling2D(2)(e1), 16)
    b = _conv(layers.MaxPooling2D(2)(e2), 16)
    d2 = _conv(layers.Concatenate()([layers.Conv2DTranspose(16, 2, strides=2)(b), e2]), 16)
    d1 = _conv(layers.Concatenate()([layers.Resizing(32, 32)(d2), e1]), 8)  # bilinear
    return tf.keras.Model(x, layers.Conv2D(3, 1)(d1))


def yolo_two_scale(batch=1):
    # (ReLU6 keeps the random-weight activations bounded: with ReLU the head's input grows
    # ~5x per layer and its sigmoid saturates everywhere)
    x = tf.keras.Input((64, 64, 3), batch_size=batch)
    h = _conv(_conv(x, 8, s=2, act="relu6"), 16, s=2, act="relu6")
    p4 = _conv(_conv(h, 16, s=2, act="relu6"), 24, s=2, act="relu6")  # stride 16
    p5 = _conv(p4, 32, s=2, act="relu6")                              # stride 32
    head5 = layers.Conv2D(3 * 6, 1, activation="sigmoid")(p5)
    up = layers.Resizing(4, 4, interpolation="nearest")(_conv(p5, 16, 1, act="relu6"))
    head4 = layers.Conv2D(3 * 6, 1, activation="sigmoid")(
        _conv(layers.Concatenate()([up, p4]), 24, act="relu6"))
    return tf.keras.Model(x, [head4, head5])


def accel_cnn1d(batch=1):
    x = tf.keras.Input((128, 3), batch_size=batch)
    h = layers.MaxPooling1D(2)(layers.Conv1D(16, 5, padding="same", activation="relu")(x))
    h = layers.MaxPooling1D(2)(layers.Conv1D(24, 5, padding="same", activation="relu")(h))
    h = layers.GlobalAveragePooling1D()(layers.Conv1D(32, 3, activation="relu")(h))
    return tf.keras.Model(x, layers.Dense(6)(h))


def two_in_two_out(batch=1):
    # (the converter orders a signature's inputs by name; the calibration data comes in the
    # model's order: the names keep the two the same)
    img = tf.keras.Input((16, 16, 3), batch_size=batch, name="a_image")
    vec = tf.keras.Input((8,), batch_size=batch, name="b_vector")
    a = layers.GlobalAveragePooling2D()(_conv(_conv(img, 8, s=2), 16, s=2))
    b = layers.Dense(16, activation="relu")(vec)
    j = layers.Concatenate()([a, b])
    return tf.keras.Model([img, vec], [layers.Dense(4)(j), layers.Dense(1, activation="sigmoid")(j)])


# name -> (builder, builtins the converter must write: min counts)
FAMILIES = {
    "mobilenet_v2": (mobilenet_v2, {"DEPTHWISE_CONV_2D": 3, "ADD": 1, "MEAN": 1}),
    "mobilenet_v3_small": (mobilenet_v3_small, {"HARD_SWISH": 3, "MUL": 2}),
    "shufflenet_v2": (shufflenet_v2, {"TRANSPOSE": 2, "CONCATENATION": 2}),
    "squeezenet": (squeezenet, {"CONCATENATION": 3, "MAX_POOL_2D": 2}),
    "efficientnet": (efficientnet, {"LOGISTIC": 3, "MUL": 3}),
    "resnet18_64": (resnet18_64, {"ADD": 3, "MAX_POOL_2D": 1}),
    "unet": (unet, {"TRANSPOSE_CONV": 1, "RESIZE_BILINEAR": 1, "CONCATENATION": 2}),
    "yolo_two_scale": (yolo_two_scale, {"RESIZE_NEAREST_NEIGHBOR": 1, "LOGISTIC": 2}),
    "accel_cnn1d": (accel_cnn1d, {"CONV_2D": 3}),
    "two_in_two_out": (two_in_two_out, {"FULLY_CONNECTED": 3, "CONCATENATION": 1}),
}
