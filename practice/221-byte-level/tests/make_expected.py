"""Expected values of exercise 221 (the byte-level mapping), written independently in Python.

    /usr/bin/python3 practice/221-byte-level/tests/make_expected.py

writes inputs.h (the table, whose code points the runner maps back, and the bytes of
the real text) and expected.h (the same, for the checker's messages and sizes, and the
UTF-8 strings it compares with) beside this script.

The mapping as GPT-2's byte-level BPE defines it (the one Qwen's tokenizer.json uses
through its ByteLevel pre-tokenizer): the printable bytes keep their own code point,
the others take 256, 257, ... in byte order. The UTF-8 strings are Python's own
str.encode("utf-8") of the mapped characters.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "lib"))
from ptgen import header, ints  # noqa: E402

keep = [b for b in range(256) if 0x21 <= b <= 0x7E or 0xA1 <= b <= 0xAC or 0xAE <= b <= 0xFF]
table, extra = {}, 0
for b in range(256):
    if b in keep:
        table[b] = b
    else:
        table[b] = 256 + extra
        extra += 1
assert extra == 68 and len(set(table.values())) == 256


def c_string(name, data):
    text = "".join(chr(table[b]) for b in data).encode("utf-8")
    body = "".join(f"\\x{c:02x}" for c in text)
    lines = [body[i:i + 96] for i in range(0, len(body), 96)]
    joined = "\n".join(f'    "{line}"' for line in lines) if lines else '    ""'
    return f"static const char {name}[] =\n{joined};\n"


real = "Hello, 世界!\n\tok ".encode("utf-8")
table_part = ints("symbol_of", [table[b] for b in range(256)], "uint32_t")
real_part = ints("real_text_bytes", list(real), "uint8_t")
runner_inputs = [table_part, real_part]
parts = [table_part, c_string("all_bytes_utf8", bytes(range(256))), c_string("real_text_utf8", real), real_part]
here = os.path.dirname(os.path.abspath(__file__))
command = "/usr/bin/python3 practice/221-byte-level/tests/make_expected.py"
header(command, "The byte → code point table (inverse maps its code points back), and the UTF-8 bytes of the\n"
       "real text.", runner_inputs, os.path.join(here, "inputs.h"))
header(command, "The byte → code point table, and the UTF-8 text of mapped byte strings.", parts,
       os.path.join(here, "expected.h"))
