/* SPDX-License-Identifier: MIT */
/* bench/run's lower bound for any whole-process figure of a dynamically linked program: an
 * executable that links only the C library and does nothing. */
int main(void)
{
        return 0;
}
