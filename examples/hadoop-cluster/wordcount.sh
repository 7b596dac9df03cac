#!/bin/bash
# A script written for a Hadoop cluster (HDFS and YARN), unchanged: relative HDFS paths,
# `hdfs dfs`, `yarn jar`, `mapred`, and the jars found where a Hadoop installation keeps them
# under $HADOOP_HOME. It runs as it is inside `ham run` or `ham submit`:
#
#   ham run -N 3 -- bash wordcount.sh BOOKS_DIR            # interactive (or inside salloc)
#   ham submit -N 3 -t 30 -- bash wordcount.sh BOOKS_DIR   # batch
#
# BOOKS_DIR is a local directory of text files. The script makes books/, counts/ and streamed/
# in the directory it runs from (relative paths: the submit directory with fs.defaultFS
# file:///; <lustre_root>/user/<name> with filesystem = lustre).
set -euo pipefail
books=${1:?usage: bash wordcount.sh BOOKS_DIR}
here=$(cd "$(dirname "$0")" && pwd)

hdfs dfs -mkdir -p books
hdfs dfs -put -f "$books"/* books/
hdfs dfs -ls books

yarn jar "$HADOOP_HOME"/share/hadoop/mapreduce/hadoop-mapreduce-examples-*.jar \
    wordcount books counts
echo "== the ten most frequent words"
hdfs dfs -cat 'counts/part-r-*' | sort -k2,2nr -k1,1 | awk 'NR <= 10'

# Hadoop Streaming (the mapper and reducer of ../streaming), its jar looked for as tools do:
# under $HADOOP_HOME (share/hadoop/tools/lib).
streaming=$(find "$HADOOP_HOME"/ -name 'hadoop-streaming-*.jar' -print -quit)
yarn jar "$streaming" -files "$here/../streaming/mapper.py,$here/../streaming/reducer.py" \
    -mapper 'python3 mapper.py' -reducer 'python3 reducer.py' -input books -output streamed
hdfs dfs -ls streamed
