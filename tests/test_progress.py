"""sim.jit.progress: what a first compile tells the user (entry, expected time, progress, the time it took), and the
times it remembers, with numba's compile events played by stand-in dispatchers (no compile)."""

import json
import time

from sim.jit import parts, progress


class KernelDispatcher:  # the listener reports on numjoco's dispatcher class only, by name
    def __init__(self, name):
        def f():
            """What this entry computes: a test stand-in."""

        f.__name__ = name
        self.py_func = f


class _Event:
    def __init__(self, disp):
        self.data = {"dispatcher": disp}


def _compile(listener, entry, nkernel, seconds):
    top = KernelDispatcher(entry)
    listener.on_start(_Event(top))
    for i in range(nkernel - 1):
        k = KernelDispatcher("kernel%d" % i)
        listener.on_start(_Event(k))
        listener.on_end(_Event(k))
    time.sleep(seconds)
    listener.on_end(_Event(top))


def test_messages_and_records(tmp_path, monkeypatch, capsys):
    record = tmp_path / "compile_times.json"
    monkeypatch.setattr(progress, "_record_path", lambda: str(record))
    monkeypatch.setattr(progress, "QUIET", False)
    monkeypatch.setattr(progress, "DELAY", 0.05)
    monkeypatch.setattr(progress, "EVERY", 0.1)
    monkeypatch.setattr(progress, "_HEADER", True)
    listener = progress._Listener()

    # first entry of a process: the typical figure of a compile from scratch (15 s -> 10-22 s), and the stages
    # a worker process compiles meanwhile (sim/jit/parts.py)
    monkeypatch.setattr(parts, "_PART_WORKERS", {"numjoco_part_a": None, "numjoco_part_b": None})
    _compile(listener, "run_batch", 150, 0.4)
    monkeypatch.setattr(parts, "_PART_WORKERS", {})
    err = capsys.readouterr().err
    assert (
        "numjoco: compiling run_batch (What this entry computes), typically 10-22 s on 2 cores; 2 stage(s) "
        "compiling in a second process ..."
    ) in err
    assert "numjoco:   ... 150 kernels compiled" in err
    assert "numjoco: compiled run_batch in 0 s (150 kernels)" in err
    rec = json.loads(record.read_text())
    assert rec["run_batch"]["kernels"] == 150 and rec["run_batch"]["seconds"] >= 0.4

    # an entry after 150 kernels compiled in this process shares them: its own figure (10 s -> 7-15 s), its
    # own record
    _compile(listener, "run_serial", 20, 0.2)
    err = capsys.readouterr().err
    assert "numjoco: compiling run_serial (What this entry computes), typically 7-15 s on 2 cores ..." in err
    rec = json.loads(record.read_text())
    assert rec["run_serial/shared"]["kernels"] == 20 and "run_serial" not in rec

    # a later process reads the record of the same situation: 'about <recorded> s last time', 'n/total'
    listener = progress._Listener()
    _compile(listener, "run_batch", 150, 0.3)
    err = capsys.readouterr().err
    assert "numjoco: compiling run_batch (What this entry computes), about 0 s last time ..." in err
    assert "150/150 kernels compiled" in err

    # an entry without a figure of its own after others: the figure of the entry (render_frames 25 s -> 18-38 s)
    _compile(listener, "render_frames", 5, 0.2)
    assert (
        "numjoco: compiling render_frames (What this entry computes), typically 18-38 s on 2 cores ..."
        in capsys.readouterr().err
    )

    # a short compile (under DELAY) says nothing and records nothing
    _compile(listener, "smooth_position", 3, 0.0)
    assert capsys.readouterr().err == ""
    assert "smooth_position" not in json.loads(record.read_text())
