#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Compares two P6 PPM screendumps pixel for pixel (python standard library only).

  ppmcmp.py A.ppm B.ppm [--png OUT.png]

Prints how many pixels differ and where; exit 0 when identical, 1 when not, 2 on error.
With --png, writes A | B side by side as a PNG to look at.
"""
import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import vmlib as V  # noqa: E402


def main(argv):
    if len(argv) not in (3, 5) or (len(argv) == 5 and argv[3] != '--png'):
        print(__doc__.strip(), file=sys.stderr)
        return 2
    try:
        a, b = V.read_ppm(argv[1]), V.read_ppm(argv[2])
    except (OSError, V.VmError, ValueError) as e:
        print(f'ppmcmp: {e}', file=sys.stderr)
        return 2
    d = V.compare(a, b)
    print(f'{argv[1]} ({a.width}x{a.height}) vs {argv[2]} ({b.width}x{b.height}): {d}')
    if len(argv) == 5:
        V.write_png(argv[4], V.side_by_side([a, b]))
    return 0 if d.pixels == 0 else 1


if __name__ == '__main__':
    sys.exit(main(sys.argv))
