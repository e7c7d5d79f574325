# SPDX-License-Identifier: GPL-2.0
# Sourced (bash) by the VM runner and the host tests: TCP ports on the
# host's loopback, for run.sh --forward and the servers the tests start.

# port_listening PORT: something accepts connections on 127.0.0.1:PORT
# (a listener on 0.0.0.0 or [::] counts: QEMU could not bind it either).
port_listening() {
	timeout 2 bash -c "exec 3<>/dev/tcp/127.0.0.1/$1" 2>/dev/null
}

# port_pick [N]: print N (default 1) distinct ports nothing listens on,
# one a line.  Below Linux's ephemeral range (32768-60999), so an outgoing
# connection does not hold one, and random, so tests running side by side
# rarely collide; the one that loses gets the runner's "in use" error, not
# a silent mix-up.
port_pick() {
	local want=${1:-1} got=" " i p
	for i in $(seq $((want * 50))); do
		p=$((20000 + RANDOM % 12000))
		[[ "$got" != *" $p "* ]] && ! port_listening "$p" || continue
		got="$got$p "
		echo "$p"
		want=$((want - 1))
		[ "$want" -gt 0 ] || return 0
	done
	echo "no free loopback port found" >&2
	return 1
}
