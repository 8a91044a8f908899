/* SPDX-License-Identifier: MIT */
/* umsrestore-simctl: drives a simulated VGA image file from test scripts (init a mode,
 * wake it like S3, compare two images, check the display is live). Test use only. */
#include "hw-sim-file.h"

static int usage(void)
{
        fprintf(stderr, "usage: simctl init FILE mode3|mode12|dispi [SEED]\n"
                        "       simctl wake|wake-full FILE\n"
                        "       simctl diff FILE1 FILE2     (exit 1 if they differ)\n"
                        "       simctl live FILE            (exit 1 if the display is off)\n"
                        "       simctl vt FILE              (prints the active VT)\n"
                        "       simctl vt-graphics FILE 0|1 (a graphical session owns the active VT)\n");
        return 2;
}

static HwSim *load(const char *path)
{
        HwSim *sim = NULL;
        int r = hw_sim_file_load(path, NULL, &sim);
        if (r < 0) {
                fprintf(stderr, "simctl: cannot load '%s': %s\n", path, strerror(-r));
                exit(2);
        }
        return sim;
}

static int store(HwSim *sim, const char *path)
{
        int r = hw_sim_file_store(sim, path);
        hw_sim_unref(sim);
        if (r < 0) {
                fprintf(stderr, "simctl: cannot store '%s': %s\n", path, strerror(-r));
                return 2;
        }
        return 0;
}

int main(int argc, char *argv[])
{
        if (argc < 3)
                return usage();
        const char *cmd = argv[1], *path = argv[2];

        if (streq(cmd, "init") && (argc == 4 || argc == 5)) {
                HwSim *sim = NULL;
                uint32_t seed = argc == 5 ? (uint32_t)strtoul(argv[4], NULL, 0) : 1;
                if (hw_sim_new(NULL, &sim, NULL) < 0)
                        return 2;
                hw_sim_fill_planes(sim, seed);
                if (streq(argv[3], "mode3"))
                        hw_sim_load_mode3(sim);
                else if (streq(argv[3], "mode12"))
                        hw_sim_load_mode12(sim);
                else if (streq(argv[3], "dispi")) { /* vesafb at vga=0x314: 800x600x16 */
                        hw_sim_load_mode12(sim);
                        if (hw_sim_set_dispi_mode(sim, 800, 600, 16) < 0)
                                return 2;
                } else
                        return usage();
                return store(sim, path);
        }
        if ((streq(cmd, "wake") || streq(cmd, "wake-full")) && argc == 3) {
                HwSim *sim = load(path);
                if (streq(cmd, "wake"))
                        hw_sim_wake(sim);
                else
                        hw_sim_wake_full(sim);
                return store(sim, path);
        }
        if (streq(cmd, "live") && argc == 3) {
                HwSim *sim = load(path);
                bool live = hw_sim_display_live(sim);
                hw_sim_unref(sim);
                printf("%s\n", live ? "live" : "off");
                return live ? 0 : 1;
        }
        if (streq(cmd, "vt") && argc == 3) {
                HwSim *sim = load(path);
                printf("%u\n", hw_sim_vt_active(sim));
                hw_sim_unref(sim);
                return 0;
        }
        if (streq(cmd, "vt-graphics") && argc == 4 && (streq(argv[3], "0") || streq(argv[3], "1"))) {
                HwSim *sim = load(path);
                hw_sim_system_state(sim)->vt_graphics = streq(argv[3], "1");
                return store(sim, path);
        }
        if (streq(cmd, "diff") && argc == 4) {
                HwSim *a = load(path), *b = load(argv[3]);
                HwSimVgaState *sa = NULL, *sb = NULL;
                Buffer report = { 0 };
                size_t n;

                if (hw_sim_snapshot(a, &sa) < 0 || hw_sim_snapshot(b, &sb) < 0)
                        return 2;
                n = hw_sim_state_diff(sa, sb, 0, &report);
                n += (size_t)(memcmp(hw_sim_cfg(a), hw_sim_cfg(b), HW_SIM_CFG_SIZE) != 0);
                if (n > 0)
                        printf("%zu difference%s\n%s", n, n == 1 ? "" : "s", buffer_str(&report));
                buffer_done(&report);
                free(sa);
                free(sb);
                hw_sim_unref(a);
                hw_sim_unref(b);
                return n > 0 ? 1 : 0;
        }
        return usage();
}
