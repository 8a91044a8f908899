/* SPDX-License-Identifier: MIT */
/* The machine quirks database: the conf/quirks files (NAME.quirks) as shipped, /etc/umsrestore/quirks.d/ as
 * the administrator's overrides. One [Section] per entry: Match* keys, then attributes; every
 * key and value checked when loaded (FILE:LINE errors with "did you mean"). No matching here
 * (quirks-match.h). */
#pragma once

#include <regex.h>

#include "buffer.h"
#include "dmi.h"

/* Longest line of a quirk file (pm-utils' product lists run to 500 characters). */
#define QUIRK_LINE_MAX 1000
/* Longest quirk file read, in bytes. */
#define QUIRK_FILE_MAX (1024 * 1024)
/* Method names one AddMethods= or RemoveMethods= may list. */
#define QUIRK_METHODS_MAX 8

typedef enum QuirkMatchKind {
        QUIRK_MATCH_MODALIAS, /* MatchDMIModalias=: fnmatch() on the whole modalias */
        QUIRK_MATCH_DMI,      /* MatchSysVendor= ...: one DMI field, through an operator */
        QUIRK_MATCH_PCI_ID,   /* MatchPCIID=vendor:device[:subvendor:subdevice], '*' for any */
        QUIRK_MATCH_DRIVER,   /* MatchDriver=: the bound kernel driver */
} QuirkMatchKind;

typedef enum QuirkOp {
        QUIRK_OP_REGEX,       /* POSIX extended regular expression, unanchored */
        QUIRK_OP_REGEX_ICASE, /* the same, ignoring case */
        QUIRK_OP_NOT_REGEX,   /* the expression does not match */
        QUIRK_OP_EQ,          /* byte-wise string comparisons (strcmp order) */
        QUIRK_OP_NE,
        QUIRK_OP_LT,
        QUIRK_OP_LE,
        QUIRK_OP_GT,
        QUIRK_OP_GE,
        _QUIRK_OP_MAX,
} QuirkOp;

typedef struct QuirkMatch {
        QuirkMatchKind kind;
        unsigned line;
        const char *key;   /* the key as the file spells it, static */
        DmiField field;    /* QUIRK_MATCH_DMI */
        QuirkOp op;        /* QUIRK_MATCH_DMI */
        char *pattern;     /* modalias glob, DMI pattern or value, driver name */
        bool text_only; /* a regex op whose pattern textmatch.h matches: no compiled expression */
        bool has_regex; /* a regex op with a compiled expression */
        regex_t regex;
        uint16_t pci_id[4]; /* vendor, device, subvendor, subdevice */
        unsigned pci_any;   /* bit i: field i is '*' (or not given) */
} QuirkMatch;

typedef enum QuirkAttr {
        QUIRK_ADD_METHODS,     /* methods added to the built-in default plan */
        QUIRK_REMOVE_METHODS,  /* methods taken out of it */
        QUIRK_VBE_POST,        /* the vbe method POSTs the video BIOS on restore */
        QUIRK_VBE_MODE,        /* the vbe method saves and sets the VBE mode */
        QUIRK_VBE_STATE,       /* the vbe method saves and restores the BIOS's VBE state */
        QUIRK_ACPI_VIDEO_FLAGS, /* kernel.acpi_video_flags around sleep (machine-wide) */
        QUIRK_CONSOLE_SWITCH,  /* the console method's VT switch */
        QUIRK_DPMS_ON,         /* force the display on after resume */
        QUIRK_DPMS_SUSPEND,    /* put the display in DPMS suspend before sleep */
        QUIRK_BACKLIGHT_RESET, /* write the brightness back after resume */
        QUIRK_RADEON_LIGHT,    /* the radeon method turns panel light and DAC off and on */
        QUIRK_RESUMES_UNAIDED, /* the display comes back without BIOS help (pm-utils' none) */
        _QUIRK_ATTR_MAX,
} QuirkAttr;

/* ACPIVideoFlags= values: the bits of kernel.acpi_video_flags. */
#define QUIRK_ACPI_S3_BIOS 0x1
#define QUIRK_ACPI_S3_MODE 0x2

typedef struct QuirkSection {
        char *file; /* as opened, for messages */
        char *name; /* between the brackets */
        unsigned line;
        bool local; /* from the administrator's quirks.d */
        QuirkMatch *matches;
        size_t n_matches;
        unsigned attr_lines[_QUIRK_ATTR_MAX]; /* where each attribute was set; 0 = not set */
        int values[_QUIRK_ATTR_MAX];          /* booleans 0/1; ACPIVideoFlags 0..3 */
        const char *add_methods[QUIRK_METHODS_MAX]; /* static names of the method table */
        size_t n_add_methods;
        const char *remove_methods[QUIRK_METHODS_MAX];
        size_t n_remove_methods;
} QuirkSection;

typedef struct QuirkStrings QuirkStrings;

typedef struct QuirkDb {
        QuirkSection *sections; /* in load order: shipped files by name, then local ones */
        size_t n_sections;
        size_t n_allocated;    /* room in sections, grown by doubling */
        QuirkStrings *strings; /* every string the sections point to */
        size_t n_files;
        size_t n_local_files;
} QuirkDb;

/* Method names a quirk may add or remove (the method table's, from the caller). */
typedef struct QuirkMethodNames {
        const char *const *names;
        size_t n;
} QuirkMethodNames;

int quirk_db_new(QuirkDb **ret);
QuirkDb *quirk_db_free(QuirkDb *db);
DEFINE_TRIVIAL_CLEANUP_FUNC(QuirkDb *, quirk_db_free);

const char *quirk_attr_to_string(QuirkAttr a); /* the key: "VBEPost" */
const char *quirk_op_to_string(QuirkOp op);    /* "regex", "regex-icase", ... */

/* "none", "s3_bios", "s3_mode", "both" for ACPIVideoFlags= values 0..3, else NULL. */
const char *quirk_acpi_flags_to_string(unsigned flags);

/* The value of attribute a of s as a file would spell it ("yes", "both", "intel vga"); "" when
 * s does not set it. */
void quirk_section_format_attr(const QuirkSection *s, QuirkAttr a, char *buf, size_t size);

/* Parses text (name for messages) and appends its sections to db. On failure returns
 * -EINVAL (or -ENOMEM), sets *ret_error to a malloc'ed "NAME:LINE: message" and leaves db
 * as it was. */
int quirk_db_parse_string(QuirkDb *db, const char *text, const char *name, bool local,
                          const QuirkMethodNames *methods, char **ret_error);

/* Every "*.quirks" file of dir, sorted by name, as quirk_db_parse_string(); a missing
 * directory adds nothing. A file that cannot be read is "PATH: message". On failure db is as
 * it was (none of dir's files is kept). */
int quirk_db_load_dir(QuirkDb *db, const char *dir, bool local, const QuirkMethodNames *methods,
                      char **ret_error);

/* The shipped set from shipped_dir (an error there fails: -EINVAL etc. with *ret_error),
 * then the local overrides from ROOT/UMSRESTORE_SYSCONFDIR/umsrestore/quirks.d: a broken
 * local file drops every local file, and *ret_local_error says why (the call still
 * succeeds). */
int quirk_db_load(const char *root, const char *shipped_dir, const QuirkMethodNames *methods, QuirkDb **ret,
                  char **ret_error, char **ret_local_error);

/* The local override directory under root, malloc'ed. */
int quirk_local_dir(const char *root, char **ret);
