/* SPDX-License-Identifier: MIT */
/* What the conf-*.c files share and no other module uses: the keys of each section, the
 * defaults, device entries of a Config, and the one-line error messages. */
#pragma once

#include "conf.h"

typedef enum GeneralKey {
        GENERAL_METHODS,
        GENERAL_CONSOLE_SWITCH,
        GENERAL_VBE_POST,
        GENERAL_SAVE_DEADLINE,
        GENERAL_MANUAL_DEADLINE,
        GENERAL_INCLUDE,
        GENERAL_EXCLUDE,
        GENERAL_LOG_LEVEL,
        _GENERAL_KEY_MAX,
} GeneralKey;

typedef enum DeviceKey {
        DEVICE_MANAGE,
        DEVICE_METHODS,
        DEVICE_VBE_POST,
        _DEVICE_KEY_MAX,
} DeviceKey;

/* Key names, in the order config_format() prints them. */
extern const char *const config_general_keys[_GENERAL_KEY_MAX];
extern const char *const config_device_keys[_DEVICE_KEY_MAX];

/* What config_new() returns, and what an empty value (Key=) restores. */
extern const Config config_defaults;

/* The index in c->devices of the entry for m, added (unset) if there is none yet. */
int config_device_get(Config *c, const DeviceMatch *m, size_t *ret_index);

/* Sets *ret_error (if ret_error is not NULL) to the malloc'ed message, or to NULL when fmt is
 * NULL, and returns r; -ENOMEM (and NULL) if the message cannot be allocated. */
int conf_error(char **ret_error, int r, const char *fmt, ...) _printf_(3, 4);
