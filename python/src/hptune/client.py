"""Client: the entry point to an ``hptune serve`` from Python.

    import hptune
    client = hptune.Client()             # $HPTUNE_SERVER, else 127.0.0.1:7460
    study = client.study("svc", "config.yaml")   # create, or load if it exists
    job = client.submit_job("svc_job_1", "config.yaml")

Connection options are connection.py's (the CLI's, with the same environment
variables). Every method raises an hptune.HptuneError subclass when the
server refuses the call (errors.py).

Thread-safe: one Client may be shared by threads. Not across fork(): a new
process makes its own Client.
"""

from typing import Iterable, List, Mapping, Optional, Sequence

from hptune import config as config_module
from hptune import errors
from hptune.connection import DEFAULT_TIMEOUT_SECONDS, Connection
from hptune.define_by_run import PendingStudy
from hptune.jobs import JOB_STATES, Job
from hptune.peer_check import PeerRefused
from hptune.study import Study
from hptune.v1 import job_pb2, job_service_pb2, study_service_pb2

# Client.local's budgets for a config that sets none: the calls decide.
OPEN_ENDED_MAX_TRIALS = 1000000
OPEN_ENDED_PARALLEL_TRIALS = 1000


def _block(config: config_module.ConfigSource) -> dict:
    """A config's hyperparameters block, for a define-by-run study."""
    block, where = config_module.hyperparameters_block(config)
    if not isinstance(block, dict):
        raise errors.InvalidArgument(f"{where}: not a mapping")
    return block


class Client:
    """A connection to one hptune server, for studies and jobs.

    Args:
      server: ``HOST:PORT`` or a gRPC target; default ``$HPTUNE_SERVER``,
        else ``127.0.0.1:7460``.
      token: the server's token; default: token_file, else
        ``$HPTUNE_TOKEN``, else the user's default token file.
      token_file: a file holding the token.
      tls_ca: PEM root certificates for a server started with
        ``--tls-cert``; default ``$HPTUNE_TLS_CA``; none: plaintext.
      timeout: deadline of each call in seconds (streams have none).
      server_user: a user (name or uid) whose server may have the token,
        besides root and this user; default ``$HPTUNE_SERVER_USER``. A
        server of any other user is refused (FailedPrecondition) before
        anything is sent to it.
    """

    def __init__(self, server: Optional[str] = None, *,
                 token: Optional[str] = None,
                 token_file: Optional[str] = None,
                 tls_ca: Optional[str] = None,
                 timeout: float = DEFAULT_TIMEOUT_SECONDS,
                 server_user: Optional[str] = None) -> None:
        try:
            self._connection = Connection(server, token=token,
                                          token_file=token_file,
                                          tls_ca=tls_ca, timeout=timeout,
                                          server_user=server_user)
        except PeerRefused as e:
            raise errors.FailedPrecondition(str(e)) from None
        except ValueError as e:
            raise errors.InvalidArgument(str(e)) from None
        self._engine = None
        self._open_ended = False  # Client.local: Optuna's budgets (below)

    @classmethod
    def local(cls, db: Optional[str] = "hptune.db", *,
              timeout: float = DEFAULT_TIMEOUT_SECONDS,
              inline_refits: bool = False,
              allow_root_trials: bool = False,
              allow_commands: Sequence[str] = ()) -> "Client":
        """A Client of a private ``hptune serve`` on the store ``db``: a
        SQLite file's path or ``sqlite:PATH`` (the one the CLI and
        dashboard read; created when missing), ``memory:``, or None (a
        temporary file, removed when the engine stops), started
        now on a Unix socket only this user can open, and stopped by
        close(), at exit, or by the kernel when this process dies
        (local.py). FileNotFoundError when the hptune binary is not found.
        A database file another Client.local of this user serves is joined
        instead: one engine serves both (shared_engine.py).
        inline_refits: ``hptune serve --inline-refits``, so a study's
        suggestions depend on its seed and history alone.
        allow_root_trials: ``hptune serve --allow-root-trials``: run as
        root, the engine runs this program's jobs (submit_job) as root,
        which it otherwise refuses (PermissionDenied).
        allow_commands: rules of ``hptune serve --allow-command`` (DIR/,
        PROGRAM, PROGRAM:DIR/): only jobs whose trainer one allows run.

        A study this Client creates from a config without ``maxTrials`` or
        ``maxParallelTrials`` is open-ended, as Optuna's studies are:
        ``optimize(n_trials=N)`` runs N more trials and ``n_jobs=k`` k at
        once, where AI Platform's defaults (1 and 1) would run one."""
        from hptune import shared_engine
        from hptune.local import LocalEngine, inherited_engine, store_url
        shared = inherited_engine(db)
        if shared is not None:  # A spawned worker: its parent's engine.
            client = cls(shared[0], token_file=shared[1], timeout=timeout)
            client._open_ended = True
            return client
        file = store_url(str(db))[1] if db is not None else None
        joined = shared_engine.join(file) if file else None
        if joined is not None:  # Another program's engine on the file.
            return cls._joining(joined, timeout)
        try:
            engine = LocalEngine(db, inline_refits=inline_refits,
                                 allow_root_trials=allow_root_trials,
                                 allow_commands=allow_commands)
        except ValueError as e:
            raise errors.InvalidArgument(str(e)) from None
        except RuntimeError as e:  # Another program started it just now?
            joined = shared_engine.join_when_published(file, 10.0) \
                if file and "already served" in str(e) else None
            if joined is None:
                raise
            return cls._joining(joined, timeout)
        client = cls(engine.address, token=engine.token, timeout=timeout)
        client._engine = engine
        client._open_ended = True
        # At exit too: a drain waits for connected clients (up to 5 s).
        engine.on_close(client._connection.close)
        return client

    @classmethod
    def _joining(cls, joined, timeout: float) -> "Client":
        client = cls(joined.address, token_file=joined.token_file,
                     timeout=timeout)
        client._engine = joined
        client._open_ended = True
        joined.on_close(client._connection.close)
        return client

    @property
    def server(self) -> str:
        return self._connection.server

    def close(self) -> None:
        """Closes the channel; a local engine (Client.local) stops too."""
        self._connection.close()
        if self._engine is not None:
            self._engine.close()

    def __enter__(self) -> "Client":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # Studies.

    def create_study(self, name: str,
                     config: config_module.ConfigSource) -> Study:
        """Creates a study from a config file or dict in AI Platform's shape
        (its ``trainingInput.hyperparameters``, or that block itself).
        AlreadyExists when the name is taken; InvalidArgument naming the
        field and value for a config that breaks a rule."""
        spec = self._spec(config)
        if not spec.params:
            if self._exists(name):
                raise errors.AlreadyExists(f"study {name} already exists")
            return PendingStudy(self, name, _block(config))
        return Study(self._connection, self._connection.call(
            self._connection.studies.CreateStudy,
            study_service_pb2.CreateStudyRequest(name=name, spec=spec)))

    def _exists(self, name: str) -> bool:
        try:
            self.load_study(name)
            return True
        except errors.NotFound:
            return False

    def load_study(self, name: str) -> Study:
        """The study ``name`` (a job's study is named by its job ID)."""
        return Study(self._connection, self._connection.call(
            self._connection.studies.GetStudy,
            study_service_pb2.GetStudyRequest(name=name)))

    def study(self, name: str,
              config: Optional[config_module.ConfigSource] = None, *,
              load_as_is: bool = False) -> Study:
        """The study ``name``: created from ``config`` when it does not
        exist, else loaded. Several workers may call it at once: one
        creates, the others load. A stored study whose spec differs from
        ``config`` (another goal, metric, parameter...) is refused with
        FailedPrecondition naming each difference, unless ``load_as_is``
        (then the stored study is used unchanged)."""
        if config is None:
            return self.load_study(name)
        spec = self._spec(config)
        if not spec.params:  # Define-by-run: suggest_* define the space.
            try:
                study = self.load_study(name)
                study.learns_parameters = True
            except errors.NotFound:
                return PendingStudy(self, name, _block(config))
        else:
            try:
                return Study(self._connection, self._connection.call(
                    self._connection.studies.CreateStudy,
                    study_service_pb2.CreateStudyRequest(name=name,
                                                         spec=spec)))
            except errors.AlreadyExists:
                study = self.load_study(name)
        differences = [d for d in config_module.spec_differences(
            spec, study.proto.spec) if spec.params or
            not d.startswith("params.")]  # Define-by-run's were learnt.
        if differences and not load_as_is:
            raise errors.FailedPrecondition(
                f"study {name} exists with another spec than this config: "
                + "; ".join(differences) + ". Load it as stored with "
                "study(name, config, load_as_is=True) or load_study(name), "
                "or give the new config another study name")
        return study

    def _spec(self, config: config_module.ConfigSource):
        spec = config_module.study_spec(config)
        if self._open_ended:
            if not spec.HasField("max_trials"):
                spec.max_trials = OPEN_ENDED_MAX_TRIALS
            if not spec.HasField("max_parallel_trials"):
                spec.max_parallel_trials = OPEN_ENDED_PARALLEL_TRIALS
        return spec

    def list_studies(self) -> List[Study]:
        studies: List[Study] = []
        token = ""
        while True:
            reply = self._connection.call(
                self._connection.studies.ListStudies,
                study_service_pb2.ListStudiesRequest(page_size=1000,
                                                     page_token=token))
            studies.extend(Study(self._connection, s) for s in reply.studies)
            token = reply.next_page_token
            if not token:
                return studies

    def delete_study(self, name: str) -> None:
        self._connection.call(self._connection.studies.DeleteStudy,
                              study_service_pb2.DeleteStudyRequest(name=name))

    # Jobs.

    def submit_job(self, job_id: str, config: config_module.ConfigSource, *,
                   overrides: Optional[Mapping] = None,
                   labels: Optional[Mapping[str, str]] = None,
                   backend: Optional[str] = None) -> Job:
        """Submits a training job: every trial a distributed training job
        the server runs. ``config`` is a config file or dict (config.py
        says how paths resolve); ``overrides`` is laid over its
        ``trainingInput`` (``{"hyperparameters": {"maxTrials": 4}}``);
        ``labels`` over its labels; ``backend`` ("local" or "slurm")
        replaces its backend. Returns the QUEUED job."""
        request = config_module.job_request(job_id, config,
                                            overrides=overrides,
                                            labels=labels, backend=backend)
        return Job(self._connection, self._connection.call(
            self._connection.jobs.SubmitJob, request))

    def job(self, job_id: str, trials: bool = True) -> Job:
        """The job ``job_id``, with its trials unless ``trials`` is False."""
        return Job(self._connection, self._connection.call(
            self._connection.jobs.GetJob,
            job_service_pb2.GetJobRequest(job_id=job_id,
                                          omit_trials=not trials)))

    def list_jobs(self, states: Optional[Iterable[str]] = None,
                  prefix: str = "",
                  labels: Optional[Mapping[str, str]] = None) -> List[Job]:
        """Jobs, newest first (without their trials): only those in
        ``states``, whose ID starts with ``prefix``, and that carry every
        label of ``labels`` (value "*": any value)."""
        request = job_service_pb2.ListJobsRequest(
            job_id_prefix=prefix, labels=dict(labels or {}), page_size=1000)
        for state in states or ():
            if state not in JOB_STATES:
                raise errors.InvalidArgument(
                    f"states: {state!r} is not one of {', '.join(JOB_STATES)}")
            request.states.append(job_pb2.Job.State.Value(state))
        jobs: List[Job] = []
        while True:
            reply = self._connection.call(self._connection.jobs.ListJobs,
                                          request)
            jobs.extend(Job(self._connection, j) for j in reply.jobs)
            if not reply.next_page_token:
                return jobs
            request.page_token = reply.next_page_token


__all__ = ["Client"]
