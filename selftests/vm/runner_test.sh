#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The VM runner's contract: a host binary added with --add runs in the
# guest and its exit status comes back; a kernel WARNING in dmesg, a debug
# kernel's report (a hung task here, faked through /dev/kmsg) and a
# timeout fail the run with the reason on the last line, a timeout saying
# how far the guest got, and a report in a
# run that times out is named in that line (the host scans the kernel log);
# a kernel that dies before the guest's init begins is named as such.
# --forward reaches a server in the guest from the host, and a bad or busy
# port fails before the boot with one line.  --fetch brings files back
# from the guest's disk, and a file the guest did not leave fails the run.
# --disk-in-ram puts the disk's image in /dev/shm, O_DIRECT in the guest
# still works on it, --fetch reads it from there, and the exit removes it;
# without --disk it is one line.
cd "$(dirname "$0")/../.." || exit 1
. selftests/kmod/tap.sh
. selftests/vm/ports.sh
# The contract is the runner's, not the module's: its boots load no
# module and run on single-threaded TCG, which QEMU's text-patching bug
# under multi-threaded TCG (Documentation/design.rst, "Text patching under
# TCG") cannot wedge.  One such boot once held this script's WARNING case
# for its whole 600 s timeout in a make check.
run="selftests/vm/run.sh --no-module --tcg single"
tmp=$(mktemp -d)
# run.sh keeps the kernel log of a failed run in $TMPDIR; these runs fail
# on purpose, so their logs go with $tmp.
export TMPDIR=$tmp
pids=
trap 'for p in $pids; do kill "$p" 2>/dev/null; done; rm -rf "$tmp"' EXIT

tap_plan 13

# A host ELF binary (not in the tree), its shared libraries found by ldd.
# The command's own output is no kernel log: a "WARNING:" it prints does
# not fail the run.
cat >"$tmp/exit_with.c" <<'C'
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv)
{
	printf("guest says %s\n", argv[1]);
	return atoi(argv[1]);
}
C
cc -o "$tmp/exit_with" "$tmp/exit_with.c"

t_status() {
	out=$($run --add "$tmp/exit_with" -- sh -c 'echo "WARNING: CPU: 0 PID: 1 at fake.c:1 on stdout, not a splat"; exec '"$tmp/exit_with"' 42' 2>&1)
	[ $? -eq 42 ] && grep -q "guest says 42" <<<"$out" || { echo "# $out"; return 1; }
}
tap_check "add_host_binary_returns_status" t_status

t_guest_path() {
	$run --add "$tmp/exit_with:/opt/x" -- /opt/x 0 >/dev/null 2>&1
}
tap_check "add_host_to_guest_path" t_guest_path

t_warning() {
	out=$($run -- sh -c 'echo "WARNING: CPU: 0 PID: 1 at fake.c:1 test" >/dev/kmsg' 2>&1)
	[ $? -ne 0 ] && tail -n1 <<<"$out" | grep -q "kernel splat: .*WARNING" ||
		{ echo "# $out"; return 1; }
}
tap_check "kernel_warning_fails_run" t_warning

t_debug_report() {
	out=$($run -- sh -c 'echo "INFO: task fake:1 blocked for more than 120 seconds." >/dev/kmsg' 2>&1)
	[ $? -ne 0 ] && tail -n1 <<<"$out" | grep -q "kernel splat: .*task fake:1 blocked" ||
		{ echo "# $out"; return 1; }
}
tap_check "debug_kernel_report_fails_run" t_debug_report

t_report_in_timeout() {
	out=$($run --timeout 60 -- sh -c 'echo "BUG: KASAN: fake report" >/dev/kmsg; sleep 600' 2>&1)
	[ $? -ne 0 ] &&
		tail -n1 <<<"$out" | grep -q "timeout after 60s, while the command ran (kernel report: .*BUG: KASAN: fake" ||
		{ echo "# $out"; return 1; }
}
tap_check "report_named_on_timeout" t_report_in_timeout

# A timeout says how far the guest got: a command that never ended (60 s:
# a loaded host's boot must reach it), or a boot that never finished the
# guest's setup (here the guest's init is a sleep).
t_timeout() {
	out=$($run --timeout 60 -- sleep 600 2>&1)
	[ $? -eq 124 ] &&
		tail -n1 <<<"$out" | grep -q "timeout after 60s, while the command ran$" ||
		{ echo "# $out"; return 1; }
	out=$($run --timeout 25 --append "rdinit=/bin/sleep -- 600" -- true 2>&1)
	[ $? -eq 124 ] &&
		tail -n1 <<<"$out" | grep -q "timeout after 25s, before the guest was set up$" ||
		{ echo "# $out"; return 1; }
}
tap_check "timeout_fails_run_saying_where" t_timeout

# A kernel that dies before the guest's init has begun (here: no init to
# run) is named apart from one that dies while the command runs, so that
# make check can tell QEMU's boot failures (scripts/check.sh, vm_suite)
# from ISPOT's.
t_boot_death() {
	out=$($run --append "rdinit=/no-such-init" -- true 2>&1)
	[ $? -ne 0 ] &&
		tail -n1 <<<"$out" | grep -q "the kernel failed while booting, before the module was loaded: " ||
		{ echo "# $(tail -n1 <<<"$out")"; return 1; }
	out=$($run -- sh -c 'echo c >/proc/sysrq-trigger' 2>&1)
	[ $? -ne 0 ] &&
		tail -n1 <<<"$out" | grep -q "guest stopped without an exit status" ||
		{ echo "# $(tail -n1 <<<"$out")"; return 1; }
}
tap_check "death_before_init_named_apart" t_boot_death

# The guest serves a file with busybox httpd; the host fetches it through
# the forward while run.sh runs, then asks a CGI that tells the guest it
# may stop.  Both directions and the guest's own view are checked.
cat >"$tmp/serve.sh" <<'SH'
mkdir -p /tmp/www/cgi-bin
echo forwarded-ok >/tmp/www/probe
printf '#!/bin/sh\necho\ntouch /tmp/fetched\n' >/tmp/www/cgi-bin/done
chmod +x /tmp/www/cgi-bin/done
httpd -p 8080 -h /tmp/www || exit 1
i=0
until [ -e /tmp/fetched ] || [ $i -ge 1200 ]; do sleep 0.1; i=$((i + 1)); done
[ -e /tmp/fetched ] && echo "guest was fetched from"
SH
t_forward() {
	local port body i out rc
	port=$(port_pick) || return 1
	$run --timeout 300 --forward "$port:8080" --add "$tmp/serve.sh:/serve.sh" \
		-- sh /serve.sh >"$tmp/fwd.out" 2>&1 &
	local vm=$!
	for i in $(seq 240); do
		body=$(curl -s --max-time 5 "http://127.0.0.1:$port/probe")
		[ "$body" = forwarded-ok ] && break
		kill -0 "$vm" 2>/dev/null || break
		sleep 1
	done
	[ "$body" = forwarded-ok ] &&
		curl -s --max-time 10 "http://127.0.0.1:$port/cgi-bin/done" >/dev/null
	wait "$vm"
	rc=$?
	out=$(cat "$tmp/fwd.out")
	[ "$body" = forwarded-ok ] && [ $rc -eq 0 ] &&
		grep -q "guest was fetched from" <<<"$out" ||
		{ echo "# fetched '$body', run.sh: $rc"; sed 's/^/# /' <<<"$out"; return 1; }
}
tap_check "forward_reaches_guest_server" t_forward

t_forward_bad() {
	local f out
	for f in 8080 0:80 65536:80 80:65536 x:80 1:2:3 123456:80; do
		out=$($run --forward "$f" -- true 2>&1)
		[ $? -eq 2 ] && [ "$(wc -l <<<"$out")" -eq 1 ] &&
			grep -q "^vm: --forward takes HOSTPORT:GUESTPORT.*'$f'" <<<"$out" ||
			{ echo "# --forward $f: $out"; return 1; }
	done
}
tap_check "forward_bad_port_one_line_error" t_forward_bad

# A host port something listens on fails before the boot (seconds, not a
# boot's worth), naming the port.
t_forward_busy() {
	local port out rc start
	port=$(port_pick) || return 1
	mkdir -p "$tmp/busy"
	busybox httpd -f -p "127.0.0.1:$port" -h "$tmp/busy" &
	local srv=$!
	pids="$pids $srv"
	for i in $(seq 50); do port_listening "$port" && break; sleep 0.1; done
	start=$SECONDS
	out=$($run --forward "$port:80" -- true 2>&1)
	rc=$?
	kill "$srv"
	wait "$srv" 2>/dev/null
	[ $rc -eq 2 ] && [ $((SECONDS - start)) -lt 10 ] &&
		[ "$(wc -l <<<"$out")" -eq 1 ] &&
		grep -q "^vm: --forward: host port $port is in use" <<<"$out" ||
		{ echo "# exit $rc after $((SECONDS - start))s: $out"; return 1; }
}
tap_check "forward_busy_host_port_fails_fast" t_forward_busy
# One boot: the file the guest wrote comes back, the one it did not fails
# the run with its name (after the first was fetched).
t_fetch() {
	local out rc
	out=$($run --disk 8 --fetch "/mnt/sub/a.txt:$tmp/a.txt" \
		--fetch "/mnt/none:$tmp/none" -- \
		sh -c 'mkdir /mnt/sub && echo fetched >/mnt/sub/a.txt' 2>&1)
	rc=$?
	[ $rc -eq 1 ] && [ "$(cat "$tmp/a.txt" 2>/dev/null)" = fetched ] &&
		tail -n1 <<<"$out" | grep -q "^vm: FAIL: --fetch: the guest left no /mnt/none$" &&
		[ ! -e "$tmp/none" ] ||
		{ echo "# exit $rc: $out"; return 1; }
}
tap_check "fetch_brings_guest_files_back" t_fetch

t_fetch_bad() {
	local f out
	for f in /tmp/a:x /mnt/:x /mnt/a: mnt/a:x; do
		out=$($run --disk 8 --fetch "$f" -- true 2>&1)
		[ $? -eq 2 ] && [ "$(wc -l <<<"$out")" -eq 1 ] &&
			grep -q "^vm: --fetch takes /mnt/GUEST:HOST.*'$f'" <<<"$out" ||
			{ echo "# --fetch $f: $out"; return 1; }
	done
	out=$($run --fetch /mnt/a:x -- true 2>&1)
	[ $? -eq 2 ] && grep -q "^vm: --fetch needs --disk" <<<"$out" ||
		{ echo "# no --disk: $out"; return 1; }
	out=$($run --disk-in-ram -- true 2>&1)
	[ $? -eq 2 ] && [ "$(wc -l <<<"$out")" -eq 1 ] &&
		grep -q "^vm: --disk-in-ram needs --disk MIB" <<<"$out" ||
		{ echo "# --disk-in-ram, no --disk: $out"; return 1; }
}
tap_check "disk_options_bad_argument_one_line_error" t_fetch_bad

# One boot: while it runs, a new /dev/shm/ispot-vm-disk.* directory holds
# the image; O_DIRECT in the guest works on it, --fetch reads it, and the
# exit removes it.  Skipped where run.sh says /dev/shm cannot hold it.
# (Without the module, as every run here: under multi-threaded TCG its
# load once held insmod in a soft lockup for 425 s in this case.)
disk_in_ram() {
	local out rc dir= i pid
	ls -d /dev/shm/ispot-vm-disk.* >"$tmp/shm.before" 2>/dev/null
	$run --disk 8 --disk-in-ram \
		--fetch "/mnt/b.txt:$tmp/b.txt" -- sh -c \
		'dd if=/dev/zero of=/mnt/z bs=4096 count=8 oflag=direct &&
		 dd if=/mnt/z of=/dev/null bs=4096 iflag=direct &&
		 echo in-ram >/mnt/b.txt' >"$tmp/ram.out" 2>&1 &
	pid=$!
	pids="$pids $pid"
	for i in $(seq 600); do
		dir=$(ls -d /dev/shm/ispot-vm-disk.* 2>/dev/null |
		      grep -vxFf "$tmp/shm.before")
		[ -z "$dir" ] && kill -0 $pid 2>/dev/null || break
		sleep 0.1
	done
	wait $pid
	rc=$?
	out=$(cat "$tmp/ram.out")
	if grep -q "^vm: --disk-in-ram: .*the disk image stays in" <<<"$out"; then
		tap_skip disk_in_ram_image_in_dev_shm_then_removed \
			"$(grep -m1 "^vm: --disk-in-ram" <<<"$out")"
		return
	fi
	if [ $rc -eq 0 ] && [ "$(cat "$tmp/b.txt" 2>/dev/null)" = in-ram ] &&
	   [ -n "$dir" ] && [ ! -e "$dir" ]; then
		tap_ok disk_in_ram_image_in_dev_shm_then_removed
	else
		echo "# exit $rc, directory '$dir': $out"
		tap_not_ok disk_in_ram_image_in_dev_shm_then_removed
	fi
}
disk_in_ram
tap_done
