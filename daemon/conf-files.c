/* SPDX-License-Identifier: MIT */
/* Owns which configuration files are read and how: the main file, the drop-ins by priority
 * and masking, and reading each one. */
#include <dirent.h>
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

/* The whole text of path, NUL-terminated: -EFBIG past CONFIG_FILE_MAX, -EBADMSG if it
 * contains a NUL byte. */
static int read_text(const char *path, char **ret)
{
        _cleanup_fclose_ FILE *f = NULL;
        _cleanup_free_ char *data = NULL;
        size_t size = 0, allocated = 0, n;

        f = fopen(path, "re");
        if (!f)
                return negative_errno();
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

static int load_file(const char *path, Config *c, bool missing_ok, char **ret_error)
{
        _cleanup_free_ char *text = NULL;
        int r;

        r = read_text(path, &text);
        if (r == -ENOENT && missing_ok)
                return 0;
        if (r == -ENOMEM)
                return conf_error(ret_error, r, NULL);
        if (r == -EFBIG)
                return conf_error(ret_error, r, "%s: file is larger than %d bytes", path, CONFIG_FILE_MAX);
        if (r == -EBADMSG)
                return conf_error(ret_error, r, "%s: not a text file (it contains a NUL byte)", path);
        if (r < 0)
                return conf_error(ret_error, r, "%s: cannot read: %s", path, STRERROR(r));
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

/* Opens a drop-in directory; 0 with *ret_dir NULL if there is none. */
static int open_dropin_dir(const char *dir, DIR **ret_dir, char **ret_error)
{
        DIR *d;
        int r;

        d = opendir(dir);
        if (!d) {
                r = negative_errno();
                if (r == -ENOENT || r == -ENOTDIR) {
                        *ret_dir = NULL;
                        return 0;
                }
                return conf_error(ret_error, r, "%s: cannot read directory: %s", dir, STRERROR(r));
        }
        *ret_dir = d;
        return 0;
}

/* Adds the drop-ins of dir that no directory of higher priority has already named: regular
 * *.conf files, and symlinks to /dev/null (read as empty: they mask). */
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
                if (!S_ISREG(st.st_mode) && !stat_is_dev_null(&st))
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
