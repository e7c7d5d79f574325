#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make demo: install, build, boot the VM with ispot.ko loaded and show what
# ispotctl sees.  (Tracing a sample under `ispotctl run` comes with the
# tracing subcommands.)
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
make -s all
exec selftests/vm/run.sh -- ispotctl status
