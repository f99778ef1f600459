// The tokenizer test corpus: a few hundred strings that exercise every step of
// the pipeline (added tokens, NFC, each branch of the split regex, byte-level
// mapping, long BPE pieces), written as one JSON string per line.
//
//   node reference/tokenizer_corpus.mjs > ch02_embedding/tests/data/tokenizer_corpus.jsonl
//
// Every character is assigned in Unicode 14 or earlier: the regex engines'
// tables (Oniguruma 6.9.8, Node's ICU) agree there; past it they may not.
// U+0000 and the other control characters are in (the last group): they are
// characters like any other, and every reader of the corpus keeps them.

const chinese = [
    "今天天气不错，我们去公园",
    "手写 Transformer：从零实现 Qwen3.5",
    "床前明月光，疑是地上霜。举头望明月，低头思故乡。",
    "“你好，”他说——“欢迎来到北京！”",
    "《三体》是刘慈欣的科幻小说……",
    "繁體中文測試：臺灣、香港、澳門",
    "人工智能正在改变世界",
    "GPT-4o在2024年5月发布，参数量未公开",
    "注意力机制（Attention）的计算复杂度是 O(n²)",
    "１２３ＡＢＣ全角字符",
    "𠮷野家的牛丼很好吃",
    "一二三四五六七八九十百千万亿",
    "这是第1章，共7章；每章约20页。",
    "北京时间2025年1月1日0时0分",
    "记忆表：每个头 [128, 128]，16 个头共 1.0 MB",
    "嵌入层把 token id 变成 1024 维的向量",
    "的的的的的的的的的的",
    "今天天气不错我们去公园",
];

const english = [
    "I'm sure it's fine, they've said",
    "DON'T YOU'LL We'RE",
    "you're, he's, she'll, we've, they'd, it's",
    "can't won't don't shouldn't wouldn't",
    "I'M YOU'RE HE'S SHE'LL WE'VE THEY'D IT'S",
    "It'S you'Re We'Ve tHeY'lL i'D",
    "the dog's bone and the dogs' bones",
    "rock 'n' roll",
    "y'all'd've",
    "O'Neil's 'quoted' words",
    "'s 't 're 've 'm 'll 'd",
    "'S 'T 'RE 'VE 'M 'LL 'D",
    "Tom’s curly apostrophe isn’t a contraction here",
    "''' triple quotes '''",
    "ſ it'ſ",                   // long s: the case-insensitive 's does not fold it
    "The quick brown fox jumps over the lazy dog.",
    "THE QUICK BROWN FOX JUMPS OVER THE LAZY DOG.",
    "Hello, World!",
    "hello world",
    "Transformers are all you need?!",
    "e-mail: someone@example.com, web: https://example.org/path?q=1&r=2#frag",
    "Mr. Smith paid $1,234.56 (plus 7.5% tax) on 2024-06-01.",
    "well...  maybe   not",
    "CamelCaseIdentifier snake_case_name kebab-case-name",
    "supercalifragilisticexpialidocious",
    "antidisestablishmentarianism",
];

const digits = [
    "12345 3.14159",
    "0",
    "1234567890",
    "3.14159265358979",
    "1,000,000",
    "-42 +42 ±42",
    "+86 138 0013 8000",
    "2024-06-01T12:30:00Z",
    "0x1F600 0b1010 0o755",
    "1e-10 6.022e23",
    "½ ¼ ¾",
    "x² + y³ = z¹",
    "①②③④⑤",
    "Ⅰ Ⅱ Ⅲ Ⅻ",
    "٠١٢٣٤٥٦٧٨٩",
    "١٢٣",
    "१२३४",
    "๑๒๓",
    "１２３４５",
    "99 bottles of beer on the wall, 99 bottles of beer",
    "version 1.2.3-rc.4+build.567",
    "$100 €200 £300 ¥400",
];

const code = [
    "def foo(x):\n    if x > 0:\n        return x  \n\n\treturn -x\n",
    "int main(void) {\n\tprintf(\"hello\\n\");\n\treturn 0;\n}\n",
    "for (int i = 0; i < n; i++) a[i] += b[i] * c[i];",
    "all: main\n\tcc -O2 -o main main.c   \n\nclean:\n\trm -f main\n",
    "{\"name\": \"qwen\", \"layers\": 24, \"tied\": true, \"eps\": 1e-06}\n",
    "x = 1   \ny = 2\t\t\nz = x + y  \n",
    "    \n\t\t\n  \t  \n",
    "a\r\nb\r\nc\r\n",
    "line one\rline two\r",
    "        deeply.indented(code)\n",
    "# 计算注意力分数\nscore = q @ k.T / math.sqrt(d)  # 打分\n",
    "if (a && b || !c) { return a->b[0]; } // done",
    "SELECT id, name FROM users WHERE age >= 18 ORDER BY name;",
    "<div class=\"box\"><p>Hello &amp; welcome</p></div>",
    "key: value\nlist:\n  - one\n  - two\n",
    "λx. x + 1",
    "print(f\"{x:>10.3f}\")",
    "#include <stdio.h>\n#define N 10\n",
    "\t\tindented with tabs\n\t\t\tand more\n",
    "trailing spaces   ",
    "trailing newline\n",
    "trailing newlines\n\n\n",
    "   leading and trailing   \r\n\r\n  x",
    "!!! ??? ... ;;; ::: ---",
    "a  b   c    d     e",
    "===\n---\n***\n",
];

const emoji = [
    "👍🏽 ok",
    "👍",
    "👍🏿👍🏻",
    "👨‍👩‍👧‍👦",
    "🏳️‍🌈 pride",
    "🇨🇳🇺🇸🇯🇵",
    "❤️ love",
    "1️⃣ 2️⃣ 3️⃣",
    "🧑🏽‍💻 coding",
    "😀😃😄😁😆",
    "🫠 melting",
    "party 🎉",
    "🚀🚀🚀",
    "Hello мир! こんにちは 世界 — naïve café 🚀 ١٢٣",
    "emoji in 中文句子里😂也行",
];

const scripts = [
    "สวัสดีครับ",
    "ภาษาไทยมีวรรณยุกต์ เช่น น้ำ ไม้ ก๊ก",
    "กรุงเทพมหานคร",
    "नमस्ते दुनिया",
    "हिन्दी भाषा",
    "क्षत्रिय ज्ञान श्री",
    "क़िला ख़ुश ग़ज़ल",
    "मैं ठीक हूँ।",
    "السلام عليكم",
    "السَّلَامُ عَلَيْكُمْ",
    "مَرْحَبًا بِالْعَالَمِ",
    "العربية ١٢٣ لغة",
    "שָׁלוֹם עוֹלָם",
    "안녕하세요 세계",
    "한국어 텍스트입니다.",
    "日本語のテキスト、カタカナ、ひらがな。",
    "ｶﾀｶﾅ ﾃｷｽﾄ",
    "Tiếng Việt có dấu",
    "Καλημέρα κόσμε",
    "Привет, мир! Ёлка",
    "தமிழ் மொழி",
    "বাংলা ভাষা",
    "ქართული ენა",
    "Հայերեն լեզու",
    "ᠮᠣᠩᠭᠣᠯ",
    "Ελληνικά ΕΛΛΗΝΙΚΆ",
    "Ñandú pingüino",
];

// Text that is not in NFC: the normalizer has to change these before the split.
const notNfc = [
    "cafe\u0301",                     // e + combining acute -> é
    "Cafe\u0301 na\u0131\u0308ve",      // dotless i + diaeresis stays decomposed
    "\u1100\u1161\u11a8",             // Hangul jamo -> 각
    "\u1112\u1161\u11ab\u1100\u1173\u11af", // 한글 from jamo
    "\u0915\u093c",                   // Devanagari ka + nukta (stays: composition exclusion)
    "\u0958\u093f\u0932\u093e",       // U+0958 qa -> ka + nukta
    "\u212b ngstr\u00f6m",            // Angstrom sign -> Å
    "A\u030a",                        // A + ring -> Å
    "Tie\u0302\u0301ng Vie\u0323\u0302t", // Vietnamese from combining marks
    "o\u0308\u0304",                   // ȫ
    "\u2126 ohm",                     // Ohm sign -> Omega
    "x\u0301\u0301\u0301",              // marks with no precomposed form
    "\u0301 leading mark",
    "e\u0301\u0323",                  // reordered marks
];

const whitespace = [
    "",
    " ",
    "  ",
    "\t",
    "\n",
    "\n\n",
    "\r\n",
    " \n ",
    "\t\t  \n",
    "\u3000",
    "\u00a0",
    "\u2003\u2003",
    "\u0085",
    "\u2028",
    "   \n\n   ",
    "\r",
    "\u000b\u000c",
    "a\u180eb c",                    // Mongolian vowel separator: not White_Space since Unicode 6.3
    "\ufeffhello world",              // byte order mark: not White_Space either
    "x \u180e y",
    "x\u200by",                       // zero-width space: a format character, not White_Space
];

const chat = [
    "<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n",
    "<think>\nok\n</think>\n\n<tool_call>x</tool_call>",
    "<|im_start|>system\nYou are a helpful assistant.<|im_end|>\n<|im_start|>user\n今天天气怎么样？<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\n",
    "<|im_start|>",
    "<|im_end|>",
    "<|endoftext|>",
    "<think>",
    "</think>",
    "<think></think>",
    "<think>\n\n</think>\n\n",
    "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"北京\"}}\n</tool_call>",
    "<tool_response>\n晴\n</tool_response>",
    "<|im_start",
    "<|im_start|",
    "im_start",
    "<|IM_START|>",
    "<<|im_end|>>",
    "<think><think>",
    " <think> ",
    "text<|endoftext|>text",
    "<|fim_prefix|>def f(<|fim_suffix|>)\n<|fim_middle|>",
    "<|vision_start|><|image_pad|><|vision_end|>描述这张图",
    "<|im_end|><|im_end|>\n\n<|im_start|>",
    "<thinking> is not <think>",
    "</think >",
    "<|endoftext|><|endoftext|>",
    "a<|im_start|>b<|im_end|>c",
    "user\n<|im_end|> trailing",
];

const corpus = [];
const add = (s) => corpus.push(s);
for (const group of [chinese, english, digits, code, emoji, scripts, notNfc, whitespace, chat]) group.forEach(add);

// Variations that move the same text across regex branches: a leading space
// (joins the next word), a trailing space (the (?!\S) look-ahead), a trailing
// newline, case changes (the case-insensitive contractions).
for (const s of [...chinese.slice(0, 8), ...english.slice(0, 12), ...scripts.slice(0, 10), ...emoji.slice(0, 6)]) {
    add(" " + s);
    add(s + " ");
    add(s + "\n");
}
for (const s of english) {
    add(s.toUpperCase());
    add(s.toLowerCase());
}
for (const s of digits.slice(0, 10)) add(`数字${s}结束`);
for (const s of chinese.slice(0, 6)) add(`${s}\n\n${s}`);
for (let i = 0; i < chinese.length; i++) add(`${chinese[i]} ${english[i % english.length]}`);

// Long inputs: the book's 139-token text, one 550-character piece, runs.
add(Array(20).fill("今天天气不错，我们去公园").join("。"));
add("今天天气不错我们去公园".repeat(50));
add("a".repeat(100));
add(" ".repeat(50));
add("\n".repeat(20));
add("ab".repeat(40));
add("哈".repeat(60));
add("1".repeat(40));
add("The transformer reads tokens, not text. ".repeat(8));

// Control characters, U+0000 first: Hugging Face's tokenizer encodes "a\u0000b"
// as three tokens, so must we (and --encode-jsonl must read it whole). Added
// at the end, so the lines above keep their numbers.
add("a\u0000b");
add("\u0000");
add("\u0000".repeat(5));
add("x \u0000 y");
add("\u0000 \u0000\n\u0000");
add("<|im_start|>\u0000<|im_end|>");
add("今天\u0000天气");
add("e\u0301\u0000e\u0301"); // NFC on both sides of the NUL
add("\u0001\u0002\u0003\u001b[31mred\u001b[0m\u007f");
add("\u0000\u0301"); // a combining mark after the NUL: nothing to compose with

const seen = new Set();
const out = [];
for (const s of corpus) {
    if (seen.has(s)) continue;
    seen.add(s);
    out.push(JSON.stringify(s));
}
process.stdout.write(out.join("\n") + "\n");
