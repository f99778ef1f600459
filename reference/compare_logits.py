#!/usr/bin/python3
"""How far a run's logits are from the float64 reference: the yardstick of 8-bit weights.

ch07_model --dump writes the prompt's ids and every position's logits; this script runs
the same ids through qwen35_reference.py's model in float64 on the same checkpoint and
prints, for each dump given, per position over the vocabulary:

    relative RMS   |a - b| / |b|      (a: the dump's logits, b: the float64 ones); the
                                      worst position and the mean
    top-1          positions where both pick the same token
    top-5          top-5 tokens the two have in common, summed over the positions

    ./ch07_model --model M --ids 1,2,3 -n 0 --dump /tmp/bf16.st
    ./ch07_model --model M --ids 1,2,3 -n 0 --quant q8_0 --dump /tmp/q8.st
    /usr/bin/python3 reference/compare_logits.py --model M /tmp/bf16.st /tmp/q8.st

On the full synthetic checkpoint (random weights, the real 0.8B shapes) the float64
model takes about 9 GB and half a minute for a short prompt. Any other program's logits
can be held to the same yardstick once written as a safetensors file with "ids" [T] and
"logits" [T, V] in float32 (llama.cpp's, for instance).
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import qwen35_reference as R  # noqa: E402  (installs python3-torch when missing)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--model", required=True, help="the checkpoint folder the dumps were made on")
    ap.add_argument("dumps", nargs="+", help="safetensors files with ids [T] and logits [T, V]")
    args = ap.parse_args()
    runs = []
    for path in args.dumps:
        t = R.read_safetensors(path)
        if "ids" not in t or "logits" not in t:
            sys.exit(f"{path}: no ids and logits (write it with ch07_model --dump)")
        runs.append((path, [int(v) for v in t["ids"].tolist()], t["logits"].double()))
    ids = runs[0][1]
    for path, other, _ in runs[1:]:
        if other != ids:
            sys.exit(f"{path}: another prompt than {runs[0][0]}")
    cfg, w = R.load_checkpoint(args.model)
    ref = R.forward(cfg, w, ids, {})["logits"].double()
    print(f"{len(ids)} positions, float64 reference on {args.model}")
    for path, _, a in runs:
        if a.shape != ref.shape:
            sys.exit(f"{path}: logits {list(a.shape)}, the model gives {list(ref.shape)}")
        rel = (a - ref).norm(dim=1) / ref.norm(dim=1)
        top1 = int((a.argmax(1) == ref.argmax(1)).sum())
        ta, tb = a.topk(5, dim=1).indices.tolist(), ref.topk(5, dim=1).indices.tolist()
        top5 = sum(len(set(x) & set(y)) for x, y in zip(ta, tb))
        print(f"{path}: relative RMS worst {rel.max():.3e} (position {int(rel.argmax())}), mean {rel.mean():.3e}; "
              f"top-1 {top1} of {len(ids)}; top-5 {top5} of {5 * len(ids)}")


if __name__ == "__main__":
    main()
