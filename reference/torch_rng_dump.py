#!/usr/bin/python3
"""Writes PyTorch's random numbers as bit patterns, the reference for common/workbook/torch_rng.c.

    /usr/bin/python3 reference/torch_rng_dump.py

writes ch07_deltanet/tests/data/torch_rng_x86.txt (PyTorch's AVX2 kernels) and
ch07_deltanet/tests/data/torch_rng_libm.txt (ATEN_CPU_CAPABILITY=default, the
C library's logf/sinf/cosf), read by ch07_deltanet/tests/test_torch_rng.c.

Every case is torch.manual_seed(seed) followed by one or more calls; the values of
all calls are listed in order as float32 (8 hex digits) or float64 (16 hex digits)
bit patterns. A case with many values stores the 64-bit FNV-1a hash of all of them
(little-endian bytes) and every 64th value, to keep the file small.

Needs Debian's python3-torch (installed here if missing) on an x86 machine with AVX2.
"""
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT_DIR = os.path.join(ROOT, "ch07_deltanet", "tests", "data")
CAPABILITY = {"x86": "avx2", "libm": "default"}   # variant -> ATEN_CPU_CAPABILITY
REPORTED = {"x86": "AVX2", "libm": "NO AVX"}       # ... and what torch.__config__ then says
FULL_LIMIT = 2048                                  # cases with more values keep hash + samples
SAMPLE_EVERY = 64

# (kind, seed, sizes): kind is randn (float32), rand (float32) or rand64 (float64)
CASES = [("randn", 0, [n]) for n in (1, 5, 15, 16, 17, 33, 128, 1000, 16384)] + [
    ("randn", 0, [5, 3, 20, 1]),          # the n < 16 cache survives a 16-block call
    ("randn", 0, [1, 16, 1, 2, 15]),
    ("randn", 0, [128, 128]),              # ch07_deltanet.py part 3: k then v
    ("randn", 42, [33]),
    ("randn", 2**32 + 7, [17]),            # manual_seed keeps only the low 32 bits
    ("rand", 0, [10]),
    ("rand64", 0, [6]),
]


def ensure_torch():
    try:
        import torch  # noqa: F401
    except ImportError:
        print("torch_rng_dump: installing python3-torch", file=sys.stderr)
        sudo = [] if os.geteuid() == 0 else ["sudo"]
        subprocess.run(sudo + ["apt-get", "install", "-y", "python3-torch"], check=True)


def dump(variant):
    import struct
    import torch

    shown = [line for line in torch.__config__.show().splitlines() if "CPU capability usage" in line]
    want = REPORTED[variant]
    if not shown or not shown[0].strip().endswith(want):
        sys.exit(f"torch_rng_dump: wanted CPU capability {want}, torch reports {shown}")
    out = [f"# PyTorch {torch.__version__} random numbers, {variant} variant ({shown[0].strip().lstrip('- ')})",
           "# made by: /usr/bin/python3 reference/torch_rng_dump.py",
           "# case KIND SEED SIZES COUNT, then COUNT hex bit patterns (8 a line), or for a long case",
           "# case KIND SEED SIZES COUNT fnv1a64=HASH sampled=EVERY, then the sampled values"]
    for kind, seed, sizes in CASES:
        torch.manual_seed(seed)
        values = []
        for n in sizes:
            if kind == "randn":
                values += torch.randn(n).tolist()
            elif kind == "rand":
                values += torch.rand(n).tolist()
            else:
                values += torch.rand(n, dtype=torch.float64).tolist()
        fmt, width = ("<d", 16) if kind == "rand64" else ("<f", 8)
        raw = [struct.pack(fmt, v) for v in values]
        words = [f"{int.from_bytes(b, 'little'):0{width}x}" for b in raw]
        head = f"case {kind} {seed} {','.join(map(str, sizes))} {len(values)}"
        if len(values) > FULL_LIMIT:
            h = 0xcbf29ce484222325
            for byte in b"".join(raw):
                h = ((h ^ byte) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
            head += f" fnv1a64={h:016x} sampled={SAMPLE_EVERY}"
            words = words[::SAMPLE_EVERY]
        out.append(head)
        out += [" ".join(words[i:i + 8]) for i in range(0, len(words), 8)]
    return "\n".join(out) + "\n"


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--variant":   # child: one variant, torch set up by env
        sys.stdout.write(dump(sys.argv[2]))
        return
    ensure_torch()
    os.makedirs(OUT_DIR, exist_ok=True)
    for variant, cap in CAPABILITY.items():
        env = dict(os.environ, ATEN_CPU_CAPABILITY=cap)
        text = subprocess.run([sys.executable, __file__, "--variant", variant], env=env, check=True,
                              capture_output=True, text=True).stdout
        path = os.path.join(OUT_DIR, f"torch_rng_{variant}.txt")
        with open(path, "w") as f:
            f.write(text)
        print(f"wrote {os.path.relpath(path, ROOT)}", file=sys.stderr)


if __name__ == "__main__":
    main()
