#!/bin/sh
# SPDX-License-Identifier: MIT
# The system suite's no-op stand-in for umsrestored (UMSRESTORE_SYSTEM_NOOP=1): installed
# over the packaged binary in the 'noop' image. As a daemon it idles (no logind lock, no
# work); --save-now / --restore-now and everything else succeed without doing anything.
# Every case must fail with it.
for a in "$@"; do
        case "$a" in
        --*) exit 0 ;;
        esac
done
exec sleep infinity
