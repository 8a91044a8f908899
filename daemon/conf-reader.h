/* SPDX-License-Identifier: MIT */
/* The line syntax of umsrestore.conf: [Section] headers, Key=Value assignments, comment
 * and blank lines, with the line number of each. No knowledge of sections or keys. */
#pragma once

#include "macro.h"

/* Longest line, after surrounding whitespace is dropped. */
#define CONF_LINE_MAX 200
/* The same for a raw reader (conf_reader_init_raw()). */
#define CONF_RAW_LINE_MAX 1000

typedef enum ConfLineType {
        CONF_LINE_SECTION,    /* [Name] */
        CONF_LINE_ASSIGNMENT, /* Key=Value */
} ConfLineType;

/* One meaningful line. The strings point into the reader and stay valid until the next
 * conf_reader_next() call. */
typedef struct ConfLine {
        ConfLineType type;
        unsigned number;     /* 1-based */
        const char *section; /* CONF_LINE_SECTION: the text between the brackets, as written */
        const char *key;     /* CONF_LINE_ASSIGNMENT: before the first '=', trimmed ("" if none) */
        const char *value;   /* CONF_LINE_ASSIGNMENT: after it, trimmed */
} ConfLine;

typedef struct ConfReader {
        const char *next; /* text not read yet */
        unsigned number;  /* number of the line last read */
        size_t line_max;  /* CONF_LINE_MAX or CONF_RAW_LINE_MAX */
        bool raw;         /* values taken as written ('#' and ';' in them are not refused) */
        char buf[CONF_RAW_LINE_MAX + 1];
} ConfReader;

void conf_reader_init(ConfReader *r, const char *text);
/* For files whose values are patterns (the quirk database): lines up to CONF_RAW_LINE_MAX,
 * and a value may hold '#' and ';' (comments are whole lines there). */
void conf_reader_init_raw(ConfReader *r, const char *text);

/* Reads up to the next section header or assignment. Returns 1 and fills *ret, 0 at the end
 * of the text, or -EINVAL for a line that is neither (nor blank, nor a comment) with
 * *ret_error set to a malloc'ed message without "NAME:LINE: " (r->number is the line), or
 * -ENOMEM (*ret_error NULL). */
int conf_reader_next(ConfReader *r, ConfLine *ret, char **ret_error);

/* Sets *ret_error to the malloc'ed message and returns -EINVAL (-ENOMEM, *ret_error NULL,
 * when it cannot): the one error shape of the configuration and quirk file readers. */
int conf_reader_error(char **ret_error, const char *fmt, ...) _printf_(2, 3);
