#!/bin/sh
# SPDX-License-Identifier: MIT
# The vm suite's no-op stand-in for umsrestored (UMSRESTORE_VM_NOOP=1): does nothing and
# says it succeeded. Every case except the control must fail with it.
exit 0
