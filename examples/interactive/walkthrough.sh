#!/bin/bash
# An interactive HAM session, one step at a time. Get an allocation, then type these lines at the
# shell prompt it gives you (after setting IN and OUT), or run the whole file in it:
#
#   salloc -N 3                           # a shell with SLURM_JOB_ID set: the allocation
#   bash walkthrough.sh IN_DIR OUT_DIR    # or type the commands below one by one
#   exit                                  # give the nodes back
#
#   (in one go: salloc -N 3 bash walkthrough.sh IN_DIR OUT_DIR)
#
# IN_DIR is a directory of text files and OUT_DIR a directory that does not exist yet, both on
# the shared file system. The script makes OUT_DIR/wordcount and OUT_DIR/grep.
set -euo pipefail
IN=${1:?usage: bash walkthrough.sh IN_DIR OUT_DIR (inside salloc)}
OUT=${2:?usage: bash walkthrough.sh IN_DIR OUT_DIR (inside salloc)}

# 1. Set up this shell for HAM: it creates the allocation's job directory under the shared root
#    and exports HADOOP_CONF_DIR, HADOOP_CLASSPATH, HAM_JOB_DIR and a PATH whose `hadoop` runs
#    jobs on every node of the allocation. (At a prompt, plain `eval "$(ham env)"` picks your
#    shell from $SHELL; this file is bash, so it says so. csh/tcsh: eval `ham env --shell tcsh`.)
eval "$(ham env --shell bash)"
echo "job directory: $HAM_JOB_DIR"
echo "configuration: $HADOOP_CONF_DIR"

# 2. The Hadoop examples jar of the Hadoop HAM uses (or set EXAMPLES_JAR yourself).
EXAMPLES_JAR=${EXAMPLES_JAR:-$(ham examples-jar)}
echo "examples jar: $EXAMPLES_JAR"

# 3. Plain `hadoop jar`, exactly as on a YARN cluster. Paths are on the shared file system.
hadoop jar "$EXAMPLES_JAR" wordcount -D mapreduce.job.reduces=3 "$IN" "$OUT/wordcount"

# 4. Look at the result with `hadoop fs` (ls, cat, head, du... work on the shared file system).
hadoop fs -ls "$OUT/wordcount"
echo "== the ten most frequent words"
hadoop fs -cat "$OUT/wordcount/part-r-*" | sort -k2,2nr -k1,1 | sed -n 1,10p

# 5. More jobs in the same shell reuse the same setup: the lines that contain "the".
hadoop jar "$EXAMPLES_JAR" grep "$IN" "$OUT/grep" '[^ ]*[Tt]he[^ ]*'
echo "== words containing 'the'"
hadoop fs -cat "$OUT/grep/part-r-*"

# 6. Done: remove the intermediate data (keeping logs, per the retention setting) and restore
#    the environment. Then `exit` the salloc shell to release the nodes.
eval "$(ham env --shell bash --cleanup)"
echo "cleaned up; HAM_JOB_DIR=${HAM_JOB_DIR:-unset}"
