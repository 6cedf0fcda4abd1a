/* tfl_schema.h - constants of the TFLite FlatBuffers schema (prefix TFL_).
 *
 * Mirrors tensorflow/lite/schema/schema.fbs (schema version 3, file
 * identifier "TFL3"): enum values, and for each table the vtable slot
 * (0-based field index, as fb_u8/fb_table/... take it) of every field.
 * A field's comment gives its type, which says which fb_ reader to use:
 * int8 -> fb_i8, uint32 -> fb_u32, bool -> fb_bool, vector<int32> ->
 * fb_vector(..., 4, ...), union -> fb_table plus the *_TYPE field, etc.
 * Fields with a non-zero default have a *_DEFAULT constant; every other
 * scalar defaults to 0 / false.
 *
 * A wrong number here is a silent wrong result, so every constant is checked
 * against the schema shipped with the TFLite wheel by tools/check_schema.py;
 * run it after editing this file. Its conventions: TFL_<TABLE>_<FIELD> with
 * the type as the first word of the comment, TFL_<TABLE>_<FIELD>_DEFAULT,
 * X(NAME, code) rows for the builtin operators.
 *
 * Schema traps worth knowing: ResizeBilinearOptions slots 0 and 1 and
 * SignatureDef slot 3 are deprecated (unused); OperatorCode's builtin code is
 * max(deprecated_builtin_code, builtin_code) because old files only set the
 * int8 one; Tensor.type is a byte.
 */
#ifndef MPCC_TFL_SCHEMA_H
#define MPCC_TFL_SCHEMA_H

#define TFL_FILE_IDENTIFIER "TFL3"
#define TFL_SCHEMA_VERSION 3

/* TensorType (stored as int8). */
enum {
    TFL_TYPE_FLOAT32 = 0,
    TFL_TYPE_FLOAT16 = 1,
    TFL_TYPE_INT32 = 2,
    TFL_TYPE_UINT8 = 3,
    TFL_TYPE_INT64 = 4,
    TFL_TYPE_STRING = 5,
    TFL_TYPE_BOOL = 6,
    TFL_TYPE_INT16 = 7,
    TFL_TYPE_COMPLEX64 = 8,
    TFL_TYPE_INT8 = 9,
    TFL_TYPE_FLOAT64 = 10,
    TFL_TYPE_COMPLEX128 = 11,
    TFL_TYPE_UINT64 = 12,
    TFL_TYPE_RESOURCE = 13,
    TFL_TYPE_VARIANT = 14,
    TFL_TYPE_UINT32 = 15,
    TFL_TYPE_UINT16 = 16,
    TFL_TYPE_INT4 = 17,
    TFL_TYPE_BFLOAT16 = 18,
    TFL_TYPE_INT2 = 19,
    TFL_TYPE_UINT4 = 20,
    TFL_TYPE_FLOAT8_E4M3FN = 21,
    TFL_TYPE_FLOAT8_E5M2 = 22,
};

/* ActivationFunctionType (int8), the fused_activation_function fields. */
enum {
    TFL_ACT_NONE = 0,
    TFL_ACT_RELU = 1,
    TFL_ACT_RELU_N1_TO_1 = 2,
    TFL_ACT_RELU6 = 3,
    TFL_ACT_TANH = 4,
    TFL_ACT_SIGN_BIT = 5,
};

/* Padding (int8). */
enum {
    TFL_PADDING_SAME = 0,
    TFL_PADDING_VALID = 1,
};

/* QuantizationDetails union type ids (QuantizationParameters.details_type). */
enum {
    TFL_QDETAILS_NONE = 0,
    TFL_QDETAILS_CUSTOM_QUANTIZATION = 1,
    TFL_QDETAILS_BLOCKWISE_QUANTIZATION = 2,
    TFL_QDETAILS_MULTI_AXIS_QUANTIZATION = 3, /* refused: not a scheme this interpreter runs */
};

/* BlockwiseQuantization (the details of a block-wise quantized tensor). */
enum {
    /* scales: the index of the fp16 [rows, cols / block_size] tensor; zero_points: -1 for none */
    TFL_BLOCKWISE_SCALES = 0,      /* int32 */
    TFL_BLOCKWISE_ZERO_POINTS = 1, /* int32 */
    TFL_BLOCKWISE_BLOCK_SIZE = 2,  /* int32 */
    TFL_BLOCKWISE_BLOCK_SHAPE = 3, /* vector<int32> */
};

/* FullyConnectedOptionsWeightsFormat (int8). */
enum {
    TFL_FC_WEIGHTS_DEFAULT = 0,
    TFL_FC_WEIGHTS_SHUFFLED4X16INT8 = 1,
};

/* LSTMKernelType (int8). */
enum {
    TFL_LSTM_KERNEL_FULL = 0,
    TFL_LSTM_KERNEL_BASIC = 1,
};

/* MirrorPadMode (int8). */
enum {
    TFL_MIRROR_PAD_MODE_REFLECT = 0,
    TFL_MIRROR_PAD_MODE_SYMMETRIC = 1,
};

/* DimensionType (int8), DimensionMetadata.format. */
enum {
    TFL_DIMENSION_TYPE_DENSE = 0,
    TFL_DIMENSION_TYPE_SPARSE_CSR = 1,
};

/* SparseIndexVector union type ids (DimensionMetadata.array_segments_type / array_indices_type). */
enum {
    TFL_SPARSE_INDEX_VECTOR_NONE = 0,
    TFL_SPARSE_INDEX_VECTOR_INT32_VECTOR = 1,
    TFL_SPARSE_INDEX_VECTOR_UINT16_VECTOR = 2,
    TFL_SPARSE_INDEX_VECTOR_UINT8_VECTOR = 3,
};

/* CustomOptionsFormat (int8). */
enum {
    TFL_CUSTOM_OPTIONS_FORMAT_FLEXBUFFERS = 0,
};

#include "tfl_builtin_ops.h"


enum {
#define TFL_OP_ENUM_ROW(name, code) TFL_OP_##name = code,
    TFL_BUILTIN_OPERATORS(TFL_OP_ENUM_ROW)
#undef TFL_OP_ENUM_ROW
};

/* "ADD" for TFL_OP_ADD; NULL for a code this schema does not know. */
const char *tfl_builtin_name(int code);

/* BuiltinOptions union type ids (Operator.builtin_options_type, uint8). */
enum {
    TFL_OPT_NONE = 0,
    TFL_OPT_CONV2D_OPTIONS = 1,
    TFL_OPT_DEPTHWISE_CONV2D_OPTIONS = 2,
    TFL_OPT_CONCAT_EMBEDDINGS_OPTIONS = 3,
    TFL_OPT_LSH_PROJECTION_OPTIONS = 4,
    TFL_OPT_POOL2D_OPTIONS = 5,
    TFL_OPT_SVDF_OPTIONS = 6,
    TFL_OPT_RNN_OPTIONS = 7,
    TFL_OPT_FULLY_CONNECTED_OPTIONS = 8,
    TFL_OPT_SOFTMAX_OPTIONS = 9,
    TFL_OPT_CONCATENATION_OPTIONS = 10,
    TFL_OPT_ADD_OPTIONS = 11,
    TFL_OPT_L2NORM_OPTIONS = 12,
    TFL_OPT_LOCAL_RESPONSE_NORMALIZATION_OPTIONS = 13,
    TFL_OPT_LSTM_OPTIONS = 14,
    TFL_OPT_RESIZE_BILINEAR_OPTIONS = 15,
    TFL_OPT_CALL_OPTIONS = 16,
    TFL_OPT_RESHAPE_OPTIONS = 17,
    TFL_OPT_SKIP_GRAM_OPTIONS = 18,
    TFL_OPT_SPACE_TO_DEPTH_OPTIONS = 19,
    TFL_OPT_EMBEDDING_LOOKUP_SPARSE_OPTIONS = 20,
    TFL_OPT_MUL_OPTIONS = 21,
    TFL_OPT_PAD_OPTIONS = 22,
    TFL_OPT_GATHER_OPTIONS = 23,
    TFL_OPT_BATCH_TO_SPACE_ND_OPTIONS = 24,
    TFL_OPT_SPACE_TO_BATCH_ND_OPTIONS = 25,
    TFL_OPT_TRANSPOSE_OPTIONS = 26,
    TFL_OPT_REDUCER_OPTIONS = 27,
    TFL_OPT_SUB_OPTIONS = 28,
    TFL_OPT_DIV_OPTIONS = 29,
    TFL_OPT_SQUEEZE_OPTIONS = 30,
    TFL_OPT_SEQUENCE_RNN_OPTIONS = 31,
    TFL_OPT_STRIDED_SLICE_OPTIONS = 32,
    TFL_OPT_EXP_OPTIONS = 33,
    TFL_OPT_TOPK_V2_OPTIONS = 34,
    TFL_OPT_SPLIT_OPTIONS = 35,
    TFL_OPT_LOG_SOFTMAX_OPTIONS = 36,
    TFL_OPT_CAST_OPTIONS = 37,
    TFL_OPT_DEQUANTIZE_OPTIONS = 38,
    TFL_OPT_MAXIMUM_MINIMUM_OPTIONS = 39,
    TFL_OPT_ARG_MAX_OPTIONS = 40,
    TFL_OPT_LESS_OPTIONS = 41,
    TFL_OPT_NEG_OPTIONS = 42,
    TFL_OPT_PADV2_OPTIONS = 43,
    TFL_OPT_GREATER_OPTIONS = 44,
    TFL_OPT_GREATER_EQUAL_OPTIONS = 45,
    TFL_OPT_LESS_EQUAL_OPTIONS = 46,
    TFL_OPT_SELECT_OPTIONS = 47,
    TFL_OPT_SLICE_OPTIONS = 48,
    TFL_OPT_TRANSPOSE_CONV_OPTIONS = 49,
    TFL_OPT_SPARSE_TO_DENSE_OPTIONS = 50,
    TFL_OPT_TILE_OPTIONS = 51,
    TFL_OPT_EXPAND_DIMS_OPTIONS = 52,
    TFL_OPT_EQUAL_OPTIONS = 53,
    TFL_OPT_NOT_EQUAL_OPTIONS = 54,
    TFL_OPT_SHAPE_OPTIONS = 55,
    TFL_OPT_POW_OPTIONS = 56,
    TFL_OPT_ARG_MIN_OPTIONS = 57,
    TFL_OPT_FAKE_QUANT_OPTIONS = 58,
    TFL_OPT_PACK_OPTIONS = 59,
    TFL_OPT_LOGICAL_OR_OPTIONS = 60,
    TFL_OPT_ONE_HOT_OPTIONS = 61,
    TFL_OPT_LOGICAL_AND_OPTIONS = 62,
    TFL_OPT_LOGICAL_NOT_OPTIONS = 63,
    TFL_OPT_UNPACK_OPTIONS = 64,
    TFL_OPT_FLOOR_DIV_OPTIONS = 65,
    TFL_OPT_SQUARE_OPTIONS = 66,
    TFL_OPT_ZEROS_LIKE_OPTIONS = 67,
    TFL_OPT_FILL_OPTIONS = 68,
    TFL_OPT_BIDIRECTIONAL_SEQUENCE_LSTM_OPTIONS = 69,
    TFL_OPT_BIDIRECTIONAL_SEQUENCE_RNN_OPTIONS = 70,
    TFL_OPT_UNIDIRECTIONAL_SEQUENCE_LSTM_OPTIONS = 71,
    TFL_OPT_FLOOR_MOD_OPTIONS = 72,
    TFL_OPT_RANGE_OPTIONS = 73,
    TFL_OPT_RESIZE_NEAREST_NEIGHBOR_OPTIONS = 74,
    TFL_OPT_LEAKY_RELU_OPTIONS = 75,
    TFL_OPT_SQUARED_DIFFERENCE_OPTIONS = 76,
    TFL_OPT_MIRROR_PAD_OPTIONS = 77,
    TFL_OPT_ABS_OPTIONS = 78,
    TFL_OPT_SPLIT_V_OPTIONS = 79,
    TFL_OPT_UNIQUE_OPTIONS = 80,
    TFL_OPT_REVERSE_V2_OPTIONS = 81,
    TFL_OPT_ADD_N_OPTIONS = 82,
    TFL_OPT_GATHER_ND_OPTIONS = 83,
    TFL_OPT_COS_OPTIONS = 84,
    TFL_OPT_WHERE_OPTIONS = 85,
    TFL_OPT_RANK_OPTIONS = 86,
    TFL_OPT_REVERSE_SEQUENCE_OPTIONS = 87,
    TFL_OPT_MATRIX_DIAG_OPTIONS = 88,
    TFL_OPT_QUANTIZE_OPTIONS = 89,
    TFL_OPT_MATRIX_SET_DIAG_OPTIONS = 90,
    TFL_OPT_HARD_SWISH_OPTIONS = 91,
    TFL_OPT_IF_OPTIONS = 92,
    TFL_OPT_WHILE_OPTIONS = 93,
    TFL_OPT_DEPTH_TO_SPACE_OPTIONS = 94,
    TFL_OPT_NON_MAX_SUPPRESSION_V4_OPTIONS = 95,
    TFL_OPT_NON_MAX_SUPPRESSION_V5_OPTIONS = 96,
    TFL_OPT_SCATTER_ND_OPTIONS = 97,
    TFL_OPT_SELECT_V2_OPTIONS = 98,
    TFL_OPT_DENSIFY_OPTIONS = 99,
    TFL_OPT_SEGMENT_SUM_OPTIONS = 100,
    TFL_OPT_BATCH_MATMUL_OPTIONS = 101,
    TFL_OPT_CUMSUM_OPTIONS = 102,
    TFL_OPT_CALL_ONCE_OPTIONS = 103,
    TFL_OPT_BROADCAST_TO_OPTIONS = 104,
    TFL_OPT_RFFT2D_OPTIONS = 105,
    TFL_OPT_CONV3D_OPTIONS = 106,
    TFL_OPT_HASHTABLE_OPTIONS = 107,
    TFL_OPT_HASHTABLE_FIND_OPTIONS = 108,
    TFL_OPT_HASHTABLE_IMPORT_OPTIONS = 109,
    TFL_OPT_HASHTABLE_SIZE_OPTIONS = 110,
    TFL_OPT_VAR_HANDLE_OPTIONS = 111,
    TFL_OPT_READ_VARIABLE_OPTIONS = 112,
    TFL_OPT_ASSIGN_VARIABLE_OPTIONS = 113,
    TFL_OPT_RANDOM_OPTIONS = 114,
    TFL_OPT_BUCKETIZE_OPTIONS = 115,
    TFL_OPT_GELU_OPTIONS = 116,
    TFL_OPT_DYNAMIC_UPDATE_SLICE_OPTIONS = 117,
    TFL_OPT_UNSORTED_SEGMENT_PROD_OPTIONS = 118,
    TFL_OPT_UNSORTED_SEGMENT_MAX_OPTIONS = 119,
    TFL_OPT_UNSORTED_SEGMENT_MIN_OPTIONS = 120,
    TFL_OPT_UNSORTED_SEGMENT_SUM_OPTIONS = 121,
    TFL_OPT_ATAN2_OPTIONS = 122,
    TFL_OPT_SIGN_OPTIONS = 123,
    TFL_OPT_BITCAST_OPTIONS = 124,
    TFL_OPT_BITWISE_XOR_OPTIONS = 125,
    TFL_OPT_RIGHT_SHIFT_OPTIONS = 126,
};

/* ---- Tables: vtable slots ---- */

/* Model */
enum {
    TFL_MODEL_VERSION = 0, /* uint32 */
    TFL_MODEL_OPERATOR_CODES = 1, /* vector<table> */
    TFL_MODEL_SUBGRAPHS = 2, /* vector<table> */
    TFL_MODEL_DESCRIPTION = 3, /* string */
    TFL_MODEL_BUFFERS = 4, /* vector<table> */
    TFL_MODEL_METADATA_BUFFER = 5, /* vector<int32> */
    TFL_MODEL_METADATA = 6, /* vector<table> */
    TFL_MODEL_SIGNATURE_DEFS = 7, /* vector<table> */
    TFL_MODEL_EXTERNAL_BUFFER_GROUPS = 8, /* vector<table> */
    TFL_MODEL_EXTERNAL_BUFFERS = 9, /* vector<table> */
};

/* OperatorCode */
enum {
    TFL_OPERATOR_CODE_DEPRECATED_BUILTIN_CODE = 0, /* int8 */
    TFL_OPERATOR_CODE_CUSTOM_CODE = 1, /* string */
    TFL_OPERATOR_CODE_VERSION = 2, /* int32, default 1 */
    TFL_OPERATOR_CODE_BUILTIN_CODE = 3, /* int32 */
};
enum {
    TFL_OPERATOR_CODE_VERSION_DEFAULT = 1,
};

/* SubGraph */
enum {
    TFL_SUBGRAPH_TENSORS = 0, /* vector<table> */
    TFL_SUBGRAPH_INPUTS = 1, /* vector<int32> */
    TFL_SUBGRAPH_OUTPUTS = 2, /* vector<int32> */
    TFL_SUBGRAPH_OPERATORS = 3, /* vector<table> */
    TFL_SUBGRAPH_NAME = 4, /* string */
    TFL_SUBGRAPH_DEBUG_METADATA_INDEX = 5, /* int32, default -1 */
};
enum {
    TFL_SUBGRAPH_DEBUG_METADATA_INDEX_DEFAULT = -1,
};

/* Tensor */
enum {
    TFL_TENSOR_SHAPE = 0, /* vector<int32> */
    TFL_TENSOR_TYPE = 1, /* int8 */
    TFL_TENSOR_BUFFER = 2, /* uint32 */
    TFL_TENSOR_NAME = 3, /* string */
    TFL_TENSOR_QUANTIZATION = 4, /* table */
    TFL_TENSOR_IS_VARIABLE = 5, /* bool */
    TFL_TENSOR_SPARSITY = 6, /* table */
    TFL_TENSOR_SHAPE_SIGNATURE = 7, /* vector<int32> */
    TFL_TENSOR_HAS_RANK = 8, /* bool */
    TFL_TENSOR_VARIANT_TENSORS = 9, /* vector<table> */
    TFL_TENSOR_EXTERNAL_BUFFER = 10, /* uint32 */
};

/* QuantizationParameters */
enum {
    TFL_QUANTIZATION_MIN = 0, /* vector<float32> */
    TFL_QUANTIZATION_MAX = 1, /* vector<float32> */
    TFL_QUANTIZATION_SCALE = 2, /* vector<float32> */
    TFL_QUANTIZATION_ZERO_POINT = 3, /* vector<int64> */
    TFL_QUANTIZATION_DETAILS_TYPE = 4, /* uint8 */
    TFL_QUANTIZATION_DETAILS = 5, /* union */
    TFL_QUANTIZATION_QUANTIZED_DIMENSION = 6, /* int32 */
};

/* Operator */
enum {
    TFL_OPERATOR_OPCODE_INDEX = 0, /* uint32 */
    TFL_OPERATOR_INPUTS = 1, /* vector<int32> */
    TFL_OPERATOR_OUTPUTS = 2, /* vector<int32> */
    TFL_OPERATOR_BUILTIN_OPTIONS_TYPE = 3, /* uint8 */
    TFL_OPERATOR_BUILTIN_OPTIONS = 4, /* union */
    TFL_OPERATOR_CUSTOM_OPTIONS = 5, /* vector<uint8> */
    TFL_OPERATOR_CUSTOM_OPTIONS_FORMAT = 6, /* int8 */
    TFL_OPERATOR_MUTATING_VARIABLE_INPUTS = 7, /* vector<bool> */
    TFL_OPERATOR_INTERMEDIATES = 8, /* vector<int32> */
    TFL_OPERATOR_LARGE_CUSTOM_OPTIONS_OFFSET = 9, /* uint64 */
    TFL_OPERATOR_LARGE_CUSTOM_OPTIONS_SIZE = 10, /* uint64 */
    TFL_OPERATOR_BUILTIN_OPTIONS_2_TYPE = 11, /* uint8 */
    TFL_OPERATOR_BUILTIN_OPTIONS_2 = 12, /* union */
    TFL_OPERATOR_DEBUG_METADATA_INDEX = 13, /* int32, default -1 */
};
enum {
    TFL_OPERATOR_DEBUG_METADATA_INDEX_DEFAULT = -1,
};

/* Buffer */
enum {
    TFL_BUFFER_DATA = 0, /* vector<uint8> */
    TFL_BUFFER_OFFSET = 1, /* uint64 */
    TFL_BUFFER_SIZE = 2, /* uint64 */
};

/* SignatureDef */
enum {
    TFL_SIGNATURE_DEF_INPUTS = 0, /* vector<table> */
    TFL_SIGNATURE_DEF_OUTPUTS = 1, /* vector<table> */
    TFL_SIGNATURE_DEF_SIGNATURE_KEY = 2, /* string */
    TFL_SIGNATURE_DEF_SUBGRAPH_INDEX = 4, /* uint32 */
};

/* TensorMap */
enum {
    TFL_TENSOR_MAP_NAME = 0, /* string */
    TFL_TENSOR_MAP_TENSOR_INDEX = 1, /* uint32 */
};

/* Metadata */
enum {
    TFL_METADATA_NAME = 0, /* string */
    TFL_METADATA_BUFFER = 1, /* uint32 */
};

/* Conv2DOptions */
enum {
    TFL_CONV2D_OPTIONS_PADDING = 0, /* int8 */
    TFL_CONV2D_OPTIONS_STRIDE_W = 1, /* int32 */
    TFL_CONV2D_OPTIONS_STRIDE_H = 2, /* int32 */
    TFL_CONV2D_OPTIONS_FUSED_ACTIVATION_FUNCTION = 3, /* int8 */
    TFL_CONV2D_OPTIONS_DILATION_W_FACTOR = 4, /* int32, default 1 */
    TFL_CONV2D_OPTIONS_DILATION_H_FACTOR = 5, /* int32, default 1 */
    TFL_CONV2D_OPTIONS_QUANTIZED_BIAS_TYPE = 6, /* int8 */
};
enum {
    TFL_CONV2D_OPTIONS_DILATION_W_FACTOR_DEFAULT = 1,
    TFL_CONV2D_OPTIONS_DILATION_H_FACTOR_DEFAULT = 1,
};

/* DepthwiseConv2DOptions */
enum {
    TFL_DEPTHWISE_CONV2D_OPTIONS_PADDING = 0, /* int8 */
    TFL_DEPTHWISE_CONV2D_OPTIONS_STRIDE_W = 1, /* int32 */
    TFL_DEPTHWISE_CONV2D_OPTIONS_STRIDE_H = 2, /* int32 */
    TFL_DEPTHWISE_CONV2D_OPTIONS_DEPTH_MULTIPLIER = 3, /* int32 */
    TFL_DEPTHWISE_CONV2D_OPTIONS_FUSED_ACTIVATION_FUNCTION = 4, /* int8 */
    TFL_DEPTHWISE_CONV2D_OPTIONS_DILATION_W_FACTOR = 5, /* int32, default 1 */
    TFL_DEPTHWISE_CONV2D_OPTIONS_DILATION_H_FACTOR = 6, /* int32, default 1 */
};
enum {
    TFL_DEPTHWISE_CONV2D_OPTIONS_DILATION_W_FACTOR_DEFAULT = 1,
    TFL_DEPTHWISE_CONV2D_OPTIONS_DILATION_H_FACTOR_DEFAULT = 1,
};

/* TransposeConvOptions */
enum {
    TFL_TRANSPOSE_CONV_OPTIONS_PADDING = 0, /* int8 */
    TFL_TRANSPOSE_CONV_OPTIONS_STRIDE_W = 1, /* int32 */
    TFL_TRANSPOSE_CONV_OPTIONS_STRIDE_H = 2, /* int32 */
    TFL_TRANSPOSE_CONV_OPTIONS_FUSED_ACTIVATION_FUNCTION = 3, /* int8 */
    TFL_TRANSPOSE_CONV_OPTIONS_QUANTIZED_BIAS_TYPE = 4, /* int8 */
};

/* FullyConnectedOptions */
enum {
    TFL_FULLY_CONNECTED_OPTIONS_FUSED_ACTIVATION_FUNCTION = 0, /* int8 */
    TFL_FULLY_CONNECTED_OPTIONS_WEIGHTS_FORMAT = 1, /* int8 */
    TFL_FULLY_CONNECTED_OPTIONS_KEEP_NUM_DIMS = 2, /* bool */
    TFL_FULLY_CONNECTED_OPTIONS_ASYMMETRIC_QUANTIZE_INPUTS = 3, /* bool */
    TFL_FULLY_CONNECTED_OPTIONS_QUANTIZED_BIAS_TYPE = 4, /* int8 */
    TFL_FULLY_CONNECTED_OPTIONS_QUANT_SPEC = 5, /* vector<uint8> */
};

/* BatchMatMulOptions */
enum {
    TFL_BATCH_MATMUL_OPTIONS_ADJ_X = 0, /* bool */
    TFL_BATCH_MATMUL_OPTIONS_ADJ_Y = 1, /* bool */
    TFL_BATCH_MATMUL_OPTIONS_ASYMMETRIC_QUANTIZE_INPUTS = 2, /* bool */
};

/* Pool2DOptions */
enum {
    TFL_POOL2D_OPTIONS_PADDING = 0, /* int8 */
    TFL_POOL2D_OPTIONS_STRIDE_W = 1, /* int32 */
    TFL_POOL2D_OPTIONS_STRIDE_H = 2, /* int32 */
    TFL_POOL2D_OPTIONS_FILTER_WIDTH = 3, /* int32 */
    TFL_POOL2D_OPTIONS_FILTER_HEIGHT = 4, /* int32 */
    TFL_POOL2D_OPTIONS_FUSED_ACTIVATION_FUNCTION = 5, /* int8 */
};

/* AddOptions */
enum {
    TFL_ADD_OPTIONS_FUSED_ACTIVATION_FUNCTION = 0, /* int8 */
    TFL_ADD_OPTIONS_POT_SCALE_INT16 = 1, /* bool, default true */
};
enum {
    TFL_ADD_OPTIONS_POT_SCALE_INT16_DEFAULT = 1,
};

/* SubOptions */
enum {
    TFL_SUB_OPTIONS_FUSED_ACTIVATION_FUNCTION = 0, /* int8 */
    TFL_SUB_OPTIONS_POT_SCALE_INT16 = 1, /* bool, default true */
};
enum {
    TFL_SUB_OPTIONS_POT_SCALE_INT16_DEFAULT = 1,
};

/* MulOptions */
enum {
    TFL_MUL_OPTIONS_FUSED_ACTIVATION_FUNCTION = 0, /* int8 */
};

/* DivOptions */
enum {
    TFL_DIV_OPTIONS_FUSED_ACTIVATION_FUNCTION = 0, /* int8 */
};

/* ConcatenationOptions */
enum {
    TFL_CONCATENATION_OPTIONS_AXIS = 0, /* int32 */
    TFL_CONCATENATION_OPTIONS_FUSED_ACTIVATION_FUNCTION = 1, /* int8 */
};

/* ReshapeOptions */
enum {
    TFL_RESHAPE_OPTIONS_NEW_SHAPE = 0, /* vector<int32> */
};

/* SoftmaxOptions */
enum {
    TFL_SOFTMAX_OPTIONS_BETA = 0, /* float32 */
};

/* L2NormOptions */
enum {
    TFL_L2NORM_OPTIONS_FUSED_ACTIVATION_FUNCTION = 0, /* int8 */
};

/* LeakyReluOptions */
enum {
    TFL_LEAKY_RELU_OPTIONS_ALPHA = 0, /* float32 */
};

/* ReducerOptions */
enum {
    TFL_REDUCER_OPTIONS_KEEP_DIMS = 0, /* bool */
};

/* SqueezeOptions */
enum {
    TFL_SQUEEZE_OPTIONS_SQUEEZE_DIMS = 0, /* vector<int32> */
};

/* StridedSliceOptions */
enum {
    TFL_STRIDED_SLICE_OPTIONS_BEGIN_MASK = 0, /* int32 */
    TFL_STRIDED_SLICE_OPTIONS_END_MASK = 1, /* int32 */
    TFL_STRIDED_SLICE_OPTIONS_ELLIPSIS_MASK = 2, /* int32 */
    TFL_STRIDED_SLICE_OPTIONS_NEW_AXIS_MASK = 3, /* int32 */
    TFL_STRIDED_SLICE_OPTIONS_SHRINK_AXIS_MASK = 4, /* int32 */
    TFL_STRIDED_SLICE_OPTIONS_OFFSET = 5, /* bool */
};

/* SplitOptions */
enum {
    TFL_SPLIT_OPTIONS_NUM_SPLITS = 0, /* int32 */
};

/* SplitVOptions */
enum {
    TFL_SPLIT_V_OPTIONS_NUM_SPLITS = 0, /* int32 */
};

/* PackOptions */
enum {
    TFL_PACK_OPTIONS_VALUES_COUNT = 0, /* int32 */
    TFL_PACK_OPTIONS_AXIS = 1, /* int32 */
};

/* UnpackOptions */
enum {
    TFL_UNPACK_OPTIONS_NUM = 0, /* int32 */
    TFL_UNPACK_OPTIONS_AXIS = 1, /* int32 */
};

/* GatherOptions */
enum {
    TFL_GATHER_OPTIONS_AXIS = 0, /* int32 */
    TFL_GATHER_OPTIONS_BATCH_DIMS = 1, /* int32 */
};

/* ResizeBilinearOptions */
enum {
    TFL_RESIZE_BILINEAR_OPTIONS_ALIGN_CORNERS = 2, /* bool */
    TFL_RESIZE_BILINEAR_OPTIONS_HALF_PIXEL_CENTERS = 3, /* bool */
};

/* ResizeNearestNeighborOptions */
enum {
    TFL_RESIZE_NEAREST_NEIGHBOR_OPTIONS_ALIGN_CORNERS = 0, /* bool */
    TFL_RESIZE_NEAREST_NEIGHBOR_OPTIONS_HALF_PIXEL_CENTERS = 1, /* bool */
};

/* DepthToSpaceOptions */
enum {
    TFL_DEPTH_TO_SPACE_OPTIONS_BLOCK_SIZE = 0, /* int32 */
};

/* SpaceToDepthOptions */
enum {
    TFL_SPACE_TO_DEPTH_OPTIONS_BLOCK_SIZE = 0, /* int32 */
};

/* ArgMaxOptions */
enum {
    TFL_ARG_MAX_OPTIONS_OUTPUT_TYPE = 0, /* int8 */
};

/* ArgMinOptions */
enum {
    TFL_ARG_MIN_OPTIONS_OUTPUT_TYPE = 0, /* int8 */
};

/* CastOptions */
enum {
    TFL_CAST_OPTIONS_IN_DATA_TYPE = 0, /* int8 */
    TFL_CAST_OPTIONS_OUT_DATA_TYPE = 1, /* int8 */
};

/* ShapeOptions */
enum {
    TFL_SHAPE_OPTIONS_OUT_TYPE = 0, /* int8 */
};

/* GeluOptions */
enum {
    TFL_GELU_OPTIONS_APPROXIMATE = 0, /* bool */
};

/* SVDFOptions */
enum {
    TFL_SVDF_OPTIONS_RANK = 0, /* int32 */
    TFL_SVDF_OPTIONS_FUSED_ACTIVATION_FUNCTION = 1, /* int8 */
    TFL_SVDF_OPTIONS_ASYMMETRIC_QUANTIZE_INPUTS = 2, /* bool */
};

/* LSTMOptions */
enum {
    TFL_LSTM_OPTIONS_FUSED_ACTIVATION_FUNCTION = 0, /* int8 */
    TFL_LSTM_OPTIONS_CELL_CLIP = 1, /* float32 */
    TFL_LSTM_OPTIONS_PROJ_CLIP = 2, /* float32 */
    TFL_LSTM_OPTIONS_KERNEL_TYPE = 3, /* int8 */
    TFL_LSTM_OPTIONS_ASYMMETRIC_QUANTIZE_INPUTS = 4, /* bool */
};

/* UnidirectionalSequenceLSTMOptions */
enum {
    TFL_UNIDIRECTIONAL_SEQUENCE_LSTM_OPTIONS_FUSED_ACTIVATION_FUNCTION = 0, /* int8 */
    TFL_UNIDIRECTIONAL_SEQUENCE_LSTM_OPTIONS_CELL_CLIP = 1, /* float32 */
    TFL_UNIDIRECTIONAL_SEQUENCE_LSTM_OPTIONS_PROJ_CLIP = 2, /* float32 */
    TFL_UNIDIRECTIONAL_SEQUENCE_LSTM_OPTIONS_TIME_MAJOR = 3, /* bool */
    TFL_UNIDIRECTIONAL_SEQUENCE_LSTM_OPTIONS_ASYMMETRIC_QUANTIZE_INPUTS = 4, /* bool */
    TFL_UNIDIRECTIONAL_SEQUENCE_LSTM_OPTIONS_DIAGONAL_RECURRENT_TENSORS = 5, /* bool */
};

/* MirrorPadOptions */
enum {
    TFL_MIRROR_PAD_OPTIONS_MODE = 0, /* int8 */
};

/* Control flow: IfOptions, WhileOptions, CallOnceOptions (subgraph indices). */
enum {
    TFL_IF_OPTIONS_THEN_SUBGRAPH_INDEX = 0, /* int32 */
    TFL_IF_OPTIONS_ELSE_SUBGRAPH_INDEX = 1, /* int32 */
};
enum {
    TFL_WHILE_OPTIONS_COND_SUBGRAPH_INDEX = 0, /* int32 */
    TFL_WHILE_OPTIONS_BODY_SUBGRAPH_INDEX = 1, /* int32 */
};
enum {
    TFL_CALL_ONCE_OPTIONS_INIT_SUBGRAPH_INDEX = 0, /* int32 */
};
/* StableHLOCompositeOptions (in Operator.builtin_options_2). */
enum {
    TFL_COMPOSITE_OPTIONS_NAME = 0, /* string */
    TFL_COMPOSITE_OPTIONS_DECOMPOSITION_SUBGRAPH_INDEX = 1, /* int32 */
    TFL_COMPOSITE_OPTIONS_COMPOSITE_ATTRIBUTES = 2, /* vector<uint8> */
    TFL_COMPOSITE_OPTIONS_COMPOSITE_ATTRIBUTES_FORMAT = 3, /* int8 */
    TFL_COMPOSITE_OPTIONS_VERSION = 4, /* int32 */
};

/* VarHandleOptions: a resource variable's key. */
enum {
    TFL_VAR_HANDLE_OPTIONS_CONTAINER = 0, /* string */
    TFL_VAR_HANDLE_OPTIONS_SHARED_NAME = 1, /* string */
};

/* Sparse tensors: Tensor.sparsity is a SparsityParameters table. */
enum {
    TFL_SPARSITY_PARAMETERS_TRAVERSAL_ORDER = 0, /* vector<int32> */
    TFL_SPARSITY_PARAMETERS_BLOCK_MAP = 1, /* vector<int32> */
    TFL_SPARSITY_PARAMETERS_DIM_METADATA = 2, /* vector<table> */
};
enum {
    TFL_DIMENSION_METADATA_FORMAT = 0, /* int8 */
    TFL_DIMENSION_METADATA_DENSE_SIZE = 1, /* int32 */
    TFL_DIMENSION_METADATA_ARRAY_SEGMENTS_TYPE = 2, /* uint8 */
    TFL_DIMENSION_METADATA_ARRAY_SEGMENTS = 3, /* union */
    TFL_DIMENSION_METADATA_ARRAY_INDICES_TYPE = 4, /* uint8 */
    TFL_DIMENSION_METADATA_ARRAY_INDICES = 5, /* union */
};
/* Int32Vector, Uint16Vector, Uint8Vector: the one field `values`. */
enum {
    TFL_INT32_VECTOR_VALUES = 0, /* vector<int32> */
};
enum {
    TFL_UINT16_VECTOR_VALUES = 0, /* vector<uint16> */
};
enum {
    TFL_UINT8_VECTOR_VALUES = 0, /* vector<uint8> */
};

#endif
