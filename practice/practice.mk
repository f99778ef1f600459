# practice/practice.mk — the exercises' judge, included by the root Makefile.
#
#   make        also builds ./practice/judge (from practice/src/*.c)
#   make test   also runs practice/tests/test_*.sh: `judge check` over every
#               exercise, and the judge's own tests
#
# The judge compiles the learner's files itself, at run time (with the sanitizers);
# nothing of an exercise is built here.
JUDGE     := $(BINDIR)practice/judge
JUDGE_OBJ := $(patsubst %.c,$(BUILD)/%.o,$(sort $(wildcard practice/src/*.c)))

all: $(JUDGE)
test: $(JUDGE)
SCRIPTS += $(sort $(wildcard practice/tests/test_*.sh))

$(JUDGE): $(JUDGE_OBJ)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $^ -o $@

.PHONY: clean-practice
clean: clean-practice
clean-practice:
	rm -rf $(JUDGE) practice/workspace/.build
