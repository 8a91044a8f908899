#!/bin/sh
# SPDX-License-Identifier: MIT
# The system suite's command channel on ttyS0 (umsrestore-test-shell.service): once the
# boot has finished, says "@@READY@@", then runs each line the host sends in its own
# shell and ends it with a marker line carrying its exit code, "@@RC n@@" (the protocol
# of tests/vm/init.sh, so tests/vm/vmlib.py drives both).
stty -echo 2>/dev/null
# Plain output for the host to parse: no colours, no pager.
export SYSTEMD_COLORS=0 SYSTEMD_PAGER=cat PAGER=cat
state=$(systemctl is-system-running --wait 2>&1)
echo "@@READY@@ kernel $(uname -r), system $state, mem_sleep: $(cat /sys/power/mem_sleep 2>/dev/null)"
while :; do
        if ! IFS= read -r line; then
                sleep 1
                continue
        fi
        [ -n "$line" ] || continue
        /bin/sh -c "$line"
        echo "@@RC $?@@"
done
