"""The runner profile's summary (bench/hambench/apsummary.py): CPU per task from async-profiler's
collapsed stacks, by thread and by phase of the task loop."""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))

from hambench import apsummary  # noqa: E402

LOOP = "java/lang/Thread.run;io/github/ham/mapreduce/runner/TaskRunner.loop"


def make_run(root: Path, name: str, runner_pid: int, ipc_port: int) -> Path:
    run = root / name
    (run / "ap").mkdir(parents=True)
    (run / "ap" / f"runner-{runner_pid}.txt").write_text("\n".join([
        f"[main tid={runner_pid}];io/github/ham/mapreduce/runner/TaskRunner.main 5",  # start-up
        f"[main tid={runner_pid}];{LOOP};org/apache/hadoop/mapred/Task.done 30",
        f"[main tid={runner_pid}];{LOOP};io/github/ham/mapreduce/runner/TaskSetup.configure 10",
        f"[IPC Client (1845066581) connection to vm/10.200.0.1:{ipc_port} from job_17_0001 "
        f"tid={runner_pid + 9}];java/lang/Thread.run 20",
        f"[tid={runner_pid + 3}];CompileBroker::compiler_thread_loop 4",
    ]) + "\n")
    status = run / "root" / "1" / "jobs" / "job_17_0001" / "status.json"
    status.parent.mkdir(parents=True)
    status.write_text(json.dumps({"attempts": [
        {"type": "MAP", "state": "SUCCEEDED", "start": 0, "finish": 10},
        {"type": "MAP", "state": "SUCCEEDED", "start": 5, "finish": 25}]}))
    return run


def test_threads_are_named_alike_across_runners_and_cpu_is_per_task(tmp_path: Path) -> None:
    a = apsummary.read_run(make_run(tmp_path, "default-1", 1514, 45937))
    b = apsummary.read_run(make_run(tmp_path, "default-2", 2222, 40001))
    assert a["threads_ms"].keys() == b["threads_ms"].keys()
    ipc = "IPC Client (N) connection to vm/N.N.N.N:N from job_N_N"
    assert a["threads_ms"][ipc] == 20 and a["threads_ms"]["tid=N"] == 4
    assert a["tasks"] == 2
    assert a["cpu_ms_per_task_main"] == 20.0  # 40 samples in the loop, not the 5 of start-up
    assert a["cpu_ms_per_task_all_threads"] == 32.0
    assert a["phases_ms"]["Task.done (commit, final status)"] == 30
    md = apsummary.markdown([a, b], "cmd")
    assert f"| {ipc} | 10.00 |" in md
    assert "| default | 32.00 / 20.00 | 32.00 / 20.00 |" in md
