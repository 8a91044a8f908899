/* SPDX-License-Identifier: MIT */
/* Owns which configuration files are read and how: the main file, the drop-ins by priority
 * and masking, and opening each one so that no file can hang or fool the loader. */
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "conf-internal.h"
#include "log.h"
#include "version.h"

#define CONFIG_MAIN_FILE "umsrestore.conf"
#define CONFIG_DROPIN_DIR "umsrestore.conf.d"

/* Drop-in directories by priority: a file name here masks the same name further down. */
static const char *const dropin_dirs[] = { UMSRESTORE_SYSCONFDIR, "/run", "/usr/lib" };

typedef struct DropIn {
        char *name;
        char *path;
} DropIn;

typedef struct DropInList {
        DropIn *items;
        size_t n;
} DropInList;

static bool stat_is_dev_null(const struct stat *st)
{
        return S_ISCHR(st->st_mode) && st->st_rdev == makedev(1, 3);
}

/* Whether the daemon may access what st describes (want: a mask of 4 read, 2 write, 1 search).
 * The daemon runs as uid 0, gid 0, without CAP_DAC_OVERRIDE and CAP_DAC_READ_SEARCH (see
 * umsrestored.service), so for it, as for anyone, the owner's bits apply if it owns the file,
 * else the group's if the file's group is root's, else the others'. Whoever loads the
 * configuration (--check-config as root, with every capability) judges the files this way, so
 * that a file the daemon could not read fails the check, not the daemon. ACLs are not read. */
static bool daemon_may(const struct stat *st, mode_t want)
{
        mode_t bits;

        if (st->st_uid == 0)
                bits = st->st_mode >> 6;
        else if (st->st_gid == 0)
                bits = st->st_mode >> 3;
        else
                bits = st->st_mode;
        return (bits & want) == want;
}

static int refuse_unreadable(const char *path, const struct stat *st, char **ret_error)
{
        bool dir = S_ISDIR(st->st_mode);

        return conf_error(ret_error, -EACCES,
                          "%s: the daemon cannot %s (owner uid %u gid %u, mode %04o; umsrestored runs as root "
                          "without CAP_DAC_OVERRIDE): run 'chown root:root %s; chmod %s %s'",
                          path, dir ? "list this directory" : "read this file", (unsigned)st->st_uid,
                          (unsigned)st->st_gid, (unsigned)(st->st_mode & 07777), path, dir ? "0755" : "0644",
                          path);
}

static const char *file_type_name(mode_t mode)
{
        if (S_ISDIR(mode))
                return "a directory";
        if (S_ISFIFO(mode))
                return "a FIFO";
        if (S_ISSOCK(mode))
                return "a socket";
        if (S_ISCHR(mode))
                return "a character device";
        if (S_ISBLK(mode))
                return "a block device";
        return "not a file";
}

/* A configuration file must be a regular file the daemon may read, or /dev/null (empty: a
 * mask). Anything else is refused before it is opened: reading a FIFO would wait for a
 * writer forever, and a device is no configuration. */
static int check_file(const char *path, const struct stat *st, char **ret_error)
{
        if (stat_is_dev_null(st))
                return 0;
        if (!S_ISREG(st->st_mode))
                return conf_error(ret_error, S_ISDIR(st->st_mode) ? -EISDIR : -EBADFD,
                                  "%s: cannot read: not a regular file (%s)", path, file_type_name(st->st_mode));
        if (!daemon_may(st, 4))
                return refuse_unreadable(path, st, ret_error);
        return 0;
}

/* Opens path for reading: checked by stat() first, opened so that nothing can block or
 * become our terminal, and checked again on what was opened. Returns the fd, or 0 with
 * *ret_fd = -EBADF for a missing file when missing_ok. */
static int open_config_file(const char *path, bool missing_ok, int *ret_fd, char **ret_error)
{
        _cleanup_close_ int fd = -EBADF;
        struct stat st;
        int r;

        if (stat(path, &st) < 0) {
                r = negative_errno();
                if (r == -ENOENT && missing_ok) {
                        *ret_fd = -EBADF;
                        return 0;
                }
                return conf_error(ret_error, r, "%s: cannot read: %s", path, STRERROR(r));
        }
        r = check_file(path, &st, ret_error);
        if (r < 0)
                return r;
        fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
        if (fd < 0) {
                r = negative_errno();
                return conf_error(ret_error, r, "%s: cannot read: %s", path, STRERROR(r));
        }
        if (fstat(fd, &st) < 0) {
                r = negative_errno();
                return conf_error(ret_error, r, "%s: cannot read: %s", path, STRERROR(r));
        }
        r = check_file(path, &st, ret_error); /* it may have been replaced in between */
        if (r < 0)
                return r;
        *ret_fd = TAKE_FD(fd);
        return 0;
}

/* The whole text of fd (taken over), NUL-terminated: -EFBIG past CONFIG_FILE_MAX, -EBADMSG if
 * it contains a NUL byte. */
static int read_text(int fd, char **ret)
{
        _cleanup_fclose_ FILE *f = NULL;
        _cleanup_free_ char *data = NULL;
        size_t size = 0, allocated = 0, n;

        f = fdopen(fd, "re");
        if (!f) {
                safe_close(fd);
                return negative_errno();
        }
        for (;;) {
                if (allocated - size < 4096 + 1) {
                        char *grown;

                        if (allocated > CONFIG_FILE_MAX)
                                return -EFBIG;
                        grown = realloc(data, allocated + 16384);
                        if (!grown)
                                return -ENOMEM;
                        data = grown;
                        allocated += 16384;
                }
                n = fread(data + size, 1, allocated - size - 1, f);
                size += n;
                if (size > CONFIG_FILE_MAX)
                        return -EFBIG;
                if (n == 0) {
                        if (ferror(f))
                                return negative_errno();
                        break;
                }
        }
        if (memchr(data, '\0', size))
                return -EBADMSG;
        data[size] = '\0';
        *ret = TAKE_PTR(data);
        return 0;
}

int config_read_text(const char *path, bool missing_ok, char **ret_text, char **ret_error)
{
        _cleanup_close_ int fd = -EBADF;
        int r;

        *ret_text = NULL;
        r = open_config_file(path, missing_ok, &fd, ret_error);
        if (r < 0 || fd < 0)
                return r;
        r = read_text(TAKE_FD(fd), ret_text);
        if (r == -ENOMEM)
                return conf_error(ret_error, r, NULL);
        if (r == -EFBIG)
                return conf_error(ret_error, r, "%s: file is larger than %d bytes", path, CONFIG_FILE_MAX);
        if (r == -EBADMSG)
                return conf_error(ret_error, r, "%s: not a text file (it contains a NUL byte)", path);
        if (r < 0)
                return conf_error(ret_error, r, "%s: cannot read: %s", path, STRERROR(r));
        return 0;
}

static int load_file(const char *path, Config *c, bool missing_ok, char **ret_error)
{
        _cleanup_free_ char *text = NULL;
        int r;

        r = config_read_text(path, missing_ok, &text, ret_error);
        if (r < 0 || !text)
                return r;
        return config_parse_string(text, path, c, ret_error);
}

int config_load_file(const char *path, Config *c, char **ret_error)
{
        if (!path || !c)
                return conf_error(ret_error, -EINVAL, "invalid arguments");
        return load_file(path, c, false, ret_error);
}

static void dropin_list_done(DropInList *l)
{
        for (size_t i = 0; i < l->n; i++) {
                free(l->items[i].name);
                free(l->items[i].path);
        }
        free(l->items);
        *l = (DropInList){ 0 };
}

static int dropin_compare(const void *a, const void *b)
{
        const DropIn *x = a, *y = b;
        return strcmp(x->name, y->name);
}

static bool dropin_list_has(const DropInList *l, const char *name)
{
        for (size_t i = 0; i < l->n; i++)
                if (streq(l->items[i].name, name))
                        return true;
        return false;
}

static bool is_dropin_name(const char *name)
{
        size_t n = strlen(name);
        return name[0] != '.' && n > strlen(".conf") && streq(name + n - strlen(".conf"), ".conf");
}

static int dropin_list_add(DropInList *l, const char *dir, const char *name)
{
        _cleanup_free_ char *path = NULL, *copy = NULL;
        DropIn *grown;

        if (asprintf(&path, "%s/%s", dir, name) < 0)
                return -ENOMEM;
        copy = strdup(name);
        if (!copy)
                return -ENOMEM;
        grown = reallocarray(l->items, l->n + 1, sizeof(*grown));
        if (!grown)
                return -ENOMEM;
        l->items = grown;
        l->items[l->n++] = (DropIn){ .name = TAKE_PTR(copy), .path = TAKE_PTR(path) };
        return 0;
}

/* Opens a drop-in directory the daemon may list; 0 with *ret_dir NULL if there is none. */
static int open_dropin_dir(const char *dir, DIR **ret_dir, char **ret_error)
{
        _cleanup_close_ int fd = -EBADF;
        struct stat st;
        DIR *d;
        int r;

        fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
        if (fd < 0) {
                r = negative_errno();
                if (r == -ENOENT || r == -ENOTDIR) {
                        *ret_dir = NULL;
                        return 0;
                }
                if (r == -EACCES && stat(dir, &st) >= 0 && !daemon_may(&st, 4 | 1))
                        return refuse_unreadable(dir, &st, ret_error);
                return conf_error(ret_error, r, "%s: cannot read directory: %s", dir, STRERROR(r));
        }
        if (fstat(fd, &st) < 0) {
                r = negative_errno();
                return conf_error(ret_error, r, "%s: cannot read directory: %s", dir, STRERROR(r));
        }
        if (!daemon_may(&st, 4 | 1))
                return refuse_unreadable(dir, &st, ret_error);
        d = fdopendir(fd);
        if (!d) {
                r = negative_errno();
                return conf_error(ret_error, r, "%s: cannot read directory: %s", dir, STRERROR(r));
        }
        TAKE_FD(fd);
        *ret_dir = d;
        return 0;
}

/* Adds the drop-ins of dir that no directory of higher priority has already named. Every
 * *.conf entry counts but directories and dangling symlinks; its type is checked when it is
 * opened (a symlink to /dev/null reads as empty: it masks). */
static int dropin_list_add_dir(DropInList *l, const char *dir, char **ret_error)
{
        DIR *d = NULL;
        struct dirent *de;
        int r;

        r = open_dropin_dir(dir, &d, ret_error);
        if (r < 0 || !d)
                return r;
        for (;;) {
                struct stat st;

                errno = 0;
                de = readdir(d);
                if (!de) {
                        if (errno != 0) {
                                r = negative_errno();
                                r = conf_error(ret_error, r, "%s: cannot read directory: %s", dir, STRERROR(r));
                        }
                        break;
                }
                if (!is_dropin_name(de->d_name) || dropin_list_has(l, de->d_name))
                        continue; /* not a drop-in, or masked by a directory of higher priority */
                if (fstatat(dirfd(d), de->d_name, &st, 0) < 0) {
                        r = negative_errno();
                        if (r == -ENOENT) { /* dangling symlink */
                                r = 0;
                                continue;
                        }
                        r = conf_error(ret_error, r, "%s/%s: cannot read: %s", dir, de->d_name, STRERROR(r));
                        break;
                }
                if (S_ISDIR(st.st_mode))
                        continue;
                r = dropin_list_add(l, dir, de->d_name);
                if (r < 0) {
                        r = conf_error(ret_error, r, NULL);
                        break;
                }
        }
        closedir(d);
        return r;
}

static const char *root_prefix(const char *root)
{
        return !root || !root[0] || streq(root, "/") ? "" : root;
}

int config_load(const char *root, const char *explicit_path, Config **ret, char **ret_error)
{
        _cleanup_(config_freep) Config *c = NULL;
        _cleanup_(dropin_list_done) DropInList dropins = { 0 };
        _cleanup_free_ char *main_path = NULL;
        const char *prefix = root_prefix(root);
        int r;

        if (!ret)
                return conf_error(ret_error, -EINVAL, "invalid arguments");
        r = config_new(&c);
        if (r < 0)
                return conf_error(ret_error, r, NULL);

        if (explicit_path) {
                r = load_file(explicit_path, c, false, ret_error);
                if (r < 0)
                        return r;
                *ret = TAKE_PTR(c);
                return 0;
        }

        if (asprintf(&main_path, "%s%s/%s", prefix, UMSRESTORE_SYSCONFDIR, CONFIG_MAIN_FILE) < 0)
                return conf_error(ret_error, -ENOMEM, NULL);
        r = load_file(main_path, c, true, ret_error);
        if (r < 0)
                return r;

        for (size_t i = 0; i < ELEMENTSOF(dropin_dirs); i++) {
                _cleanup_free_ char *dir = NULL;

                if (asprintf(&dir, "%s%s/%s", prefix, dropin_dirs[i], CONFIG_DROPIN_DIR) < 0)
                        return conf_error(ret_error, -ENOMEM, NULL);
                r = dropin_list_add_dir(&dropins, dir, ret_error);
                if (r < 0)
                        return r;
        }
        if (dropins.n > 0)
                qsort(dropins.items, dropins.n, sizeof(dropins.items[0]), dropin_compare);
        for (size_t i = 0; i < dropins.n; i++) {
                r = load_file(dropins.items[i].path, c, false, ret_error);
                if (r < 0)
                        return r;
        }
        *ret = TAKE_PTR(c);
        return 0;
}
