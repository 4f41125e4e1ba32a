"""Entry point of a worker process of a multi-process run (started by mindpy.agent.processes.ProcessRunner):

    python -m mindpy.agent.worker HUB_HOST HUB_PORT NUMBER      (the hub's key in MINDPY_HUB_KEY, hex)
"""

from __future__ import annotations

import os
import sys


def main(argv: list[str]) -> int:
    """Run worker NUMBER of the run whose hub listens at HUB_HOST:HUB_PORT."""
    from .processes import KEY_VARIABLE, run_worker

    host, port, number = argv
    key = bytes.fromhex(os.environ.pop(KEY_VARIABLE, ""))
    return run_worker(host, int(port), int(number), key)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
