/* SPDX-License-Identifier: MIT */
/* The daemon: an sd-event loop on the system bus that holds a logind delay inhibitor and
 * saves/restores managed devices around PrepareForSleep. The only code that talks D-Bus. */
#pragma once

#include <systemd/sd-bus.h>
#include <systemd/sd-event.h>

#include "engine.h"
#include "rundir.h"

typedef struct Manager Manager;

/* Loads libsystemd (the binary does not link it: see libsystemd-dl.h). Before manager_new();
 * on failure why says what is missing. */
int manager_load_libsystemd(char *why, size_t why_size);

/* What the daemon is given by the action that starts it; manager_new() takes ownership of
 * config, rundir and daemon_lock_fd. */
typedef struct ManagerParams {
        EngineConfig engine;     /* survey settings, backend; engine.rundir is set from rundir */
        Config *config;          /* umsrestore.conf; replaced on SIGHUP */
        RunDir *rundir;          /* /run/umsrestore */
        int daemon_lock_fd;      /* "daemon.lock", held for the daemon's lifetime */
        const char *config_root; /* for reloading: --root and --config */
        const char *config_path;
        bool log_level_fixed;    /* --log-level given: LogLevel= is ignored */
} ManagerParams;

struct Manager {
        sd_event *event;
        sd_bus *bus;
        sd_bus_slot *sleep_slot, *owner_slot, *inhibit_call_slot, *delay_call_slot;
        sd_event_source *child_source, *deadline_source, *retry_source;
        sd_event_source *dev_watch, *dri_watch, *rescan_source; /* DRM devices appearing */
        unsigned inhibit_retries;

        int inhibit_fd; /* logind delay lock, -EBADF when not held */
        int daemon_lock_fd;
        bool want_lock; /* there is something to manage */
        bool sleeping;  /* PrepareForSleep(true) seen, no false yet */
        bool saved_this_sleep;
        bool inhibit_denied;

        EngineConfig config;
        Config *owned_config;    /* config.survey.config points here; replaced on SIGHUP */
        RunDir *rundir;          /* config.rundir points here */
        const char *config_root;
        const char *config_path;
        bool log_level_fixed;

        uint64_t inhibit_delay_max_usec; /* from logind, default 5 s */
        pid_t child;
        EngineOp child_op;
        bool child_killed;       /* stopped at its deadline */
        uint64_t child_start_usec;
        unsigned n_managed;
        char managed_desc[256];
        unsigned cycles;
};

int manager_new(const ManagerParams *p, Manager **ret);
Manager *manager_free(Manager *m);
DEFINE_TRIVIAL_CLEANUP_FUNC(Manager *, manager_free);

/* Connects to the system bus, subscribes to logind and takes the first lock. */
int manager_start(Manager *m);
/* Runs until SIGTERM/SIGINT; returns the exit code of the loop (0 on a clean stop). */
int manager_run(Manager *m);

/* Margin kept below logind's InhibitDelayMaxUSec for the save deadline. */
uint64_t manager_save_deadline_usec(uint64_t inhibit_delay_max_usec);
