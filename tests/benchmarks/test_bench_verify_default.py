"""benchmarks.bench_verify_default: the command a user types, and the ratios to the serial run."""

from benchmarks import bench_verify_default as bench


def test_default_run_is_the_command_without_an_executor():
    serial, default = bench.command("4_2", 2, "serial"), bench.command("4_2", 2, "default")
    assert serial[:-2] == default and "--executor" not in default
    assert default[-2:] == ["--timeout", str(bench.LIMIT_S)] and default[3] == "verify"


def test_ratios_are_to_the_serial_run_of_the_same_instance(monkeypatch, tmp_path):
    times = {"serial": (40.0, 30.0), "default": (20.0, 33.0)}

    def fake(net, prop, executor, limit):
        wall, cpu = times[executor]
        return {"instance": f"{net} prop_{prop}", "executor": executor, "wall s": wall, "CPU s": cpu}

    monkeypatch.setattr(bench, "DATA", tmp_path)
    monkeypatch.setattr(bench, "measure", fake)
    rows = bench.run([("1_1", 3)])
    assert [r["executor"] for r in rows] == ["serial", "default"]
    assert (rows[1]["speedup"], rows[1]["cpu_over_serial"]) == (2.0, 1.1)
    assert (rows[0]["speedup"], rows[0]["cpu_over_serial"]) == (1.0, 1.0)
