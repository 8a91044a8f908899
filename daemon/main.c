/* SPDX-License-Identifier: MIT */
/* The installed umsrestored: the command line on the real hardware backend (libpciaccess)
 * and nothing else; test code never links into it. */
#include "umsrestored.h"

int main(int argc, char *argv[])
{
        return umsrestored_main(argc, argv, &hw_backend_pciaccess);
}
