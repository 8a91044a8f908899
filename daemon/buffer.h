/* SPDX-License-Identifier: MIT */
/* A growable byte buffer, used for state payloads and for text/JSON output. */
#pragma once

#include "macro.h"

typedef struct Buffer {
        uint8_t *data;
        size_t size;
        size_t allocated;
} Buffer;

void buffer_done(Buffer *b);
int buffer_reserve(Buffer *b, size_t extra);
int buffer_append(Buffer *b, const void *data, size_t len);
int buffer_append_u8(Buffer *b, uint8_t v);
int buffer_append_le16(Buffer *b, uint16_t v);
int buffer_append_le32(Buffer *b, uint32_t v);
int buffer_append_le64(Buffer *b, uint64_t v);
int buffer_printf(Buffer *b, const char *fmt, ...) _printf_(2, 3);
/* Appends a JSON string literal (with quotes) for s. */
int buffer_append_json_string(Buffer *b, const char *s);
/* NUL-terminated view of a text buffer (adds a hidden terminator). */
const char *buffer_str(Buffer *b);

static inline uint16_t read_le16(const uint8_t *p)
{
        return (uint16_t)(p[0] | p[1] << 8);
}
static inline uint32_t read_le32(const uint8_t *p)
{
        return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static inline uint64_t read_le64(const uint8_t *p)
{
        return (uint64_t)read_le32(p) | (uint64_t)read_le32(p + 4) << 32;
}
