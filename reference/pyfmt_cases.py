#!/usr/bin/python3
"""Writes what Python itself prints for tricky numbers: the reference for common/workbook/pyfmt.c.

    /usr/bin/python3 reference/pyfmt_cases.py > ch07_deltanet/tests/data/pyfmt_cases.txt

One case a line, tab-separated, each double as its 16 hex digits of bits:
    repr    BITS            repr(x)
    round   BITS  N         BITS of round(x, N)  repr(round(x, N))
    format  BITS  SPEC      format(x, SPEC)
    int     VALUE SPEC      format(VALUE, SPEC)
Read by ch07_deltanet/tests/test_pyfmt.c.
"""
import math
import random
import struct
import sys


def bits(x):
    return struct.unpack("<Q", struct.pack("<d", x))[0]


def hexbits(x):
    return f"{bits(x):016x}"


def from_bits(b):
    return struct.unpack("<d", struct.pack("<Q", b))[0]


def f32(x):
    """x rounded to float32 and widened back, as .tolist() / .item() hand them to Python."""
    return struct.unpack("<f", struct.pack("<f", x))[0]


rng = random.Random(7)
specials = [0.0, -0.0, 1.0, -1.0, 3.0, 2.2, -0.5, 0.1, 0.1 + 0.2, 0.3, 1 / 3, 2 / 3, 1e-05, 5e-05, 0.0001,
            0.00015, 1e15, 1e16, 1.5e16, 123456789012345678.0, 9007199254740993.0, 1e22, 1e23,
            9.999999999999999e22, 5e-324, 2.2250738585072014e-308, 2.225073858507201e-308,
            1.7976931348623157e308, 8.881784197001252e-16, 0.9 ** 50, 0.9 ** 10, 0.5 ** 10, 100.0, 1e100,
            f32(0.6), f32(0.8), f32(2.2), f32(1.4344056), f32(0.99674886), f32(0.1), 2.675, 1.005, 0.285,
            0.125, 0.375, 2.5, 3.5, -2.5, 0.5, 1.5, 1234.5, 1235.0, 1245.0, -1250.0, 4.0, -4.0,
            -0.0004, 0.349, 0.00515, 99.95, 999.5, 9.995, 0.0001234, 1234567.891, 1e-7, 123456.789,
            math.inf, -math.inf, math.nan]
powers = [2.0 ** k for k in range(-1074, 1024, 37)] + [2.0 ** k for k in (-44, -1022, 52, 53, 63, 64, 1023)]
randoms = [from_bits(rng.getrandbits(64)) for _ in range(300)]
randoms = [x for x in randoms if math.isfinite(x)]
randoms += [rng.uniform(-10, 10) for _ in range(100)] + [f32(rng.gauss(0, 1)) for _ in range(100)]

out = []
for x in specials + powers + randoms:
    out.append(f"repr\t{hexbits(x)}\t{x!r}")

round_cases = [(2.675, 2), (1.005, 2), (0.285, 2), (0.125, 2), (0.375, 2), (2.5, 0), (3.5, 0), (-2.5, 0),
               (0.5, 0), (1.5, 0), (-0.0001, 3), (0.0001, 3), (-0.0, 3), (1234.5, -1), (1235.0, -1),
               (1245.0, -1), (-1250.0, -2), (1250.0, -2), (1350.0, -2), (4.0, -1), (-4.0, -1), (5.0, -1),
               (15.0, -1), (99999.5, -5), (50000.0, -5), (150000.0, -5), (1e308, -308),
               (1e300, 2), (5e-324, 400), (5e-324, 323), (f32(0.6), 3), (f32(2.2), 3), (f32(1.0000001), 3),
               (f32(-0.5), 3), (123.456, 30), (0.1, 20), (math.inf, 2), (-math.inf, -2), (math.nan, 1),
               (2.0 ** 52 + 0.5, 0), (0.49999999999999994, 0), (1e16 + 2, -1)]
round_cases += [(rng.uniform(-100, 100), rng.randint(-2, 6)) for _ in range(200)]
round_cases += [(f32(rng.gauss(0, 3)), 3) for _ in range(100)]
for x, n in round_cases:
    y = round(x, n)
    out.append(f"round\t{hexbits(x)}\t{n}\t{hexbits(y)}\t{y!r}")

specs = [".3f", ".3g", ".0%", "6.3f", ".1f", ".2f", ".0f", "", ".3", ".1", ".12", "e", ".2e", "E", "g", "G",
         ".0g", "+.2f", " .2f", ">10.3f", "<10.3f", "^10.3f", "^11.3f", "=+10.2f", "010.3f", "*^9.1f",
         "·>8.2f", ",.2f", "_.1f", ",", ".1%", "%", "z.2f", "z.1e", "#.0f", "#.3g", "#g", "F", ".2F", "10",
         ".0e", "+", "-.3g", "08.3e", "<08.2f"]
values = [0.349, 0.00515, 8.881784197001252e-16, 0.9 ** 50, 1.4344056, 0.996748, -0.0, 0.0, -0.0004, 1e16,
          123456.789, 0.5, 1.5, 2.5, 0.125, 1234567.891, 1e-7, 99.95, 999.5, 9.995, -1.0, 0.0001234, 12.0,
          123.0, 100.0, 4.673, 18.691, 2.829627513885498, 0.3128686845302582, math.inf, -math.inf, math.nan]
for x in values:
    for spec in specs:
        out.append(f"format\t{hexbits(x)}\t{spec}\t{format(x, spec)}")

int_specs = ["3d", "d", "", ",", "_", "+d", " d", ">6", "<6", "^6", "06", "=+6", "*^7,", "09_d"]
for v in [0, 6, 139, -5, 1234567, -1234567, 24576, 10**15]:
    for spec in int_specs:
        if "0" in spec[:2] and ("_" in spec or "," in spec):
            continue   # zero padding through the grouping: not supported by pyfmt
        out.append(f"int\t{v}\t{spec}\t{format(v, spec)}")

sys.stdout.write("# made by: /usr/bin/python3 reference/pyfmt_cases.py > ch07_deltanet/tests/data/pyfmt_cases.txt\n")
sys.stdout.write(f"# Python {sys.version.split()[0]}\n")
sys.stdout.write("\n".join(out) + "\n")
