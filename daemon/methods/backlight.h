/* SPDX-License-Identifier: MIT */
/* The "backlight" method: the brightness of each backlight class device, put back after
 * sleep where it came back different. The payload layout is public for tests. */
#pragma once

#include "methods/method.h"

extern const MethodOps method_backlight;

#define BACKLIGHT_METHOD_ID 5
#define BACKLIGHT_METHOD_VERSION 1

/* At most this many backlights are saved (the first ones by name); more are left alone. */
#define BACKLIGHT_MAX 8u

/* Payload, version 1:
 *   u8 count                       0..BACKLIGHT_MAX
 *   count times:
 *     u8   name length             1..HW_BACKLIGHT_NAME_MAX (64)
 *     name bytes                   [A-Za-z0-9._:-], not "." or "..", no NUL; unique
 *     le32 brightness              <= max
 *     le32 max (max_brightness)    >= 1
 * and nothing after the last entry. */
#define BACKLIGHT_ENTRY_FIXED_SIZE 9u /* name length byte + two le32 */
