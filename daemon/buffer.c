/* SPDX-License-Identifier: MIT */
/* Growable byte buffer with little-endian and text/JSON appenders.
 * All appenders return 0 or -ENOMEM and leave the buffer valid on failure. */
#include <stdarg.h>

#include "buffer.h"

void buffer_done(Buffer *b)
{
        free(b->data);
        *b = (Buffer){ 0 };
}

int buffer_reserve(Buffer *b, size_t extra)
{
        size_t need, n;
        uint8_t *p;

        if (extra > SIZE_MAX - b->size - 1)
                return -ENOMEM;
        need = b->size + extra + 1; /* room for a hidden NUL */
        if (need <= b->allocated)
                return 0;
        n = MAX(need, b->allocated * 2);
        n = MAX(n, (size_t)64);
        p = realloc(b->data, n);
        if (!p)
                return -ENOMEM;
        b->data = p;
        b->allocated = n;
        return 0;
}

int buffer_append(Buffer *b, const void *data, size_t len)
{
        int r = buffer_reserve(b, len);
        if (r < 0)
                return r;
        if (len > 0)
                memcpy(b->data + b->size, data, len);
        b->size += len;
        b->data[b->size] = 0;
        return 0;
}

int buffer_append_u8(Buffer *b, uint8_t v)
{
        return buffer_append(b, &v, 1);
}

int buffer_append_le16(Buffer *b, uint16_t v)
{
        uint8_t p[2] = { v & 0xff, v >> 8 };
        return buffer_append(b, p, sizeof(p));
}

int buffer_append_le32(Buffer *b, uint32_t v)
{
        uint8_t p[4] = { v & 0xff, (v >> 8) & 0xff, (v >> 16) & 0xff, v >> 24 };
        return buffer_append(b, p, sizeof(p));
}

int buffer_append_le64(Buffer *b, uint64_t v)
{
        int r = buffer_append_le32(b, (uint32_t)v);
        if (r < 0)
                return r;
        return buffer_append_le32(b, (uint32_t)(v >> 32));
}

int buffer_printf(Buffer *b, const char *fmt, ...)
{
        va_list ap;
        int n, r;

        va_start(ap, fmt);
        n = vsnprintf(NULL, 0, fmt, ap);
        va_end(ap);
        if (n < 0)
                return -EINVAL;
        r = buffer_reserve(b, (size_t)n);
        if (r < 0)
                return r;
        va_start(ap, fmt);
        vsnprintf((char *)b->data + b->size, (size_t)n + 1, fmt, ap);
        va_end(ap);
        b->size += (size_t)n;
        return 0;
}

int buffer_append_json_string(Buffer *b, const char *s)
{
        int r = buffer_append_u8(b, '"');
        for (; r >= 0 && *s; s++) {
                unsigned char c = (unsigned char)*s;
                if (c == '"' || c == '\\')
                        r = buffer_printf(b, "\\%c", c);
                else if (c < 0x20)
                        r = buffer_printf(b, "\\u%04x", c);
                else
                        r = buffer_append_u8(b, c);
        }
        if (r < 0)
                return r;
        return buffer_append_u8(b, '"');
}

const char *buffer_str(Buffer *b)
{
        if (buffer_reserve(b, 0) < 0)
                return "";
        b->data[b->size] = 0;
        return (const char *)b->data;
}
