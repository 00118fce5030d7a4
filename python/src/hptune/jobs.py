"""Training jobs on an hptune server (JobService), from Python.

    job = client.submit_job("svc_1", "config.yaml",
                            overrides={"hyperparameters": {"maxTrials": 8}})
    job.wait(progress=lambda job: print(job.state, job.completed_trial_count))
    for chunk in job.logs(trial=1):
        sys.stdout.buffer.write(chunk)

A Job is a snapshot of the server's job (hptune.v1.Job, AI Platform's Job);
refresh() reads it again. wait(), logs(follow=True) and watch() block; they
retry an Unavailable server (a restart) for ``reconnect_seconds``.

Not thread-safe per object; separate Job objects may be used from threads.
"""

import time
from typing import Any, Callable, Dict, Iterator, List, Mapping, Optional

from hptune import errors
from hptune.config import message_to_dict
from hptune.connection import Connection, retry_unavailable
from hptune.trials import to_datetime
from hptune.v1 import job_pb2, job_service_pb2

JOB_STATES = tuple(name for name in job_pb2.Job.State.keys()
                   if name != "STATE_UNSPECIFIED")
ENDED_JOB_STATES = ("SUCCEEDED", "FAILED", "CANCELLED")


class JobTrial:
    """One trial of a job (AI Platform's HyperparameterOutput).

    Attributes: trial_id (int), hyperparameters (name -> value as the
    trainer got it, a string), state (a job state name), value (the final
    objective or None), step (its training step or None), final_metrics
    (every metric of the study in the final measurement), is_optimal
    (among the job's optimal trials: the best feasible one, or with several
    objectives the feasible Pareto front), stopped_early, error_message,
    start_time, end_time.
    """

    def __init__(self, proto: job_pb2.HyperparameterOutput) -> None:
        self.proto = proto
        self.trial_id = int(proto.trial_id) if proto.trial_id else 0
        self.hyperparameters: Dict[str, str] = dict(proto.hyperparameters)
        self.state: str = job_pb2.Job.State.Name(proto.state)
        final = proto.final_metric if proto.HasField("final_metric") else None
        self.value: Optional[float] = final.objective_value if final else None
        self.step: Optional[int] = final.training_step if final else None
        self.final_metrics: Dict[str, float] = dict(proto.final_metrics)
        self.is_optimal: bool = proto.is_optimal
        self.stopped_early: bool = proto.is_trial_stopped_early
        self.error_message: str = proto.error_message
        self.start_time = to_datetime(proto.start_time)
        self.end_time = to_datetime(proto.end_time)

    def __repr__(self) -> str:
        value = "" if self.value is None else f", value={self.value:.6g}"
        return (f"JobTrial(trial_id={self.trial_id}, state={self.state}, "
                f"hyperparameters={self.hyperparameters}{value})")


class Job:
    """A training job. Get it from Client.submit_job, job or list_jobs.

    Attributes (a snapshot): job_id, state (one of JOB_STATES),
    error_message, labels, create_time, start_time, end_time,
    completed_trial_count, metric_tag, trials (JobTrial list; empty when
    read without trials), best_trial (JobTrial or None), optimal_trial_ids
    (the trials marked is_optimal), proto (the hptune.v1.Job).
    """

    def __init__(self, connection: Connection, proto: job_pb2.Job) -> None:
        self._connection = connection
        self._set(proto)

    def _set(self, proto: job_pb2.Job) -> None:
        self.proto = proto
        self.job_id: str = proto.job_id
        self.state: str = job_pb2.Job.State.Name(proto.state)
        self.error_message: str = proto.error_message
        self.labels: Dict[str, str] = dict(proto.labels)
        self.create_time = to_datetime(proto.create_time)
        self.start_time = to_datetime(proto.start_time)
        self.end_time = to_datetime(proto.end_time)
        output = proto.training_output
        self.completed_trial_count: int = output.completed_trial_count
        self.metric_tag: str = output.hyperparameter_metric_tag
        self.trials: List[JobTrial] = [JobTrial(t) for t in output.trials]
        self.best_trial: Optional[JobTrial] = (
            JobTrial(output.best_trial) if output.HasField("best_trial")
            else None)
        self.optimal_trial_ids: List[int] = [
            int(i) for i in output.optimal_trial_ids]

    @property
    def ended(self) -> bool:
        return self.state in ENDED_JOB_STATES

    def __repr__(self) -> str:
        return (f"Job(job_id={self.job_id!r}, state={self.state}, "
                f"completed_trial_count={self.completed_trial_count})")

    def to_dict(self) -> Dict[str, Any]:
        """The job as AI Platform's Job JSON (camelCase keys)."""
        return message_to_dict(self.proto)

    def refresh(self, trials: bool = True) -> "Job":
        self._set(self._connection.call(
            self._connection.jobs.GetJob,
            job_service_pb2.GetJobRequest(job_id=self.job_id,
                                          omit_trials=not trials)))
        return self

    def cancel(self) -> "Job":
        """Asks the job to stop (CANCELLING, then CANCELLED).
        FailedPrecondition when it has ended already."""
        self._set(self._connection.call(
            self._connection.jobs.CancelJob,
            job_service_pb2.CancelJobRequest(job_id=self.job_id)))
        return self

    def delete(self) -> None:
        """Deletes the job, which must have ended, with its study.
        FailedPrecondition naming its state while it has not ended."""
        self._connection.call(
            self._connection.jobs.DeleteJob,
            job_service_pb2.DeleteJobRequest(job_id=self.job_id))

    def update_labels(self, update: Optional[Mapping[str, str]] = None,
                      remove: Optional[List[str]] = None,
                      clear: bool = False) -> "Job":
        """Changes the labels atomically: clear, then update, then remove."""
        self._set(self._connection.call(
            self._connection.jobs.UpdateJob,
            job_service_pb2.UpdateJobRequest(
                job_id=self.job_id, update_labels=dict(update or {}),
                remove_labels=list(remove or []), clear_labels=clear)))
        return self

    def watch(self, reconnect_seconds: float = 300.0,
              timeout: Optional[float] = None
              ) -> Iterator[job_service_pb2.JobEvent]:
        """The job's events (hptune.v1.JobEvent): first the job as it is,
        then each job state change and each trial start or end, until the
        job has ended. After a reconnect the stream starts again with the
        job as it is then. DeadlineExceeded after ``timeout`` seconds."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            left = None if deadline is None else deadline - time.monotonic()
            if left is not None and left <= 0:
                raise errors.DeadlineExceeded(
                    f"job {self.job_id} is still {self.state} after "
                    f"{timeout} s (it goes on)", "JobService/WatchJob")
            stream = self._connection.stream(
                self._connection.jobs.WatchJob,
                job_service_pb2.WatchJobRequest(job_id=self.job_id), left)
            try:
                for event in stream:
                    if event.HasField("job"):
                        self._set(event.job)
                    yield event
                if self.ended:
                    return
            except errors.DeadlineExceeded as e:
                raise errors.DeadlineExceeded(
                    f"job {self.job_id} is still {self.state} after "
                    f"{timeout} s (it goes on)", e.method) from None
            except (errors.Unavailable, errors.Cancelled):
                pass  # The server stopped: a drain cancels every stream.
            # The stream ended before the job: its server stopped or
            # restarts. Once a server answers again, a new stream starts
            # with the job as it is then, ended or not.
            retry_unavailable(lambda: self.refresh(trials=False),
                              reconnect_seconds)

    def wait(self, progress: Optional[Callable[["Job"], None]] = None,
             timeout: Optional[float] = None,
             reconnect_seconds: float = 300.0) -> "Job":
        """Blocks until the job has ended and returns it, with its trials.
        ``progress(job)`` is called with the job at the start, at each
        state change and each time a trial starts or ends. DeadlineExceeded
        after ``timeout`` seconds (the job goes on)."""
        events = self.watch(reconnect_seconds, timeout)
        try:
            for event in events:
                if event.HasField("trial"):
                    self.refresh(trials=False)
                if progress is not None:
                    progress(self)
        finally:
            events.close()
        return retry_unavailable(lambda: self.refresh(trials=True),
                                 reconnect_seconds)

    def logs(self, trial: int = 1, replica: str = "master-0",
             follow: bool = False, offset: int = 0,
             reconnect_seconds: float = 300.0) -> Iterator[bytes]:
        """One replica's log (stdout and stderr) as chunks of bytes, from
        ``offset``; with ``follow``, new output until the trial has ended.
        Replicas: "master-0", "worker-N", "ps-N", "evaluator-N"."""
        while True:
            stream = self._connection.stream(
                self._connection.jobs.StreamTrialLogs,
                job_service_pb2.GetTrialLogsRequest(
                    job_id=self.job_id, trial_id=trial, replica=replica,
                    offset=offset, follow=follow))
            ended = False
            try:
                for chunk in stream:
                    offset = chunk.next_offset
                    ended = chunk.end_of_log
                    if chunk.data:
                        yield chunk.data
                if ended or not follow:
                    return
            except (errors.Unavailable, errors.Cancelled):
                if not follow:
                    raise
            # Following, the stream ended before the log did: its server
            # stopped (a drain cancels every stream) or restarts. Once a
            # server answers, go on from the offset reached.
            retry_unavailable(lambda: self.refresh(trials=False),
                              reconnect_seconds)
