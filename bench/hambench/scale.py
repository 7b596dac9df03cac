"""Case `scale`: the driver alone, at the size of a large HPC job, with the runners' cost taken
out. No Slurm: one JVM per configuration runs a real HAM driver (as the `hadoop jar` client
does, with the job's production logging: driver lines to driver.log) for a synthetic job of
`maps` empty splits, and `runners` simulated runners (threads in one JVM per 1,000, started by
the driver's own local launcher) speak the real umbilical protocol with the job token but do
no task work. The harness is Java test code (mapreduce/src/test/java/.../driver/ScaleBench.java
and SimRunners.java); this module runs it for each configuration and keeps its JSON.

Every configuration of `scale_maps` x `scale_runners` is one sample (variant
`m<maps>-r<runners>`); each round runs them all, smallest first. One runner hangs with an
attempt in hand half-way through each job (`lost_detect_s`: until the driver ends its attempt,
with ham.heartbeat.timeout.ms = `scale_heartbeat_ms`).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

from hambench import localconf
from hambench.util import REPO, WORK, BenchError, log

SCALE = WORK / "scale"
TEST_CLASSES = REPO / "mapreduce" / "target" / "test-classes"
CLASSES_SNAPSHOT = WORK / "scale-classes"
MAIN = "io.github.ham.mapreduce.driver.ScaleBench"
DRIVER_NICE = 10
# Maps of the warm-up job run before the measured one in the same JVM, so that the measured job
# runs on JIT-compiled code as a long job's driver does. With 2,000 the JIT still compiled for
# 16 s of the measured 100k-map job (driver_jit_ms) and its first 15 s ran at twice the
# steady cost of a dispatch; with 20,000, 10 s and the first 6 s.
WARMUP_MAPS = 20_000


def variant(maps: int, runners: int) -> str:
    return f"m{maps}-r{runners}"


def parse_variant(v: str) -> tuple[int, int]:
    m, r = v[1:].split("-r")
    return int(m), int(r)


# Case `load`: kinds of map (ScaleBench --commit) and their round trips to the driver a task.
LOAD_KINDS = ("commit", "nocommit")


def load_variant(kind: str, runners: int, offered: int) -> str:
    return f"{kind}-r{runners}-o{offered}"


def parse_load_variant(v: str) -> tuple[str, int, int]:
    kind, r, o = v.split("-")
    return kind, int(r[1:]), int(o[1:])


def load_task_ms(runners: int, offered: int) -> int:
    """A task's mean time that makes `runners` runners offer `offered` tasks a second."""
    return round(runners * 1000 / offered) if offered else 0


def load_params_problem(maps: int, kinds: list[str], runners: list[int],
                        offered: list[int]) -> str | None:
    """What makes the load case's parameters unusable, in one line, or None."""
    for name, values in (("--load-kinds", kinds), ("--scale-runners", runners),
                         ("--load-offered", offered)):
        if not values:
            return f"{name} is empty: give at least one value"
        if len(set(values)) != len(values):
            return f"{name} repeats a value: {','.join(map(str, values))}"
    if maps < 1 or min(runners) < 1:
        return "--load-maps and --scale-runners must be at least 1"
    if min(offered) < 0:
        return "--load-offered must be 0 (runners ask again at once) or a rate in tasks/s"
    for r in runners:
        for o in offered:
            if o and load_task_ms(r, o) < 1:
                return (f"--load-offered {o} with {r} runners makes tasks of under 1 ms: "
                        f"offer at most {r * 1000} tasks/s")
    return None


def snapshot_classes() -> Path:
    """The harness's classes, copied like the bundle, so that a rebuild cannot change a run."""
    if not (TEST_CLASSES / "io/github/ham/mapreduce/driver/ScaleBench.class").is_file():
        raise BenchError(f"{TEST_CLASSES} has no ScaleBench: mvn -q -f mapreduce/pom.xml package")
    shutil.rmtree(CLASSES_SNAPSHOT, ignore_errors=True)
    shutil.copytree(TEST_CLASSES, CLASSES_SNAPSHOT)
    return CLASSES_SNAPSHOT


def _conf_dir(dist: Path, tag: str) -> Path:
    """The driver JVM's log4j.properties, rendered from HAM's own template as `ham run` does
    (the client's lines on the console, the driver's, one per task, in driver.log), and HAM's
    core-site."""
    from ham import render
    from ham.jobconf import DRIVER_LOG_APPENDER, DRIVER_LOGGERS
    d = SCALE / "conf" / tag
    d.mkdir(parents=True, exist_ok=True)
    (d / "log4j.properties").write_text(render.render(
        "log4j.properties.j2", level="INFO", driver_log=str(SCALE / "logs" / f"{tag}.driver.log"),
        driver_appender=DRIVER_LOG_APPENDER, driver_loggers=DRIVER_LOGGERS))
    # The core-site a HAM job's client gets (its buffers and local file system), which the
    # driver's history and status files are written through.
    (d / "core-site.xml").write_text(localconf.site(localconf.core_site()))
    return d


def classpath(dist: Path, classes: Path, conf: Path) -> str:
    hadoop_cp = subprocess.run([str(dist / "bin" / "hadoop"), "classpath"], check=True,
                               capture_output=True, text=True,
                               env={**os.environ, "HADOOP_CONF_DIR": str(conf)}).stdout.strip()
    return ":".join([str(conf), str(classes), hadoop_cp])


def run_one(dist: Path, classes: Path, tag: str, maps: int, runners: int, hang: int,
            heartbeat_ms: int, warmup: int = WARMUP_MAPS, extra_conf: list[str] | None = None,
            connect_ramp_ms: int = -1, timeout: float = 3600,
            client_jit: str = "tiered", sim_warmup: int = 0,
            extra_args: list[str] | None = None) -> dict[str, Any]:
    """One configuration in a fresh JVM; returns ScaleBench's JSON ({metrics, config,
    failures, done_per_10ms}). The driver's JVM runs at nice DRIVER_NICE (the machine is
    shared) and ScaleBench starts the runner JVMs 9 below it, at 19: a driver at 19 would leave
    its runners nowhere lower to go (nice stops at 19), and the two would share the cores
    evenly, where real runners have nodes of their own."""
    conf = _conf_dir(dist, tag)
    out = SCALE / f"{tag}.json"
    out.unlink(missing_ok=True)
    logf = SCALE / "logs" / f"{tag}.log"
    logf.parent.mkdir(parents=True, exist_ok=True)
    java = Path(os.environ["JAVA_HOME"]) / "bin" / "java" if os.environ.get("JAVA_HOME") \
        else "java"
    from ham.session import CLIENT_JIT_OPTS
    argv = ["nice", "-n", str(DRIVER_NICE), str(java), *CLIENT_JIT_OPTS[client_jit].split(),
            f"-Dlog4j.configuration=file:{conf}/log4j.properties",
            "-cp", classpath(dist, classes, conf), MAIN,
            "--maps", str(maps), "--runners", str(runners), "--hang", str(hang),
            "--heartbeat-ms", str(heartbeat_ms), "--warmup", str(warmup),
            "--connect-ramp-ms", str(connect_ramp_ms), "--sim-warmup", str(sim_warmup),
            "--work", str(SCALE / "run" / tag), "--out", str(out)]
    for c in extra_conf or []:
        argv += ["--conf", c]
    argv += extra_args or []
    with logf.open("w") as f:
        f.write("$ " + " ".join(argv) + "\n")
        f.flush()
        rc = subprocess.run(argv, stdout=f, stderr=subprocess.STDOUT, timeout=timeout).returncode
    if rc != 0 or not out.is_file():
        tail = "\n".join(logf.read_text(errors="replace").splitlines()[-15:])
        raise BenchError(f"scale {tag}: ScaleBench failed (rc={rc}); log {logf}\n{tail}")
    shutil.rmtree(SCALE / "run" / tag, ignore_errors=True)
    res = json.loads(out.read_text())
    m = res["metrics"]
    if m.get("succeeded") != 1 or m.get("tasks_done", 0) < maps:
        raise BenchError(f"scale {tag}: the job did not succeed ({m.get('tasks_done')} of {maps} "
                         f"maps done, {m.get('runners_connected')} of {runners} runners "
                         f"connected, {m.get('rpc_errors')} RPC errors); log {logf}; "
                         f"first failures: {res.get('failures', [])[:2]}")
    return res


def timeline(res: dict[str, Any]) -> dict[str, list[int]]:
    """Per second from go: first runs done and the driver's CPU (ms), from ScaleBench's
    10 ms and 1 s series (a dispatch's cost over the job: warm-up, work that grows)."""
    done = res.get("done_per_10ms", [])
    return {"done_per_s": [sum(done[i:i + 100]) for i in range(0, len(done), 100)],
            "driver_cpu_ms_per_s": res.get("driver_cpu_ms_per_s", [])}


def _record(record: Any, case: str, v: str, rnd: int, res: dict[str, Any],
            **more: float) -> None:
    """One configuration's sample: ScaleBench's numeric metrics and `more`, and as info its
    split by thread, configuration, failures and timeline."""
    metrics = {k: x for k, x in res["metrics"].items() if isinstance(x, (int, float))}
    record(case, v, rnd, {**metrics, **more},
           {"thread_cpu_ms_per_dispatch": res["metrics"]["thread_cpu_ms_per_dispatch"],
            "config": res["config"], "failures": res["failures"], "timeline": timeline(res)})


def configs(maps: list[int], runners: list[int]) -> list[tuple[int, int]]:
    return sorted(((m, r) for m in maps for r in runners), key=lambda x: (x[0] * x[1], x))


def run_round(dist: Path, classes: Path, rnd: int, maps: list[int], runners: list[int],
              heartbeat_ms: int, record: Any, extra_conf: list[str] | None = None,
              connect_ramp_ms: int = -1, client_jit: str = "tiered",
              sim_warmup: int = 0) -> None:
    for m, r in configs(maps, runners):
        v = variant(m, r)
        try:
            res = run_one(dist, classes, f"r{rnd}-{v}", m, r, hang=1, heartbeat_ms=heartbeat_ms,
                          extra_conf=extra_conf, connect_ramp_ms=connect_ramp_ms,
                          client_jit=client_jit, sim_warmup=sim_warmup)
            # the runners' first calls' spread (their own pacing, or the bench's ramp): part
            # of connect_s
            _record(record, "scale", v, rnd, res,
                    connect_ramp_s=res["config"].get("connect_ramp_ms", 0) / 1000)
        except Exception as e:  # noqa: BLE001 - one configuration failing is a result
            record("scale", v, rnd, error=str(e))
        log(f"  scale {v} done")


def run_load_round(dist: Path, classes: Path, rnd: int, p: Any, record: Any,
                   extra_conf: list[str] | None = None) -> None:
    """Case `load`: for each kind of map, runner count and offered load, the driver's CPU a
    dispatch and the task requests' latency as the runners see it, a runner's first request
    (the burst at go, when every runner asks at once) apart from the others. No runner hangs
    (a hang would hold each job's end for the heartbeat timeout)."""
    for kind in p.load_kinds:
        for r in sorted(p.scale_runners):
            for offered in p.load_offered:
                v = load_variant(kind, r, offered)
                try:
                    res = run_one(dist, classes, f"r{rnd}-load-{v}", p.load_maps, r, hang=0,
                                  heartbeat_ms=p.scale_heartbeat_ms, extra_conf=extra_conf,
                                  connect_ramp_ms=p.scale_connect_ramp_ms,
                                  client_jit=p.scale_client_jit, sim_warmup=p.scale_sim_warmup,
                                  extra_args=["--commit", str(kind == "commit").lower(),
                                              "--task-ms", str(load_task_ms(r, offered))])
                    _record(record, "load", v, rnd, res, task_ms=load_task_ms(r, offered),
                            connect_ramp_s=res["config"].get("connect_ramp_ms", 0) / 1000)
                except Exception as e:  # noqa: BLE001 - one configuration failing is a result
                    record("load", v, rnd, error=str(e))
                log(f"  load {v} done")
