/* SPDX-License-Identifier: MIT */
/* The configuration: umsrestore.conf and its drop-ins, read (conf-files.c), split into lines
 * (conf-reader.c), understood (conf-parse.c, conf-values.c) and merged key by key into a
 * Config, and the two questions the engine asks of it (conf.c: is a device managed, which
 * methods). */
#pragma once

#include "buffer.h"
#include "devices.h"

/* Method names in one Methods= list (duplicates are refused, so at most the table size). */
#define CONFIG_METHODS_MAX 16
/* Longest configuration file read, in bytes. */
#define CONFIG_FILE_MAX (1024 * 1024)
/* SaveDeadlineSec= bounds when not 0. */
#define CONFIG_DEADLINE_MIN_USEC 100000ULL
#define CONFIG_DEADLINE_MAX_USEC 60000000ULL
/* ManualDeadlineSec= default: the bound on --save-now, --restore-now and --dump. */
#define CONFIG_MANUAL_DEADLINE_DEFAULT_USEC 20000000ULL

/* One device named in Include=, Exclude= or a [Device X] header: a PCI slot, or a model. */
typedef struct DeviceMatch {
        bool by_id; /* vendor:device; otherwise a slot */
        uint16_t domain;
        uint8_t bus, dev, func;
        uint16_t vendor_id, device_id;
} DeviceMatch;

/* A [Device X] section, merged over all files. */
typedef struct ConfigDevice {
        DeviceMatch match;
        int manage;                              /* Manage=: -1 not set, 0 no, 1 yes */
        size_t n_methods;                        /* Methods=: 0 = not set, use [General] Methods= */
        const char *methods[CONFIG_METHODS_MAX]; /* static names from method_table */
        int vbe_post;                            /* VBEPost=: -1 not set (use [General]), 0 no, 1 yes */
} ConfigDevice;

typedef struct Config {
        /* [General] */
        size_t n_methods; /* Methods=: 0 = every built-in method that applies */
        const char *methods[CONFIG_METHODS_MAX];
        bool console_switch;         /* ConsoleSwitch= */
        bool vbe_post;               /* VBEPost= */
        bool console_switch_set;     /* ConsoleSwitch= was given (not empty): it wins over a quirk */
        bool vbe_post_set;           /* the same for VBEPost= */
        uint64_t save_deadline_usec; /* SaveDeadlineSec=: 0 = from logind's InhibitDelayMaxUSec */
        uint64_t manual_deadline_usec; /* ManualDeadlineSec=: bounds --save-now, --restore-now, --dump */
        DeviceMatch *include;        /* Include=: if n_include > 0, manage only these */
        size_t n_include;
        DeviceMatch *exclude; /* Exclude=: never manage these */
        size_t n_exclude;
        int log_level; /* LogLevel=: LOG_DEBUG ... LOG_EMERG */

        /* [Device X] sections, in order of first appearance. */
        ConfigDevice *devices;
        size_t n_devices;
} Config;

/* A configuration holding the defaults. */
int config_new(Config **ret);
Config *config_free(Config *c);
DEFINE_TRIVIAL_CLEANUP_FUNC(Config *, config_free);

/* Parses text (name is the file name used in messages) over c: every key found replaces
 * the value in c, [Device X] settings merge into c's entry for X. On failure returns a
 * negative errno, sets *ret_error (if ret_error is not NULL) to a malloc'ed one-line
 * "NAME:LINE: message" (NULL if out of memory), and c may be partly updated: discard it. */
int config_parse_string(const char *text, const char *name, Config *c, char **ret_error);

/* Same for a file. A file that cannot be read gives -errno and "PATH: message": besides
 * open/read errors, -EISDIR or -EBADFD for anything but a regular file or /dev/null (empty),
 * refused before it is opened (a FIFO would block), and -EACCES for a file the daemon could
 * not read, judged from its owner and mode bits as for uid 0 without CAP_DAC_OVERRIDE,
 * whoever calls. */
int config_load_file(const char *path, Config *c, char **ret_error);

/* The text of path, opened and checked as config_load_file() opens a file (for other
 * configuration-like files: the quirk database). A missing file with missing_ok gives 0 and
 * *ret_text NULL. Errors as for config_load_file(). */
int config_read_text(const char *path, bool missing_ok, char **ret_text, char **ret_error);

/* The effective configuration. With explicit_path (--config), only that file, which must
 * exist (taken as given, not under root). Otherwise root + UMSRESTORE_SYSCONFDIR
 * "/umsrestore.conf" if it exists, then the drop-ins "umsrestore.conf.d/NAME.conf" under
 * root + UMSRESTORE_SYSCONFDIR, root + "/run" and root + "/usr/lib": a name in an earlier
 * directory masks the same name in a later one (a symlink to /dev/null masks), and the
 * remaining files are applied sorted by name. root may be NULL or "/" for the real root.
 * Every file is opened as config_load_file() does; a drop-in directory the daemon could
 * not list (same rule, read and search bits) is -EACCES too.
 * On failure, *ret is not written and *ret_error is set as for config_parse_string(). */
int config_load(const char *root, const char *explicit_path, Config **ret, char **ret_error);

/* Whether the configuration lets umsrestore manage d (its verdict is checked separately:
 * no setting makes a KMS device managed). Exclude= wins; then Manage= of a [Device SLOT]
 * section, then of a [Device VENDOR:DEVICE] section; then Include= if it is set. */
bool config_device_managed(const Config *c, const DisplayDevice *d);

/* The configured method names for d, as written: Methods= of its [Device SLOT] section,
 * else of its [Device VENDOR:DEVICE] section, else [General] Methods=. Stores at most max
 * names in ret and returns how many; 0 means "the built-in defaults". */
size_t config_device_methods(const Config *c, const DisplayDevice *d, const char **ret, size_t max);

/* VBEPost= for d: of its [Device SLOT] section, else of its [Device VENDOR:DEVICE] section,
 * else [General] VBEPost=. */
bool config_device_vbe_post(const Config *c, const DisplayDevice *d);
/* The same, or -1 when neither a section nor [General] sets it (a quirk may then). */
int config_device_vbe_post_setting(const Config *c, const DisplayDevice *d);

/* Appends the configuration as INI text with every key, which parses back to an equal
 * configuration. */
int config_format(const Config *c, Buffer *out);
