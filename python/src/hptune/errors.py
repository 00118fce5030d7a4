"""Exceptions raised by hptune's Python client, one class per gRPC code.

Every call the client makes raises a subclass of HptuneError when the server
refuses it or cannot be reached, carrying the server's message, which names
the field and the value (``hyperparameters.maxTrials: must be at least 1,
got 0``). Catch HptuneError for all of them, or one class for one case::

    try:
        study = client.create_study("mnist", config)
    except hptune.AlreadyExists:
        study = client.load_study("mnist")

Thread-safe (plain exception classes).
"""

from typing import Dict, Optional, Type

import grpc

__all__ = [
    "HptuneError", "Cancelled", "Unknown", "InvalidArgument",
    "DeadlineExceeded", "NotFound", "AlreadyExists", "PermissionDenied",
    "ResourceExhausted", "FailedPrecondition", "Aborted", "OutOfRange",
    "Unimplemented", "Internal", "Unavailable", "DataLoss", "Unauthenticated",
    "from_rpc_error",
]


class HptuneError(Exception):
    """A call to an hptune server failed.

    Attributes:
      code: the gRPC status code (a ``grpc.StatusCode``).
      message: the server's message (for Unavailable: why the server could
        not be reached).
      method: the RPC, e.g. ``StudyService/CreateStudy``.
    """

    code: grpc.StatusCode = grpc.StatusCode.UNKNOWN

    def __init__(self, message: str, method: str = "",
                 code: Optional[grpc.StatusCode] = None) -> None:
        super().__init__(message)
        self.message = message
        self.method = method
        if code is not None:
            self.code = code

    def __str__(self) -> str:
        prefix = f"{self.method}: " if self.method else ""
        return f"{prefix}{self.message} ({self.code.name})"


class Cancelled(HptuneError):
    code = grpc.StatusCode.CANCELLED


class Unknown(HptuneError):
    code = grpc.StatusCode.UNKNOWN


class InvalidArgument(HptuneError):
    """A request or config breaks a rule; the message names field and value."""
    code = grpc.StatusCode.INVALID_ARGUMENT


class DeadlineExceeded(HptuneError):
    code = grpc.StatusCode.DEADLINE_EXCEEDED


class NotFound(HptuneError):
    """No such study, trial, job or replica log."""
    code = grpc.StatusCode.NOT_FOUND


class AlreadyExists(HptuneError):
    """The study name or job ID is taken."""
    code = grpc.StatusCode.ALREADY_EXISTS


class PermissionDenied(HptuneError):
    code = grpc.StatusCode.PERMISSION_DENIED


class ResourceExhausted(HptuneError):
    code = grpc.StatusCode.RESOURCE_EXHAUSTED


class FailedPrecondition(HptuneError):
    """The call does not fit the object's state (an ended trial, a job that
    is no longer running, a backend the server does not run)."""
    code = grpc.StatusCode.FAILED_PRECONDITION


class Aborted(HptuneError):
    code = grpc.StatusCode.ABORTED


class OutOfRange(HptuneError):
    code = grpc.StatusCode.OUT_OF_RANGE


class Unimplemented(HptuneError):
    code = grpc.StatusCode.UNIMPLEMENTED


class Internal(HptuneError):
    code = grpc.StatusCode.INTERNAL


class Unavailable(HptuneError):
    """No server answered at the address (not started, restarting, or TLS
    and plaintext mixed up). The blocking helpers retry these."""
    code = grpc.StatusCode.UNAVAILABLE


class DataLoss(HptuneError):
    code = grpc.StatusCode.DATA_LOSS


class Unauthenticated(HptuneError):
    """The server refused the token (missing or not the server's)."""
    code = grpc.StatusCode.UNAUTHENTICATED


_BY_CODE: Dict[grpc.StatusCode, Type[HptuneError]] = {
    cls.code: cls for cls in (
        Cancelled, Unknown, InvalidArgument, DeadlineExceeded, NotFound,
        AlreadyExists, PermissionDenied, ResourceExhausted,
        FailedPrecondition, Aborted, OutOfRange, Unimplemented, Internal,
        Unavailable, DataLoss, Unauthenticated)
}


def from_rpc_error(error: grpc.RpcError, method: str = "",
                   hint: str = "") -> HptuneError:
    """The HptuneError for a failed call (``error`` is a grpc.Call)."""
    code = error.code() if hasattr(error, "code") else grpc.StatusCode.UNKNOWN
    details = error.details() if hasattr(error, "details") else str(error)
    message = details or code.name
    if hint:
        message = f"{message}; {hint}"
    return _BY_CODE.get(code, HptuneError)(message, method, code)
