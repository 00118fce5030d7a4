"""Config files and dicts in AI Platform's shape, turned into requests.

Used by Client.create_study (the ``hyperparameters`` block) and
Client.submit_job (the whole config). A config is a path to a YAML or JSON
file (JSON when the name ends in ``.json``, any case), or a dict of the same
shape (docs/config.md): ``{"trainingInput": {..., "hyperparameters":
{...}}, "labels": {...}, "backend": ..., "slurm": {...}}``. For a study, a
dict may also be the ``hyperparameters`` block itself.

Paths in a file are relative to the file, paths in a dict to the current
directory; both are sent absolute (the server has its own working
directory), by the rules of the CLI (docs/config.md): a relative
packagePath, a local jobDir, a command[0] with a '/', and a later command
element that names a file beside the config.

Errors are hptune.InvalidArgument naming the field path and the value, as
the server's are; a file that cannot be read is hptune.NotFound. Pure
functions apart from reading the file; thread-safe.
"""

import copy
import functools
import json
import os
import re
from typing import Any, Dict, List, Mapping, Optional, Tuple, Union

from google.protobuf import json_format

from hptune import errors
from hptune.v1 import study_pb2

ConfigSource = Union[str, "os.PathLike[str]", Mapping[str, Any]]

_MAX_CONFIG_BYTES = 4 * 1024 * 1024
_TOP_LEVEL_KEYS = ("trainingInput", "labels", "backend", "slurm")


@functools.lru_cache(maxsize=1)
def _yaml_loader():
    try:
        import yaml
    except ImportError:
        raise errors.FailedPrecondition(
            "reading a YAML config needs PyYAML (Debian: python3-yaml); "
            "or give a .json file or a dict") from None

    class Loader(yaml.SafeLoader):
        """YAML 1.2 numbers: `1e-5` is a float, as hptune's parser reads it
        (YAML 1.1, PyYAML's default, makes it a string)."""

    Loader.add_implicit_resolver(
        "tag:yaml.org,2002:float",
        re.compile(r"""^(?:[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+]?[0-9]+)?
                    |[-+]?(?:[0-9][0-9_]*)(?:[eE][-+]?[0-9]+)
                    |\.[0-9_]+(?:[eE][-+][0-9]+)?
                    |[-+]?\.(?:inf|Inf|INF)
                    |\.(?:nan|NaN|NAN))$""", re.X),
        list("-+0123456789."))
    return yaml, Loader


def read_config_file(path: Union[str, "os.PathLike[str]"]) -> Dict[str, Any]:
    """The mapping in a YAML or JSON config file."""
    path = os.fspath(path)
    try:
        with open(path, "rb") as f:
            data = f.read(_MAX_CONFIG_BYTES + 1)
    except OSError as e:
        raise errors.NotFound(f"config: cannot read {path!r}: "
                              f"{e.strerror}") from None
    if len(data) > _MAX_CONFIG_BYTES:
        raise errors.InvalidArgument(
            f"config: {path!r} is over {_MAX_CONFIG_BYTES} bytes")
    text = data.decode("utf-8", "replace")
    try:
        if path.lower().endswith(".json"):
            value = json.loads(text)
        else:
            yaml, loader = _yaml_loader()
            value = yaml.load(text, Loader=loader)
    except ValueError as e:  # json.JSONDecodeError
        raise errors.InvalidArgument(f"config: {path!r} is not JSON: {e}") \
            from None
    except Exception as e:  # yaml.YAMLError
        raise errors.InvalidArgument(f"config: {path!r} is not YAML: {e}") \
            from None
    if not isinstance(value, dict):
        raise errors.InvalidArgument(
            f"config: {path!r} holds a {type(value).__name__}, not a mapping")
    return value


def _load(config: ConfigSource) -> Tuple[Dict[str, Any], str]:
    """(the mapping, the directory its relative paths are relative to)."""
    if isinstance(config, Mapping):
        return copy.deepcopy(dict(config)), os.getcwd()
    if isinstance(config, (str, os.PathLike)):
        path = os.path.abspath(os.fspath(config))
        return read_config_file(path), os.path.dirname(path)
    raise TypeError(f"config: a path or a dict, not {type(config).__name__}")


def study_spec(config: ConfigSource) -> study_pb2.StudySpec:
    """The StudySpec of a config's ``trainingInput.hyperparameters`` (or of
    a dict that is that block). Only the shape is checked here; the server
    applies every rule."""
    mapping, where = hyperparameters_block(config)
    return _parse(mapping, study_pb2.StudySpec(), where)


def hyperparameters_block(config: ConfigSource) -> Tuple[Any, str]:
    """(a config's hyperparameters block, where it is in the config)."""
    mapping, _ = _load(config)
    where = "hyperparameters"
    if "trainingInput" in mapping:
        training_input = mapping["trainingInput"]
        if not isinstance(training_input, dict) or \
                "hyperparameters" not in training_input:
            raise errors.InvalidArgument(
                "trainingInput.hyperparameters: missing; a study needs it")
        mapping = training_input["hyperparameters"]
        where = "trainingInput.hyperparameters"
    elif "hyperparameters" in mapping:
        mapping = mapping["hyperparameters"]
    return mapping, where


def _parse(mapping: Any, message, where: str):
    if not isinstance(mapping, dict):
        raise errors.InvalidArgument(
            f"{where}: {mapping!r} is not a mapping")
    try:
        return json_format.ParseDict(mapping, message)
    except json_format.ParseError as e:
        raise errors.InvalidArgument(f"{where}: {e}") from None


def _resolve(base: str, path: str) -> str:
    if not path or "://" in path or os.path.isabs(path):
        return path
    return os.path.normpath(os.path.join(base, path))


def _resolve_paths(base: str, training_input: Dict[str, Any]) -> None:
    for key in ("packagePath", "jobDir"):
        if isinstance(training_input.get(key), str):
            training_input[key] = _resolve(base, training_input[key])
    command = training_input.get("command")
    if isinstance(command, list) and command and \
            all(isinstance(c, str) for c in command):
        if "/" in command[0]:
            command[0] = _resolve(base, command[0])
        for i in range(1, len(command)):
            arg = command[i]
            if arg and not arg.startswith("-") and \
                    os.path.isfile(os.path.join(base, arg)):
                command[i] = _resolve(base, arg)


def _merge(into: Dict[str, Any], overrides: Mapping[str, Any]) -> None:
    """Mappings merge key by key; any other value replaces."""
    for key, value in overrides.items():
        if isinstance(value, Mapping) and isinstance(into.get(key), dict):
            _merge(into[key], value)
        else:
            into[key] = copy.deepcopy(value)


def job_request(job_id: str, config: ConfigSource, *,
                overrides: Optional[Mapping[str, Any]] = None,
                labels: Optional[Mapping[str, str]] = None,
                backend: Optional[str] = None):
    """The SubmitJobRequest of a config with ``overrides`` (a mapping laid
    over ``trainingInput``, e.g. ``{"hyperparameters": {"maxTrials": 4}}``;
    paths in it are relative to the current directory) and ``labels``
    (laid over the config's)."""
    from hptune.v1 import job_service_pb2

    mapping, base = _load(config)
    unknown = sorted(set(mapping) - set(_TOP_LEVEL_KEYS))
    if unknown:
        raise errors.InvalidArgument(
            f"config: unknown key {unknown[0]!r}; the top level takes "
            f"{', '.join(_TOP_LEVEL_KEYS)} (the job ID is an argument)")
    training_input = mapping.get("trainingInput")
    if not isinstance(training_input, dict):
        raise errors.InvalidArgument(
            "trainingInput: missing or not a mapping")
    _resolve_paths(base, training_input)
    if overrides:
        overrides = copy.deepcopy(dict(overrides))
        _resolve_paths(os.getcwd(), overrides)
        _merge(training_input, overrides)
    request = job_service_pb2.SubmitJobRequest(job_id=job_id)
    _parse(training_input, request.training_input, "trainingInput")
    all_labels = dict(mapping.get("labels") or {})
    all_labels.update(labels or {})
    for key, value in all_labels.items():
        if not isinstance(key, str) or not isinstance(value, str):
            raise errors.InvalidArgument(
                f"labels: {key!r}: {value!r}: keys and values are strings")
        request.labels[key] = value
    chosen_backend = backend if backend is not None else mapping.get("backend")
    if chosen_backend is not None:
        if chosen_backend not in ("local", "slurm"):
            raise errors.InvalidArgument(
                f"backend: {chosen_backend!r} is not local or slurm")
        request.backend = chosen_backend
    if mapping.get("slurm") is not None:
        _parse(mapping["slurm"], request.slurm, "slurm")
    return request


def spec_differences(wanted: study_pb2.StudySpec,
                     stored: study_pb2.StudySpec) -> List[str]:
    """What a stored study's spec has otherwise than the fields a config
    sets (a field the config leaves out, such as a drawn seed or a default
    scaleType, is not a difference): ``goal: config "MINIMIZE", stored
    "MAXIMIZE"``; a parameter only one of them has is one."""
    want, have = message_to_dict(wanted), message_to_dict(stored)
    differences = _field_differences("", want, have, skip=("params",))
    wanted_params = {p["parameterName"]: p for p in want.get("params", [])}
    stored_params = {p["parameterName"]: p for p in have.get("params", [])}
    for name in sorted(wanted_params.keys() | stored_params.keys()):
        if name not in wanted_params or name not in stored_params:
            differences.append(
                f"params.{name}: config {_short(wanted_params.get(name))}, "
                f"stored {_short(stored_params.get(name))}")
        else:
            differences += _field_differences(
                f"params.{name}.", wanted_params[name], stored_params[name])
    return differences


def _field_differences(where: str, want: Mapping, have: Mapping,
                       skip=()) -> List[str]:
    return [f"{where}{key}: config {_short(value)}, stored "
            f"{_short(have.get(key))}" for key, value in want.items()
            if key not in skip and have.get(key) != value]


def _short(value: Any) -> str:
    text = "none" if value is None else json.dumps(value, sort_keys=True)
    return text if len(text) <= 200 else text[:197] + "..."


def message_to_dict(message) -> Dict[str, Any]:
    """A message as its JSON mapping (camelCase names, the config's)."""
    return json_format.MessageToDict(message)


__all__ = ["study_spec", "job_request", "read_config_file", "message_to_dict",
           "ConfigSource"]
