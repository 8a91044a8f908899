/* SPDX-License-Identifier: MIT */
/* umsrestored: --help, argv parsing into arg_ globals, and dispatching to one action. main()
 * is elsewhere (main.c, and tests/sim/ for the simulator build) and picks the backend. */
#include <getopt.h>

#include "actions.h"
#include "exit-codes.h"
#include "log.h"
#include "umsrestored.h"
#include "version.h"

typedef enum Action {
        ACTION_DAEMON,
        ACTION_SAVE_NOW,
        ACTION_RESTORE_NOW,
        ACTION_TEST_RESTORE,
        ACTION_STATUS,
        ACTION_REPORT,
        ACTION_DUMP,
        ACTION_CHECK_CONFIG,
        ACTION_QUIRKS,
        ACTION_HELP,
        ACTION_VERSION,
} Action;

static Action arg_action = ACTION_DAEMON;
static const char *arg_action_name = NULL;
static const char *arg_device = NULL;
static const char *arg_dump_file = NULL;
static const char *arg_config = NULL;
static const char *arg_root = NULL;
static const char *arg_quirks_dir = NULL;
static bool arg_json = false;
static bool arg_no_console_switch = false;
static bool arg_log_level_set = false;
static bool arg_force = false;
static uint64_t arg_deadline_usec = 0;

static void help(void)
{
        printf("Usage: %s [OPTIONS...] [ACTION]\n"
               "\n"
               "Saves and restores the display state of GPUs that no kernel mode-setting\n"
               "driver restores after suspend. With no action, runs as the daemon\n"
               "(umsrestored.service) and follows logind's PrepareForSleep signal.\n"
               "\n"
               "Actions:\n"
               "  -s --save-now          Save the state of every managed device now\n"
               "  -r --restore-now       Restore every managed device from its saved state\n"
               "                         (use this over ssh after a resume left a black screen)\n"
               "     --test-restore      Without sleeping: save, blank the display as a wake\n"
               "                         from suspend does, restore, verify; print per method\n"
               "                         whether it brings the screen back\n"
               "     --status            Show display devices, verdicts and last results\n"
               "     --report            One paste-able report for a bug or a quirk entry\n"
               "     --dump FILE         Print a saved state file for a person\n"
               "     --check-config      Validate the configuration and the quirk files, print it\n"
               "     --quirks            Show which quirk sections match this machine, why, and\n"
               "                         the resulting plan per device\n"
               "  -h --help              Show this help and exit\n"
               "     --version           Show the version and exit\n"
               "\n"
               "Options:\n"
               "  -d --device SLOT       Only act on this PCI device (e.g. 0000:00:02.0)\n"
               "     --json              Machine-readable output for --status, --report,\n"
               "                         --quirks and --dump\n"
               "     --force             --test-restore also where a graphical session owns\n"
               "                         the active VT\n"
               "     --deadline SEC      --test-restore's hard deadline (default 5); then the\n"
               "                         saved state is written back\n"
               "  -c --config FILE       Read this configuration file instead of the default\n"
               "                         search path\n"
               "     --quirks-dir DIR    Read the shipped quirk files from DIR (default:\n"
               "                         " UMSRESTORE_QUIRKSDIR ")\n"
               "     --no-console-switch Do not move to a spare VT around sleep (console method)\n"
               "     --log-level LEVEL   debug, info, notice, warning, err (default: info)\n"
               "     --root DIR          Read /sys and /proc below DIR and keep state in\n"
               "                         DIR/run/umsrestore (inspection and tests)\n"
               "\n"
               "Exit status: 0 success, 1 failure, 2 usage error, 3 nothing to manage,\n"
               "4 no saved state, 5 state file refused, 6 busy (for --test-restore also: a\n"
               "graphical session owns the VT), 7 not permitted,\n"
               "8 configuration error, 9 verification failed, 10 partly failed (some\n"
               "devices done, others failed), 11 stopped at its deadline. See umsrestored(8).\n",
               program_invocation_short_name);
}

static int set_action(Action a, const char *name)
{
        if (arg_action_name && arg_action != a) {
                log_error("%s cannot be combined with %s. See --help.", name, arg_action_name);
                return -EINVAL;
        }
        arg_action = a;
        arg_action_name = name;
        return 0;
}

static int parse_argv(int argc, char *argv[])
{
        enum {
                ARG_VERSION = 0x100,
                ARG_STATUS,
                ARG_DUMP,
                ARG_CHECK_CONFIG,
                ARG_JSON,
                ARG_LOG_LEVEL,
                ARG_ROOT,
                ARG_NO_CONSOLE_SWITCH,
                ARG_TEST_RESTORE,
                ARG_REPORT,
                ARG_FORCE,
                ARG_DEADLINE,
                ARG_QUIRKS,
                ARG_QUIRKS_DIR,
        };
        static const struct option options[] = {
                { "help", no_argument, NULL, 'h' },
                { "version", no_argument, NULL, ARG_VERSION },
                { "save-now", no_argument, NULL, 's' },
                { "restore-now", no_argument, NULL, 'r' },
                { "status", no_argument, NULL, ARG_STATUS },
                { "dump", required_argument, NULL, ARG_DUMP },
                { "check-config", no_argument, NULL, ARG_CHECK_CONFIG },
                { "quirks", no_argument, NULL, ARG_QUIRKS },
                { "quirks-dir", required_argument, NULL, ARG_QUIRKS_DIR },
                { "device", required_argument, NULL, 'd' },
                { "json", no_argument, NULL, ARG_JSON },
                { "config", required_argument, NULL, 'c' },
                { "log-level", required_argument, NULL, ARG_LOG_LEVEL },
                { "root", required_argument, NULL, ARG_ROOT },
                { "no-console-switch", no_argument, NULL, ARG_NO_CONSOLE_SWITCH },
                { "test-restore", no_argument, NULL, ARG_TEST_RESTORE },
                { "report", no_argument, NULL, ARG_REPORT },
                { "force", no_argument, NULL, ARG_FORCE },
                { "deadline", required_argument, NULL, ARG_DEADLINE },
                { NULL, 0, NULL, 0 }
        };
        int c, r;

        opterr = 0;
        while ((c = getopt_long(argc, argv, ":hsrd:c:", options, NULL)) >= 0) {
                switch (c) {
                case 'h':
                        r = set_action(ACTION_HELP, "--help");
                        break;
                case ARG_VERSION:
                        r = set_action(ACTION_VERSION, "--version");
                        break;
                case 's':
                        r = set_action(ACTION_SAVE_NOW, "--save-now");
                        break;
                case 'r':
                        r = set_action(ACTION_RESTORE_NOW, "--restore-now");
                        break;
                case ARG_STATUS:
                        r = set_action(ACTION_STATUS, "--status");
                        break;
                case ARG_TEST_RESTORE:
                        r = set_action(ACTION_TEST_RESTORE, "--test-restore");
                        break;
                case ARG_REPORT:
                        r = set_action(ACTION_REPORT, "--report");
                        break;
                case ARG_FORCE:
                        arg_force = true;
                        r = 0;
                        break;
                case ARG_DEADLINE: {
                        char *end;
                        double sec;

                        errno = 0;
                        sec = strtod(optarg, &end);
                        if (errno || end == optarg || *end || !(sec > 0) || sec > 600)
                                return log_error_errno(-EINVAL, "--deadline takes seconds, more than 0 and at most "
                                                                "600, not '%s'.", optarg);
                        arg_deadline_usec = (uint64_t)(sec * 1e6);
                        r = 0;
                        break;
                }
                case ARG_DUMP:
                        r = set_action(ACTION_DUMP, "--dump");
                        arg_dump_file = optarg;
                        break;
                case ARG_CHECK_CONFIG:
                        r = set_action(ACTION_CHECK_CONFIG, "--check-config");
                        break;
                case ARG_QUIRKS:
                        r = set_action(ACTION_QUIRKS, "--quirks");
                        break;
                case ARG_QUIRKS_DIR:
                        arg_quirks_dir = optarg;
                        r = 0;
                        break;
                case 'd':
                        arg_device = optarg;
                        r = 0;
                        break;
                case ARG_JSON:
                        arg_json = true;
                        r = 0;
                        break;
                case 'c':
                        arg_config = optarg;
                        r = 0;
                        break;
                case ARG_LOG_LEVEL:
                        r = log_level_from_string(optarg);
                        if (r < 0)
                                return log_error_errno(r, "Unknown log level '%s'. Use debug, info, notice, "
                                                          "warning or err.", optarg);
                        log_set_max_level(r);
                        arg_log_level_set = true;
                        r = 0;
                        break;
                case ARG_ROOT:
                        arg_root = optarg;
                        r = 0;
                        break;
                case ARG_NO_CONSOLE_SWITCH:
                        arg_no_console_switch = true;
                        r = 0;
                        break;
                case ':':
                        return log_error_errno(-EINVAL, "Option '%s' needs an argument. See --help.",
                                               argv[optind - 1]);
                case '?':
                default:
                        return log_error_errno(-EINVAL, "Unknown option '%s'. See --help.", argv[optind - 1]);
                }
                if (r < 0)
                        return r;
        }

        if (optind < argc)
                return log_error_errno(-EINVAL, "Unexpected argument '%s'. See --help.", argv[optind]);

        if (arg_json && arg_action != ACTION_STATUS && arg_action != ACTION_DUMP && arg_action != ACTION_REPORT &&
            arg_action != ACTION_QUIRKS)
                return log_error_errno(-EINVAL, "--json only applies to --status, --report, --quirks and --dump.");

        if ((arg_force || arg_deadline_usec) && arg_action != ACTION_TEST_RESTORE)
                return log_error_errno(-EINVAL, "%s only applies to --test-restore.",
                                       arg_force ? "--force" : "--deadline");

        if (arg_config && arg_action == ACTION_DUMP)
                return log_error_errno(-EINVAL, "--config does not apply to --dump.");

        if (arg_device && arg_action != ACTION_SAVE_NOW && arg_action != ACTION_RESTORE_NOW &&
            arg_action != ACTION_STATUS && arg_action != ACTION_TEST_RESTORE && arg_action != ACTION_REPORT)
                return log_error_errno(-EINVAL, "--device only applies to --save-now, --restore-now, --test-restore, "
                                                "--status and --report.");

        return 0;
}

int umsrestored_main(int argc, char *argv[], const HwBackend *backend)
{
        ActionArgs a;
        int r;

        r = parse_argv(argc, argv);
        if (r < 0)
                return UMS_EXIT_USAGE;

        a = (ActionArgs){
                .device = arg_device,
                .dump_file = arg_dump_file,
                .config_file = arg_config,
                .root = arg_root,
                .quirks_dir = arg_quirks_dir,
                .json = arg_json,
                .no_console_switch = arg_no_console_switch,
                .log_level_set = arg_log_level_set,
                .force = arg_force,
                .deadline_usec = arg_deadline_usec,
                .hw = backend,
        };

        switch (arg_action) {
        case ACTION_HELP:
                help();
                return UMS_EXIT_OK;
        case ACTION_VERSION:
                printf("umsrestored %s\n", UMSRESTORE_VERSION);
                return UMS_EXIT_OK;
        case ACTION_SAVE_NOW:
                return action_save_now(&a);
        case ACTION_RESTORE_NOW:
                return action_restore_now(&a);
        case ACTION_TEST_RESTORE:
                return action_test_restore(&a);
        case ACTION_STATUS:
                return action_status(&a);
        case ACTION_REPORT:
                return action_report(&a);
        case ACTION_DUMP:
                return action_dump(&a);
        case ACTION_CHECK_CONFIG:
                return action_check_config(&a);
        case ACTION_QUIRKS:
                return action_quirks(&a);
        case ACTION_DAEMON:
        default:
                return action_daemon(&a);
        }
}
