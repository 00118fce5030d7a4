"""A trainer that says whom it runs as and whether it can leave its cgroup.

Prints one JSON line: its uid, gid, groups, working directory, the
identity variables it was given (HOME, USER, LOGNAME, and any XDG_*), and
"escaped": whether writing its pid into the root cgroup's cgroup.procs
worked (it must not, for a job of another user). Reports loss = --x.
Used by tests/integration/multi_user_test.cc.
"""
import json
import os
import sys
import time

x = float(next(a for a in sys.argv if a.startswith("--x="))[4:])
me = {"uid": os.getuid(), "gid": os.getgid(), "groups": sorted(os.getgroups()),
      "cwd": os.getcwd(),
      "env": {k: v for k, v in os.environ.items()
              if k in ("HOME", "USER", "LOGNAME") or k.startswith("XDG_")}}
try:
    with open("/sys/fs/cgroup/cgroup.procs", "w") as procs:
        procs.write(str(os.getpid()))
    me["escaped"] = True
except OSError:
    me["escaped"] = False
print(json.dumps(me), flush=True)
with open(os.environ["CLOUD_ML_HP_METRIC_FILE"], "w") as metrics:
    metrics.write(json.dumps({"loss": x, "global_step": "1",
                              "timestamp": time.time()}) + "\n")
