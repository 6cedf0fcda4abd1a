"""deep: a float model of about 300 operators that is small in bytes, for `mpcc report` on a large
graph (tests/test_report.py) and the planner/scheduler on a long chain of fused groups.

Committed (tests/models/deep_bert_f32.tflite): the BERT of bert.py with 7 encoder layers, hidden 16,
2 heads, FFN 16, vocabulary 128 (sequence 128)."""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402

common.setup()

import bert  # noqa: E402


def main():
    common.family_args()
    bert.make("deep_bert", 128, 7, 16, 2, 16, common.TESTS_MODELS, common.MAX_COMMITTED_BYTES, ("f32",))


if __name__ == "__main__":
    main()
