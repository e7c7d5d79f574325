#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The guest side of prometheus_test.sh (not a test of its own): ispotd
# serves /metrics on 0.0.0.0:9464 while it traces acquire in two targets,
# lock_contention and no_contention, until the host says it is done
# (GET /cgi-bin/done on port 8080, a busybox httpd) or SECONDS pass.
# GET /cgi-bin/stats answers what the samples measured of themselves so
# far (samples/sample.h, ISPOT_SAMPLE_STATS): one line each, lock first,
# for the host to tell a busy host from a misjudged SCI.
# Exits 0 only if ispotd ran until then and exited 0 on SIGTERM.
#
#   prometheus_guest.sh SECONDS
. /ispot/selftests/kmod/tap.sh
tmpdir_setup
s=/ispot/samples
. /ispot/selftests/kmod/ispotd_lib.sh
limit=${1:?prometheus_guest.sh needs a time limit in seconds}

mkdir -p "$tmp/www/cgi-bin"
printf '#!/bin/sh\necho\ntouch %s/done\n' "$tmp" >"$tmp/www/cgi-bin/done"
chmod +x "$tmp/www/cgi-bin/done"
httpd -p 8080 -h "$tmp/www" || { echo "guest: httpd did not start"; exit 1; }

ispotd --listen 0.0.0.0:9464 --window 2s --budget 0 \
	--exe "$s/lock_contention" --exe "$s/no_contention" --func acquire \
	--log "$tmp/windows.jsonl" 2>"$tmp/ispotd.err" &
dpid=$!
daemon_ready "$tmp/ispotd.err" || exit 1
export ISPOT_SAMPLE_STATS="$tmp/lock.par"
long_run lock_contention
lock=$bg
ISPOT_SAMPLE_STATS="$tmp/nolock.par"
long_run no_contention
nolock=$bg
unset ISPOT_SAMPLE_STATS
# SIGUSR1 makes a sample append its figures so far; the last line counts.
cat >"$tmp/www/cgi-bin/stats" <<EOF
#!/bin/sh
echo
kill -USR1 $lock $nolock
sleep 1
tail -n 1 $tmp/lock.par
tail -n 1 $tmp/nolock.par
EOF
chmod +x "$tmp/www/cgi-bin/stats"
echo "guest: tracing lock_contention ($lock) and no_contention ($nolock)"

i=0
while [ ! -e "$tmp/done" ] && [ $i -lt "$limit" ] && kill -0 "$dpid" 2>/dev/null; do
	sleep 1
	i=$((i + 1))
done
[ -e "$tmp/done" ] || echo "guest: the host never said it was done"
kill "$lock" "$nolock" 2>/dev/null
wait "$lock" "$nolock" 2>/dev/null
stop_daemon "$dpid"
rc=$?
echo "guest: ispotd exited $rc, $(wc -l <"$tmp/windows.jsonl") windows"
# ispotd's own SCI over the whole run, from its log, next to the server's
# 30 s rate (Documentation/evaluation.rst).
grep '/lock_contention"' "$tmp/windows.jsonl" >"$tmp/lock.jsonl"
grep '/no_contention"' "$tmp/windows.jsonl" >"$tmp/nolock.jsonl"
echo "guest: log SCI of acquire: lock_contention $(fsci "$tmp/lock.jsonl" acquire)," \
	"no_contention $(fsci "$tmp/nolock.jsonl" acquire)"
[ $rc -eq 0 ] || sed 's/^/guest: ispotd: /' "$tmp/ispotd.err"
rm -rf "$tmp"
[ $rc -eq 0 ]
