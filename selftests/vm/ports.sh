# SPDX-License-Identifier: GPL-2.0
# Sourced (bash) by the VM runner and the host tests: TCP ports on the
# host's loopback, for run.sh --forward and the servers the tests start.

# port_listening PORT: something accepts connections on 127.0.0.1:PORT
# (a listener on 0.0.0.0 or [::] counts: QEMU could not bind it either).
port_listening() {
	timeout 2 bash -c "exec 3<>/dev/tcp/127.0.0.1/$1" 2>/dev/null
}

# port_pick: print a port nothing listens on.  Below Linux's ephemeral
# range (32768-60999), so an outgoing connection does not hold it, and
# random, so tests running side by side rarely collide; the one that
# loses gets the runner's "in use" error, not a silent mix-up.
port_pick() {
	local i p
	for i in $(seq 50); do
		p=$((20000 + RANDOM % 12000))
		port_listening "$p" || { echo "$p"; return 0; }
	done
	echo "no free loopback port found in 50 tries" >&2
	return 1
}
