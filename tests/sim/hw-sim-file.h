/* SPDX-License-Identifier: MIT */
/* Persists a simulated VGA in a file, so that separate processes (the daemon's passes,
 * --save-now, --restore-now and a test) act on one simulated device. Test use only. */
#pragma once

#include "hw-sim.h"

/* Creates a simulator for d and loads FILE into it if it exists (else the simulator
 * keeps its post-wake defaults). -EBADMSG for a file that is not a simulator image. */
int hw_sim_file_load(const char *path, const DisplayDevice *d, HwSim **ret);
/* Writes the simulator's persistent state, config space and the machine around it (VTs,
 * backlights: HwSimSystemState) to FILE (atomically). */
int hw_sim_file_store(HwSim *sim, const char *path);
