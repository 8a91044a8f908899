#!/bin/sh
# SPDX-License-Identifier: MIT
# systest: the guest side of the system suite (installed as /usr/local/bin/systest in the
# test image). Prints what the host parses; every wait is bounded.
#   systest cursor                       the journal's current cursor
#   systest journal CURSOR|boot          entries after CURSOR (or of this boot) from umsrestored.service,
#                                        logind, systemd-suspend.service and systemd's own
#                                        lines about those units, one JSON object a line
#   systest wait-journal CURSOR SECS MATCH REGEX
#                                        waits until an entry after CURSOR matching MATCH
#                                        (journalctl field matches) has a message matching
#                                        REGEX (grep -E); prints it; exit 1 on timeout
#   systest inhibitors                   logind's ListInhibitors as JSON
#   systest inhibit-delay                logind's InhibitDelayMaxUSec
#   systest unit UNIT                    systemctl show of the properties the suite checks
#   systest proc PID                     privileges of a process (/proc/PID/status)
#   systest sha256 FILE...               sha256sum
#   systest wait-unit UNIT SECS          waits until UNIT is active (or failed)
#   systest wait-drm SECS                waits for a DRM connector and fb0 (KMS case)
#   systest apply-inhibit-delay          (boot) umsrestore_test.inhibit_delay=SEC -> logind.conf.d
set -u

journal_filter() {
        # Lines logged by the daemon's processes, by logind and by systemd-sleep (with the
        # hooks it runs), plus systemd's own lines about those units (UNIT=, for the log only).
        echo "_SYSTEMD_UNIT=umsrestored.service + _SYSTEMD_UNIT=systemd-logind.service +" \
                "_SYSTEMD_UNIT=systemd-suspend.service + UNIT=umsrestored.service + UNIT=systemd-suspend.service"
}

cmdline_value() {
        # shellcheck disable=SC2013 # words, not lines
        for w in $(cat /proc/cmdline); do
                case "$w" in
                "$1"=*) echo "${w#*=}"; return 0 ;;
                esac
        done
        return 1
}

case "${1:-}" in
cursor)
        journalctl -q -n 0 --show-cursor | sed -n 's/^-- cursor: //p'
        ;;
journal)
        if [ "$2" = boot ]; then since=-b; else since=--after-cursor=$2; fi
        # shellcheck disable=SC2046
        journalctl -q --no-pager "$since" -o json \
                --output-fields=MESSAGE,_COMM,_PID,_SYSTEMD_UNIT,UNIT,SYSLOG_IDENTIFIER,PRIORITY \
                $(journal_filter)
        ;;
wait-journal)
        cursor=$2 secs=$3 match=$4 regex=$5
        end=$(($(date +%s) + secs))
        while :; do
                # shellcheck disable=SC2086
                line=$(journalctl -q --no-pager --after-cursor="$cursor" -o cat $match | grep -E -m1 -- "$regex")
                if [ -n "$line" ]; then
                        echo "$line"
                        exit 0
                fi
                [ "$(date +%s)" -lt "$end" ] || { echo "no '$regex' from $match within $secs s"; exit 1; }
                sleep 0.3
        done
        ;;
inhibitors)
        busctl --json=short call org.freedesktop.login1 /org/freedesktop/login1 \
                org.freedesktop.login1.Manager ListInhibitors
        ;;
inhibit-delay)
        busctl get-property org.freedesktop.login1 /org/freedesktop/login1 \
                org.freedesktop.login1.Manager InhibitDelayMaxUSec
        ;;
unit)
        systemctl show "$2" -p ActiveState -p SubState -p MainPID -p FragmentPath -p DropInPaths \
                -p StatusText -p NRestarts -p ExecMainStatus -p UnitFileState -p Result
        ;;
proc)
        grep -E '^(Name|NoNewPrivs|Seccomp|Cap(Inh|Prm|Eff|Bnd|Amb)):' "/proc/$2/status"
        ;;
sha256)
        shift
        sha256sum "$@"
        ;;
wait-unit)
        i=0
        while [ $i -lt $(($3 * 5)) ]; do
                s=$(systemctl is-active "$2")
                case "$s" in
                active|failed) echo "$s"; exit 0 ;;
                esac
                sleep 0.2
                i=$((i + 1))
        done
        echo "$2 not active within $3 s: $(systemctl is-active "$2")"
        exit 1
        ;;
wait-drm)
        i=0
        while [ $i -lt $(($2 * 10)) ]; do
                for c in /sys/class/drm/card0-*; do
                        if [ -e "$c" ] && [ -e /sys/class/graphics/fb0 ]; then
                                udevadm settle -t 10
                                sleep 1
                                echo "connector $(basename "$c"), driver $(basename "$(readlink /sys/class/drm/card0/device/driver)"), fb0 $(cat /sys/class/graphics/fb0/name)"
                                exit 0
                        fi
                done
                sleep 0.1
                i=$((i + 1))
        done
        echo "no DRM connector within $2 s"
        exit 1
        ;;
apply-inhibit-delay)
        v=$(cmdline_value umsrestore_test.inhibit_delay) || exit 0
        mkdir -p /run/systemd/logind.conf.d
        printf '[Login]\nInhibitDelayMaxSec=%s\n' "$v" >/run/systemd/logind.conf.d/90-umsrestore-test.conf
        ;;
*)
        echo "usage: systest cursor|journal|wait-journal|inhibitors|inhibit-delay|unit|proc|sha256|wait-unit|wait-drm" >&2
        exit 2
        ;;
esac
