"""Names the launcher shares with the Java runtime and the SPANK plugin.

The Java side is the source: io.github.ham.mapreduce.common.HamConfig (configuration keys and
their defaults, environment variables), common.jobfiles.JobDirs (a Hadoop job's directory) and
driver.report.StatusRecord (status.json). io.github.ham.mapreduce.Contract (test code, in
mapreduce/target/test-classes, not in the jar) prints them, and tests/unit/test_contract.py
fails when a name here, in the Java runtime or in slurm-plugins/ham_dirs.c changes on one side
only. Use these constants rather than literals.
"""

from __future__ import annotations

# -- configuration keys the launcher renders into mapred-site.xml (HamConfig) ----------------
FRAMEWORK_NAME = "ham"  # mapreduce.framework.name
JOB_DIR = "ham.job.dir"
DRIVER_HOST = "ham.driver.host"
DRIVER_BIND_HOST = "ham.driver.bind.host"
NETWORK = "ham.network"  # read by each runner from the job's mapred-site.xml
RUNNER_JAVA = "ham.runner.java"
RUNNER_CLASSPATH = "ham.runner.classpath"
RUNNER_JAVA_OPTS = "ham.runner.java.opts"
RUNNERS_PER_NODE = "ham.runners.per.node"
RUNNER_WARM_IDLE_MS = "ham.runner.warm.idle.ms"  # warm runners across a session's jobs; 0: off
RUNNER_LOCAL_DIR = "ham.runner.local.dir"  # node-local working directories; "none": shared
SRUN = "ham.srun"
# lustre:// and stripe layouts (rendered into core-site.xml / mapred-site.xml)
LUSTRE_ROOT = "fs.root.dir"  # HAL's key
LUSTRE_FILE_STRIPES = "ham.lustre.file.stripes"
LUSTRE_OUTPUT_STRIPE = "ham.lustre.output.stripe"
LUSTRE_MAP_OUTPUT_STRIPE = "ham.lustre.mapoutput.stripe"

# Defaults the launcher's settings share with the runtime (HamConfig.DEFAULT_*).
DEFAULTS = {
    RUNNER_JAVA_OPTS: "-XX:+UseSerialGC -XX:TieredStopAtLevel=1 -XX:NewRatio=1",
    RUNNERS_PER_NODE: "0",
    RUNNER_WARM_IDLE_MS: "10000",
    RUNNER_LOCAL_DIR: "/tmp",
    SRUN: "srun",
    LUSTRE_MAP_OUTPUT_STRIPE: "1:1M",
}

# -- Hadoop keys HAM sets for every job (core-site.xml) ----------------------------------------
IO_FILE_BUFFER_SIZE = "io.file.buffer.size"
HAM_IO_FILE_BUFFER_SIZE = 131072
# Read once per JVM, from its default resources (core-site.xml), not from a job's configuration.
IOSTATISTICS_THREAD_LEVEL = "fs.iostatistics.thread.level.enabled"

# -- the lustre:// file system (package io.github.ham.mapreduce.lustre) ----------------------
LUSTRE_SCHEME = "lustre"
LUSTRE_FS_CLASS = "io.github.ham.mapreduce.lustre.LustreFileSystem"
LUSTRE_AFS_CLASS = "io.github.ham.mapreduce.lustre.LustreFs"
# file:// without a chmod process per file created (no libhadoop in the bundle).
LOCAL_FS_CLASS = "io.github.ham.mapreduce.common.HamLocalFileSystem"
LOCAL_AFS_CLASS = "io.github.ham.mapreduce.common.HamLocalFs"  # the same for FileContext

# -- the client JVM (the bundle's `hadoop jar`, org.apache.hadoop.util.HamRunJar) -------------
# System property: "always" unpacks every job jar, as Hadoop's RunJar does (setting client_unjar).
CLIENT_UNJAR_PROPERTY = "ham.client.unjar"

# -- environment ------------------------------------------------------------------------------
ENV_JOB_TOKEN = "HAM_JOB_TOKEN"  # the runners' job token; never on a command line
ENV_JOB_RUNTIME_DIR = "HAM_JOB_RUNTIME_DIR"
# A step whose runners park at their job's end (warm runners: ham.runner.warm.idle.ms)
ENV_WARM_DIR = "HAM_WARM_DIR"
ENV_WARM_KEY = "HAM_WARM_KEY"
ENV_WARM_IDLE_MS = "HAM_WARM_IDLE_MS"
ENV_JOB_DIR = "HAM_JOB_DIR"  # set by `ham run` and by the SPANK plugin's prolog
ENV_LUSTRE_MOUNTS = "HAM_LUSTRE_MOUNTS"  # directories treated as Lustre (see ham.lustre)

# -- job directory: <shared_root>/<user>/<slurm job id>[.<n>]/ --------------------------------
CONF = "conf"
BIN = "bin"
STAGING = "staging"
TMP = "tmp"
LOCAL = "local"
RECORD = "ham.json"
DRIVER_LOG = "driver.log"
SESSION_INTERMEDIATE = (STAGING, TMP, LOCAL)  # removed after the job unless retention = all
# Node-local working directories of the runners: <runner_local_dir>/<prefix><user>/<Slurm job>
# (Java: common.jobfiles.RunnerWorkDirs; the SPANK epilog removes them: ham_dirs.c).
RUNNER_LOCAL_PREFIX = "ham-"
# Parked runners (warm runners), in the session's tmp/: `ham run`'s end stops them
# (launcher/ham/warm.py; Java: common.protocol.WarmClaims)
WARM_DIR = "tmp/ham-warm"
WARM_PARKED = "parked"
WARM_PARKED_CLOSED = WARM_PARKED + ".closed"  # renamed to by `ham run`'s end, before its stops
WARM_SUFFIX = ".runner"
WARM_STOP = "HAMSTOP"
# The session's aggregated task logs in YARN's layout (yarn.nodemanager.remote-app-log-dir):
# each driver writes its job's when the job ends; kept with the logs.
APP_LOGS = "app-logs"
REMOTE_APP_LOG_DIR = "yarn.nodemanager.remote-app-log-dir"
# ... and one directory per Hadoop job under jobs/ (JobDirs)
JOBS = "jobs"
LOGS = "logs"
INTERMEDIATE_DIR = "intermediate"
WORK = "work"
STATUS = "status.json"
JOB_INTERMEDIATE = (INTERMEDIATE_DIR, WORK)
HISTORY = "history"  # the job's .jhist files (one per run)
# While a job has not reached a final state: if it stops on the way it can be resumed, so its
# intermediate data and the session's staging stay (the SPANK epilog checks it too).
RESUMABLE = "resumable"
HELD_OUTPUT = "held-output"  # a stopped job's output directory, moved aside until it resumes
RESUME_MANIFEST = "resume.json"
JOB_CONF = "job.xml"
# `hadoop <RESUME_CLASS> [--check] <jobs/<id>>` runs the next run of a stopped job; exit status
# RESUME_CHANGED: its inputs or staged files changed, it cannot be resumed.
RESUME_CLASS = "io.github.ham.mapreduce.client.ResumeJob"
RESUME_CHANGED = 3

# -- status.json (StatusRecord) ---------------------------------------------------------------
STATUS_JOB_FIELDS = ("job_id", "name", "user", "state", "map_progress", "reduce_progress",
                     "maps", "reduces", "start_time", "finish_time", "counters", "attempts",
                     "errors", "runners", "runner_launches", "output_dir", "output_created",
                     "launcher_pids", "run", "recovered", "resumable")
STATUS_COUNT_FIELDS = ("total", "completed", "failed", "running")
STATUS_ATTEMPT_FIELDS = ("id", "task", "type", "node", "state", "start", "finish", "error")
TERMINAL_STATES = ("SUCCEEDED", "FAILED", "KILLED")
