/* SPDX-License-Identifier: MIT */
/* "Did you mean ...?": the closest of a few known names to a misspelt word.
 * Used for configuration keys and sections, and by the method table for method names. */
#pragma once

#include "macro.h"

/* Words longer than this get no suggestion. */
#define SUGGEST_LEN_MAX 64
/* The largest edit distance still taken for a typo. */
#define SUGGEST_DISTANCE_MAX 2

/* Optimal string alignment distance between word (n bytes) and name, ignoring ASCII case:
 * insertions, deletions, substitutions and transpositions of neighbours count one each.
 * UINT_MAX if either is longer than SUGGEST_LEN_MAX. */
unsigned suggest_distance(const char *word, size_t n, const char *name);

/* The name (NULL entries skipped) closest to word (n bytes) if it is at most
 * SUGGEST_DISTANCE_MAX edits away; the first of equally close ones; NULL otherwise. */
const char *suggest_closest(const char *word, size_t n, const char *const *names, size_t n_names);
