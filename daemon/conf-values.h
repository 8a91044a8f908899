/* SPDX-License-Identifier: MIT */
/* Parsers and printers for the values of umsrestore.conf: booleans, seconds, log levels,
 * method lists and device lists; and the DeviceMatch helpers. No knowledge of files or keys. */
#pragma once

#include "conf.h"

/* "0001:0a:1f.7" or "8086:27ae" + NUL */
#define DEVICE_MATCH_STRING_MAX 16
/* "59.999999" and more */
#define CONF_SECONDS_STRING_MAX 32

/* Every parser below returns >= 0 on success, or -EINVAL with *ret_error set to a malloc'ed
 * message without "NAME:LINE: " (key names the key in it), or -ENOMEM with *ret_error NULL.
 * Outputs are written only on success. An empty value is the caller's business (a reset). */

/* yes/no, true/false, on/off, 1/0, any case. Returns 1 or 0. */
int conf_parse_boolean(const char *key, const char *value, char **ret_error);
/* SaveDeadlineSec=: seconds with up to 6 decimals, 0 or CONFIG_DEADLINE_MIN/MAX_USEC. */
int conf_parse_deadline(const char *key, const char *value, uint64_t *ret_usec, char **ret_error);
/* LogLevel=: as log_level_from_string(). */
int conf_parse_log_level(const char *key, const char *value, int *ret_level, char **ret_error);
/* Space-separated method names, each known to the method table, none twice; at most
 * CONFIG_METHODS_MAX, stored in ret_methods (static names). */
int conf_parse_methods(const char *key, const char *value, const char **ret_methods, size_t *ret_n,
                       char **ret_error);
/* Space-separated slots and IDs; *ret is a malloc'ed array (NULL if the list is empty). */
int conf_parse_devices(const char *key, const char *value, DeviceMatch **ret, size_t *ret_n, char **ret_error);
/* One slot or ID, the n bytes at s; where says where it stood ("[Device 00:2.0]"). */
int conf_parse_device(const char *where, const char *s, size_t n, DeviceMatch *ret, char **ret_error);

bool device_match_equal(const DeviceMatch *a, const DeviceMatch *b);
bool device_match_test(const DeviceMatch *m, const DisplayDevice *d);
/* short_slot: "00:02.0" for domain 0, so that a printed list line is never longer than the
 * line it was parsed from. */
void device_match_format(const DeviceMatch *m, bool short_slot, char buf[static DEVICE_MATCH_STRING_MAX]);

/* "2.5", "0", "0.125": parses back to the same value. */
void conf_format_seconds(uint64_t usec, char buf[static CONF_SECONDS_STRING_MAX]);
/* "info" for LOG_INFO; NULL for a level without a name. */
const char *conf_log_level_name(int level);
