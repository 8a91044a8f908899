/* SPDX-License-Identifier: MIT */
/* The command line of umsrestored, shared by the installed binary's main() and test
 * binaries that bring a simulated backend. */
#pragma once

#include "hw/hw.h"

/* Parses argv, runs one action on backend and returns the process exit code. */
int umsrestored_main(int argc, char *argv[], const HwBackend *backend);
