"""Child process for the process-lifetime tests.

usage: bots_then_exit.py RUN_DIR MODE
  MODE=close  start a server and two bots, print the Node pids, close everything, exit normally
  MODE=exit   same, but exit without closing anything (interpreter exit must clean up)
  MODE=hang   same, print pids, then sleep until killed
"""

import json
import sys
import time

from mindpy.bridge import create_bot, runtime, shutdown
from mindpy.server import EmbeddedServer

run_dir, mode = sys.argv[1], sys.argv[2]
server = EmbeddedServer(run_dir=run_dir).start()
bots = [create_bot(name, server.host, server.port) for name in ("procA", "procB")]
print(json.dumps({"server_pid": server.process.pid, "bridge_pid": runtime().pid, "port": server.port}), flush=True)
if mode == "close":
    for bot in bots:
        bot.close()
    shutdown()
    server.stop()
elif mode == "hang":
    time.sleep(600)
