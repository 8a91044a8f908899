/* SPDX-License-Identifier: MIT */
/* What --report prints: one paste-able description of the machine for a bug report or a new
 * quirk entry (kernel, the command-line flags that matter, the DMI modalias, then --status
 * with every method's last results). Collecting reads sysfs/procfs only; formatting is pure. */
#pragma once

#include "buffer.h"
#include "status.h"

#define REPORT_FLAGS_MAX 16

typedef struct ReportSystem {
        char kernel[128];       /* kernel release, "" if unknown */
        char flags[REPORT_FLAGS_MAX][128]; /* kernel command-line words that change display handling */
        size_t n_flags;
        char dmi_modalias[512]; /* /sys/class/dmi/id/modalias, "" if the machine has none */
} ReportSystem;

/* Reads root's /proc/sys/kernel/osrelease, /proc/cmdline and /sys/class/dmi/id/modalias
 * (root NULL or "/": the running system). Nothing else of DMI: no serial numbers, no UUIDs.
 * What cannot be read stays empty. */
void report_collect_system(const char *root, ReportSystem *ret);

/* Whether a kernel command-line word is one the report keeps (nomodeset, *modeset=*, vga=,
 * video=, acpi_sleep=, acpi_video_flags=, nofb, vesafb:/efifb: options). */
bool report_flag_matters(const char *word);

int report_format_text(const ReportSystem *sys, const StatusInfo *s, Buffer *out);
int report_format_json(const ReportSystem *sys, const StatusInfo *s, Buffer *out);
