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
		   -Iinclude/uapi -Iinclude -iquote user/lib -iquote selftests
LDLIBS	+= -lm
# Only the C++ sample and fixture use these; ispotctl and ispotd are C.
CXX	?= g++
CXXFLAGS ?= -O2 -g
override CXXFLAGS += -Wall -Wextra -Werror

# user/lib: the library both front ends share (and the unit tests link);
# user/ctl: ispotctl, a dispatcher plus one file per subcommand;
# user/daemon: ispotd.  The binaries stay user/ispotctl and user/ispotd.
USER_LIB_SRC	:= $(wildcard user/lib/*.c)
USER_LIB	:= user/lib/libispot.a
USER_HDR	:= $(wildcard user/lib/*.h) include/uapi/linux/ispot.h
CTL_SRC		:= $(wildcard user/ctl/*.c)
DAEMON_SRC	:= $(wildcard user/daemon/*.c)
# Everything of ispotd but its main(), for the unit tests to link.
DAEMON_LIB	:= user/daemon/libispotd.a
DAEMON_LIB_SRC	:= $(filter-out user/daemon/ispotd.c,$(DAEMON_SRC))
DAEMON_HDR	:= $(wildcard user/daemon/*.h)

UNIT_TESTS	:= $(patsubst %.c,%,$(wildcard selftests/unit/test_*.c))
KMOD_TESTS	:= $(patsubst %.c,%,$(wildcard selftests/kmod/*.c))
BENCHES		:= $(patsubst %.c,%,$(wildcard selftests/bench/*.c))
SAMPLES		:= $(patsubst %.c,%,$(wildcard samples/*.c)) \
		   $(patsubst %.cc,%,$(wildcard samples/*.cc))

.PHONY: all module user samples selftests check demo bench clean FORCE

all: module user samples selftests

module:
	@test -d "$(KDIR)" || { echo "error: no kernel build directory (KDIR='$(KDIR)'); run scripts/deps.sh or pass KDIR=" >&2; exit 1; }
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules

user: user/ispotctl $(if $(DAEMON_SRC),user/ispotd)

user/lib/%.o: user/lib/%.c $(USER_HDR)
	$(CC) $(CFLAGS) -c -o $@ $<

user/ctl/%.o: user/ctl/%.c $(wildcard user/ctl/*.h) $(USER_HDR)
	$(CC) $(CFLAGS) -iquote user/ctl -c -o $@ $<

user/daemon/%.o: user/daemon/%.c $(DAEMON_HDR) $(USER_HDR)
	$(CC) $(CFLAGS) -iquote user/daemon -c -o $@ $<

$(USER_LIB): $(USER_LIB_SRC:.c=.o)
	rm -f $@
	$(AR) rcs $@ $^

user/ispotctl: $(CTL_SRC:.c=.o) $(USER_LIB)
	$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS)

$(DAEMON_LIB): $(DAEMON_LIB_SRC:.c=.o)
	rm -f $@
	$(AR) rcs $@ $^

# -rdynamic: the calibration probes a function of ispotd's own, which must
# keep a symbol even when the binary is stripped at install.
user/ispotd: user/daemon/ispotd.o $(DAEMON_LIB) $(USER_LIB)
	$(CC) $(CFLAGS) -rdynamic -o $@ $^ $(LDLIBS)

samples: $(SAMPLES)

samples/%: samples/%.c samples/sample.h
	$(CC) $(CFLAGS) -O1 -fno-omit-frame-pointer -pthread -o $@ $< $(LDLIBS)

# C++ samples link libstdc++ dynamically, so the VM runner copies it into
# the guest, where ispotctl finds its demangler too.
samples/%: samples/%.cc
	$(CXX) $(CXXFLAGS) -O1 -fno-omit-frame-pointer -pthread -o $@ $<

selftests: $(UNIT_TESTS) $(KMOD_TESTS) $(BENCHES) fixtures

# Fixture binaries (PIE, non-PIE, shared library, stripped, versioned) are
# built by their own makefile so the unit tests read real ELF files.
fixtures:
	@if [ -f selftests/unit/fixtures/Makefile ]; then $(MAKE) -s -C selftests/unit/fixtures; fi

selftests/unit/test_%: selftests/unit/test_%.c selftests/ispot_test.h $(wildcard selftests/unit/*.h) $(if $(DAEMON_LIB_SRC),$(DAEMON_LIB)) $(USER_LIB) $(USER_HDR) $(DAEMON_HDR)
	$(CC) $(CFLAGS) -iquote user/daemon -o $@ $< $(if $(DAEMON_LIB_SRC),$(DAEMON_LIB)) $(USER_LIB) $(LDLIBS)

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
	rm -f user/*/*.o user/*/*.a user/ispotctl user/ispotd $(UNIT_TESTS) $(KMOD_TESTS) $(BENCHES) $(SAMPLES)
	@if [ -f selftests/unit/fixtures/Makefile ]; then $(MAKE) -s -C selftests/unit/fixtures clean; fi
