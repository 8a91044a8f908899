/* SPDX-License-Identifier: MIT */
/* Owns the simulator image format: magic, the HwSimVgaState struct and the 256-byte
 * config space, then an optional trailer with the machine around the device (VTs,
 * backlights); host byte order (the image never leaves the machine that made it). */
#include <fcntl.h>

#include "hw-sim-file.h"

#define SIM_MAGIC "UMSSIM01"
/* The trailer came later: readers that predate it read the fixed part and ignore the rest,
 * and an image without it loads with the simulator's default VTs and no backlights. */
#define SIM_SYSTEM_MAGIC "UMSSYS01"

typedef struct SimImage {
        char magic[8];
        uint32_t state_size;
        HwSimVgaState state;
        uint8_t cfg[HW_SIM_CFG_SIZE];
} SimImage;

typedef struct SimSystemTrailer {
        char magic[8];
        uint32_t system_size;
        uint32_t reserved; /* 0; keeps the state 8-byte aligned without hidden padding */
        HwSimSystemState system;
} SimSystemTrailer;

/* Reads the optional trailer after the fixed part: 0 if there is none. */
static int sim_file_load_trailer(int fd, HwSim *sim)
{
        SimSystemTrailer t;
        ssize_t n;

        n = read(fd, &t, sizeof(t));
        if (n < 0)
                return negative_errno();
        if (n == 0)
                return 0;
        if ((size_t)n != sizeof(t) || memcmp(t.magic, SIM_SYSTEM_MAGIC, 8) != 0 ||
            t.system_size != sizeof(HwSimSystemState))
                return -EBADMSG;
        if (t.system.vt_active < 1 || t.system.vt_active > HW_VT_MAX)
                return -EBADMSG;
        for (size_t i = 0; i < HW_SIM_BACKLIGHT_MAX; i++)
                if (!memchr(t.system.backlights[i].name, '\0', HW_SIM_BACKLIGHT_NAME_SIZE))
                        return -EBADMSG;
        *hw_sim_system_state(sim) = t.system;
        return 0;
}

int hw_sim_file_load(const char *path, const DisplayDevice *d, HwSim **ret)
{
        _cleanup_(hw_sim_unrefp) HwSim *sim = NULL;
        _cleanup_free_ SimImage *img = NULL;
        _cleanup_close_ int fd = -EBADF;
        ssize_t n;
        int r;

        r = hw_sim_new(d, &sim, NULL);
        if (r < 0)
                return r;
        fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
        if (fd < 0) {
                if (errno != ENOENT)
                        return negative_errno();
                *ret = TAKE_PTR(sim);
                return 0;
        }
        img = malloc(sizeof(*img));
        if (!img)
                return -ENOMEM;
        n = read(fd, img, sizeof(*img));
        if (n < 0)
                return negative_errno();
        if ((size_t)n != sizeof(*img) || memcmp(img->magic, SIM_MAGIC, 8) != 0 ||
            img->state_size != sizeof(HwSimVgaState))
                return -EBADMSG;
        *hw_sim_state(sim) = img->state;
        memcpy(hw_sim_cfg(sim), img->cfg, HW_SIM_CFG_SIZE);
        r = sim_file_load_trailer(fd, sim);
        if (r < 0)
                return r;
        *ret = TAKE_PTR(sim);
        return 0;
}

int hw_sim_file_store(HwSim *sim, const char *path)
{
        _cleanup_free_ SimImage *img = NULL;
        _cleanup_free_ char *tmp = NULL;
        _cleanup_close_ int fd = -EBADF;
        SimSystemTrailer t;
        int r = 0;

        img = calloc(1, sizeof(*img));
        if (!img)
                return -ENOMEM;
        memcpy(img->magic, SIM_MAGIC, 8);
        img->state_size = sizeof(HwSimVgaState);
        img->state = *hw_sim_state(sim);
        memcpy(img->cfg, hw_sim_cfg(sim), HW_SIM_CFG_SIZE);
        memset(&t, 0, sizeof(t));
        memcpy(t.magic, SIM_SYSTEM_MAGIC, 8);
        t.system_size = sizeof(HwSimSystemState);
        t.system = *hw_sim_system_state(sim);

        if (asprintf(&tmp, "%s.tmp", path) < 0)
                return -ENOMEM;
        fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
        if (fd < 0)
                return negative_errno();
        if (write(fd, img, sizeof(*img)) != (ssize_t)sizeof(*img) ||
            write(fd, &t, sizeof(t)) != (ssize_t)sizeof(t))
                r = errno > 0 ? -errno : -EIO;
        if (r == 0 && rename(tmp, path) < 0)
                r = negative_errno();
        if (r < 0)
                (void)unlink(tmp);
        return r;
}
