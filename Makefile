# SPDX-License-Identifier: GPL-2.0
#
# make		build kmod/ispot.ko, user/ispotctl, samples and selftests
# make check	install deps, build, run native unit tests and VM selftests
#		(KERNELS="6.1 6.12": only those kernels; default all)
# make check-all	every VM selftest on every kernel, not only its tiers
#		(selftests/kmod/tiers): after a change to kmod/ or to what
#		talks to the kernel
# make demo	boot the VM and run a sample under ispotctl
# make bench	print benchmark figures (never pass/fail; BENCH=probe, ring,
#		waits, pipeline, record, production or accuracy: one of them)
# make fuzz	build the libFuzzer harnesses of selftests/fuzz/ with clang
#		and run each for TIME seconds (default 60) on a copy of its
#		corpus (Documentation/development.rst, "Fuzzing")
# make install	install the tools, man pages, ispotd.service, include/ispot.h
#		and the module's DKMS source (PREFIX=/usr/local, DESTDIR; make uninstall
#		undoes it, make install-strip strips the binaries, make
#		install-dkms installs the module's source alone)
# make deb	the Debian packages ispot and ispot-dkms (debian/), built in a
#		copy of the tree; DEBDIR (default .build/deb) receives them
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

# CPPFLAGS and LDFLAGS (empty here) reach the objects and the links of
# ispotctl and ispotd, for a distribution's hardening flags (debian/rules).
# user/lib/ is the library both front ends share, one folder per job
# (Documentation/design.rst, "Map of the tree"); user/ctl/ is ispotctl, a
# dispatcher plus one file per subcommand, and user/ctl/top/ what only its
# live view uses; user/daemon/ is ispotd.  Objects and libraries go to
# $(OBJ), away from the sources; the binaries stay user/ispotctl and
# user/ispotd.  Headers are included by their path below user/lib
# ("analysis/sci.h"), so a reader sees which part each name comes from.
OBJ		:= .build/obj
USER_LIB_SRC	:= $(wildcard user/lib/*/*.c)
USER_LIB	:= $(OBJ)/libispot.a
USER_HDR	:= $(wildcard user/lib/*/*.h) include/uapi/linux/ispot.h \
		   include/ispot_version.h
TOP_SRC		:= $(wildcard user/ctl/top/*.c)
TOP_LIB		:= $(OBJ)/libispottop.a
CTL_SRC		:= $(wildcard user/ctl/*.c)
CTL_HDR		:= $(wildcard user/ctl/*.h user/ctl/top/*.h)
DAEMON_SRC	:= $(wildcard user/daemon/*.c)
# Everything of ispotd but its main(), for the unit tests to link.
DAEMON_LIB	:= $(OBJ)/libispotd.a
DAEMON_LIB_SRC	:= $(filter-out user/daemon/ispotd.c,$(DAEMON_SRC))
DAEMON_HDR	:= $(wildcard user/daemon/*.h)
USER_INC	:= -iquote user/ctl -iquote user/daemon

# selftests/unit/ mirrors user/: one folder per room of user/lib, plus
# daemon/ (ispotd) and top/ (ispotctl top); each test links only the
# library of what it tests.
UNIT_TESTS	:= $(patsubst %.c,%,$(wildcard selftests/unit/*/test_*.c))
# The in-guest tests, and the tools their shell tests run (perfetto_dump,
# json_get: the one JSON reader of the shell tests, host ones included).
KMOD_TESTS	:= $(patsubst %.c,%,$(wildcard selftests/kmod/*.c))
# What the host tests (selftests/host/*_test.sh) run besides the tools.
HOST_TOOLS	:= $(patsubst %.c,%,$(wildcard selftests/host/*.c))
BENCHES		:= $(patsubst %.c,%,$(wildcard selftests/bench/*.c))
SAMPLES		:= $(patsubst %.c,%,$(wildcard samples/*.c)) \
		   $(patsubst %.cc,%,$(wildcard samples/*.cc))

.PHONY: all module user samples selftests check demo bench clean FORCE \
	install install-dkms install-strip uninstall uninstall-dkms

all: module user samples selftests

module:
	@test -d "$(KDIR)" || { echo "error: no kernel build directory (KDIR='$(KDIR)'); run scripts/deps.sh or pass KDIR=" >&2; exit 1; }
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules

user: user/ispotctl $(if $(DAEMON_SRC),user/ispotd)

$(OBJ)/user/lib/%.o: user/lib/%.c $(USER_HDR)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) -c -o $@ $<

$(OBJ)/user/ctl/%.o: user/ctl/%.c $(CTL_HDR) $(USER_HDR)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) -iquote user/ctl -c -o $@ $<

$(OBJ)/user/daemon/%.o: user/daemon/%.c $(DAEMON_HDR) $(USER_HDR)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) -iquote user/daemon -c -o $@ $<

$(USER_LIB): $(patsubst %.c,$(OBJ)/%.o,$(USER_LIB_SRC))
	rm -f $@
	$(AR) rcs $@ $^

$(TOP_LIB): $(patsubst %.c,$(OBJ)/%.o,$(TOP_SRC))
	rm -f $@
	$(AR) rcs $@ $^

user/ispotctl: $(patsubst %.c,$(OBJ)/%.o,$(CTL_SRC)) $(TOP_LIB) $(USER_LIB)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(DAEMON_LIB): $(patsubst %.c,$(OBJ)/%.o,$(DAEMON_LIB_SRC))
	rm -f $@
	$(AR) rcs $@ $^

# -rdynamic: the calibration probes a function of ispotd's own, which must
# keep a symbol even when the binary is stripped at install.
user/ispotd: $(OBJ)/user/daemon/ispotd.o $(DAEMON_LIB) $(USER_LIB)
	$(CC) $(CFLAGS) $(LDFLAGS) -rdynamic -o $@ $^ $(LDLIBS)

samples: $(SAMPLES)

samples/%: samples/%.c samples/sample.h
	$(CC) $(CFLAGS) -O1 -fno-omit-frame-pointer -pthread -o $@ $< $(LDLIBS)

# No dynamic loader: it must be gone before the tracer's first scan.
samples/short_lived: LDLIBS += -static

# C++ samples link libstdc++ dynamically, so the VM runner copies it into
# the guest, where ispotctl finds its demangler too.
samples/%: samples/%.cc
	$(CXX) $(CXXFLAGS) -O1 -fno-omit-frame-pointer -pthread -o $@ $<

selftests: $(UNIT_TESTS) $(KMOD_TESTS) $(BENCHES) $(HOST_TOOLS) fixtures

# Fixture binaries (PIE, non-PIE, shared library, stripped, versioned) are
# built by their own makefile so the unit tests read real ELF files.
# samples/two_callers: the fixtures strip a copy of it.
fixtures: samples/two_callers
	@if [ -f selftests/unit/fixtures/Makefile ]; then $(MAKE) -s -C selftests/unit/fixtures; fi

UNIT_HDR	:= $(wildcard selftests/*.h selftests/unit/*.h) $(USER_HDR)
UNIT_CFLAGS	= $(CFLAGS) -iquote selftests/unit

selftests/unit/%: selftests/unit/%.c $(UNIT_HDR) $(USER_LIB)
	$(CC) $(UNIT_CFLAGS) -o $@ $< $(USER_LIB) $(LDLIBS)

selftests/unit/daemon/test_%: selftests/unit/daemon/test_%.c $(UNIT_HDR) $(DAEMON_HDR) $(DAEMON_LIB) $(USER_LIB)
	$(CC) $(UNIT_CFLAGS) -iquote user/daemon -o $@ $< $(DAEMON_LIB) $(USER_LIB) $(LDLIBS)

selftests/unit/top/test_%: selftests/unit/top/test_%.c $(UNIT_HDR) $(CTL_HDR) $(TOP_LIB) $(USER_LIB)
	$(CC) $(UNIT_CFLAGS) -iquote user/ctl -o $@ $< $(TOP_LIB) $(USER_LIB) $(LDLIBS)

# The option table as both front ends see it: ispotd's config file too.
selftests/unit/cli/test_opttab: selftests/unit/cli/test_opttab.c $(UNIT_HDR) $(DAEMON_HDR) $(DAEMON_LIB) $(USER_LIB)
	$(CC) $(UNIT_CFLAGS) -iquote user/daemon -o $@ $< $(DAEMON_LIB) $(USER_LIB) $(LDLIBS)

selftests/host/%: selftests/host/%.c $(wildcard selftests/*.h selftests/unit/*.h) $(USER_LIB) $(USER_HDR)
	$(CC) $(CFLAGS) -o $@ $< $(USER_LIB) $(LDLIBS)

selftests/kmod/%: selftests/kmod/%.c $(wildcard selftests/*.h) selftests/kmod/ispot_kmod_test.h $(USER_LIB) $(USER_HDR)
	$(CC) $(CFLAGS) $(USER_INC) -fno-omit-frame-pointer -pthread -o $@ $< $(USER_LIB) $(LDLIBS)

# gate_test's pthread_exit() unwinds with libgcc_s, which glibc loads only
# then: linked, ldd names it and the VM runner copies it into the guest.
selftests/kmod/gate_test: LDLIBS += -Wl,--push-state,--no-as-needed -lgcc_s -Wl,--pop-state

# Benchmarks that run in the VM; built like the in-guest selftests.  The
# native ones drive the unit tests' sessions (selftests/unit/*.h).
selftests/bench/%: selftests/bench/%.c $(wildcard selftests/bench/*.h selftests/unit/*.h) selftests/ispot_test.h selftests/kmod/ispot_kmod_test.h $(USER_LIB) $(USER_HDR)
	$(CC) $(CFLAGS) $(USER_INC) -fno-omit-frame-pointer -pthread -o $@ $< $(USER_LIB) $(LDLIBS)

check:
	@KERNELS="$(KERNELS)" scripts/check.sh

.PHONY: check-all
check-all:
	@KERNELS="$(KERNELS)" scripts/check.sh --all

demo:
	@scripts/demo.sh

bench:
	@scripts/bench.sh $(BENCH)

# The harnesses and a copy of the library built with ASan and UBSan into
# $(FUZZ_DIR), apart from the ordinary build; make fuzz-build only builds.
# Each harness links the units it fuzzes from that copy (the wire formats
# of user/lib/wire/, ispotd's and top's own units) and includes only their
# headers, never a .c file.
FUZZ_CC		?= clang
FUZZ_DIR	:= .build/fuzz
FUZZ_CFLAGS	:= -O1 -g -fno-omit-frame-pointer -Wall -Wextra -std=gnu11 \
		   -D_GNU_SOURCE -Iinclude/uapi -Iinclude -iquote user/lib \
		   $(USER_INC) -fsanitize=address,undefined \
		   -fno-sanitize-recover=all -Wno-gnu-variable-sized-type-not-at-end
FUZZERS		:= $(patsubst selftests/fuzz/%.c,$(FUZZ_DIR)/%,$(wildcard selftests/fuzz/*.c))
FUZZ_LIB_SRC	:= $(USER_LIB_SRC) $(TOP_SRC) $(DAEMON_LIB_SRC)

.PHONY: fuzz fuzz-build
fuzz: fuzz-build
	@scripts/fuzz.sh $(or $(TIME),60)

fuzz-build: $(FUZZERS)

$(FUZZ_DIR)/obj/%.o: %.c $(USER_HDR) $(CTL_HDR) $(DAEMON_HDR)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -c -o $@ $<

$(FUZZ_DIR)/libfuzz.a: $(patsubst %.c,$(FUZZ_DIR)/obj/%.o,$(FUZZ_LIB_SRC))
	rm -f $@
	$(AR) rcs $@ $^

$(FUZZ_DIR)/%: selftests/fuzz/%.c $(wildcard selftests/fuzz/*.h) $(FUZZ_DIR)/libfuzz.a $(USER_HDR) $(CTL_HDR) $(DAEMON_HDR)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -Werror -fsanitize=fuzzer -o $@ $< $(FUZZ_DIR)/libfuzz.a $(LDLIBS)

# Where make install puts things (Documentation/install.rst).  ispotctl is
# for every CAP_PERFMON user, as perf is; ispotd is a system daemon.  The
# configuration is /etc's whatever PREFIX is, as the unit names it, and the
# DKMS source is where dkms looks.  Units: Debian's packages (PREFIX=/usr)
# put theirs in /lib/systemd/system, the administrator's own go to
# /usr/local/lib/systemd/system; systemd reads both.
VERSION		:= $(shell sed -n 's/^.define ISPOT_VERSION "\(.*\)"$$/\1/p' include/ispot_version.h)
PREFIX		?= /usr/local
BINDIR		?= $(PREFIX)/bin
SBINDIR		?= $(PREFIX)/sbin
MANDIR		?= $(PREFIX)/share/man
INCLUDEDIR	?= $(PREFIX)/include
DATADIR		?= $(PREFIX)/share/ispot
SYSCONFDIR	?= /etc
UNITDIR		?= $(if $(filter /usr,$(PREFIX)),/lib/systemd/system,$(PREFIX)/lib/systemd/system)
DKMSDIR		?= /usr/src/ispot-$(VERSION)
INSTALL		?= install
INSTALL_PROGRAM	?= $(INSTALL)
# What the module build needs, laid out as in the tree.
DKMS_SRC	:= Kbuild kmod/Kbuild $(wildcard kmod/*.c kmod/*.h) \
		   include/uapi/linux/ispot.h include/ispot_version.h
DKMS_DIRS	:= kmod include/uapi/linux include/uapi include
CONF		:= $(DESTDIR)$(SYSCONFDIR)/ispot/ispotd.conf
SUBST		:= sed -e 's|@VERSION@|$(VERSION)|g' -e 's|@SBINDIR@|$(SBINDIR)|g' \
		       -e 's|@SYSCONFDIR@|$(SYSCONFDIR)|g'

# install-dkms/uninstall-dkms: the module's source alone (a package of its
# own for a distribution; a build root for selftests/host/dkms_test.sh).
install: user install-dkms
	$(INSTALL) -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(SBINDIR) \
		$(DESTDIR)$(MANDIR)/man4 $(DESTDIR)$(MANDIR)/man8 \
		$(DESTDIR)$(INCLUDEDIR) \
		$(DESTDIR)$(UNITDIR) $(DESTDIR)$(SYSCONFDIR)/ispot
	$(INSTALL_PROGRAM) -m 755 user/ispotctl $(DESTDIR)$(BINDIR)/ispotctl
	$(INSTALL_PROGRAM) -m 755 user/ispotd $(DESTDIR)$(SBINDIR)/ispotd
	$(INSTALL) -m 644 Documentation/man/ispot.4 $(DESTDIR)$(MANDIR)/man4/
	$(INSTALL) -m 644 Documentation/man/ispotctl.8 Documentation/man/ispotd.8 \
		$(DESTDIR)$(MANDIR)/man8/
	$(INSTALL) -m 644 include/ispot.h $(DESTDIR)$(INCLUDEDIR)/ispot.h
	$(SUBST) user/daemon/ispotd.service.in >$(DESTDIR)$(UNITDIR)/ispotd.service
	chmod 644 $(DESTDIR)$(UNITDIR)/ispotd.service
	$(INSTALL) -d $(DESTDIR)$(DATADIR)
	$(INSTALL) -m 644 user/daemon/ispotd.rules.yml $(DESTDIR)$(DATADIR)/
	@# An administrator's configuration is never overwritten.
	@if [ -e $(CONF) ]; then echo "keeping $(CONF)"; else \
		echo "$(INSTALL) -m 644 user/daemon/ispotd.conf.example $(CONF)"; \
		$(INSTALL) -m 644 user/daemon/ispotd.conf.example $(CONF); fi

install-dkms:
	$(INSTALL) -d $(addprefix $(DESTDIR)$(DKMSDIR)/,$(DKMS_DIRS))
	for f in $(DKMS_SRC); do \
		$(INSTALL) -m 644 $$f $(DESTDIR)$(DKMSDIR)/$$f || exit 1; done
	$(SUBST) kmod/dkms.conf.in >$(DESTDIR)$(DKMSDIR)/dkms.conf
	chmod 644 $(DESTDIR)$(DKMSDIR)/dkms.conf

# strip keeps .dynsym, where -rdynamic put the function ispotd calibrates on.
install-strip:
	$(MAKE) INSTALL_PROGRAM='$(INSTALL) -s' install

# Exactly what install put: the configuration only if it is still the
# example, directories only those of ispot's own (/usr/src/ispot-VERSION,
# /etc/ispot) and only when empty.
uninstall: uninstall-dkms
	rm -f $(DESTDIR)$(BINDIR)/ispotctl $(DESTDIR)$(SBINDIR)/ispotd \
		$(DESTDIR)$(MANDIR)/man4/ispot.4 $(DESTDIR)$(MANDIR)/man8/ispotctl.8 \
		$(DESTDIR)$(MANDIR)/man8/ispotd.8 $(DESTDIR)$(UNITDIR)/ispotd.service \
		$(DESTDIR)$(INCLUDEDIR)/ispot.h \
		$(DESTDIR)$(DATADIR)/ispotd.rules.yml
	-rmdir $(DESTDIR)$(DATADIR)
	@if cmp -s user/daemon/ispotd.conf.example $(CONF); then \
		echo "rm -f $(CONF)"; rm -f $(CONF); \
	elif [ -e $(CONF) ]; then echo "keeping $(CONF): it was changed"; fi
	-rmdir $(DESTDIR)$(SYSCONFDIR)/ispot

# dkms keeps its own copy, built from this source: taking the source away
# first would leave dkms unable to remove it.
uninstall-dkms:
	@if [ -z "$(DESTDIR)" ] && command -v dkms >/dev/null && \
	    dkms status ispot/$(VERSION) 2>/dev/null | grep -q .; then \
		echo "error: ispot/$(VERSION) is still in dkms; run 'dkms remove ispot/$(VERSION) --all' first" >&2; \
		exit 1; fi
	rm -f $(DESTDIR)$(DKMSDIR)/dkms.conf $(addprefix $(DESTDIR)$(DKMSDIR)/,$(DKMS_SRC))
	-rmdir $(addprefix $(DESTDIR)$(DKMSDIR)/,$(DKMS_DIRS)) $(DESTDIR)$(DKMSDIR)

# dpkg-buildpackage writes into the parent of the source directory, so
# scripts/deb.sh builds in a copy of the tree (Documentation/packaging.rst).
DEBDIR		?= .build/deb
.PHONY: deb
deb:
	@scripts/deb.sh $(DEBDIR)
	@ls $(DEBDIR)/*.deb

clean:
	@if [ -d "$(KDIR)" ]; then $(MAKE) -s -C $(KDIR) M=$(CURDIR) clean; fi
	rm -rf $(OBJ) $(FUZZ_DIR)
	rm -f user/ispotctl user/ispotd $(UNIT_TESTS) $(KMOD_TESTS) $(BENCHES) $(HOST_TOOLS) $(SAMPLES)
	@if [ -f selftests/unit/fixtures/Makefile ]; then $(MAKE) -s -C selftests/unit/fixtures clean; fi
