# SPDX-License-Identifier: MIT
# Shared by tools/check and tools/demo: install the packages of tools/packages.txt.
# shellcheck shell=bash

say() { printf '==> %s\n' "$*"; }
die() { printf 'error: %s\n' "$*" >&2; exit 1; }

# Prints the packages of tools/packages.txt that dpkg does not report as installed.
missing_packages() {
    local pkg
    grep -Ev '^[[:space:]]*(#|$)' "$TOP/tools/packages.txt" | while read -r pkg; do
        dpkg-query -W -f='${Status}\n' "$pkg" 2>/dev/null | grep -q '^install ok installed$' || echo "$pkg"
    done
}

install_packages() {
    local missing
    missing=$(missing_packages | tr '\n' ' ')
    if [ -z "${missing// /}" ]; then
        say "all build and test packages are installed"
        return 0
    fi
    say "installing missing packages: $missing"
    if [ "$(id -u)" -ne 0 ]; then
        die "these packages are missing and installing them needs root: $missing"
    fi
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -q >/dev/null || die "apt-get update failed"
    # shellcheck disable=SC2086
    apt-get install -y -q --no-install-recommends $missing >/dev/null || die "apt-get install failed for: $missing"
}
