# HAM's commands of bin/{hadoop,mapred,yarn,hdfs}: which Java class each subcommand runs, and
# one line for each subcommand that needs an HDFS or YARN daemon, which HAM does not have.
# Sourced by hadoop-config.sh, and by ham-site-hadoop in front of a site's own scripts.
# launcher/ham/dropin.py lists the same refusals; tests/unit/test_dropin.py checks both agree.

HAM_NO_HDFS="HAM runs without HDFS: files are on the shared file system (hdfs dfs and hadoop fs work on it)"
HAM_NO_YARN="HAM runs without YARN: Slurm allocates the nodes and \`ham run\` starts the job's processes"

# The line for CMD SUB, or nothing when HAM runs it.
ham_refusal() {
    case "$1 $2" in
        "hdfs namenode"|"hdfs datanode"|"hdfs secondarynamenode"|"hdfs journalnode"|\
        "hdfs zkfc"|"hdfs balancer"|"hdfs mover"|"hdfs diskbalancer"|"hdfs dfsrouter"|\
        "hdfs nfs3"|"hdfs portmap"|"hdfs httpfs"|"hdfs sps")
            echo "$1 $2 is an HDFS daemon; $HAM_NO_HDFS" ;;
        "hdfs dfsadmin"|"hdfs haadmin"|"hdfs fsck"|"hdfs cacheadmin"|"hdfs crypto"|"hdfs ec"|\
        "hdfs storagepolicies"|"hdfs snapshotDiff"|"hdfs lsSnapshottableDir"|"hdfs lsSnapshot"|\
        "hdfs fetchdt"|"hdfs groups"|"hdfs dfsrouteradmin"|"hdfs debug"|"hdfs oiv"|\
        "hdfs oiv_legacy"|"hdfs oev")
            echo "$1 $2 needs a NameNode; $HAM_NO_HDFS" ;;
        "hdfs getconf")
            echo "$1 $2 asks about the NameNodes; $HAM_NO_HDFS; a key's value: \`hadoop conftest\` checks the configuration, HADOOP_CONF_DIR holds it" ;;
        "yarn resourcemanager"|"yarn nodemanager"|"yarn proxyserver"|"yarn timelineserver"|\
        "yarn timelinereader"|"yarn router"|"yarn sharedcachemanager"|"yarn registrydns"|\
        "yarn globalpolicygenerator"|"hadoop registrydns")
            echo "$1 $2 is a YARN daemon; $HAM_NO_YARN" ;;
        "yarn applicationattempt"|"yarn container")
            echo "$1 $2 needs a ResourceManager; $HAM_NO_YARN; a job's attempts: mapred job -list-attempt-ids JOB_ID MAP running, or ham status --tasks SLURM_JOB_ID" ;;
        "yarn node")
            echo "$1 $2 needs a ResourceManager; $HAM_NO_YARN; the nodes: sinfo, scontrol show node" ;;
        "yarn queue")
            echo "$1 $2 needs a ResourceManager; $HAM_NO_YARN; queues are Slurm partitions: sinfo" ;;
        "yarn top"|"yarn cluster")
            echo "$1 $2 needs a ResourceManager; $HAM_NO_YARN; running jobs: yarn application -list, ham status, squeue" ;;
        "yarn rmadmin"|"yarn schedulerconf"|"yarn scmadmin"|"yarn routeradmin"|\
        "yarn nodeattributes"|"yarn fs2cs")
            echo "$1 $2 configures YARN's daemons; $HAM_NO_YARN" ;;
        "yarn daemonlog"|"hadoop daemonlog")
            echo "$1 $2 needs a daemon's web server; HAM runs no Hadoop daemons" ;;
        "mapred historyserver")
            echo "$1 $2 is the JobHistoryServer daemon; HAM's is \`ham history-server\` (Hadoop's own server over your ended jobs, from a login node); mapred job -status answers from the jobs' status records without it" ;;
        "mapred hsadmin")
            echo "$1 $2 needs a JobHistoryServer, which HAM does not run: ended jobs answer mapred job -status from their status records" ;;
        "mapred frameworkuploader")
            echo "$1 $2 puts the MapReduce framework on HDFS for YARN's containers; HAM's task runners use the Hadoop HAM runs" ;;
        "mapred minicluster")
            echo "$1 $2 starts HDFS and YARN daemons; $HAM_NO_YARN" ;;
        "mapred queue")
            echo "$1 $2 needs a ResourceManager's queues; $HAM_NO_YARN; queues are Slurm partitions: sinfo" ;;
        "mapred archive-logs")
            echo "$1 $2 needs YARN's aggregated logs; $HAM_NO_YARN; task logs: ham logs SLURM_JOB_ID" ;;
        "mapred mradmin"|"mapred jobtracker"|"mapred tasktracker")
            echo "$1 $2 is Hadoop 1's; HAM runs MapReduce without daemons" ;;
    esac
}

# The generic options of Apache's scripts that manage daemons: one line, as their subcommands.
ham_refuse_option() {
    case "$1" in
        --daemon|--workers|--hosts|--hostnames)
            echo "ERROR: $1: HAM starts no Hadoop daemons and has no workers files; Slurm starts HAM's processes on the allocation's nodes" >&2
            return 0 ;;
    esac
    return 1
}

# Print CMD SUB's refusal and succeed if HAM refuses it.
ham_refuse() {
    local line
    line=$(ham_refusal "$1" "$2")
    [ -n "$line" ] || return 1
    echo "ERROR: $line" >&2
    return 0
}

# hadoop's old subcommands that Apache's bin/hadoop hands to hdfs or mapred (with its words).
ham_deprecated() {
    local cmd=$1 old=$2 sub=$2 to=""
    shift 2
    [ "$cmd" = hadoop ] || return 0
    case "$sub" in
        balancer|datanode|dfs|dfsadmin|dfsgroups|namenode|secondarynamenode|fsck|fetchdt|oiv|\
        portmap|nfs3) to=hdfs ;;
        job|queue|pipes|mradmin|jobtracker|tasktracker) to=mapred ;;
        *) return 0 ;;
    esac
    [ "$sub" = dfsgroups ] && sub=groups
    echo "WARNING: Use of this script to execute $old is deprecated." >&2
    echo "WARNING: Attempting to execute replacement \"$to $sub\" instead." >&2
    echo >&2
    exec "$HADOOP_HOME/bin/$to" "$sub" "$@"
}

# HADOOP_CLASSNAME for CMD SUB; fails for a subcommand this installation does not know.
ham_class() {
    HADOOP_CLASSNAME=""
    case "$1 $2" in
        # HAM's RunJar (no unpacking of a jar with nothing to unpack) where HAM's jar is on the
        # class path: the bundle; a bare layout of another version runs Hadoop's own.
        "hadoop jar"|"yarn jar")
            HADOOP_CLASSNAME=org.apache.hadoop.util.RunJar
            [ -f "$HADOOP_HOME/ham-mapreduce.jar" ] && HADOOP_CLASSNAME=org.apache.hadoop.util.HamRunJar
            ;;
        "hadoop fs"|"hdfs dfs") HADOOP_CLASSNAME=org.apache.hadoop.fs.FsShell ;;
        *" version") HADOOP_CLASSNAME=org.apache.hadoop.util.VersionInfo ;;
        *" classpath") HADOOP_CLASSNAME=org.apache.hadoop.util.Classpath ;;
        "hadoop checknative") HADOOP_CLASSNAME=org.apache.hadoop.util.NativeLibraryChecker ;;
        "hadoop conftest") HADOOP_CLASSNAME=org.apache.hadoop.util.ConfTest ;;
        "hadoop credential") HADOOP_CLASSNAME=org.apache.hadoop.security.alias.CredentialShell ;;
        "hadoop dtutil") HADOOP_CLASSNAME=org.apache.hadoop.security.token.DtUtilShell ;;
        "hadoop kerbname") HADOOP_CLASSNAME=org.apache.hadoop.security.HadoopKerberosName ;;
        "hadoop kdiag") HADOOP_CLASSNAME=org.apache.hadoop.security.KDiag ;;
        "hadoop key") HADOOP_CLASSNAME=org.apache.hadoop.crypto.key.KeyShell ;;
        "hadoop distcp"|"mapred distcp") HADOOP_CLASSNAME=org.apache.hadoop.tools.DistCp ;;
        "hadoop archive"|"mapred archive") HADOOP_CLASSNAME=org.apache.hadoop.tools.HadoopArchives ;;
        "mapred job") HADOOP_CLASSNAME=org.apache.hadoop.mapred.JobClient ;;
        "mapred pipes") HADOOP_CLASSNAME=org.apache.hadoop.mapred.pipes.Submitter ;;
        "mapred sampler") HADOOP_CLASSNAME=org.apache.hadoop.mapred.lib.InputSampler ;;
        # YARN's applications are HAM's jobs: application_X_N is job_X_N.
        "yarn application"|"yarn app") HADOOP_CLASSNAME=io.github.ham.mapreduce.client.YarnApplications ;;
        # The job's aggregated logs, written by its driver in YARN's format when it ended.
        "yarn logs") HADOOP_CLASSNAME=io.github.ham.mapreduce.client.YarnLogs ;;
    esac
    [ -n "$HADOOP_CLASSNAME" ]
}

ham_commands() {
    case "$1" in
        hadoop) echo "jar fs version classpath envvars checknative conftest credential distcp archive dtutil kerbname kdiag key CLASSNAME" ;;
        mapred) echo "job classpath version envvars pipes sampler distcp archive" ;;
        yarn) echo "jar application logs classpath version envvars" ;;
        hdfs) echo "dfs classpath version envvars" ;;
    esac
}

ham_usage() {
    echo "Usage: $1 [--config confdir] [--loglevel loglevel] [--debug] SUBCOMMAND [OPTIONS]"
    echo "  SUBCOMMAND: $(ham_commands "$1")"
    echo "  (HAM's $1: commands that need HDFS or YARN daemons print what to use instead)"
}
