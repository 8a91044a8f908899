/* SPDX-License-Identifier: MIT */
/* libsystemd, loaded with dlopen() when the daemon starts: the command-line actions (what the
 * sleep hooks run at every suspend) never use it, and it and the six libraries it pulls in cost each start. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <systemd/sd-bus.h>
#include <systemd/sd-daemon.h>
#include <systemd/sd-event.h>

#define LIBSYSTEMD_SONAME "libsystemd.so.0"

/* Every libsystemd function the daemon calls. A call in manager.c to one not listed here
 * fails to link (the binary does not link libsystemd), so the list cannot fall behind. */
#define LIBSYSTEMD_SYMBOLS(X)                                                                                          \
        X(sd_bus_attach_event)                                                                                         \
        X(sd_bus_call_method_async)                                                                                    \
        X(sd_bus_error_has_names_sentinel)                                                                             \
        X(sd_bus_flush_close_unref)                                                                                    \
        X(sd_bus_match_signal)                                                                                         \
        X(sd_bus_message_get_error)                                                                                    \
        X(sd_bus_message_is_method_error)                                                                              \
        X(sd_bus_message_read)                                                                                         \
        X(sd_bus_open_system)                                                                                          \
        X(sd_bus_slot_unref)                                                                                           \
        X(sd_event_add_child)                                                                                          \
        X(sd_event_add_inotify)                                                                                        \
        X(sd_event_add_signal)                                                                                         \
        X(sd_event_add_time_relative)                                                                                  \
        X(sd_event_default)                                                                                            \
        X(sd_event_exit)                                                                                               \
        X(sd_event_loop)                                                                                               \
        X(sd_event_set_watchdog)                                                                                       \
        X(sd_event_source_disable_unref)                                                                               \
        X(sd_event_source_unref)                                                                                       \
        X(sd_event_unref)                                                                                              \
        X(sd_notify)                                                                                                   \
        X(sd_notifyf)

#define LIBSYSTEMD_DECLARE(name) extern __typeof__(name) *sym_##name;
LIBSYSTEMD_SYMBOLS(LIBSYSTEMD_DECLARE)
#undef LIBSYSTEMD_DECLARE

/* Loads soname and resolves every symbol above, all or none: on failure no pointer is set,
 * the library is closed again and why says what is missing (the file, or the first absent
 * symbol). Once loaded, later calls return 0 at once. */
int libsystemd_load(const char *soname, char *why, size_t why_size);

/* Whether the pointers are set (tests). */
bool libsystemd_loaded(void);

/* The calls in the file that includes this header go through the pointers. Include it after
 * every other header that declares sd_* functions. */
#ifndef LIBSYSTEMD_DL_NO_REDIRECT
#define sd_bus_attach_event sym_sd_bus_attach_event
#define sd_bus_call_method_async sym_sd_bus_call_method_async
#define sd_bus_error_has_names_sentinel sym_sd_bus_error_has_names_sentinel
#define sd_bus_flush_close_unref sym_sd_bus_flush_close_unref
#define sd_bus_match_signal sym_sd_bus_match_signal
#define sd_bus_message_get_error sym_sd_bus_message_get_error
#define sd_bus_message_is_method_error sym_sd_bus_message_is_method_error
#define sd_bus_message_read sym_sd_bus_message_read
#define sd_bus_open_system sym_sd_bus_open_system
#define sd_bus_slot_unref sym_sd_bus_slot_unref
#define sd_event_add_child sym_sd_event_add_child
#define sd_event_add_inotify sym_sd_event_add_inotify
#define sd_event_add_signal sym_sd_event_add_signal
#define sd_event_add_time_relative sym_sd_event_add_time_relative
#define sd_event_default sym_sd_event_default
#define sd_event_exit sym_sd_event_exit
#define sd_event_loop sym_sd_event_loop
#define sd_event_set_watchdog sym_sd_event_set_watchdog
#define sd_event_source_disable_unref sym_sd_event_source_disable_unref
#define sd_event_source_unref sym_sd_event_source_unref
#define sd_event_unref sym_sd_event_unref
#define sd_notify sym_sd_notify
#define sd_notifyf sym_sd_notifyf
#endif
