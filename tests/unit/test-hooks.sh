#!/bin/bash
# SPDX-License-Identifier: MIT
# The two sleep hooks with a stubbed umsrestored: the pm-utils hook inside pm-utils' own
# pm-functions environment (argument mapping, exit codes, disablehook of 99video), and the
# systemd-sleep hook doing nothing while the daemon's lifetime lock is held.
set -u
PM_HOOK=${1:?usage: test-hooks.sh PM-HOOK SLEEP-HOOK}
SLEEP_HOOK=${2:?}
PM_FUNCS=/usr/lib/pm-utils/pm-functions
T=$(mktemp -d)
STASH=umsrestore-test-$$
trap 'rm -rf "$T" "/var/run/pm-utils/$STASH"' EXIT
fail=0
n=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
bad() { n=$((n + 1)); echo "not ok $n - $*"; fail=1; }
is() { if [ "$1" = "$2" ]; then ok "$3"; else bad "$3: got '$1', expected '$2'"; fi; }

if [ ! -r "$PM_FUNCS" ]; then
    echo "Bail out! pm-utils is not installed ($PM_FUNCS missing); tools/packages.txt lists it"
    exit 1
fi

# Installed hooks are executable (meson installs them 0755); the build copies are not.
cp "$PM_HOOK" "$T/99umsrestore"; cp "$SLEEP_HOOK" "$T/umsrestore-sleep"
chmod 755 "$T/99umsrestore" "$T/umsrestore-sleep"
PM_HOOK=$T/99umsrestore SLEEP_HOOK=$T/umsrestore-sleep

# The stub records its arguments and exits with $STUB_EXIT.
cat >"$T/umsrestored" <<'STUB'
#!/bin/sh
echo "$*" >>"$STUB_LOG"
exit "${STUB_EXIT:-0}"
STUB
chmod +x "$T/umsrestored"
export UMSRESTORED="$T/umsrestored" STUB_LOG="$T/calls"

# pm ACTION [PARAMS...]: runs the hook the way pm-action does (storage, parameters,
# run_hook), then reports the hook's status and whether 99video is still enabled.
pm() {
    action=$1; shift
    : >"$STUB_LOG"
    STASHNAME=$STASH bash -c '
        . "$0" "$@"
        rm -rf "$STORAGEDIR"; mkdir -p "$STORAGEDIR"
        echo "" >"$PARAMETERS"; add_parameters $PM_CMDLINE; update_parameters
        "$HOOK" "$ACTION" suspend >"$OUT" 2>&1; status=$?
        hook_ok /usr/lib/pm-utils/sleep.d/99video; video=$?
        echo "$status $video"
    ' "$PM_FUNCS" "$@"
}
export HOOK="$PM_HOOK" OUT="$T/out"

r=$(ACTION=suspend pm suspend)
is "$r" "0 252" "suspend: hook succeeds and 99video is disabled (252)"
is "$(cat "$T/calls")" "--save-now" "suspend calls umsrestored --save-now"

r=$(ACTION=hibernate pm hibernate)
is "$(cat "$T/calls")" "--save-now" "hibernate calls --save-now"

r=$(ACTION=resume pm resume)
is "${r%% *}" "0" "resume: hook succeeds"
is "$(cat "$T/calls")" "--restore-now" "resume calls umsrestored --restore-now"

r=$(ACTION=thaw pm thaw)
is "$(cat "$T/calls")" "--restore-now" "thaw calls --restore-now"

r=$(STUB_EXIT=3 ACTION=suspend pm suspend)
is "${r%% *}" "254" "nothing to manage (umsrestored exit 3) -> 254 not applicable"

r=$(STUB_EXIT=1 ACTION=suspend pm suspend)
is "${r%% *}" "0" "a failed save does not stop the sleep"
grep -q "failed with exit code 1" "$T/out" && ok "a failed save is reported" || bad "no failure message"
grep -q "sleeps anyway" "$T/out" && ok "  ...and says the system sleeps anyway" || bad "save failure: no 'sleeps anyway'"

# On resume the system has just woken: no talk of sleeping, but what to run next.
for phase in resume thaw; do
    r=$(STUB_EXIT=1 ACTION=$phase pm $phase)
    is "${r%% *}" "0" "$phase: a failed restore does not fail the hook"
    grep -q "failed with exit code 1" "$T/out" && ok "$phase: a failed restore is reported" \
        || bad "$phase: no failure message: $(cat "$T/out")"
    grep -qi "sleep" "$T/out" && bad "$phase: the message talks of sleeping: $(cat "$T/out")" \
        || ok "$phase: the message does not talk of sleeping"
    grep -q "display may not have come back" "$T/out" && ok "$phase: says the display may not be back" \
        || bad "$phase: does not say the display may not be back: $(cat "$T/out")"
    grep -q "'umsrestored --restore-now'" "$T/out" && grep -q "'umsrestored --status'" "$T/out" \
        && ok "$phase: names --restore-now and --status" \
        || bad "$phase: does not name the commands to run: $(cat "$T/out")"
done
r=$(STUB_EXIT=1 ACTION=resume pm resume --quirk-no-chvt)
grep -q "'umsrestored --restore-now --no-console-switch'" "$T/out" \
    && ok "resume: the retry command keeps the mapped options" \
    || bad "resume: the retry command lacks --no-console-switch: $(cat "$T/out")"

r=$(ACTION=suspend pm suspend --quirk-no-chvt --quirk-vbe-post --quirk-save-pci)
is "$(cat "$T/calls")" "--save-now --no-console-switch" "--quirk-no-chvt maps to --no-console-switch"
grep -q "ignoring --quirk-vbe-post" "$T/out" && ok "unmapped quirk is named as ignored" || bad "vbe-post not reported"
grep -q "ignoring --quirk-save-pci" "$T/out" && bad "save-pci wrongly ignored" || ok "save-pci is mapped, not ignored"

r=$(ACTION=suspend pm suspend --quirk-none)
is "${r%% *}" "254" "--quirk-none: not applicable"
is "$(cat "$T/calls")" "" "--quirk-none: umsrestored not called"

r=$(ACTION=help pm help)
grep -q -- "--quirk-no-chvt" "$T/out" && ok "help lists the options" || bad "help output lacks options"

"$PM_HOOK" suspend >/dev/null 2>&1; rc=$?
is "$rc" "254" "outside pm-utils the hook refuses (254)"

# --- systemd-sleep hook -------------------------------------------------------------
export UMSRESTORE_DAEMON_LOCK="$T/daemon.lock"
: >"$STUB_LOG"
"$SLEEP_HOOK" pre suspend >/dev/null 2>&1
is "$(cat "$T/calls")" "--save-now" "sleep hook pre without daemon: --save-now"
: >"$STUB_LOG"
"$SLEEP_HOOK" post suspend >/dev/null 2>&1
is "$(cat "$T/calls")" "--restore-now" "sleep hook post without daemon: --restore-now"

touch "$UMSRESTORE_DAEMON_LOCK"
: >"$STUB_LOG"
"$SLEEP_HOOK" pre suspend >/dev/null 2>&1
is "$(cat "$T/calls")" "--save-now" "a lock file nobody holds does not count as a daemon"

flock "$UMSRESTORE_DAEMON_LOCK" sleep 5 & holder=$!
sleep 0.3
: >"$STUB_LOG"
"$SLEEP_HOOK" pre suspend >"$T/out" 2>&1; rc=$?
"$SLEEP_HOOK" post suspend >>"$T/out" 2>&1
kill $holder 2>/dev/null; wait $holder 2>/dev/null
is "$(cat "$T/calls")" "" "while the daemon holds its lock the sleep hook does nothing"
is "$rc" "0" "  ...and exits 0"
grep -q "handles this sleep" "$T/out" && ok "  ...and says why" || bad "no message"

STUB_EXIT=3 "$SLEEP_HOOK" pre suspend >/dev/null 2>&1; rc=$?
is "$rc" "0" "sleep hook: nothing to manage is not an error"

rm -f "$UMSRESTORE_DAEMON_LOCK"
STUB_EXIT=1 "$SLEEP_HOOK" pre suspend >"$T/out" 2>&1
grep -q "failed with exit code 1; the system sleeps anyway" "$T/out" && ok "sleep hook pre: a failed save is reported" \
    || bad "sleep hook pre: no failure message: $(cat "$T/out")"
STUB_EXIT=1 "$SLEEP_HOOK" post suspend >"$T/out" 2>&1
if grep -q "failed with exit code 1" "$T/out" && ! grep -q "sleeps anyway" "$T/out" \
    && grep -q "'umsrestored --restore-now'" "$T/out" && grep -q "'umsrestored --status'" "$T/out"; then
    ok "sleep hook post: a failed restore says what to run, not that the system sleeps"
else
    bad "sleep hook post: wrong or no failure message: $(cat "$T/out")"
fi

echo "1..$n"
exit $fail
