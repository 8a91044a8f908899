/* SPDX-License-Identifier: MIT */
/* Plain-text patterns matched without a compiled regular expression. Nearly every DMI
 * pattern of the quirk database is a POSIX extended regular expression of one simple shape:
 * alternatives of literal text, each with its own '^' and '$' ("^Acer", "C100|6460",
 * "^1.0$"), or one parenthesised group of them between an optional '^' and '$'
 * ("^(MS-1057|U-100)$"); '.' is any one character. regcomp() spends kilobytes of DFA on
 * each of these (3.6 MiB for the shipped database), so the quirk loader keeps compiled
 * expressions for the other shapes only. For a pattern of this shape, textmatch_match()
 * gives the answer regexec() gives (REG_EXTENDED, REG_ICASE when icase; the C locale). */
#pragma once

#include <stdbool.h>

/* True when pattern has the shape above (and is therefore a valid extended expression). */
bool textmatch_simple(const char *pattern);

/* Whether value matches pattern, unanchored as regexec(); pattern must be simple. */
bool textmatch_match(const char *pattern, const char *value, bool icase);
