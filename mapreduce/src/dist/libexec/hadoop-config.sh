# HAM's libexec/hadoop-config.sh, sourced by bin/{hadoop,mapred,yarn,hdfs}: what Apache's
# hadoop-config.sh and hadoop-functions.sh do for a client, for this installation's layout
# (share/hadoop/...). No registry ships Apache's scripts, so HAM ships these; they need only
# bash and Java. HAM's policy for the commands that need HDFS or YARN daemons is in
# ham-commands.sh.

# This installation, from where this file is (not from $HADOOP_HOME: a HADOOP_HOME left
# pointing at another installation must not mix its jars with this one's).
HADOOP_HOME=$(cd -P -- "$(dirname -- "${BASH_SOURCE[0]}")/.." && pwd -P)
HADOOP_LIBEXEC_DIR="$HADOOP_HOME/libexec"
export HADOOP_HOME
. "$HADOOP_LIBEXEC_DIR/ham-commands.sh"

hadoop_error() {
    echo "ERROR: $*" >&2
}

# Generic options that come before the subcommand, as Apache's scripts take them.
hadoop_parse_generic() {
    HADOOP_ARGS=()
    HADOOP_DEBUG=""
    while [ $# -gt 0 ]; do
        case "$1" in
            --config)
                [ $# -ge 2 ] || { hadoop_error "--config needs a directory"; exit 1; }
                [ -d "$2" ] || { hadoop_error "--config $2: no such directory"; exit 1; }
                HADOOP_CONF_DIR=$2; shift 2 ;;
            --loglevel)
                [ $# -ge 2 ] || { hadoop_error "--loglevel needs a level"; exit 1; }
                HADOOP_ROOT_LOGGER="$2,console"; export HADOOP_ROOT_LOGGER; shift 2 ;;
            --debug)
                HADOOP_DEBUG=1; shift ;;
            --daemon|--workers|--hosts|--hostnames)
                ham_refuse_option "$1"
                exit 1 ;;
            --help|-h|help)
                HADOOP_ARGS=(--help); return ;;
            *)
                HADOOP_ARGS=("$@"); return ;;
        esac
    done
}

hadoop_java() {
    if [ -n "${JAVA_HOME:-}" ]; then
        JAVA="$JAVA_HOME/bin/java"
        [ -x "$JAVA" ] || { hadoop_error "JAVA_HOME $JAVA_HOME has no executable bin/java"; exit 1; }
    elif JAVA=$(command -v java); then
        :
    else
        hadoop_error "JAVA_HOME is not set and java is not on PATH"
        exit 1
    fi
}

# The class path of Apache's `hadoop classpath`, for this layout, in the order class-data
# sharing needs (setting client_cds): the installation's jars one by one, sorted, then the
# directories (the configuration's, share/hadoop/{hdfs,yarn}), as the JVM maps an archive only
# for the class path it was made with, and only with no directory ahead of the archive's jars.
# No jar here has a *-site.xml; the one log4j.properties (a tests jar's) yields to the
# configuration's (hadoop_main). HADOOP_CLASSPATH comes after them (first of all with
# HADOOP_USER_CLASSPATH_FIRST), as hadoop_add_to_classpath_userpath does.
hadoop_classpath() {
    local share="$HADOOP_HOME/share/hadoop" cp="" dir jar LC_ALL=C   # C: one glob order for all
    for dir in common/lib common hdfs/lib hdfs mapreduce yarn/lib yarn; do
        for jar in "$share/$dir"/*.jar; do
            [ -f "$jar" ] && cp="$cp:$jar"
        done
    done
    # HAM's bundled installation carries HAM's jar: `mapred job` and `yarn application` find
    # HAM's jobs with it, and a job's configuration (mapreduce.framework.name=ham) needs it.
    if [ -f "$HADOOP_HOME/ham-mapreduce.jar" ]; then
        cp="$cp:$HADOOP_HOME/ham-mapreduce.jar"
    fi
    cp="${cp#:}:$HADOOP_CONF_DIR:$share/hdfs:$share/yarn"
    if [ -n "${HADOOP_CLASSPATH:-}" ]; then
        if [ -n "${HADOOP_USER_CLASSPATH_FIRST:-}" ]; then
            cp="$HADOOP_CLASSPATH:$cp"
        else
            cp="$cp:$HADOOP_CLASSPATH"
        fi
    fi
    CLASSPATH=$cp
}

hadoop_envvars() {
    echo "JAVA_HOME='${JAVA_HOME:-}'"
    echo "HADOOP_COMMON_HOME='$HADOOP_HOME'"
    echo "HADOOP_COMMON_DIR='share/hadoop/common'"
    echo "HADOOP_COMMON_LIB_JARS_DIR='share/hadoop/common/lib'"
    echo "HADOOP_CONF_DIR='$HADOOP_CONF_DIR'"
    echo "HADOOP_TOOLS_HOME='$HADOOP_HOME'"
    echo "HADOOP_TOOLS_DIR='share/hadoop/tools'"
    echo "HADOOP_TOOLS_LIB_JARS_DIR='share/hadoop/tools/lib'"
}

# Run CMD ARGS...: the entry point of every bin/ script.
hadoop_main() {
    local cmd=$1 sub
    shift
    hadoop_parse_generic "$@"
    set -- "${HADOOP_ARGS[@]}"
    HADOOP_CONF_DIR=${HADOOP_CONF_DIR:-$HADOOP_HOME/etc/hadoop}
    export HADOOP_CONF_DIR
    # Apache's scripts read the site's environment file from the configuration directory.
    if [ -f "$HADOOP_CONF_DIR/hadoop-env.sh" ]; then
        . "$HADOOP_CONF_DIR/hadoop-env.sh"
    fi
    if [ $# -eq 0 ] || [ "$1" = "--help" ]; then
        ham_usage "$cmd"
        [ $# -eq 0 ] && exit 1
        exit 0
    fi
    sub=$1
    shift
    if ham_refuse "$cmd" "$sub"; then
        exit 1
    fi
    ham_deprecated "$cmd" "$sub" "$@"   # execs the replacement command when there is one
    hadoop_classpath
    case "$sub" in
        classpath)
            if [ $# -eq 0 ]; then
                echo "$CLASSPATH"
                exit 0
            fi ;;
        envvars)
            hadoop_envvars
            exit 0 ;;
    esac
    if ! ham_class "$cmd" "$sub"; then
        if [[ "$sub" == *.* && "$sub" != -* ]]; then
            HADOOP_CLASSNAME=$sub   # `hadoop CLASSNAME`, as Apache's scripts do
        else
            hadoop_error "$cmd: unknown command '$sub' (this installation has:" \
                "$(ham_commands "$cmd"); see \`$cmd --help\`)"
            exit 1
        fi
    fi
    case "$HADOOP_CLASSNAME" in
        # As Apache's scripts add the tools' jars for the commands that use them.
        org.apache.hadoop.tools.DistCp|org.apache.hadoop.tools.HadoopArchives)
            CLASSPATH="$CLASSPATH:$HADOOP_HOME/share/hadoop/tools/lib/*" ;;
    esac
    hadoop_java
    local opts=()
    local heap=${HADOOP_HEAPSIZE_MAX:-${HADOOP_HEAPSIZE:-}}
    if [ -n "$heap" ]; then
        [[ "$heap" =~ ^[0-9]+$ ]] && heap="${heap}m"
        opts+=("-Xmx$heap")
    fi
    # The configuration's log4j.properties, though jars come first in the class path.
    if [ -f "$HADOOP_CONF_DIR/log4j.properties" ]; then
        opts+=("-Dlog4j.configuration=file:$HADOOP_CONF_DIR/log4j.properties")
    fi
    # HADOOP_OPTS and HADOOP_CLIENT_OPTS are word-split, as Apache's scripts do.
    # shellcheck disable=SC2206
    opts+=(${HADOOP_OPTS:-} ${HADOOP_CLIENT_OPTS:-})
    opts+=("-Dhadoop.log.dir=${HADOOP_LOG_DIR:-$HADOOP_HOME/logs}"
           "-Dhadoop.log.file=${HADOOP_LOGFILE:-hadoop.log}"
           "-Dhadoop.home.dir=$HADOOP_HOME" "-Dhadoop.id.str=${USER:-$(id -un)}"
           "-Dhadoop.policy.file=hadoop-policy.xml")
    # Only when asked for: the configuration's own log4j.properties sets the level otherwise
    # (a HAM job's, from the hadoop_log_level setting).
    if [ -n "${HADOOP_ROOT_LOGGER:-}" ]; then
        opts+=("-Dhadoop.root.logger=$HADOOP_ROOT_LOGGER")
    fi
    export CLASSPATH
    if [ -n "$HADOOP_DEBUG" ]; then
        echo "DEBUG: CLASSPATH=$CLASSPATH" >&2
        echo "DEBUG: $JAVA ${opts[*]} $HADOOP_CLASSNAME $*" >&2
    fi
    exec "$JAVA" "${opts[@]}" "$HADOOP_CLASSNAME" "$@"
}
