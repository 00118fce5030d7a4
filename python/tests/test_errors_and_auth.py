"""Each error class with the server's message; tokens, TLS and the
environment variables the CLI reads; retries while a server restarts."""

import os
import shutil
import socket
import subprocess
import tempfile
import threading

import pytest

import hptune
from hptune.connection import ask_identity_socket, retry_unavailable

SPEC = {"goal": "MINIMIZE", "maxTrials": 2, "params": [
    {"parameterName": "x", "type": "DOUBLE", "minValue": 0, "maxValue": 1}]}


def test_each_error_class_carries_the_servers_message(client):
    with pytest.raises(hptune.InvalidArgument) as invalid:
        client.create_study("bad", dict(SPEC, maxTrials=0))
    assert "maxTrials: must be at least 1, got 0" in invalid.value.message
    assert invalid.value.method == "StudyService/CreateStudy"
    with pytest.raises(hptune.InvalidArgument, match="minValue"):
        client.create_study("bad", {"params": [
            {"parameterName": "x", "type": "DOUBLE", "minValue": 2,
             "maxValue": 1}]})
    with pytest.raises(hptune.NotFound, match='study "missing" not found'):
        client.load_study("missing")
    study = client.create_study("errors", SPEC)
    with pytest.raises(hptune.AlreadyExists, match="errors"):
        client.create_study("errors", SPEC)
    (trial,) = study.suggest()
    trial.complete(0.5)
    with pytest.raises(hptune.FailedPrecondition, match="SUCCEEDED"):
        trial.add_measurement(0.4, step=3)
    with pytest.raises(hptune.NotFound, match="99"):
        study.trial(99)
    with pytest.raises(hptune.NotFound, match="nope"):
        client.job("nope")
    # Every class is an HptuneError, with its gRPC code.
    assert issubclass(hptune.Unavailable, hptune.HptuneError)
    assert invalid.value.code.name == "INVALID_ARGUMENT"


def test_client_side_checks_name_the_field_and_value(client, tmp_path):
    with pytest.raises(hptune.InvalidArgument, match="hyperparameters"):
        client.create_study("typo", dict(SPEC, maxTrial=3))
    with pytest.raises(hptune.InvalidArgument, match=r"parameters\.x: True"):
        client.create_study("ok", SPEC).add_trial({"x": True})
    with pytest.raises(hptune.NotFound, match="cannot read"):
        client.create_study("nofile", str(tmp_path / "missing.yaml"))
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(hptune.InvalidArgument, match="is not JSON"):
        client.create_study("badfile", str(bad))
    with pytest.raises(hptune.InvalidArgument, match="metrics.loss: nan"):
        client.create_study("nan", SPEC).add_trial(
            {"x": 0.5}, metrics={"loss": float("nan")})
    with pytest.raises(hptune.InvalidArgument, match="server"):
        hptune.Client("no port here")
    with pytest.raises(hptune.InvalidArgument, match="timeout"):
        hptune.Client("127.0.0.1:1", timeout=0)
    huge = tmp_path / "huge.pem"
    huge.write_bytes(b"-----BEGIN CERTIFICATE-----\n" + b"A" * (1 << 20))
    with pytest.raises(hptune.InvalidArgument, match=r"tls_ca: .* is over"):
        hptune.Client("127.0.0.1:1", tls_ca=str(huge))


def test_wrong_or_missing_token_is_unauthenticated(server, tmp_path,
                                                  monkeypatch):
    wrong = tmp_path / "wrong"
    wrong.write_text("not-the-token\n")
    with pytest.raises(hptune.Unauthenticated) as refused:
        hptune.Client(server.address, token_file=str(wrong)).list_studies()
    assert "token" in refused.value.message
    assert str(wrong) in refused.value.message  # says what was sent
    with pytest.raises(hptune.Unauthenticated):
        hptune.Client(server.address, token="nope").list_studies()
    # No token at all: no default file under an empty config dir.
    monkeypatch.setenv("HPTUNE_CONFIG_DIR", str(tmp_path / "empty"))
    monkeypatch.delenv("HPTUNE_TOKEN", raising=False)
    with pytest.raises(hptune.Unauthenticated, match="no token"):
        hptune.Client(server.address).list_studies()


def test_the_clis_environment_variables(server, monkeypatch):
    monkeypatch.setenv("HPTUNE_SERVER", server.address)
    monkeypatch.delenv("HPTUNE_TOKEN", raising=False)
    # The default token file of the user the server made it for.
    monkeypatch.setenv("HPTUNE_CONFIG_DIR", server.config_dir)
    assert hptune.Client().list_studies() == []
    monkeypatch.setenv("HPTUNE_CONFIG_DIR", "/nonexistent")
    monkeypatch.setenv("HPTUNE_TOKEN", server.token)
    assert hptune.Client().server == server.address
    assert hptune.Client().list_studies() == []


def test_on_a_unix_socket_the_kernel_says_who_asks(server_factory,
                                                   monkeypatch):
    # Short: a Unix socket's path has at most 107 bytes.
    directory = tempfile.mkdtemp(prefix="hptune-")
    path = os.path.join(directory, "hptune.sock")
    server = server_factory(["--socket", path]).start()
    # No token anywhere: the identity socket beside the gRPC one gives this
    # user's, which for the server's own user is the server's token.
    monkeypatch.delenv("HPTUNE_TOKEN", raising=False)
    monkeypatch.setenv("HPTUNE_CONFIG_DIR", "/nonexistent")
    assert ask_identity_socket(path) == server.token
    client = hptune.Client("unix:" + path)
    client.create_study("on_the_socket", SPEC)
    assert [s.name for s in client.list_studies()] == ["on_the_socket"]
    # Without the identity socket the call goes without a token.
    os.unlink(path + ".identity")
    with pytest.raises(hptune.Unauthenticated):
        hptune.Client("unix:" + path).list_studies()
    shutil.rmtree(directory, ignore_errors=True)


@pytest.fixture
def certificate(tmp_path):
    if shutil.which("openssl") is None:
        pytest.skip("openssl is not installed")
    cert, key = str(tmp_path / "cert.pem"), str(tmp_path / "key.pem")
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes",
         "-keyout", key, "-out", cert, "-days", "1", "-subj", "/CN=localhost",
         "-addext", "subjectAltName=IP:127.0.0.1"],
        check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return cert, key


def test_tls(server_factory, certificate, monkeypatch):
    cert, key = certificate
    server = server_factory(["--tls-cert", cert, "--tls-key", key]).start()
    client = server.client(tls_ca=cert)
    study = client.create_study("over_tls", SPEC)
    assert study.suggest()[0].state == "ACTIVE"
    monkeypatch.setenv("HPTUNE_TLS_CA", cert)
    assert [s.name for s in server.client().list_studies()] == ["over_tls"]
    monkeypatch.delenv("HPTUNE_TLS_CA")
    with pytest.raises(hptune.Unavailable, match="pass tls_ca"):
        server.client(timeout=5).list_studies()
    with pytest.raises(hptune.InvalidArgument, match="no PEM certificate"):
        server.client(tls_ca=server.token_file)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_no_server_is_unavailable_and_blocking_helpers_retry(server_factory,
                                                            tmp_path):
    port = free_port()
    token_file = tmp_path / "token"
    token_file.write_text("a-token-of-our-own\n")
    token_file.chmod(0o600)
    server = server_factory(["--token-file", str(token_file)], port=port)
    client = server.client(token="a-token-of-our-own", timeout=5)
    with pytest.raises(hptune.Unavailable) as down:
        client.list_studies()
    assert f"no hptune server answered at 127.0.0.1:{port}" in str(down.value)

    # retry_unavailable (what optimize, wait and logs use) keeps trying
    # while the server is down and succeeds once it is up.
    attempts = []
    result = {}
    failed_once = threading.Event()

    def attempt():
        attempts.append(1)
        if len(attempts) > 1:
            failed_once.set()
        return client.list_studies()

    worker = threading.Thread(target=lambda: result.setdefault(
        "studies", retry_unavailable(attempt, window=120)))
    worker.start()
    assert failed_once.wait(60)  # it was refused, and is trying again
    server.start()
    worker.join(120)
    assert result["studies"] == [] and len(attempts) >= 2


def test_a_call_a_drain_cancelled_is_retried_and_other_errors_are_not():
    """A drain cancels the calls it has not answered by its deadline
    (CANCELLED, not UNAVAILABLE): retry_unavailable retries them as it
    retries an unavailable server; an error of the call itself is raised
    at once."""
    answers = [hptune.Cancelled("drained", "JobService/GetJob"),
               hptune.Unavailable("restarting", "JobService/GetJob"),
               "the job"]

    def attempt():
        answer = answers.pop(0)
        if isinstance(answer, Exception):
            raise answer
        return answer

    assert retry_unavailable(attempt, window=60) == "the job"
    assert answers == []

    def not_found():
        answers.append(1)
        raise hptune.NotFound("no job j", "JobService/GetJob")

    with pytest.raises(hptune.NotFound):
        retry_unavailable(not_found, window=60)
    assert answers == [1]
