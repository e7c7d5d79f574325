#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# In the guest, for service_test.sh: ispotd run as ispotd.service runs it,
# once with all of the unit's capabilities (under strace, for the system
# calls it makes) and once without each of them, to show what each is for.
# Prints "key: value" lines for the host to check.  Busybox sh, with
# util-linux's setpriv and strace added, called by path (busybox has a
# smaller setpriv).
#
#   sh selftests/host/service_guest.sh CAP,CAP...    (setpriv's names)
#
# The unit's sandbox as far as it matters to a tracer: user nobody (the
# unit's DynamicUser), only CAPS (ambient, inheritable and bounding), no new
# privileges, and a mount namespace of its own where /proc is mounted as
# ProtectProc=invisible and ProcSubset=pid mount it (the module checks
# ptrace access through /proc) and /tmp is private.  Two targets: one of
# root, in a directory only root may read (needs sys_ptrace and
# dac_read_search), one of nobody's, readable by all (needs neither).
caps=${1:?usage: service_guest.sh CAP,CAP...}
tmp=/var/tmp/service
. /ispot/selftests/kmod/ispotd_lib.sh

mkdir -p "$tmp" /var/log/ispot /root/app
chmod 1777 "$tmp"
chown 65534:65534 /var/log/ispot
chmod 700 /root /root/app
cp samples/lock_contention /root/app/
chmod 700 /root/app/lock_contention
ip link set lo up 2>/dev/null

# without CAP: the capability list less CAP (nothing: all of them).
without() { echo ",$caps," | sed "s/,$1,/,/g; s/^,//; s/,\$//"; }

# daemon NAME CAPS [strace]: ispotd in the unit's sandbox, in the
# background, until it is ready (without perfmon: until it says why it
# cannot be); stderr in $tmp/NAME.err, windows in $tmp/NAME.jsonl.
daemon() {
	n=$1
	c=$(echo "$2" | sed 's/^/,/; s/,\([a-z_]\)/,+\1/g')
	how=${3:-}
	rm -f /var/log/ispot/windows.jsonl "$tmp/strace"
	set -- /usr/sbin/ispotd --config /etc/ispot/ispotd.conf \
		--exe /root/app/lock_contention \
		--exe /ispot/samples/lock_contention \
		--func acquire --budget 0 --window 2s
	[ "$how" != strace ] || set -- /usr/bin/strace -f -qq -o "$tmp/strace" "$@"
	unshare -m sh -c '
		mount -t proc -o hidepid=invisible,subset=pid proc /proc &&
		mount -t tmpfs tmpfs /tmp && exec "$@"' sh \
		/usr/bin/setpriv --reuid=65534 --regid=65534 --clear-groups \
		--inh-caps="-all$c" --ambient-caps="-all$c" \
		--bounding-set="-all$c" --no-new-privs -- "$@" \
		2>"$tmp/$n.err" &
	bg_daemon=$!
	case "$c" in
	*perfmon*) daemon_ready "$tmp/$n.err" ;;
	*) wait_for 180 grep -q 'no permission to open' "$tmp/$n.err" ;;
	esac
}

# targets: root's in /root/app, then nobody's; pids in $root_t, $pub_t.
targets() {
	/root/app/lock_contention --threads 2 --iterations 100000000 \
		--delay-us 100 --hold-us 100 >/dev/null &
	root_t=$!
	/usr/bin/setpriv --reuid=65534 --regid=65534 --clear-groups \
		/ispot/samples/lock_contention --threads 2 \
		--iterations 100000000 --delay-us 100 --hold-us 100 >/dev/null &
	pub_t=$!
}

# finish NAME: stop the targets and the daemon, and say what happened.
finish() {
	n=$1
	log=/var/log/ispot/windows.jsonl
	if [ -n "${pub_t:-}" ]; then
		# Nobody's target is traced in every run that has targets:
		# once it has a window, root's had every chance to get one.
		wait_for 180 armed_window "$log" "$pub_t"
		echo "$n.pub_traced: $(armed_window "$log" "$pub_t" && echo yes || echo no)"
		echo "$n.root_traced: $(armed_window "$log" "$root_t" && echo yes || echo no)"
		# The example configuration's --listen, scraped as Prometheus
		# would (the system calls of serving it count too).
		wget -q -O "$tmp/$n.metrics" http://127.0.0.1:9464/metrics
		echo "$n.metrics: $(grep -c '^ispot_calls_total{' "$tmp/$n.metrics" 2>/dev/null)"
		kill "$root_t" "$pub_t" 2>/dev/null
		wait "$root_t" "$pub_t" 2>/dev/null
		pub_t=
	fi
	kill -TERM "$(pidof ispotd)"
	wait "$bg_daemon"
	echo "$n.exit: $?"
	cp "$log" "$tmp/$n.jsonl" 2>/dev/null
	sed "s/^/$n.stderr: /" "$tmp/$n.err"
}

daemon all "$caps" strace
targets
finish all
# The system calls it made, and the socket families it asked for.
echo "syscalls: $(sed -n 's/^[0-9]* \{1,\}\([a-z0-9_]*\)(.*/\1/p' "$tmp/strace" | sort -u | tr '\n' ' ')"
echo "families: $(sed -n 's/^[0-9]* \{1,\}socket(\(AF_[A-Z0-9]*\),.*/\1/p' "$tmp/strace" | sort -u | tr '\n' ' ')"

daemon no_perfmon "$(without perfmon)"
finish no_perfmon
daemon no_net_admin "$(without net_admin)"
finish no_net_admin
daemon no_sys_ptrace "$(without sys_ptrace)"
targets
finish no_sys_ptrace
daemon no_dac_read_search "$(without dac_read_search)"
targets
finish no_dac_read_search
