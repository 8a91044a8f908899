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

/* File names in the run directory: "<slot>.state" (the saved state), "<slot>.state.prev"
 * (the one before), "<slot>.undo" (what a save in progress has changed, see the engine). */
#define STATE_SUFFIX ".state"
#define STATE_UNDO_SUFFIX ".undo"
#define STATE_NAME_MAX 64
int state_file_name(const char *slot, const char *suffix, char buf[static STATE_NAME_MAX]);

/* For state_load_at(): do not check the owner and mode (--dump of a copy). */
#define STATE_OWNER_ANY ((uid_t)-1)

/* Opens name relative to dir_fd (AT_FDCWD for a path) with O_NOFOLLOW|O_NONBLOCK, refuses
 * a file that is not a regular file, not owned by expected_uid or readable or writable by
 * group or others (unless expected_uid is STATE_OWNER_ANY), then parses it. -ENOENT if
 * there is none; -ELOOP for a symlink; -EBADFD if not a regular file; -EPERM for unsafe
 * ownership or mode; -EFBIG if larger than STATE_FILE_MAX; parse errors as state_parse(). */
int state_load_at(int dir_fd, const char *name, uid_t expected_uid, StateFile **ret);

/* Points of state_write() a test may stop at to simulate a power loss ("temp-synced": temp
 * file written and fsync'ed, nothing renamed yet; "prev-kept": the old file is now also
 * "<slot>.state.prev"; "renamed": the new file is in place, the directory not yet
 * fsync'ed). Production passes NULL. */
typedef struct StateWriteHook {
        void (*func)(const char *point, void *userdata);
        void *userdata;
} StateWriteHook;

/* Writes s as "<slot>.state" in dir_fd atomically: temp file (0600), fsync, keep the old
 * file as "<slot>.state.prev" (hard link, only if the old file is valid, so .prev is always
 * the previous good copy), rename, fsync the directory. "<slot>.state" never disappears
 * once written: readers see the old or the new file. */
int state_write(int dir_fd, const StateFile *s, const StateWriteHook *hook);

/* Writes s as "<slot>.undo" the same way (no .prev). */
int state_write_undo(int dir_fd, const StateFile *s);

/* Writes a small record file (the last results) the same way. */
int state_write_record(int dir_fd, const char *name, const void *data, size_t len);

/* Reads a record file written by state_write_record() (owner and mode checked as for
 * state files unless STATE_OWNER_ANY), at most max bytes, as a NUL-terminated string. */
int state_read_record(int dir_fd, const char *name, uid_t expected_uid, size_t max, char **ret);

/* Makes "<slot>.state" no longer restorable: it becomes "<slot>.state.prev". Returns 1 if
 * there was one, 0 if not. */
int state_invalidate(int dir_fd, const char *slot);

/* Removes name from dir_fd and syncs the directory: 1 if it was there, 0 if not. */
int state_remove(int dir_fd, const char *name);

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
