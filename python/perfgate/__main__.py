"""`perfgate ...` and `python -m perfgate ...`: the CLI carried in the wheel, run in this process's place."""

import os
import sys

from perfgate._binary import binary


def main() -> None:
    """Runs the perfgate binary with this command line; its exit code is the command's."""
    path = binary()
    os.execv(path, [path, *sys.argv[1:]])


if __name__ == "__main__":
    main()
