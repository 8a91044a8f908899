/* SPDX-License-Identifier: MIT */
/* The daemon: an sd-event loop on the system bus that holds a logind delay inhibitor and
 * saves/restores managed devices around PrepareForSleep. The only code that talks D-Bus. */
#pragma once

#include <systemd/sd-bus.h>
#include <systemd/sd-event.h>

#include "engine.h"

typedef struct Manager Manager;

/* Runs one engine pass; the daemon calls it in a child process so it can be bounded.
 * The default runs engine_run() on the manager's config. Tests of the manager may not
 * need to replace it; the simulated hardware switch wraps it. */
typedef int (*ManagerEngineFunc)(const EngineConfig *c, EngineOp op, void *userdata);

struct Manager {
        sd_event *event;
        sd_bus *bus;
        sd_bus_slot *sleep_slot, *owner_slot, *inhibit_call_slot, *delay_call_slot;
        sd_event_source *child_source, *deadline_source, *retry_source;
        sd_event_source *dev_watch, *dri_watch, *rescan_source; /* DRM devices appearing */
        unsigned inhibit_retries;

        int inhibit_fd; /* logind delay lock, -EBADF when not held */
        bool want_lock; /* there is something to manage */
        bool sleeping;  /* PrepareForSleep(true) seen, no false yet */
        bool saved_this_sleep;
        bool inhibit_denied;

        EngineConfig config;
        Config *owned_config;    /* config.config points here; replaced on SIGHUP */
        const char *config_root; /* for reloading: --root and --config */
        const char *config_path;
        bool log_level_fixed;    /* --log-level given: LogLevel= is ignored */
        ManagerEngineFunc engine_func;
        void *engine_userdata;

        uint64_t inhibit_delay_max_usec; /* from logind, default 5 s */
        pid_t child;
        EngineOp child_op;
        uint64_t child_start_usec;
        unsigned n_managed;
        char managed_desc[256];
        unsigned cycles;
};

int manager_new(const EngineConfig *config, Manager **ret);
Manager *manager_free(Manager *m);
DEFINE_TRIVIAL_CLEANUP_FUNC(Manager *, manager_free);

/* Connects to the system bus, subscribes to logind and takes the first lock. */
int manager_start(Manager *m);
/* Runs until SIGTERM/SIGINT; returns the exit code of the loop (0 on a clean stop). */
int manager_run(Manager *m);

/* Margin kept below logind's InhibitDelayMaxUSec for the save deadline. */
uint64_t manager_save_deadline_usec(uint64_t inhibit_delay_max_usec);
