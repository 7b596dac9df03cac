"""Job arrays (`ham submit --array`): the array variables that reach the command, and the task
ids an array spec names, so each task's paths can be checked before anything is submitted.

In a batch script of one's own, `hadoop jar ... in/$SLURM_ARRAY_TASK_ID` expands in the task's
shell. `ham submit` quotes every word of the command for its script, which would keep the
variable from expanding: for an array job the variables below are left to the script's shell,
and nothing else is."""

from __future__ import annotations

import re
import shlex

from ham.errors import UsageError

VARIABLES = ("SLURM_ARRAY_TASK_ID", "SLURM_ARRAY_JOB_ID")
_VAR = re.compile(r"\$(?:\{(%s)\}|(%s)\b)" % ("|".join(VARIABLES), "|".join(VARIABLES)))
# sbatch --array: comma-separated ids or ranges, a range with an optional :step, then an
# optional %limit of tasks running at once.
_RANGE = re.compile(r"(\d+)(?:-(\d+)(?::(\d+))?)?")
MAX_TASKS = 10_000  # checked one by one before submission; Slurm's MaxArraySize is 1001 by default


def uses_variables(word: str) -> bool:
    return _VAR.search(word) is not None


def shell_word(word: str) -> str:
    """word quoted for the batch script's shell, except its array variables, which expand."""
    out, last = [], 0
    for m in _VAR.finditer(word):
        if m.start() > last:
            out.append(shlex.quote(word[last:m.start()]))
        out.append('"${%s}"' % (m.group(1) or m.group(2)))
        last = m.end()
    if last < len(word) or not out:
        out.append(shlex.quote(word[last:]))
    return "".join(out)


def shell_join(words: list[str]) -> str:
    return " ".join(shell_word(w) for w in words)


def task_ids(spec: str) -> list[int]:
    """The task ids of an sbatch --array spec such as 0-2, 1,3,5, 0-10:2 or 1-100%10."""
    ranges, _, limit = spec.partition("%")
    if limit and not limit.isdigit():
        raise UsageError(f"--array {spec}: the part after % is the number of tasks that may "
                         f"run at once (e.g. 1-100%10)")
    ids: list[int] = []
    for part in ranges.split(","):
        m = _RANGE.fullmatch(part)
        if not m:
            raise UsageError(f"--array {spec}: '{part}' is not a task id or range such as 0-2, "
                             f"1,3,5 or 0-10:2")
        low, high, step = int(m.group(1)), int(m.group(2) or m.group(1)), int(m.group(3) or 1)
        if high < low or step < 1:
            raise UsageError(f"--array {spec}: the range '{part}' is empty")
        ids.extend(range(low, high + 1, step))
        if len(ids) > MAX_TASKS:
            raise UsageError(f"--array {spec}: more than {MAX_TASKS} tasks")
    return sorted(set(ids))


def expand(word: str, task_id: int, array_job_id: str = "0") -> str:
    """word as the task's shell sees it (the array's job id is not known before submission)."""
    values = {"SLURM_ARRAY_TASK_ID": str(task_id), "SLURM_ARRAY_JOB_ID": array_job_id}
    return _VAR.sub(lambda m: values[m.group(1) or m.group(2)], word)
