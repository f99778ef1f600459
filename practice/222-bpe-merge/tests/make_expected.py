"""Expected values of exercise 222 (the BPE merge loop), written independently in Python.

    /usr/bin/python3 practice/222-bpe-merge/tests/make_expected.py

writes inputs.h (the merges tables and the words, which the runner feeds to the
learner's code) and expected.h (the same, for the checker's messages and sizes, and
the encodings it compares with) beside this script.

A merges table is learnt from a small corpus the way BPE learns one (repeatedly the
most frequent adjacent pair, ties to the smaller pair); then words — some from the
corpus, some not — are encoded with the loop of problem.md: the lowest-ranked pair
present, every occurrence left to right, until no pair has a merge. Symbols are ids:
a..z are 0..25, new tokens 26, 27, ...
"""
import os
import random
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "lib"))
from ptgen import header, ints  # noqa: E402

CORPUS = """the quick brown fox jumps over the lazy dog and then the dog sleeps while the fox
runs around the lower lowest newer newest wider widest older oldest there these those
other another mother brother father rather gather together whether weather feather
transformer attention normalization embedding tokenizer rotation position memory
delta rule gated recurrence linear attention query key value head layer model""".split()


def word_ids(w):
    return [ord(c) - ord("a") for c in w]


def learn(corpus, n_merges):
    words = [word_ids(w) for w in corpus]
    merges, next_id = [], 26
    for _ in range(n_merges):
        counts = {}
        for w in words:
            for p in zip(w, w[1:]):
                counts[p] = counts.get(p, 0) + 1
        if not counts:
            break
        best = min(counts, key=lambda p: (-counts[p], p))
        merges.append((best[0], best[1], next_id))
        words = [apply(w, best, next_id) for w in words]
        next_id += 1
    return merges


def apply(w, pair, new):
    out, i = [], 0
    while i < len(w):
        if i + 1 < len(w) and (w[i], w[i + 1]) == pair:
            out.append(new)
            i += 2
        else:
            out.append(w[i])
            i += 1
    return out


def encode(w, merges):
    rank = {(a, b): (r, m) for r, (a, b, m) in enumerate(merges)}
    while len(w) > 1:
        present = [p for p in zip(w, w[1:]) if p in rank]
        if not present:
            break
        best = min(present, key=lambda p: rank[p][0])
        w = apply(w, best, rank[best][1])
    return w


merges = learn(CORPUS, 160)
words = CORPUS[:30] + ["lowered", "feathers", "otherwise", "thereafter", "attentive", "zzz", "qxj", "a", "the",
                       "weatherlower", "transformerattention"]
flat_merges = [v for m in merges for v in m]
in_ids, offsets, out_ids, out_offsets = [], [0], [], [0]
for w in words:
    ids = word_ids(w)
    in_ids += ids
    offsets.append(len(in_ids))
    enc = encode(ids, merges)
    out_ids += enc
    out_offsets.append(len(out_ids))

# one long word over a bigger table
rng = random.Random(7)
long_word = word_ids("".join(rng.choice(CORPUS) for _ in range(12)))[:64]
long_merges = learn(CORPUS + [a + b for a, b in zip(CORPUS, CORPUS[1:])], 400)
runner_inputs = [ints("trained_merges", flat_merges), ints("words_in", in_ids), ints("words_in_at", offsets),
                 ints("long_merges", [v for m in long_merges for v in m]), ints("long_in", long_word)]
parts = [ints("trained_merges", flat_merges), ints("words_in", in_ids), ints("words_in_at", offsets),
         ints("words_out", out_ids), ints("words_out_at", out_offsets),
         ints("long_merges", [v for m in long_merges for v in m]), ints("long_in", long_word),
         ints("long_out", encode(long_word, long_merges))]
here = os.path.dirname(os.path.abspath(__file__))
command = "/usr/bin/python3 practice/222-bpe-merge/tests/make_expected.py"
header(command,
       f"A learnt merges table (left, right, merged per merge; rank = position): {len(merges)} merges,\n"
       f"{len(words)} words as ids; a {len(long_word)}-symbol word over {len(long_merges)} merges.",
       runner_inputs, os.path.join(here, "inputs.h"))
header(command,
       f"A learnt merges table (left, right, merged per merge; rank = position): {len(merges)} merges,\n"
       f"{len(words)} words as ids and their encodings; a {len(long_word)}-symbol word over {len(long_merges)} merges.",
       parts, os.path.join(here, "expected.h"))
