"""The book's qwen/ package interface, on top of reference/qwen35_reference.py.

compare_with_pytorch.py runs a reader's own qwen/ package (the one written while
following the book) against a C demo's --dump. This package stands in for that
reader's code in the workbook's own test (ch07_deltanet/tests/
test_compare_with_pytorch.sh): the same module, class and function names, the same
call shapes, the math taken from the project's float64 reference wherever the
reference has a function for it (rms_norm, gated_rms_norm, l2norm, rope_tables,
apply_rope, load_checkpoint). Everything here computes in float64.

It is a test vehicle, not a model to learn from: the book's own modules are.
"""
import os
import sys

_REFERENCE = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
if _REFERENCE not in sys.path:
    sys.path.insert(0, _REFERENCE)
