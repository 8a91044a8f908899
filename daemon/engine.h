/* SPDX-License-Identifier: MIT */
/* The engine: save, restore (+ verify) or roll back every managed device of a survey, each
 * device on its own. No D-Bus, no argv, no logging above debug: callers report. */
#pragma once

#include "hw/hw.h"
#include "rundir.h"
#include "state.h"
#include "survey.h"
#include "sleep-flags.h"

typedef struct EngineConfig {
        SurveyConfig survey;  /* which devices, with which plan */
        const HwBackend *hw;  /* how a managed device is reached */
        RunDir *rundir;       /* where state files live (opened by the caller) */
        bool test_force;      /* ENGINE_TEST: also where a graphical session owns the active VT */
} EngineConfig;

typedef enum EngineOp {
        ENGINE_SAVE,
        ENGINE_RESTORE,
        ENGINE_ROLLBACK, /* undo what an unfinished save changed (its "<slot>.undo") */
        ENGINE_TEST,     /* --test-restore: save, put the display in its after-sleep state,
                          * restore and verify at once, without sleeping; no state file */
} EngineOp;

/* One method's part in a pass on a device. */
typedef struct MethodResult {
        char name[16];
        uint64_t save_usec;    /* probe and save (and its commit) */
        uint64_t restore_usec; /* restore and its verify */
        int r;                 /* 0, or the negative errno its save or restore failed with */
        unsigned mismatches;   /* registers that differed on read-back after its restore */
        char report[160];      /* the first of them, one line, or "" */
} MethodResult;

typedef struct DeviceResult {
        char slot[SLOT_MAX];
        Verdict verdict;
        SurveyRole role;
        char reason[256];       /* verdict reason, or why the device is not managed */
        bool attempted;         /* the device was managed and acted on */
        bool refused;           /* restore: the state file was refused, the device untouched */
        bool no_state;          /* restore: there is no state for it (its save failed or none ran) */
        int r;                  /* 0 or negative errno */
        char message[512];      /* what happened, for a person */
        uint64_t duration_usec; /* time spent on the device */
        unsigned n_sections;    /* methods saved or restored */
        unsigned mismatches;    /* verify after restore */
        char methods[128];      /* "vga, pci-config" */
        char warning[320];      /* save: the mode it runs that no saved method brings back, or "" */
        char fallback[320];     /* restore: which fallback step brought the display back, or "" */
        bool busy;              /* test: refused, a graphical session owns the active VT */
        MethodResult per_method[PLAN_MAX]; /* save, restore, test: in the order they ran first */
        unsigned n_per_method;
} DeviceResult;

typedef struct EngineResult {
        DeviceResult *devices;
        size_t n;
        size_t n_managed; /* devices the survey chose to act on */
        size_t n_done;    /* attempted and succeeded */
        size_t n_failed;  /* attempted and failed */
        size_t n_unusable;
        SleepFlagsResult sleep_flags; /* kernel.acpi_video_flags set (save) or put back */
        uint64_t survey_usec;         /* the survey's share of the pass (sysfs, DMI, quirks, plan) */
} EngineResult;

EngineResult *engine_result_free(EngineResult *r);
DEFINE_TRIVIAL_CLEANUP_FUNC(EngineResult *, engine_result_free);

/* Defaults for the running system: real root, libpciaccess for listing and access, the
 * console switch on. The caller sets rundir. */
void engine_config_default(EngineConfig *c);

/* Runs op on every managed device of the survey, each on its own: a device that fails is
 * named in its result and the others go on. Returns 0 with *ret filled (look at n_failed),
 * -ENODEV if only_device names no display device, or a negative errno when the devices
 * cannot be listed (*ret not written). Rollback acts only on devices with an undo file.
 * A test keeps what it saved in the device's undo file until it is done, so that a rollback
 * pass writes the saved state back should the test be stopped at its deadline. */
int engine_run(const EngineConfig *c, EngineOp op, EngineResult **ret);

/* Loads and fully validates "<slot>.state" (or .undo) for d: file safety, identity, boot,
 * every section accepted by its method's check(); no hardware access. -ENOENT when there
 * is none, -ESTALE from another boot, -EPROTO, -EBADR (see engine_check_sections()). */
int engine_load_state(const EngineConfig *c, const DisplayDevice *d, const char *suffix, StateFile **ret);

/* Every section names a method of this build at its version (-EPROTO otherwise) and its
 * method's check() accepts the payload (-EBADR otherwise). */
int engine_check_sections(const StateFile *s);

/* One line for a refusal of engine_load_state() or state_load_at(). */
const char *engine_load_error_to_string(int r);

/* Last results per device, kept in the run directory for --status and --report (save,
 * restore, test): the record of op for slot as "ok at TIME (N ms): message" or "FAILED at …". */
int engine_read_last(const RunDir *d, const char *slot, EngineOp op, char *buf, size_t size);
/* The same as fields, for JSON: when (µs since the epoch), errno (0 = ok), duration and message. */
typedef struct EngineLast {
        uint64_t time_usec;
        int error;
        uint64_t duration_usec;
        char message[600];
        MethodResult methods[PLAN_MAX]; /* per method: name, times, r, mismatches (no report) */
        size_t n_methods;
} EngineLast;
int engine_read_last_fields(const RunDir *d, const char *slot, EngineOp op, EngineLast *ret);

const char *engine_op_to_string(EngineOp op);
