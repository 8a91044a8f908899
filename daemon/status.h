/* SPDX-License-Identifier: MIT */
/* What --status prints: the survey with each device's last results, as text for a person
 * or as JSON (documented in umsrestored(8)). Pure formatting, no I/O. */
#pragma once

#include "buffer.h"
#include "engine.h"

typedef struct StatusDevice {
        const SurveyDevice *device;
        bool has_last_save, has_last_restore, has_last_test;
        EngineLast last_save, last_restore, last_test;
} StatusDevice;

typedef struct StatusInfo {
        const Survey *survey; /* for the DMI identity the quirks were matched on; may be NULL */
        const char *console;  /* "vgacon (VGA text)", "" if unknown */
        const char *blocker;  /* why nothing can be saved on this machine, or NULL */
        bool daemon_running;  /* daemon.lock is held */
        bool per_method;      /* text: each method's times and result under a last result (--report) */
        StatusDevice *devices;
        size_t n_devices;
} StatusInfo;

int status_format_text(const StatusInfo *s, Buffer *out);
int status_format_json(const StatusInfo *s, Buffer *out);

/* What --quirks prints: the quirk files read, the machine's DMI identity, and per device the
 * sections that apply with each Match* line, the value it was tested on, the attributes, and
 * the resulting plan and settings. */
typedef struct QuirksInfo {
        const Survey *survey;
        const QuirkDb *db;         /* NULL when the shipped set could not be read */
        const char *shipped_dir;
        const char *local_dir;
        const char *shipped_error; /* why the shipped set was not used, or NULL */
        const char *local_error;   /* why the local overrides were dropped, or NULL */
} QuirksInfo;

int status_format_quirks_text(const QuirksInfo *q, Buffer *out);
int status_format_quirks_json(const QuirksInfo *q, Buffer *out);
