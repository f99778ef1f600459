// Expected token ids for long inputs (runs of one character, up to a million
// of them), from Hugging Face's JavaScript tokenizer like tokenizer_ids.mjs.
// The texts are too long to write out, so each line of the input describes one
// as a JSON list of parts: a string stands for itself, [string, n] for the
// string n times:
//
//   ["x", [" ", 100000], "y"]          -> "x", 100,000 spaces, "y"
//
// and each output line gives the ids run-length encoded, [[id, count], ...]:
//
//   [[87, 1], [56940, 781], [5238, 1], [379, 1]]
//
//   node reference/tokenizer_runs.mjs TOKENIZER_JSON RUNS_JSONL > IDS_JSONL
//
// The exact commands that made the committed files are in
// reference/make_tokenizer_golden.sh.
import { readFileSync } from "node:fs";
import { Tokenizer } from "@huggingface/tokenizers";

const [tokenizerPath, runsPath] = process.argv.slice(2);
if (!tokenizerPath || !runsPath) {
    console.error("usage: node reference/tokenizer_runs.mjs TOKENIZER_JSON RUNS_JSONL");
    process.exit(2);
}
const tokenizer = new Tokenizer(JSON.parse(readFileSync(tokenizerPath, "utf8")), {});

const text = (parts) => parts.map((p) => (typeof p === "string" ? p : p[0].repeat(p[1]))).join("");

const runLength = (ids) => {
    const out = [];
    for (const id of ids) {
        if (out.length && out[out.length - 1][0] === id) out[out.length - 1][1]++;
        else out.push([id, 1]);
    }
    return out;
};

const lines = readFileSync(runsPath, "utf8").split("\n").filter((line) => line !== "");
for (const line of lines) {
    const { ids } = tokenizer.encode(text(JSON.parse(line)), { add_special_tokens: false });
    process.stdout.write(JSON.stringify(runLength(ids)) + "\n");
}
