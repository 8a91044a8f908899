/* SPDX-License-Identifier: MIT */
/* The engine: discover → classify → plan → save or restore (+ verify) every managed
 * device. No D-Bus, no argv, no logging above debug: callers report the results. */
#pragma once

#include "classify.h"
#include "conf.h"
#include "devices.h"
#include "hw/hw.h"
#include "methods/method.h"
#include "state.h"

#define PLAN_MAX 8

typedef struct EngineConfig {
        const char *root;         /* sysfs/procfs prefix; NULL = real root */
        PciSourceFunc pci_source; /* how PCI devices are listed */
        ClassifyEnv classify_env;
        HwOpenFunc hw_open; /* how a managed device's Hw is opened */
        void *hw_userdata;
        const char *state_dir; /* /run/umsrestore */
        uid_t state_uid;       /* required owner of state files (0) */
        const char *only_device; /* --device SLOT or NULL */
        bool console_switch; /* false: the console method is left out of every plan */
        const Config *config; /* umsrestore.conf: methods, include/exclude; NULL = defaults */
} EngineConfig;

typedef enum EngineOp {
        ENGINE_SAVE,
        ENGINE_RESTORE,
} EngineOp;

typedef struct DeviceResult {
        char slot[SLOT_MAX];
        Verdict verdict;
        char reason[256];       /* verdict reason */
        bool attempted;         /* the device was managed and acted on */
        bool refused;           /* restore: the state file was refused, the device untouched */
        int r;                  /* 0 or negative errno */
        char message[512];      /* what happened, for a person */
        uint64_t duration_usec; /* time spent on the device */
        unsigned n_sections;    /* methods saved or restored */
        unsigned mismatches;    /* verify after restore */
        char methods[128];      /* "vga, pci-config" */
} DeviceResult;

typedef struct EngineResult {
        DeviceResult *devices;
        size_t n;
        size_t n_managed;
        size_t n_failed;
} EngineResult;

EngineResult *engine_result_free(EngineResult *r);
DEFINE_TRIVIAL_CLEANUP_FUNC(EngineResult *, engine_result_free);

/* Defaults for the running system: real root, libpciaccess, real hw, /run/umsrestore. */
void engine_config_default(EngineConfig *c);

/* The plan of d as text, "console, dpms, vga, pci-config" ("" when nothing runs). */
void engine_plan_names(const EngineConfig *c, const DisplayDevice *d, char *buf, size_t size);

/* Whether the configuration lets umsrestore manage d (Include=/Exclude=/Manage=). */
bool engine_device_allowed(const EngineConfig *c, const DisplayDevice *d);

/* The methods that will run for d, in save order (the method table's order; a configured
 * Methods= list selects from it). Returns the count; 0 for a device not managed. */
size_t engine_plan(const EngineConfig *c, const DisplayDevice *d, const MethodOps *ret[static PLAN_MAX]);

/* Runs op on every managed device (or only_device). Returns 0 if every attempted device
 * succeeded, -ENODEV if only_device is not a display device, -ENOENT if there is nothing
 * to manage (n_managed == 0), or the first device error. *ret is filled in every case
 * but -ENOMEM. */
int engine_run(const EngineConfig *c, EngineOp op, EngineResult **ret);

/* Loads and fully validates a state file for d (identity, boot, every section accepted by
 * its method's check()), without any hardware access. */
int engine_load_state(const EngineConfig *c, const DisplayDevice *d, StateFile **ret);

/* Last results per device, kept in state_dir for --status. */
int engine_record_result(const EngineConfig *c, EngineOp op, const DeviceResult *r);
int engine_read_last(const EngineConfig *c, const char *slot, EngineOp op, char *buf, size_t size);

/* Hw opener for the real machine (libpciaccess). */
int engine_hw_open_real(const DisplayDevice *d, void *userdata, Hw **ret);

const char *engine_op_to_string(EngineOp op);
