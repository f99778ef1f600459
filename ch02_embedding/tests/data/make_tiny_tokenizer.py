"""Writes tiny_tokenizer.json: a byte-level BPE small enough to work out by hand.

    /usr/bin/python3 ch02_embedding/tests/data/make_tiny_tokenizer.py > ch02_embedding/tests/data/tiny_tokenizer.json

Ids 0..255 are the one-byte tokens, id = byte value (each written as its GPT-2
byte-level character: space is "Ġ", newline "Ċ"). Then a few merges, in rank
order, chosen so that the tests can predict every result with pencil and paper:

    rank 0  a  b    -> ab    256
    rank 1  ab c    -> abc   257   (beats b c: "abc" is one token)
    rank 2  b  c    -> bc    258
    rank 3  Ġ  a    -> Ġa    259
    rank 4  a  a    -> aa    260   ("aaa": the leftmost pair merges first)
    rank 5  aa aa   -> aaaa  261
    rank 6  Ã  ¤    -> Ã¤    262   (the two bytes of "ä", C3 A4)
    rank 7  ä  ½    -> ä½    263   (first two bytes of "你", E4 BD A0)
    rank 8  ä½ ł    -> ä½ł   264

Added tokens 265.. include "<|im" next to "<|im_start|>" (longest match wins)
and "<think>" with special false. The normalizer is NFC and the split regex is
Qwen3.5's, so the file has the same shape as the real one.
"""
import json


def byte_char(b):
    if 33 <= b <= 126 or 161 <= b <= 172 or b >= 174:
        return chr(b)
    if b <= 32:
        return chr(256 + b)
    if b <= 160:
        return chr(256 + 33 + b - 127)
    return chr(256 + 67)


vocab = {byte_char(b): b for b in range(256)}
merges = [("a", "b"), ("ab", "c"), ("b", "c"), ("Ġ", "a"), ("a", "a"), ("aa", "aa"),
          ("Ã", "¤"), ("ä", "½"), ("ä½", "ł")]
for a, b in merges:
    vocab[a + b] = len(vocab)

added = []
for content, special in [("<|im_start|>", True), ("<|im_end|>", True), ("<think>", False),
                         ("</think>", False), ("<|im", False), ("<|endoftext|>", True)]:
    added.append({"id": len(vocab) + len(added), "content": content, "single_word": False,
                  "lstrip": False, "rstrip": False, "normalized": False, "special": special})

regex = ("(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?[\\p{L}\\p{M}]+|\\p{N}"
         "| ?[^\\s\\p{L}\\p{M}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+")
byte_level = {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": False, "use_regex": False}
tokenizer = {
    "version": "1.0",
    "truncation": None,
    "padding": None,
    "added_tokens": added,
    "normalizer": {"type": "NFC"},
    "pre_tokenizer": {"type": "Sequence", "pretokenizers": [
        {"type": "Split", "pattern": {"Regex": regex}, "behavior": "Isolated", "invert": False},
        byte_level]},
    "post_processor": byte_level,
    "decoder": byte_level,
    "model": {"type": "BPE", "dropout": None, "unk_token": None, "continuing_subword_prefix": "",
              "end_of_word_suffix": "", "fuse_unk": False, "byte_fallback": False,
              "ignore_merges": False, "vocab": vocab, "merges": [f"{a} {b}" for a, b in merges]},
}
print(json.dumps(tokenizer, ensure_ascii=False, indent=1))
