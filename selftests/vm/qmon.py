#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
# Send human-monitor commands to a QEMU -monitor unix socket; print replies.
#   qmon.py SOCKET CMD...
import socket, sys, time

def main():
    s = socket.socket(socket.AF_UNIX)
    s.connect(sys.argv[1])
    s.settimeout(5)

    def drain(until=b"(qemu) "):
        buf = b""
        t = time.time() + 20
        while not buf.endswith(until) and time.time() < t:
            try:
                d = s.recv(65536)
            except socket.timeout:
                break
            if not d:
                break
            buf += d
        return buf.decode(errors="replace")

    drain()
    for cmd in sys.argv[2:]:
        if cmd.startswith("sleep "):
            time.sleep(float(cmd.split()[1]))
            continue
        s.sendall(cmd.encode() + b"\n")
        if cmd == "quit":
            drain()
            break
        out = drain()
        # strip the echo and the prompt
        out = out.replace("\r", "").replace("(qemu) ", "")
        lines = [l for l in out.split("\n") if not l.startswith(cmd[:20]) and "\x1b" not in l]
        print("## " + cmd)
        print("\n".join(lines).strip())

main()
