/* SPDX-License-Identifier: MIT */
/* The machine's DMI identity as the kernel exports it in /sys/class/dmi/id: the modalias and
 * the single fields (vendor, product, BIOS, board), read under a root prefix. */
#pragma once

#include "macro.h"

/* Longest field and modalias kept; longer ones are cut (DMI strings are at most 255 bytes
 * by the standard, the modalias joins nine of them). */
#define DMI_FIELD_MAX 256
#define DMI_MODALIAS_MAX 1024

typedef enum DmiField {
        DMI_SYS_VENDOR,
        DMI_PRODUCT_NAME,
        DMI_PRODUCT_VERSION,
        DMI_BOARD_VENDOR,
        DMI_BOARD_NAME,
        DMI_BOARD_VERSION,
        DMI_BIOS_VENDOR,
        DMI_BIOS_VERSION,
        DMI_BIOS_DATE,
        _DMI_FIELD_MAX,
} DmiField;

typedef struct DmiInfo {
        bool present;                   /* ROOT/sys/class/dmi/id exists */
        char modalias[DMI_MODALIAS_MAX]; /* "dmi:bvnLENOVO:..." or "" */
        /* Each field as in its file, without surrounding whitespace (so it compares the same
         * as pm-utils compared it: bash's read drops leading and trailing blanks), "" when the
         * file is missing or unreadable. Inner spaces are kept. */
        char fields[_DMI_FIELD_MAX][DMI_FIELD_MAX];
} DmiInfo;

/* The attribute file name of a field, "sys_vendor". */
const char *dmi_field_file(DmiField f);

/* Reads ROOT/sys/class/dmi/id/. A machine without DMI (no directory) gives an empty info
 * with present = false; missing files give "". Never fails but for -ENOMEM. */
int dmi_read(const char *root, DmiInfo *ret);
