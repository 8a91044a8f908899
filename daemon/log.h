/* SPDX-License-Identifier: MIT */
/* Logging to stderr, with sd-daemon <N> level prefixes when stderr is the journal.
 * Lower layers only return negative errno; main, manager and the CLI actions log. */
#pragma once

#include <syslog.h>

#include "macro.h"

void log_set_max_level(int level);
int log_get_max_level(void);
/* Force (1), suppress (0) or auto-detect (-1, default) the "<N>" prefix. */
void log_set_prefix_mode(int mode);

/* Logs when level <= max level. Returns -abs(error) (or 0 if error is 0), so that
 * "return log_error_errno(r, ...)" works. We build with -Wpedantic, which rejects glibc's
 * %m, so messages spell the error text with STRERROR(r). */
int log_internal(int level, int error, const char *file, int line, const char *fmt, ...) _printf_(5, 6);

#define log_full_errno(level, error, ...) log_internal((level), (error), __FILE__, __LINE__, __VA_ARGS__)
#define log_full(level, ...) (void)log_full_errno((level), 0, __VA_ARGS__)

#define log_debug(...) log_full(LOG_DEBUG, __VA_ARGS__)
#define log_info(...) log_full(LOG_INFO, __VA_ARGS__)
#define log_notice(...) log_full(LOG_NOTICE, __VA_ARGS__)
#define log_warning(...) log_full(LOG_WARNING, __VA_ARGS__)
#define log_error(...) log_full(LOG_ERR, __VA_ARGS__)

#define log_debug_errno(error, ...) log_full_errno(LOG_DEBUG, (error), __VA_ARGS__)
#define log_info_errno(error, ...) log_full_errno(LOG_INFO, (error), __VA_ARGS__)
#define log_notice_errno(error, ...) log_full_errno(LOG_NOTICE, (error), __VA_ARGS__)
#define log_warning_errno(error, ...) log_full_errno(LOG_WARNING, (error), __VA_ARGS__)
#define log_error_errno(error, ...) log_full_errno(LOG_ERR, (error), __VA_ARGS__)

/* Parses "debug", "info", ..., or a number 0-7. */
int log_level_from_string(const char *s);

#define STRERROR(r) strerror(abs(r))
