"""Who this replica is and where the others listen, from TF_CONFIG.

AI Platform (and hptune) start every replica of a trial with TF_CONFIG
(Vertex AI, and hptune for a Vertex job, only the replicas of a job of
more than one):

    {"cluster": {"master": ["host:port"], "worker": [...], "ps": [...]},
     "task": {"type": "worker", "index": 0, "trial": "3"}, ...}

"chief" is accepted as another name for "master". Evaluators are not in the
cluster: they have no address of their own. Without TF_CONFIG the program runs
alone as a master on an ephemeral local port, which is handy for a first try.
"""

import json
import os

MASTER = "master"
WORKER = "worker"
PARAMETER_SERVER = "ps"
EVALUATOR = "evaluator"

_ALIASES = {"chief": MASTER}
_KNOWN_TYPES = (MASTER, WORKER, PARAMETER_SERVER, EVALUATOR)
_LOCAL_CLUSTER = {MASTER: ["127.0.0.1:0"]}


class Replica:
    """One replica's view of its trial's cluster."""

    def __init__(self, task_type, index, cluster, trial="0"):
        self.task_type = task_type
        self.index = index
        self.cluster = cluster
        self.trial = trial

    @property
    def name(self):
        return "%s %d" % (self.task_type, self.index)

    @property
    def address(self):
        """This replica's own host:port (evaluators have none)."""
        return self.cluster[self.task_type][self.index]

    @property
    def trainer_count(self):
        """The master and every worker compute gradients."""
        return (len(self.cluster.get(MASTER, [])) +
                len(self.cluster.get(WORKER, [])))

    @property
    def rank(self):
        """The trainer's rank: master 0, worker i is i + 1 (as RANK is set)."""
        if self.task_type == MASTER:
            return 0
        if self.task_type == WORKER:
            return self.index + 1
        raise ValueError("%s is not a trainer" % self.name)

    @property
    def parameter_servers(self):
        return list(self.cluster.get(PARAMETER_SERVER, []))

    @property
    def parameter_host(self):
        """Where the model lives: ps 0, or the master when there is no ps."""
        servers = self.parameter_servers
        return servers[0] if servers else self.cluster[MASTER][0]


def from_environment(environ=None):
    """Reads TF_CONFIG; raises ValueError naming what is wrong with it."""
    environ = os.environ if environ is None else environ
    text = environ.get("TF_CONFIG", "")
    if not text:
        return Replica(MASTER, 0, dict(_LOCAL_CLUSTER))
    try:
        config = json.loads(text)
    except ValueError as e:
        raise ValueError("TF_CONFIG is not JSON (%s): %r" % (e, text[:200]))
    task = config.get("task") or {}
    task_type = _ALIASES.get(task.get("type"), task.get("type"))
    if task_type not in _KNOWN_TYPES:
        raise ValueError(
            "TF_CONFIG task.type: expected one of %s or chief, got %r" %
            ("/".join(_KNOWN_TYPES), task.get("type")))
    cluster = {}
    for key, addresses in (config.get("cluster") or {}).items():
        cluster[_ALIASES.get(key, key)] = list(addresses)
    if len(cluster.get(MASTER, [])) != 1:
        raise ValueError(
            "TF_CONFIG cluster: expected one master (or chief), got %r" %
            cluster.get(MASTER))
    index = int(task.get("index", 0))
    if (task_type != EVALUATOR and
            not 0 <= index < len(cluster.get(task_type, []))):
        raise ValueError("TF_CONFIG task.index: %s %d is not in cluster %r" %
                         (task_type, index, cluster))
    return Replica(task_type, index, cluster, str(task.get("trial", "0")))


def split_address(address):
    """'host:port' (or '[v6]:port') -> (host, port)."""
    host, _, port = address.rpartition(":")
    if not host or not port.isdigit():
        raise ValueError("address %r is not host:port" % address)
    return host.strip("[]"), int(port)
