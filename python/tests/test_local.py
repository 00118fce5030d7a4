"""Client.local: a private `hptune serve` (the real binary) on a Unix socket
and a real SQLite file, started and stopped with the Python process."""

import os
import shutil
import signal
import socket
import stat
import subprocess
import sys
import tempfile
import textwrap
import time
from collections import Counter

import pytest

import hptune
from hptune import local
from conftest import HPTUNE, poll_until, run_hptune

OPEN_SPEC = {"goal": "MINIMIZE", "params": [
    {"parameterName": "x", "type": "DOUBLE", "minValue": 0, "maxValue": 1}]}
SPEC = {"goal": "MINIMIZE", "maxTrials": 3, "params": [
    {"parameterName": "x", "type": "DOUBLE", "minValue": 0, "maxValue": 1}]}


@pytest.fixture(autouse=True)
def binary(monkeypatch, tmp_path):
    monkeypatch.setenv("HPTUNE_BINARY", HPTUNE)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path))  # Private dirs here.


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie (not yet reaped) is dead too.
    with open(f"/proc/{pid}/stat") as f:
        return f.read().rsplit(")", 1)[1].split()[0] != "Z"


def test_local_client_serves_the_file_the_cli_reads(tmp_path):
    db = str(tmp_path / "study.db")
    with hptune.Client.local(db) as client:
        engine = client._engine
        assert client.server.startswith("unix:")
        assert stat.S_IMODE(os.stat(engine.dir).st_mode) == 0o700
        assert stat.S_IMODE(os.stat(engine.token_file).st_mode) == 0o600
        study = client.study("svc", SPEC)
        trial = study.suggest()[0]
        trial.complete(0.25)
        pid = engine._process.pid
    assert not os.path.exists(engine.dir)  # socket, token and log removed
    poll_until(lambda: not _alive(pid), what="the engine to stop")
    listed = run_hptune(["studies", "list", "--db", db])
    assert listed.returncode == 0, listed.stderr
    assert "svc" in listed.stdout
    # Another process's engine opens it again, with the trial in it.
    with hptune.Client.local(db) as client:
        assert client.load_study("svc").trials()[0].value == 0.25


def test_engine_dies_with_a_killed_process_and_its_dir_is_removed(tmp_path):
    script = textwrap.dedent(f"""
        import sys, hptune
        client = hptune.Client.local({str(tmp_path / 'k.db')!r})
        print(client._engine._process.pid, client._engine.dir, flush=True)
        sys.stdin.read()
    """)
    child = subprocess.Popen([sys.executable, "-c", script],
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             text=True, env=dict(os.environ))
    pid, directory = child.stdout.readline().split()
    child.send_signal(signal.SIGKILL)
    child.wait()
    poll_until(lambda: not _alive(int(pid)), what="the orphaned engine to die")
    assert os.path.isdir(directory)  # nobody ran close()
    removed = local.remove_stale_dirs(str(tmp_path))
    assert removed == [directory] and not os.path.exists(directory)


def test_a_relative_binary_path_is_found_from_the_engines_directory(
        monkeypatch, tmp_path):
    # The engine runs in its private directory: a path relative to this
    # one must still name the binary there.
    monkeypatch.chdir(os.path.dirname(HPTUNE))
    monkeypatch.setenv("HPTUNE_BINARY", os.path.join(".",
                                                     os.path.basename(HPTUNE)))
    with hptune.Client.local(None) as client:
        assert client.list_studies() == []


# A stand-in for `hptune serve` that binds its socket, so the file exists,
# but listens only when LISTEN is set: connections to it are refused.
_BOUND_SERVER = textwrap.dedent("""\
    #!{python}
    import os, socket, sys, time
    path = sys.argv[sys.argv.index("--listen") + 1][len("unix:"):]
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(path)
    if os.environ.get("LISTEN"):
        server.listen()
    while True:
        time.sleep(60)  # until the engine stops it
    """)


@pytest.mark.parametrize("listens", [True, False])
def test_the_engine_is_ready_when_its_socket_listens_not_when_it_exists(
        monkeypatch, tmp_path, listens):
    server = tmp_path / "bound_server"
    server.write_text(_BOUND_SERVER.format(python=sys.executable))
    server.chmod(0o755)
    monkeypatch.setenv("HPTUNE_BINARY", str(server))
    monkeypatch.setattr(local, "_START_TIMEOUT_SECONDS", 2.0)
    if listens:
        monkeypatch.setenv("LISTEN", "1")
        engine = local.LocalEngine(None)
        assert local.accepts(engine.socket)
        engine.close()
    else:
        # A socket that exists but refuses connections is not a started
        # engine: the first call would fail with "connection refused".
        with pytest.raises(RuntimeError, match="did not start"):
            local.LocalEngine(None)


def test_no_binary_says_where_it_looked(monkeypatch, tmp_path):
    monkeypatch.setenv("HPTUNE_BINARY", str(tmp_path / "missing"))
    with pytest.raises(FileNotFoundError, match="HPTUNE_BINARY=.*missing"):
        hptune.Client.local(str(tmp_path / "x.db"))
    monkeypatch.delenv("HPTUNE_BINARY")
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setattr(local.os, "access", lambda path, mode: False)
    with pytest.raises(FileNotFoundError, match="set HPTUNE_BINARY"):
        hptune.Client.local(str(tmp_path / "x.db"))


def test_a_bad_db_is_refused_naming_it(tmp_path):
    with pytest.raises(hptune.InvalidArgument, match="db: ''"):
        hptune.Client.local("")
    blocked = tmp_path / "file"
    blocked.write_text("")
    with pytest.raises(RuntimeError, match="did not start"):
        hptune.Client.local(str(blocked / "sub" / "x.db"))


def test_a_forked_child_that_exits_leaves_the_server(tmp_path):
    with hptune.Client.local(str(tmp_path / "f.db")) as client:
        pid = os.fork()
        if pid == 0:  # The child runs its atexit handlers, close() among them.
            signal.alarm(60)  # A close() that waits on the server fails.
            os._exit(0 if client._engine.close() is None else 1)
        assert os.waitpid(pid, 0)[1] == 0
        assert client._engine.alive() and os.path.isdir(client._engine.dir)
        assert client.study("after_fork", SPEC).name == "after_fork"


def _read(path):
    with open(path) as f:
        return f.read()


def test_the_db_is_a_store_url_as_serve_takes_it(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    # sqlite:PATH, relative: the file beside the caller, not in the engine's
    # private directory; the CLI reads it by either name.
    with hptune.Client.local("sqlite:rel.db") as client:
        assert client._engine.db == "sqlite:" + str(tmp_path / "rel.db")
        # A socket has no port: the start line names the socket.
        line = f"listening on {client.server} (db sqlite:"
        poll_until(lambda: line in _read(client._engine.log),
                   what="the start line")
        client.study("svc", SPEC).suggest()[0].complete(0.5)
    assert (tmp_path / "rel.db").is_file()
    assert (tmp_path / "hptune-runs").is_dir()
    listed = run_hptune(["studies", "list", "--db", "sqlite:rel.db"],
                        cwd=str(tmp_path))
    assert listed.returncode == 0 and "svc" in listed.stdout, listed.stderr
    # memory: nothing written beside the caller, runs in the private dir.
    before = sorted(p.name for p in tmp_path.iterdir())
    with hptune.Client.local("memory:") as client:
        study = client.study("m", SPEC)
        study.suggest()[0].complete(0.1)
        assert study.trials()[0].value == 0.1
        assert client._engine.state_dir.startswith(client._engine.dir)
    assert sorted(p.name for p in tmp_path.iterdir()) == before
    # A URL the engine cannot open: its message, and no password in it.
    with pytest.raises(RuntimeError, match="did not start") as refused:
        hptune.Client.local("postgresql://ana:s3cret@db.example/hp")
    assert "cannot connect" in str(refused.value)
    assert "s3cret" not in str(refused.value)


def test_a_program_that_never_calls_close_exits_at_once(tmp_path):
    # The engine's drain waits up to 5 s for a client still connected:
    # the exit closes the Client's channel first.
    script = textwrap.dedent(f"""
        import time, hptune
        study = hptune.Client.local({str(tmp_path / 'e.db')!r}).study(
            "exit", {SPEC!r})
        study.suggest()[0].complete(0.5)
        print(time.time(), flush=True)
    """)
    done = subprocess.run([sys.executable, "-c", script], text=True,
                          capture_output=True, timeout=120)
    exited = time.time()
    assert done.returncode == 0, done.stderr
    assert exited - float(done.stdout) < 2.5  # 5.4 s before the fix


def test_two_programs_optimise_one_study_through_client_local(tmp_path):
    # No server started by hand: the first Client.local(path) starts one,
    # the other joins it, and the first's exit waits for the other.
    db, go = str(tmp_path / "shared.db"), tmp_path / "go"
    script = textwrap.dedent(f"""
        import os, sys, time, hptune
        client = hptune.Client.local({db!r})
        study = client.study("shared", {OPEN_SPEC!r})
        while not os.path.exists({str(go)!r}):  # until both have started
            time.sleep(0.01)
        study.optimize(lambda t: t.suggest_float("x", 0, 1),
                       n_trials=int(sys.argv[1]))
        print(client.server)
    """)
    env = dict(os.environ, XDG_RUNTIME_DIR=str(tmp_path))
    programs = [subprocess.Popen([sys.executable, "-c", script, str(n)],
                                 env=env, stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, text=True)
                for n in (4, 7)]
    joined = db + ".hptune-local.d"
    poll_until(lambda: os.path.isdir(joined) and os.listdir(joined),
               what="the second program joining the first's engine")
    go.touch()  # the second program has joined the first's engine
    servers = []
    for program in programs:
        out, err = program.communicate(timeout=120)
        assert program.returncode == 0, err
        servers.append(out.strip())
    assert servers[0] == servers[1]  # one engine served both
    with hptune.Client.local(db) as client:
        trials = client.load_study("shared").trials()
    assert sorted(t.id for t in trials) == list(range(1, 12))
    assert all(t.state == "SUCCEEDED" for t in trials)
    assert sorted(Counter(t.client_id.split("/")[0]
                          for t in trials).values()) == [4, 7]
    with hptune.Client.local(db) as first:  # In one program too.
        with hptune.Client.local(db) as second:
            assert second.server == first.server
            second.study("shared", OPEN_SPEC).suggest()[0].complete(0.5)


def test_two_programs_optimise_one_study_through_one_server(server_factory):
    directory = tempfile.mkdtemp(prefix="hptune-")  # a short socket path
    path = os.path.join(directory, "s.sock")
    server_factory(["--socket", path]).start()
    script = textwrap.dedent(f"""
        import hptune
        config = dict({SPEC!r}, maxTrials=6, maxParallelTrials=2)
        study = hptune.Client("unix:{path}").study("shared", config)
        study.optimize(lambda t: t.suggest_float("x", 0, 1), n_trials=3)
    """)
    env = {k: v for k, v in os.environ.items() if k != "HPTUNE_TOKEN"}
    programs = [subprocess.Popen([sys.executable, "-c", script], env=env,
                                 stderr=subprocess.PIPE, text=True)
                for _ in range(2)]
    for program in programs:
        assert program.wait(timeout=120) == 0, program.stderr.read()
    with hptune.Client("unix:" + path) as client:
        trials = client.load_study("shared").trials()
    assert sorted(t.client_id.split("/")[0] for t in trials) == sorted(
        [f"{socket.gethostname()}:{p.pid}" for p in programs] * 3)
    shutil.rmtree(directory, ignore_errors=True)


def test_worker_processes_of_a_module_level_client_share_its_engine(
        tmp_path):
    # README's pattern with n_workers: each spawned worker re-imports the
    # script, Client.local included.
    (tmp_path / "script.py").write_text(textwrap.dedent(f"""
        import hptune
        study = hptune.Client.local("w.db").study("w", {SPEC!r})

        def objective(trial):
            return trial.suggest_float("x", 0, 1)

        if __name__ == "__main__":
            study.optimize(objective, n_trials=3, n_workers=2)
            print(len(study.trials()))
    """))
    done = subprocess.run([sys.executable, "script.py"], cwd=tmp_path,
                          text=True, capture_output=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["3"]
