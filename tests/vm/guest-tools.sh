#!/bin/sh
# SPDX-License-Identifier: MIT
# vmt: the guest side of the vm suite (installed as /bin/vmt in the initramfs).
#   vmt picture TITLE    draws the test picture (colours + text) on tty1, cursor hidden
#   vmt suspend          suspend to RAM; returns after wake
#   vmt kms              loads /modules in order (bochs/cirrus DRM), waits for a connector
#   vmt active           the foreground VT (e.g. tty1)
#   vmt states           the state files umsrestored wrote (one per line, or "none")
#   vmt truncate FILE N  cuts FILE to N bytes in place (mode and owner kept)
#   vmt flip FILE OFF    inverts the byte at OFF in FILE in place
set -u

picture() {
        t=/dev/tty1
        {
                printf '\033[?25l\033[0m\033[2J\033[H'
                printf '\033[1;37;44m umsrestore QEMU end-to-end test %-46s \033[0m\n' "$1"
                printf '\n'
                for fg in 0 1 2 3 4 5 6 7; do
                        for bg in 0 1 2 3 4 5 6 7; do
                                printf '\033[0;3%d;4%dm %d/%d ' "$fg" "$bg" "$fg" "$bg"
                        done
                        for bg in 0 1 2 3 4 5 6 7; do
                                printf '\033[1;3%d;4%dm*' "$fg" "$bg"
                        done
                        printf '\033[0m\n'
                done
                printf '\n'
                printf '\033[1;33mThe quick brown fox jumps over the lazy dog. 0123456789 !@#$%%^&*()\033[0m\n'
                printf '\033[32mgreen \033[31mred \033[34mblue \033[35mmagenta \033[36mcyan \033[33myellow \033[37mwhite\033[0m\n'
                printf '\033[7m reverse video \033[0m \033[4munderline\033[0m \033[1mbold\033[0m\n'
                i=0
                while [ $i -lt 6 ]; do
                        printf '\033[3%dm%s\033[0m\n' $((i % 7 + 1)) "line $i: ABCDEFGHIJKLMNOPQRSTUVWXYZ abcdefghijklmnopqrstuvwxyz"
                        i=$((i + 1))
                done
        } >"$t"
}

kms() {
        while read -r m; do
                [ -n "$m" ] || continue
                insmod "/modules/$m" || { echo "insmod $m failed"; return 1; }
        done </modules/order
        i=0
        while [ $i -lt 100 ]; do
                for c in /sys/class/drm/card0-*; do
                        if [ -e "$c" ] && [ -e /sys/class/graphics/fb0 ]; then
                                # let fbcon take over the VTs
                                sleep 1
                                echo "connector $(basename "$c"), fb0: $(cat /sys/class/graphics/fb0/name)"
                                return 0
                        fi
                done
                sleep 0.1
                i=$((i + 1))
        done
        echo "no DRM connector after 10 s"
        return 1
}

case "${1:-}" in
picture) picture "${2:-}" ;;
suspend) echo mem >/sys/power/state ;;
kms) kms ;;
active) cat /sys/class/tty/tty0/active ;;
states)
        n=0
        for f in /run/umsrestore/*.state; do
                [ -e "$f" ] || continue
                echo "$f"
                n=$((n + 1))
        done
        [ $n -gt 0 ] || echo none
        ;;
truncate)
        head -c "$3" "$2" >/tmp/vmt.cut && cat /tmp/vmt.cut >"$2" && rm -f /tmp/vmt.cut
        ;;
flip)
        b=$(dd if="$2" bs=1 skip="$3" count=1 2>/dev/null | od -An -tu1 | tr -d ' ')
        # shellcheck disable=SC2059 # the format is the computed octal escape of one byte
        printf "\\$(printf '%03o' $((255 - b)))" | dd of="$2" bs=1 seek="$3" conv=notrunc 2>/dev/null
        ;;
*) echo "usage: vmt picture|suspend|kms|active|states|truncate|flip" >&2; exit 2 ;;
esac
