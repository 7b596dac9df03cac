/* Per-job directory logic of the HAM SPANK plugin, apart from the SPANK glue so that it can be
 * unit-tested without Slurm (test_ham_dirs.c). Layout, as created by `ham run`:
 *     <root>/<user>/<jobid>[.<n>]/{conf,bin,staging,tmp,local,jobs/<id>/{logs,intermediate,work}}
 */
#ifndef HAM_DIRS_H
#define HAM_DIRS_H

#include <stddef.h>
#include <sys/types.h>

/* Names shared with the launcher (launcher/ham/contract.py) and the Java runtime (JobDirs);
 * ham_contract prints them for tests/unit/test_contract.py. NULL-terminated lists. */
extern const char *const HAM_SESSION_INTERMEDIATE[]; /* <jobdir>/{staging,tmp,local} */
extern const char HAM_JOBS_DIR[];                    /* <jobdir>/jobs/<hadoop job id>/ */
extern const char *const HAM_JOB_INTERMEDIATE[];     /* ... /{intermediate,work} */
extern const char HAM_RESUMABLE[];                   /* ... /resumable: keep the session */
/* <local>/<prefix><user>/<jobid>: the task runners' node-local working directories
 * (launcher/ham/contract.py RUNNER_LOCAL_PREFIX, Java common.jobfiles.RunnerWorkDirs). */
extern const char HAM_LOCAL_PREFIX[];

/* Write "<root>/<user>/<jobid>" into buf (size len). Returns 0, or -1 with errno=ENAMETOOLONG
 * when it does not fit, or errno=EINVAL when root is not absolute or user contains '/'. */
int ham_job_dir_path(char *buf, size_t len, const char *root, const char *user, unsigned jobid);

/* Create <root>/<user> (mode 0700, owned by uid:gid) if missing, then the job directory itself
 * (mode 0700, owned by uid:gid). An existing job directory is accepted if it is a real
 * directory (not a symlink) owned by uid. Returns 0, or -1 with errno set. */
int ham_create_job_dir(const char *root, const char *user, unsigned jobid, uid_t uid, gid_t gid);

/* Remove the intermediate data (staging, tmp, local, jobs/ * /intermediate, jobs/ * /work) of
 * every directory <root>/<user>/<jobid> and <root>/<user>/<jobid>.<n>; keeps logs, conf and
 * records. A directory with a Hadoop job marked resumable (jobs/<id>/resumable: stopped before
 * it finished) is left whole for `ham submit --resume`. Never follows symlinks, never leaves the file system of the job directory, and
 * refuses any path that is not under root. Returns the number of directories trees removed,
 * or -1 with errno set on the first failure. */
int ham_remove_intermediate(const char *root, const char *user, unsigned jobid);

/* Write "<local>/ham-<user>/<jobid>" into buf; errors as ham_job_dir_path's. */
int ham_local_dir_path(char *buf, size_t len, const char *local, const char *user,
                       unsigned jobid);

/* Remove <local>/ham-<user>/<jobid>, the node-local working directories a job's task runners
 * left (each removes its own when it exits; not one that was killed), as the job's user.
 * Refuses (EPERM) unless <local>/ham-<user> is a real directory of the calling user's, 0700
 * as the runner's shell makes it, in a <local> (links in its name resolved) others cannot
 * write or that is sticky (/tmp); a link in place of <jobid> is refused with ENOTDIR. Never follows symlinks, never leaves its file
 * system. Returns 1 when it removed the directory, 0 when there was none, or -1 with errno. */
int ham_remove_local(const char *local, const char *user, unsigned jobid);

#endif
