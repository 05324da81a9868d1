"""``--executor``: the same output, byte for byte, in this process, in local processes and on
a Dask cluster on the loopback address (the Dask tests skip without ``distributed``); a worker
killed mid-run changes nothing, or the run stops with a clear error and writes nothing."""

import json
import os
import re
import signal
import sys
import threading
import time

import pytest

from symrel.cli.executors import open_executor, parse_executor

from ..statements.toy_scripts import script_dir  # noqa: F401  (a fixture)

@pytest.mark.parametrize("spec", ["threads", "processes:0", "processes:x", "dask://nohost", "dask-local:-1", "serial:2"])
def test_bad_specs_exit_2_naming_the_option(run_cli, tmp_path, spec):
    code, out, err = run_cli("mutate", "--prover", "relations", "--executor", spec)
    assert code == 2 and "--executor" in err and len(err.strip().splitlines()) == 1


def test_jobs_and_executor_together_is_an_error(run_cli, tmp_path):
    code, out, err = run_cli("proofs", tmp_path, "--jobs", "2", "--executor", "serial", "--out", tmp_path / "o")
    assert code == 2 and "--jobs" in err


def test_without_distributed_the_dask_executors_say_how_to_install(run_cli, monkeypatch):
    monkeypatch.setitem(sys.modules, "distributed", None)  # import distributed -> ImportError
    for spec in ("dask-local:1", "dask://127.0.0.1:8786"):
        code, out, err = run_cli("mutate", "--prover", "relations", "--executor", spec)
        assert code == 2 and "pip install 'symrel[dask]'" in err


def test_parse():
    assert parse_executor("serial") == ("serial", None)
    assert parse_executor("processes") == ("processes", None)
    assert parse_executor("dask-local:2") == ("dask-local", 2)
    assert parse_executor("dask://[::1]:8786") == ("dask", "tcp://[::1]:8786")


@pytest.fixture
def region_files(tmp_path):
    """A 2-8-8-1 ReLU net (79 cells) on [-1, 1]^2: its frontier for 2 workers has 67 nodes, each a subtree for the workers."""
    import random

    from symrel.fileformat import save
    from symrel.models import Box
    from symrel.constructions.random import random_relu_net

    m, d = tmp_path / "net.json", tmp_path / "box.json"
    save(random_relu_net(random.Random(4), 2, [8, 8], max_num=5, max_den=3), m)
    save(Box.cube(2), d)
    return m, d


def _regions(run_cli, files, tmp_path, tag, *extra):
    m, d = files
    cert = tmp_path / f"cert-{tag}.json"
    code, out, err = run_cli("regions", m, "--domain", d, "--json", "--certificate", cert, *extra)
    assert code == 0, err
    obj = json.loads(out)
    for key in ("time", "seconds", "stats"):
        obj.pop(key, None)
    return obj, cert.read_bytes()


def _mutate(run_cli, *extra):
    code, out, err = run_cli("mutate", "--prover", "equivalence", "--prover", "relations", "--per-instance", "3",
                             "--json", *extra)
    assert code == 0, err
    return out


def _untimed(text: str) -> str:
    return re.sub(r"\d+(\.\d+)?\s?(s|ms)\b", "T", text)  # \s: a report puts a no-break space before the unit


def _proofs(run_cli, folder, out, *extra):
    code, text, err = run_cli("proofs", folder, "--out", out, "--format", "md,json", "--quiet", *extra)
    files = {p.relative_to(out).as_posix(): _untimed(p.read_text().replace(str(out), "OUT"))
             for p in sorted(out.rglob("*")) if p.is_file()}
    return code, _untimed(text.replace(str(out), "OUT")), files


def test_local_processes_give_the_serial_output(run_cli, region_files, tmp_path):
    assert _regions(run_cli, region_files, tmp_path, "s") == _regions(run_cli, region_files, tmp_path, "p",
                                                                       "--executor", "processes:2")


# -- Dask -------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def dask_cluster():
    distributed = pytest.importorskip("distributed")
    import logging

    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                                       dashboard_address=None, silence_logs=logging.CRITICAL)
    client = distributed.Client(cluster, set_as_default=False)
    yield cluster, client
    client.close()
    cluster.close()


def _spec(cluster):
    return "dask://" + cluster.scheduler_address.removeprefix("tcp://")


def test_the_cluster_listens_on_loopback_only(dask_cluster):
    cluster, client = dask_cluster
    addresses = [cluster.scheduler_address] + list(client.scheduler_info()["workers"])
    assert all(a.startswith("tcp://127.0.0.1:") for a in addresses)


def test_regions_on_dask_are_the_serial_ones(run_cli, region_files, tmp_path, dask_cluster):
    serial = _regions(run_cli, region_files, tmp_path, "s")
    assert serial[0]["count"] > 1
    assert _regions(run_cli, region_files, tmp_path, "d", "--executor", _spec(dask_cluster[0])) == serial


def test_mutate_on_dask_is_the_serial_one(run_cli, dask_cluster):
    assert _mutate(run_cli, "--executor", _spec(dask_cluster[0])) == _mutate(run_cli, "--executor", "serial")


def test_proofs_on_dask_are_the_serial_ones(run_cli, script_dir, tmp_path, dask_cluster):  # noqa: F811
    serial = _proofs(run_cli, script_dir, tmp_path / "out-serial", "--executor", "serial")
    assert serial[0] == 1 and any(name.endswith(".json") for name in serial[2])  # a refuted and a crashing script
    assert _proofs(run_cli, script_dir, tmp_path / "out-dask", "--executor", _spec(dask_cluster[0])) == serial


@pytest.fixture
def other_files(tmp_path):
    from symrel.compiler import compile_maxout
    from symrel.fileformat import save
    from symrel.models import Box, MaxoutLayer, MaxoutNet, MaxoutUnit
    from symrel.preorders.generators import random_retrieval_task

    net = MaxoutNet(1, [MaxoutLayer([MaxoutUnit([[1], [-1]], [0, 0])])])
    D = Box([[-1, 1]])
    save(compile_maxout(net, D).transformer, tmp_path / "T.json")
    save(D, tmp_path / "D.json")
    save(net, tmp_path / "net.json")
    save(random_retrieval_task(6, 8, seed=3), tmp_path / "task.json")
    return tmp_path


def _other_commands(run_cli, f, tmp_path, spec):
    """crossval, softmax-bound --check, retrieval and prove --complete: their JSON, without times."""
    pytest.importorskip("numpy")
    runs = [("crossval", f / "net.json", "--points", "40"),
            ("softmax-bound", f / "T.json", "--domain", f / "D.json", "--eps", "1/1000", "--check", "12"),
            ("retrieval", f / "task.json", "--max-subset", "2"),
            ("prove", f / "net.json", f / "T.json", "--domain", f / "D.json", "--complete")]
    out = []
    for argv in runs:
        code, text, err = run_cli(*argv, "--json", "--executor", spec)
        out.append((code, _untimed(text)))
    return out


def test_the_other_commands_on_dask_are_the_serial_ones(run_cli, other_files, tmp_path, dask_cluster):
    serial = _other_commands(run_cli, other_files, tmp_path, "serial")
    assert [code for code, _ in serial] == [0, 0, 0, 0]
    assert _other_commands(run_cli, other_files, tmp_path, _spec(dask_cluster[0])) == serial


def test_dask_local_starts_and_closes_its_cluster(run_cli):
    pytest.importorskip("distributed")
    with open_executor("dask-local:1") as ex:
        client = ex._client
        assert client.scheduler.address.startswith("tcp://127.0.0.1:")
    assert client.status == "closed"


def _kill_a_busy_worker(client):
    """Start a thread that SIGKILLs the first worker seen with a task; returns (stop, join)
    where join() gives the addresses killed."""
    pids = client.run(os.getpid)
    killed, finished = [], threading.Event()

    def kill_when_busy():
        while not finished.is_set():
            busy = [w for w, tasks in client.processing().items() if tasks]
            if busy:
                os.kill(pids[busy[0]], signal.SIGKILL)
                killed.append(busy[0])
                return
            time.sleep(0.01)

    thread = threading.Thread(target=kill_when_busy)
    thread.start()

    def join():
        finished.set()
        thread.join()
        return killed

    return join


def _wait_for_workers(client, n=2):
    client.wait_for_workers(n, timeout=60)  # the nanny restarts a killed worker


def test_a_worker_killed_mid_run_changes_nothing(run_cli, tmp_path, dask_cluster):
    """Dask runs the killed worker's tasks again on the other one: the run finishes with
    the serial output (an error with nothing written is the other allowed outcome, and
    happens only when the tasks keep killing workers: tests/test_parallel.py)."""
    cluster, client = dask_cluster
    serial = _mutate(run_cli)
    _wait_for_workers(client)
    join = _kill_a_busy_worker(client)
    out_file = tmp_path / "mutation.md"
    code, out, err = run_cli("mutate", "--prover", "equivalence", "--prover", "relations", "--per-instance", "3",
                             "--json", "--out", out_file, "--executor", _spec(cluster))
    assert join(), "no worker was busy"
    assert code == 0, err
    assert out == serial and out_file.exists()


SLOW = """
import time
from symrel.certificates import Proof, Step, PROVED
from symrel.report import Statement, Instance

STATEMENT = Statement("toy-slow", "A", "Toy 5", "x >= 0 on [0, 1], slowly", "paper", "symrel", "narrowing")

def run():
    time.sleep(1)  # long enough for the test to kill the worker running it
    p = Proof("for all x in [0,1]: x >= 0")
    p.add(Step("x >= 0 on [0,1]", "affine-bound-box", {"lower": 0, "upper": 1}, PROVED))
    yield Instance("k=1", p)
"""


def test_a_worker_killed_during_proofs_changes_nothing(run_cli, script_dir, tmp_path, dask_cluster):  # noqa: F811
    """``symrel proofs`` after a lost worker: its statements run again, every report and the
    index are the serial ones, and no staging folder is left beside the output."""
    cluster, client = dask_cluster
    (script_dir / "a_slow.py").write_text(SLOW)
    (script_dir / "e_slow.py").write_text(SLOW.replace("toy-slow", "toy-slow-2"))
    serial = _proofs(run_cli, script_dir, tmp_path / "out-serial", "--executor", "serial")
    _wait_for_workers(client)
    join = _kill_a_busy_worker(client)
    killed_run = _proofs(run_cli, script_dir, tmp_path / "out-dask", "--executor", _spec(cluster))
    assert join(), "no worker was busy"
    assert killed_run == serial and "index.md" in serial[2]
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".")) == []
    _wait_for_workers(client)


def test_workers_preload_the_symrel_packages_this_process_uses():
    import symrel.regions  # noqa: F401
    from symrel.cli.executors import worker_modules

    names = worker_modules()
    assert "symrel.regions" in names and "symrel.exact" in names
    assert not any(n.startswith("symrel.cli") for n in names) and all(n.count(".") == 1 for n in names)


def test_a_dask_local_cluster_has_symrel_imported_before_the_work(tmp_path):
    pytest.importorskip("distributed")
    with open_executor("dask-local:1", preload=["symrel.regions"]) as ex:
        loaded = ex._client.run(lambda: "symrel.regions" in sys.modules)
    assert list(loaded.values()) == [True]
