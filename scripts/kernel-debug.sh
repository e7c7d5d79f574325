#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# scripts/kernel-debug.sh [--module]
#
# Build, once, the VM runner's debug kernel: Debian 12's kernel source
# (linux-source-6.1) configured from allnoconfig plus
# scripts/kernel-debug.config (KASAN, lockdep, UBSAN, KFENCE, DEBUG_OBJECTS,
# ... and everything the guest needs, built in).  It lives in a cache
# outside the clone, shared by clones and CI runs:
#
#   ${ISPOT_CACHE:-~/.cache/ispot}/debug/linux/            the built tree
#   ${ISPOT_CACHE:-~/.cache/ispot}/debug/stamp             what it was built from
#   ${ISPOT_CACHE:-~/.cache/ispot}/debug/build.log         the last build's log
#
# The tree is rebuilt only when the stamp changes: the linux-source-6.1
# version, the config fragment, this script's recipe or the compiler.
#
# --module also builds ispot.ko from this clone's current sources against
# the debug tree (always, it takes seconds) and prints two words on stdout:
# the bzImage to boot and the ispot.ko to load.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cache=${ISPOT_CACHE:-$HOME/.cache/ispot}/debug
tree=$cache/linux
log=$cache/build.log
frag=$top/scripts/kernel-debug.config
tarball=/usr/src/linux-source-6.1.tar.xz
image=$tree/arch/x86/boot/bzImage
# Bump when the steps below change in a way that needs a rebuild.
recipe=1

fail() {
	echo "kernel-debug: $*" >&2
	exit 1
}

# fail_log REASON: the end of the build log, then the reason on one line.
fail_log() {
	tail -n 25 "$log" >&2
	fail "$1 (full log: $log)"
}

# The source and the tools to build it are installed only when the debug
# kernel is asked for (the source alone is 140 MB): scripts/deps.sh debug.
# Its messages go to stderr: --module's stdout is for the two paths.
deps() {
	"$top/scripts/deps.sh" debug >&2 ||
		fail "cannot install the debug kernel's build dependencies; run scripts/deps.sh debug as root"
}

stamp_text() {
	echo "recipe $recipe"
	echo "linux-source-6.1 $(dpkg-query -W -f='${Version}' linux-source-6.1)"
	echo "fragment $(sha256sum <"$frag" | cut -d' ' -f1)"
	echo "compiler $(gcc --version | head -n1)"
}

# check_config: every option the fragment names must have ended up as
# written; Kconfig silently drops one whose dependencies are unmet.
check_config() {
	local line opt want got bad=0
	while IFS= read -r line; do
		case "$line" in
		CONFIG_*=*) opt=${line%%=*}; want=${line#*=} ;;
		"# CONFIG_"*" is not set") opt=${line#\# }; opt=${opt%% *}; want=n ;;
		*) continue ;;
		esac
		got=$(grep -m1 -E "^($opt=|# $opt is not set)" "$tree/.config" || true)
		case "$got" in
		"$opt="*) got=${got#*=} ;;
		*) got=n ;;
		esac
		if [ "$got" != "$want" ]; then
			echo "kernel-debug: $opt is '$got', the fragment wants '$want'; fix its dependencies in $frag" >&2
			bad=1
		fi
	done <"$frag"
	return $bad
}

build_kernel() {
	local want start secs
	want=$(stamp_text)
	if [ -f "$image" ] && [ "$(cat "$cache/stamp" 2>/dev/null)" = "$want" ]; then
		return 0
	fi
	# Unpack (again) only if the source version changed; a changed
	# fragment or an interrupted build goes on in the same tree.
	local srcver
	srcver=$(dpkg-query -W -f='${Version}' linux-source-6.1)
	if [ "$(cat "$tree/.ispot-source" 2>/dev/null)" != "$srcver" ]; then
		echo "kernel-debug: unpacking linux-source-6.1 $srcver into $tree" >&2
		rm -rf "$tree" "$tree.new"
		mkdir -p "$tree.new"
		tar -C "$tree.new" --strip-components=1 -xJf "$tarball" ||
			fail "cannot unpack $tarball into $cache (disk full?)"
		mv "$tree.new" "$tree"
		echo "$srcver" >"$tree/.ispot-source"
	fi
	rm -f "$cache/stamp"
	echo "kernel-debug: building the debug kernel (once; about an hour on 2 cores); log: $log" >&2
	start=$(date +%s)
	echo "== $(date -u +%FT%TZ) config" >"$log"
	# allnoconfig with the fragment forced in (merge_config.sh -n): the
	# smallest kernel that has what the fragment asks for and what that
	# depends on.  The base config it merges over is empty.
	: >"$tree/.config.base"
	(cd "$tree" && scripts/kconfig/merge_config.sh -n .config.base "$frag") \
		>>"$log" 2>&1 || fail_log "merging $frag failed"
	make -C "$tree" olddefconfig >>"$log" 2>&1 || fail_log "make olddefconfig failed"
	check_config || fail "the debug config lacks options the fragment requires (see above)"
	echo "== $(date -u +%FT%TZ) build" >>"$log"
	# A full build, not modules_prepare: modpost needs vmlinux's
	# Module.symvers to build ispot.ko.  nice: the machine is shared.
	nice -n 10 make -C "$tree" -j"$(nproc)" all >>"$log" 2>&1 ||
		fail_log "the kernel build failed"
	[ -f "$tree/Module.symvers" ] || fail_log "the build made no Module.symvers"
	secs=$(($(date +%s) - start))
	echo "$want" >"$cache/stamp"
	echo "$secs" >"$cache/build-seconds"
	echo "kernel-debug: built in $((secs / 60))m$((secs % 60))s: $image (cache: $(du -sh "$cache" | cut -f1))" >&2
}

# build_module: ispot.ko from this clone's sources, in a directory of its
# own per clone so that two clones can build at once.
build_module() {
	local dir
	dir=$cache/module/$(echo "$top" | sha256sum | cut -c1-12)
	rm -rf "$dir"
	mkdir -p "$dir"
	cp -a "$top/Kbuild" "$top/kmod" "$top/include" "$dir/"
	find "$dir" \( -name '*.o' -o -name '*.ko' -o -name '.*.cmd' -o \
		-name '*.mod*' \) -delete
	# -g: so that a report's module frames can be turned into lines
	# (scripts/decode_stacktrace.sh, addr2line -e ispot.ko).
	make -C "$tree" M="$dir" KCFLAGS=-g modules >"$dir/build.log" 2>&1 || {
		tail -n 30 "$dir/build.log" >&2
		fail "ispot.ko does not build against the debug kernel (log: $dir/build.log)"
	}
	echo "$image $dir/kmod/ispot.ko"
}

case "${1:-}" in
""|--module) ;;
*) echo "usage: scripts/kernel-debug.sh [--module]" >&2; exit 2 ;;
esac

deps
[ -r "$tarball" ] || fail "$tarball is missing; apt-get install --reinstall linux-source-6.1"
[ -r "$frag" ] || fail "$frag is missing"
mkdir -p "$cache"
# One build at a time: clones and CI runs share the cache.
exec 9>"$cache/lock"
if ! flock -n 9; then
	echo "kernel-debug: waiting for another build of the debug kernel" >&2
	flock 9
fi
build_kernel
[ "${1:-}" != --module ] || build_module
