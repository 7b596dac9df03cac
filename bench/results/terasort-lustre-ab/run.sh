#!/bin/bash
cd /work/main && . /var/tmp/ham-cluster/env.sh && export PATH=$PWD/.venv/bin:$PATH
ex=$(ls $PWD/mapreduce/target/dist/share/hadoop/mapreduce/hadoop-mapreduce-examples-*.jar)
R=/tmp/tsab; rm -rf $R; mkdir -p $R/shared $R/w; cd $R/w
export HAM_SHARED_ROOT=$R/shared
HAM_FILESYSTEM=lustre HAM_LUSTRE_ROOT=$R ham run -N3 -- hadoop jar $ex teragen -Dmapreduce.job.maps=3 1500000 lustre:///gen > /dev/null 2>&1 || echo genfail
for i in 1 2 3; do
  for v in direct buffered file; do
    rm -rf $R/out
    case $v in
      direct) args="lustre:///gen lustre:///out"; env="HAM_FILESYSTEM=lustre HAM_LUSTRE_ROOT=$R"; D="";;
      buffered) args="lustre:///gen lustre:///out"; env="HAM_FILESYSTEM=lustre HAM_LUSTRE_ROOT=$R"; D="-Dham.lustre.write.direct.after=-1";;
      file) args="$R/gen $R/out"; env=""; D="";;
    esac
    s=$(date +%s.%N)
    env $env ham run -N3 -- hadoop jar $ex terasort -Dmapreduce.job.reduces=3 $D $args > $R/last.log 2>&1 || { echo fail $v; tail -3 $R/last.log; }
    e=$(date +%s.%N)
    echo "$i $v $(echo "$e - $s" | bc)"
  done
done
