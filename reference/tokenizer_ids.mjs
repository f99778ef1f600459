// Expected token ids for the tokenizer tests, from Hugging Face's own JavaScript
// tokenizer (@huggingface/tokenizers, pinned in reference/package.json) — an
// implementation independent of ours, that reproduces the ids the Rust library
// gives.
//
// Reads a corpus (one JSON string per line) and writes one JSON array of ids per
// line, in the same order: the formats of `ch02_embedding --encode-jsonl`.
//
//   node reference/tokenizer_ids.mjs TOKENIZER_JSON CORPUS_JSONL [--qwen35-regex] > IDS_JSONL
//
// --qwen35-regex swaps the Qwen3.5 split regex (QWEN35_REGEX below) into the
// file's pre-tokenizer first: the real Qwen3.5 tokenizer.json is not available to
// test with, but its only difference in the pipeline is this regex (plus its
// own vocabulary and merges, which the engine reads as data).
//
// The exact commands that made the committed files are in
// reference/make_tokenizer_golden.sh (run: sh reference/make_tokenizer_golden.sh).
import { readFileSync } from "node:fs";
import { Tokenizer } from "@huggingface/tokenizers";

const QWEN3_REGEX =
    "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";
const QWEN35_REGEX =
    "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?[\\p{L}\\p{M}]+|\\p{N}| ?[^\\s\\p{L}\\p{M}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";

const args = process.argv.slice(2);
const swap = args.includes("--qwen35-regex");
const [tokenizerPath, corpusPath] = args.filter((a) => a !== "--qwen35-regex");
if (!tokenizerPath || !corpusPath) {
    console.error("usage: node reference/tokenizer_ids.mjs TOKENIZER_JSON CORPUS_JSONL [--qwen35-regex]");
    process.exit(2);
}

const json = JSON.parse(readFileSync(tokenizerPath, "utf8"));
if (swap) {
    const split = json.pre_tokenizer.pretokenizers[0];
    if (split.type !== "Split" || split.pattern.Regex !== QWEN3_REGEX) {
        console.error(`${tokenizerPath}: the first pre-tokenizer is not the Qwen3 Split regex`);
        process.exit(1);
    }
    split.pattern.Regex = QWEN35_REGEX;
}
const tokenizer = new Tokenizer(json, {});

const lines = readFileSync(corpusPath, "utf8").split("\n");
if (lines[lines.length - 1] === "") lines.pop();
const out = lines.map((line, i) => {
    const text = JSON.parse(line);
    if (typeof text !== "string") throw new Error(`${corpusPath}:${i + 1}: not a JSON string`);
    const { ids } = tokenizer.encode(text, { add_special_tokens: false });
    return JSON.stringify(ids);
});
process.stdout.write(out.join("\n") + (out.length ? "\n" : ""));
