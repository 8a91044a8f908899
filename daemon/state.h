/* SPDX-License-Identifier: MIT */
/* The state file: one per managed device, versioned, bound to its device, checksummed.
 * Parsing is pure (no I/O) so it can be fuzzed; loading adds the file-safety checks. */
#pragma once

#include "buffer.h"
#include "devices.h"

#define STATE_MAGIC "UMSRSTAT" /* 8 bytes at offset 0 */
#define STATE_FORMAT_VERSION 1
#define STATE_SECTIONS_MAX 16
#define STATE_FILE_MAX (4u * 1024u * 1024u) /* refuse anything larger before reading it */

typedef struct StateIdentity {
        char slot[SLOT_MAX];
        uint16_t vendor_id, device_id, subvendor_id, subdevice_id;
        uint8_t revision;
} StateIdentity;

typedef struct StateSection {
        uint16_t method_id;
        uint16_t method_version;
        uint32_t len;
        const uint8_t *payload; /* points into StateFile.blob, or caller memory when serializing */
} StateSection;

typedef struct StateFile {
        StateIdentity identity;
        char kernel_release[65]; /* uname -r */
        char boot_id[37];        /* /proc/sys/kernel/random/boot_id */
        uint64_t time_usec;      /* CLOCK_REALTIME when saved */
        size_t n_sections;
        StateSection sections[STATE_SECTIONS_MAX];
        uint8_t *blob; /* owned copy of the parsed file, or NULL */
} StateFile;

StateFile *state_file_free(StateFile *s);
DEFINE_TRIVIAL_CLEANUP_FUNC(StateFile *, state_file_free);

void state_identity_from_device(StateIdentity *id, const DisplayDevice *d);

/* Serializes s (header, identity, sections, checksum) into out. */
int state_serialize(const StateFile *s, Buffer *out);

/* Parses and validates a whole file image: magic, format version, lengths, checksum,
 * NUL-terminated strings, section count. Never touches hardware or files.
 * Each refusal has its own error (state_error_to_string() words it):
 *   -ENODATA          truncated (shorter than its header says, or than any state file)
 *   -EMEDIUMTYPE      bad magic: not a state file
 *   -EPROTONOSUPPORT  unknown format version
 *   -EBADMSG          checksum mismatch
 *   -EFBIG            larger than STATE_FILE_MAX
 *   -EUCLEAN          trailing garbage (after the checksum, or between the last section and it)
 *   -EOVERFLOW        a section (header or payload) runs past the end
 *   -E2BIG            more than STATE_SECTIONS_MAX sections
 *   -EILSEQ           a text field not NUL-terminated, not NUL-padded or not printable ASCII
 *   -ENOTUNIQ         two sections with the same method id */
int state_parse(const uint8_t *data, size_t len, StateFile **ret);

/* -EXDEV if the file belongs to another device (slot or any ID differs). */
int state_check_identity(const StateFile *s, const DisplayDevice *d);

/* "<dir>/<slot>.state" */
int state_path(const char *dir, const char *slot, char **ret);

/* Writes s for its device into dir atomically: temp file (0600), fsync, keep the old
 * file as "<slot>.state.prev" (hard link, only if the old file is valid, so .prev is always
 * the previous good copy), rename, fsync the directory. Creates dir (0700) if needed.
 * "<slot>.state" never disappears once written: readers see the old or the new file. */
int state_write(const char *dir, const StateFile *s);

/* Opens with O_NOFOLLOW|O_CLOEXEC, refuses a file that is not a regular file, not owned
 * by the expected uid (root unless tests override it), or group/other writable, then
 * parses it. -ENOENT if there is none; -ELOOP for a symlink; -EBADFD if not a regular
 * file; -EPERM for unsafe ownership or mode; -EFBIG if larger than STATE_FILE_MAX;
 * parse errors as state_parse(). */
int state_load_file(const char *path, uid_t expected_uid, StateFile **ret);

/* Human-readable (or JSON) description of the header; sections are dumped by methods. */
int state_dump_header(const StateFile *s, bool json, Buffer *out);

/* One-line human reason for a refusal of state_parse(), state_load_file() or
 * state_check_identity() (r may be negative or positive); strerror() for other errors. */
const char *state_error_to_string(int r);

/* True if both describe the same state: identity, strings, time and every section
 * (method id, version, length and payload bytes). */
bool state_file_equal(const StateFile *a, const StateFile *b);

/* CRC-32C (Castagnoli, reflected 0x82F63B78, init and final xor 0xFFFFFFFF), the file's
 * checksum. state_crc32c("123456789", 9) == 0xE3069283. */
uint32_t state_crc32c(const void *data, size_t len);

/* Test hook, NULL in production: state_write() calls it at named points of the write
 * ("temp-synced": temp file written and fsync'ed, nothing renamed yet; "prev-kept": the
 * old file is now also "<slot>.state.prev"; "renamed": the new file is in place, the
 * directory not yet fsync'ed). Tests _exit() from it to simulate a power loss there. */
typedef void (*StateWriteHook)(const char *point, void *userdata);
void state_set_write_hook(StateWriteHook hook, void *userdata);
