# SPDX-License-Identifier: GPL-2.0
#
# make		build kmod/ispot.ko, user/ispotctl, samples and selftests
# make check	install deps, build, run native unit tests and VM selftests
#		(KERNELS="6.1 6.12": only those kernels; default all)
# make demo	boot the VM and run a sample under ispotctl
# make bench	print benchmark figures (never pass/fail)
# make clean	return the tree to what git has

KDIR	?= $(shell scripts/kdir.sh)
CC	?= cc
CFLAGS	?= -O2 -g
override CFLAGS += -Wall -Wextra -Werror -std=gnu11 -D_GNU_SOURCE \
		   -Iinclude/uapi -Iinclude -iquote user -iquote selftests
LDLIBS	+= -lm

# ispotctl: the dispatcher plus one file per subcommand; every other file in
# user/ is a reusable part that the unit tests link against too.
USER_MAIN	:= user/ispotctl.c $(wildcard user/cmd_*.c)
USER_LIB_SRC	:= $(filter-out $(USER_MAIN),$(wildcard user/*.c))
USER_LIB	:= user/libispot.a
USER_HDR	:= $(wildcard user/*.h) include/uapi/linux/ispot.h

UNIT_TESTS	:= $(patsubst %.c,%,$(wildcard selftests/unit/test_*.c))
KMOD_TESTS	:= $(patsubst %.c,%,$(wildcard selftests/kmod/*.c))
BENCHES		:= $(patsubst %.c,%,$(wildcard selftests/bench/*.c))
SAMPLES		:= $(patsubst %.c,%,$(wildcard samples/*.c))

.PHONY: all module user samples selftests check demo bench clean FORCE

all: module user samples selftests

module:
	@test -d "$(KDIR)" || { echo "error: no kernel build directory (KDIR='$(KDIR)'); run scripts/deps.sh or pass KDIR=" >&2; exit 1; }
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules

user: user/ispotctl

user/%.o: user/%.c $(USER_HDR)
	$(CC) $(CFLAGS) -c -o $@ $<

$(USER_LIB): $(USER_LIB_SRC:.c=.o)
	rm -f $@
	$(AR) rcs $@ $^

user/ispotctl: $(USER_MAIN:.c=.o) $(USER_LIB)
	$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS)

samples: $(SAMPLES)

samples/%: samples/%.c samples/sample.h
	$(CC) $(CFLAGS) -O1 -fno-omit-frame-pointer -pthread -o $@ $< $(LDLIBS)

selftests: $(UNIT_TESTS) $(KMOD_TESTS) $(BENCHES) fixtures

# Fixture binaries (PIE, non-PIE, shared library, stripped, versioned) are
# built by their own makefile so the unit tests read real ELF files.
fixtures:
	@if [ -f selftests/unit/fixtures/Makefile ]; then $(MAKE) -s -C selftests/unit/fixtures; fi

selftests/unit/test_%: selftests/unit/test_%.c selftests/ispot_test.h $(USER_LIB) $(USER_HDR)
	$(CC) $(CFLAGS) -o $@ $< $(USER_LIB) $(LDLIBS)

selftests/kmod/%: selftests/kmod/%.c selftests/ispot_test.h selftests/kmod/ispot_kmod_test.h $(USER_LIB) $(USER_HDR)
	$(CC) $(CFLAGS) -fno-omit-frame-pointer -pthread -o $@ $< $(USER_LIB) $(LDLIBS)

# Benchmarks that run in the VM; built like the in-guest selftests.
selftests/bench/%: selftests/bench/%.c selftests/ispot_test.h selftests/kmod/ispot_kmod_test.h $(USER_LIB) $(USER_HDR)
	$(CC) $(CFLAGS) -fno-omit-frame-pointer -pthread -o $@ $< $(USER_LIB) $(LDLIBS)

check:
	@KERNELS="$(KERNELS)" scripts/check.sh

demo:
	@scripts/demo.sh

bench:
	@scripts/bench.sh $(BENCH)

clean:
	@if [ -d "$(KDIR)" ]; then $(MAKE) -s -C $(KDIR) M=$(CURDIR) clean; fi
	rm -f user/*.o $(USER_LIB) user/ispotctl $(UNIT_TESTS) $(KMOD_TESTS) $(BENCHES) $(SAMPLES)
	@if [ -f selftests/unit/fixtures/Makefile ]; then $(MAKE) -s -C selftests/unit/fixtures clean; fi
