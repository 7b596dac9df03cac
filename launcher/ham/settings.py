"""HAM settings: one table, one resolver.

Precedence, later wins: defaults < site file < user file < HAM_* environment < command-line flags.
Both files are TOML with flat keys, e.g. ``shared_root = "/lustre/scratch/ham"``.
Every resolved value remembers where it came from (`ham config show`).
"""

from __future__ import annotations

import logging
import os
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Mapping

from ham import contract, java, lustre, network, render
from ham.errors import SettingsError
from ham.slurm import time_limit_seconds

log = logging.getLogger(__name__)

SITE_FILE = Path("/etc/ham/ham.toml")
USER_FILE = Path("~/.config/ham/ham.toml")
ENV_PREFIX = "HAM_"


def _parse_str(v: Any) -> str:
    if not isinstance(v, str):
        raise ValueError("expected a string")
    # Refused here, before anything is submitted, rather than when the job's XML is written.
    if bad := render.NOT_XML.search(v):
        raise ValueError(f"character U+{ord(bad.group()):04X} at position {bad.start()} cannot "
                         f"be in a Hadoop XML configuration: remove it")
    return v


def _parse_path(v: Any) -> str:
    v = _parse_str(v)
    return os.path.expanduser(v) if v else v


def _parse_time(v: Any) -> str:
    v = _parse_str(v)
    time_limit_seconds(v)  # ValueError says what is wrong
    return v


def _parse_job_root(v: Any) -> str:
    """shared_root: where jobs' directories go, so a path Hadoop can keep a job's files under.
    Hadoop reads a map output's index by its URI's raw (percent-encoded) path (SpillRecord), so
    a space breaks every job's shuffle there; ':' is not allowed in a Hadoop path's names."""
    v = _parse_path(v)
    if not v.strip():
        raise ValueError("expected a directory, not an empty value (unset HAM_SHARED_ROOT "
                         "rather than setting it empty)")
    if re.search(r"[\s%:]", v) or not v.isascii():
        raise ValueError("Hadoop cannot keep a job's files under a path with spaces, '%', ':' or "
                         "non-ASCII characters (its map outputs are read by their encoded URI): "
                         "choose a directory without them")
    return v


def _parse_local_dir(v: Any) -> str:
    """runner_local_dir: a directory every node has (the runners' working directories), or
    'none' for the job's directory on the shared file system (a word, not an empty value:
    Hadoop reads an empty XML value as unset, which is the default); job.xml and the cache's
    links are named by their path there, so the same characters as shared_root are refused."""
    v = _parse_path(v)
    if v == "none":
        return v
    if not v.startswith("/"):
        raise ValueError("expected an absolute directory that every node has (such as /tmp), "
                         "or none for the job's directory on the shared file system")
    if re.search(r"[\s%:]", v) or not v.isascii():
        raise ValueError("Hadoop cannot name a task's files under a path with spaces, '%', ':' "
                         "or non-ASCII characters: choose a directory without them")
    return v


def _parse_bool(v: Any) -> bool:
    """A TOML boolean, or true/false in any case (HAM_<KEY> variables are strings)."""
    if isinstance(v, bool):
        return v
    if isinstance(v, str) and v.lower() in ("true", "false"):
        return v.lower() == "true"
    raise ValueError("expected true or false")


def _parse_int(minimum: int) -> Callable[[Any], int]:
    def parse(v: Any) -> int:
        if isinstance(v, (bool, float)):  # TOML's 1.5 would become 1 without a word
            raise ValueError("expected an integer")
        try:
            n = int(v)
        except (TypeError, ValueError):
            raise ValueError("expected an integer") from None
        if n < minimum:
            raise ValueError(f"expected an integer >= {minimum}")
        return n

    return parse


def _parse_choice(*choices: str) -> Callable[[Any], str]:
    def parse(v: Any) -> str:
        if v not in choices:
            raise ValueError(f"expected one of {', '.join(choices)}")
        return v

    return parse


@dataclass(frozen=True)
class Setting:
    key: str
    default: Any
    parse: Callable[[Any], Any]
    help: str

    @property
    def env_var(self) -> str:
        return ENV_PREFIX + self.key.upper()


SCHEMA: tuple[Setting, ...] = (
    Setting("shared_root", "~/ham-jobs", _parse_job_root,
            "Directory on the shared file system (Lustre) under which per-job directories "
            "<shared_root>/<user>/<slurm job id> are created. Must be visible on every node."),
    Setting("hadoop", "auto", _parse_choice("auto", "bundled", "site"),
            "Which Hadoop runs jobs: 'site' (hadoop_home, $HADOOP_HOME or `hadoop` on PATH), "
            "'bundled' (the Hadoop 3.4.2 client built with HAM), or 'auto' (site if found)."),
    Setting("hadoop_home", "", _parse_path,
            "Site Hadoop installation (contains bin/hadoop). Empty: $HADOOP_HOME, then `hadoop` on PATH."),
    Setting("bundle_dir", "", _parse_path,
            "Directory of the bundled Hadoop client: a Hadoop installation's layout (bin/, "
            "etc/hadoop, share/hadoop) with ham-mapreduce.jar at its top. Empty: found next "
            "to the installed package."),
    Setting("java_home", "", _parse_path,
            "Java installation used for Hadoop. Empty: $JAVA_HOME, then `java` on PATH."),
    Setting("filesystem", "file", _parse_choice("file", "lustre"),
            "Default file system of jobs (fs.defaultFS). 'file' (the default: it needs no "
            "other setting and works on any shared file system): paths are files on the "
            "mounts, relative ones taken from the directory you submit from. 'lustre': "
            "lustre:///, HAM's Lustre file system (raw large-block I/O, no .crc files; "
            "HAL-compatible): /a/b is <lustre_root>/a/b and relative paths are under "
            "<lustre_root>/user/<name>. file:// paths work with both."),
    Setting("lustre_root", "", _parse_path,
            "Directory on the Lustre mount that lustre:/// stands for (HAL's fs.root.dir); "
            "needed by filesystem = 'lustre' and by lustre:// paths."),
    Setting("stripe_count", 1, _parse_int(-1),
            "Lustre stripe count for new job directories (lfs setstripe -c; -1 = all OSTs)."),
    Setting("stripe_size", "4M", lustre.parse_size,
            "Lustre stripe size for new job directories (lfs setstripe -S)."),
    Setting("output_stripe", "", lustre.parse_layout,
            "Stripe layout COUNT:SIZE (e.g. 4:16M) of a job's output directory, set when the "
            "job creates it (ham.lustre.output.stripe); empty: inherited from its parent."),
    Setting("map_output_stripe", contract.DEFAULTS[contract.LUSTRE_MAP_OUTPUT_STRIPE],
            lustre.parse_layout,
            "Stripe layout COUNT:SIZE of map outputs (ham.lustre.mapoutput.stripe): every "
            "reducer reads a small segment of every map's file, one stripe keeps it on one OST."),
    Setting("file_stripes", "", lustre.parse_rules,
            "Stripe layouts of single files created through lustre:// "
            "(ham.lustre.file.stripes): comma-separated GLOB=COUNT:SIZE, first match wins, "
            "e.g. 'part-*=4:16M'; a GLOB with '/' matches the path under lustre_root."),
    Setting("retention", "logs", _parse_choice("all", "logs", "none"),
            "What stays in a job directory after the job: 'all', 'logs' (logs, history and "
            "status record; intermediate data removed) or 'none'. A job stopped before it "
            "finished keeps what a resume needs whatever this says, until it is resumed or "
            "`ham cleanup --resumable` removes it."),
    Setting("partition", "", _parse_str, "Default partition for `ham submit` and `ham run`."),
    Setting("account", "", _parse_str, "Default account for `ham submit` and `ham run`."),
    Setting("qos", "", _parse_str, "Default QOS for `ham submit` and `ham run`."),
    Setting("time_limit", "", _parse_time,
            "Default time limit (Slurm syntax, e.g. 01:00:00) for `ham submit` and `ham run`."),
    Setting("spank", False, _parse_bool,
            "Whether HAM's SPANK plugin is loaded on the cluster (docs/admin.md, SPANK "
            "plugin). true: `ham submit`, and `ham run` when it makes its own allocation, pass "
            "the plugin's --ham=<shared_root> to sbatch/salloc, so that the plugin's prolog "
            "makes the job directory and its epilog removes the job's intermediate data even if "
            "every HAM process was killed (not with retention = 'all', which keeps that data). "
            "Where sbatch/salloc do not know --ham (the plugin not loaded), HAM refuses the job "
            "in one line naming this setting."),
    Setting("framework", "ham", _parse_choice("ham", "local"),
            "MapReduce framework for jobs: 'ham' (task runners on every node of the "
            "allocation) or 'local' (Hadoop's local runner inside the client JVM, for debugging)."),
    Setting("hadoop_log_level", "INFO", _parse_choice("DEBUG", "INFO", "WARN", "ERROR"),
            "log4j level of the `hadoop` client and the HAM driver."),
    Setting("runners_per_node", int(contract.DEFAULTS[contract.RUNNERS_PER_NODE]), _parse_int(0),
            "Task runner JVMs per node; 0 derives it from the node's CPUs and the job's "
            "mapreduce.{map,reduce}.cpu.vcores."),
    Setting("runner_warm_idle_ms", int(contract.DEFAULTS[contract.RUNNER_WARM_IDLE_MS]),
            _parse_int(0),
            "Warm runners: a job that succeeds leaves its task runners parked this many ms, and "
            "a later job of the same session that would start the same runners takes them "
            "instead of a new srun step (ham.runner.warm.idle.ms, which a job's -D overrides); "
            "0 = off."),
    Setting("runner_local_dir", contract.DEFAULTS[contract.RUNNER_LOCAL_DIR], _parse_local_dir,
            "Node-local directory under which each task runner works (<dir>/ham-<user>/<Slurm "
            "job id>/...: the task's job.xml, rewritten for every task, the distributed "
            "cache's links, and whatever a task writes to its current directory), as YARN's "
            "container directories are node-local; a runner removes its own when it exits, "
            "and the SPANK plugin's epilog what a killed one left (ham.runner.local.dir, which "
            "a job's -D overrides). 'none': the job's directory on the shared file system "
            "(nodes without local storage). A runner that finds <dir>/ham-<user> someone else's, "
            "or cannot make it, works there too and says so in a WARN line."),
    Setting("runner_java_opts", contract.DEFAULTS[contract.RUNNER_JAVA_OPTS], _parse_str,
            "HAM's JVM options of the task runners, before each job's own "
            "(mapreduce.{map,reduce}.java.opts, and the heap YARN derives from "
            "mapreduce.{map,reduce}.memory.mb when they set none). NewRatio=1 keeps each map's "
            "sort buffer (mapreduce.task.io.sort.mb) in the young generation: ~3 ms of GC per "
            "task instead of ~85 ms."),
    Setting("runner_cds", "on", _parse_choice("on", "off"),
            "Class-data sharing for the task runner JVMs of the bundled Hadoop: 'on' makes an "
            "archive of the classes a runner loads (once per Java and bundle, ~20 MB, in the "
            "bundle's cds/ or else <shared_root>/<user>/.cds) and starts runners with it, so "
            "that they connect and run their first tasks sooner (bench/results/cds-trial); "
            "with it the runners' class path lists the jars before the job's conf/. 'off': no "
            "archive."),
    Setting("client_cds", "on", _parse_choice("on", "off"),
            "Class-data sharing for a job's client JVM (`hadoop jar`, with HAM's driver in it) "
            "with the bundled Hadoop: 'on' makes an archive of the classes a client loads "
            "(once per Java and bundle, ~45 MB, beside the runners' archive) and passes it in "
            "HADOOP_CLIENT_OPTS, so that the client submits the job sooner "
            "(bench/results/client-cds). 'off': no archive."),
    Setting("client_jit", "c1", _parse_choice("c1", "tiered"),
            "JIT of a job's client JVM (`hadoop jar`, with HAM's driver in it): 'c1' "
            "(-XX:TieredStopAtLevel=1 ahead of HADOOP_CLIENT_OPTS) compiles at once and never "
            "again, so the client submits sooner and a job's dispatch rate is the same from "
            "its first task (60-map job: first task 2.21 -> 1.67 s after the job directory, "
            "bench/results/client-jit); 'tiered' is the JVM's default, whose second compiler "
            "takes CPU during a job's first seconds but makes a long, dispatch-heavy job's "
            "driver faster in the end (100k maps x 100 runners: 2,890 against 3,503 "
            "dispatches/s, bench/README.md)."),
    Setting("client_unjar", "auto", _parse_choice("auto", "always"),
            "`hadoop jar` of the bundled Hadoop: 'auto' runs a job jar with no classes/ or lib/ "
            "entries from the jar itself, where Hadoop's RunJar first unpacks every entry into "
            "a temporary directory (0.3 s of the client's CPU for a 900-entry jar, "
            "bench/results/client-unjar; the same classes and resources are found, only a "
            "resource's URL points into the jar); a jar with classes/ or lib/ is unpacked as "
            "Hadoop does. 'always' unpacks every jar (-Dham.client.unjar=always in "
            "HADOOP_CLIENT_OPTS)."),
    Setting("driver_address", "", _parse_str,
            "Address the task runners use to reach the driver. Empty: the local address on "
            "the route to the allocation's first node (set it on multi-homed hosts)."),
    Setting("network", "", network.parse,
            "The network the driver listens on and the task runners connect over: an "
            "interface name (e.g. 'ib0') or an IPv4 subnet (e.g. '10.1.0.0/16'), as "
            "dask-jobqueue's 'interface'. The driver listens on its node's address there and "
            "the runners connect to it (driver_address, if set, is what they are told "
            "instead, and the driver listens on every address); a node of the job without "
            "an address there, or whose route to the driver leaves from another, fails the "
            "job in one line naming the node. Empty: the route to the first node decides."),
)

BY_KEY: dict[str, Setting] = {s.key: s for s in SCHEMA}

# Settings that no longer do anything: accepted with a warning, so that site files that set
# them keep working.
RETIRED: dict[str, str] = {
    "slurm_backend": "HAM always talks to Slurm through its commands (sbatch, salloc, squeue, "
                     "sacct, scontrol, scancel); remove the setting",
}


def _retired(key: str, where: str) -> bool:
    if key not in RETIRED:
        return False
    log.warning("%s: setting '%s' is retired and ignored: %s", where, key, RETIRED[key])
    return True


@dataclass(frozen=True)
class Value:
    value: Any
    source: str


class Settings(Mapping[str, Any]):
    """Resolved settings: `settings["shared_root"]` and `settings.source("shared_root")`."""

    def __init__(self, values: dict[str, Value]):
        self._values = values

    def __getitem__(self, key: str) -> Any:
        return self._values[key].value

    def __iter__(self):
        return iter(self._values)

    def __len__(self) -> int:
        return len(self._values)

    def source(self, key: str) -> str:
        return self._values[key].source

    def with_overrides(self, overrides: Mapping[str, Any], source: str) -> "Settings":
        values = dict(self._values)
        for key, raw in overrides.items():
            if raw is None or _retired(key, source):
                continue
            values[key] = Value(_parse(key, raw, source), source)
        return Settings(values)


def _parse(key: str, raw: Any, where: str) -> Any:
    setting = BY_KEY.get(key)
    if setting is None:
        raise SettingsError(
            f"{where}: unknown setting '{key}' (valid: {', '.join(sorted(BY_KEY))})")
    try:
        return setting.parse(raw)
    except ValueError as exc:
        raise SettingsError(f"{where}: bad value {raw!r} for '{key}': {exc}") from None


def site_file(env: Mapping[str, str]) -> Path:
    return Path(env["HAM_SITE_CONFIG"]) if env.get("HAM_SITE_CONFIG") else SITE_FILE


def user_file(env: Mapping[str, str]) -> Path:
    if env.get("HAM_USER_CONFIG"):
        return Path(env["HAM_USER_CONFIG"])
    return Path(os.path.expanduser(str(USER_FILE)))


def _read_file(path: Path, named_by: str | None = None) -> dict[str, Any]:
    """The settings of a TOML file; none if it does not exist, which is said (a WARNING) when
    the variable named_by chose the file: the default files may well be missing, one named on
    purpose (a modulefile's HAM_SITE_CONFIG with a typo) is a site's settings not applied."""
    try:
        with open(path, "rb") as f:
            data = tomllib.load(f)
    except FileNotFoundError:
        if named_by:
            log.warning("%s=%s names no file: its settings are not read (fix the path, or "
                        "unset %s)", named_by, path, named_by)
        return {}
    except PermissionError:
        raise SettingsError(f"{path}: cannot read settings file (permission denied)") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise SettingsError(f"{path}: not valid TOML: {exc}") from None
    except OSError as exc:
        raise SettingsError(f"{path}: cannot read settings file ({exc.strerror})") from None
    for key, val in data.items():
        if isinstance(val, dict):
            raise SettingsError(f"{path}: '{key}' is a table; HAM settings are flat keys "
                                f"(valid: {', '.join(sorted(BY_KEY))})")
    return data


def load(env: Mapping[str, str] | None = None,
         flags: Mapping[str, Any] | None = None) -> Settings:
    """Resolve every setting: defaults < site file < user file < HAM_* env < flags."""
    env = os.environ if env is None else env
    values = {s.key: Value(_parse(s.key, s.default, "default"), "default") for s in SCHEMA}
    for label, path, var in (("site file", site_file(env), "HAM_SITE_CONFIG"),
                             ("user file", user_file(env), "HAM_USER_CONFIG")):
        for key, raw in _read_file(path, var if env.get(var) else None).items():
            if not _retired(key, str(path)):
                values[key] = Value(_parse(key, raw, str(path)), f"{label} {path}")
    for setting in SCHEMA:
        if setting.env_var in env:
            where = f"environment {setting.env_var}"
            values[setting.key] = Value(_parse(setting.key, env[setting.env_var], where),
                                        where)
    for key in RETIRED:
        if ENV_PREFIX + key.upper() in env:
            _retired(key, f"environment {ENV_PREFIX + key.upper()}")
    # Other tools use HAM_* too, so an unknown variable is a warning (a likely typo), not an error.
    for name in sorted(k for k in env if k.startswith(ENV_PREFIX) and k not in _KNOWN_ENV):
        log.warning("environment variable %s is not a HAM setting (valid: %s)", name,
                    ", ".join(sorted(s.env_var for s in SCHEMA)))
    return Settings(values).with_overrides(flags or {}, "command line")


# HAM_* variables that are not settings but are allowed in the environment: HAM's own (set by
# `ham` for the processes it starts, or by users: HAM_LOG_LEVEL), and those of the project's
# scripts a user exports (docker/cluster.sh, docker/compose.sh, examples/main-job.sh, tests/run.sh).
_KNOWN_ENV = {s.env_var for s in SCHEMA} | {ENV_PREFIX + k.upper() for k in RETIRED} | {
    "HAM_SITE_CONFIG", "HAM_USER_CONFIG", contract.ENV_JOB_DIR, contract.ENV_JOB_TOKEN,
    contract.ENV_JOB_RUNTIME_DIR, contract.ENV_WARM_DIR, contract.ENV_WARM_KEY,
    contract.ENV_WARM_IDLE_MS, "HAM_LOG_LEVEL", "HAM_JAR", "HAM_ENV_RESTORE",
    contract.ENV_LUSTRE_MOUNTS, java.CHECKED_ENV,
    "HAM_CLUSTER_DIR", "HAM_CLUSTER_PORT_BASE", "HAM_CLUSTER_SHARED", "HAM_CLUSTER_FS", "HAM_TEST_FS",
    "HAM_TEST_WORKERS", "HAM_TEST_CLUSTERS",
    "HAM_CLUSTER_FAST_NET", "HAM_CLUSTER_FAST_IF", "HAM_CLUSTER_NETNS_PREFIX",
    "HAM_CLUSTER_FAST_BRIDGE", "HAM_CLUSTER_STORAGE_ADDR",
    "HAM_DOCKER_DIR", "HAM_DOCKER_STORAGE_DRIVER",
    "HAM_DEBIAN_MIRROR", "HAM_BASE_IMAGE", "HAM_DEMO_DIR",
}
