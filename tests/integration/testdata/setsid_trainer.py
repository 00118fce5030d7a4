#!/usr/bin/env python3
"""A trainer for serve_zombie_test.cc whose children outlive it in sessions
of their own.

Starts --children processes (`sh -c "read x"`), half with
start_new_session=True and half through setsid(1), each reading a pipe
whose write end only the trainer holds: they all end as soon as the
trainer does, after it, as orphans of whichever process is their
subreaper. Once all run it writes their pids to --started (atomically),
reports accuracy=0.5 on stdout, and exits; with --hang=1 it waits to be
stopped instead. Standard library only; other --name=value arguments are
ignored.
"""

import os
import signal
import subprocess
import sys


def main(argv):
    args = dict(a[2:].split("=", 1) for a in argv if a.startswith("--") and "=" in a)
    children = int(args.get("children", "50"))
    read_end, write_end = os.pipe()
    pids = []
    for i in range(children):
        argv = ["sh", "-c", "read x"]
        if i % 2:
            child = subprocess.Popen(["setsid"] + argv, stdin=read_end)
        else:
            child = subprocess.Popen(argv, stdin=read_end, start_new_session=True)
        pids.append(child.pid)
    os.close(read_end)
    temporary = args["started"] + ".tmp"
    with open(temporary, "w") as f:
        f.write("\n".join(str(pid) for pid in pids) + "\n")
    os.rename(temporary, args["started"])
    print("accuracy=0.5 step=1", flush=True)
    if args.get("hang") == "1":
        signal.signal(signal.SIGTERM, lambda signum, frame: os._exit(143))
        while True:
            signal.pause()
    # The write end closes with this process: the children end after it.
    os._exit(0)


if __name__ == "__main__":
    main(sys.argv[1:])
