/* HAM SPANK plugin: `--ham[=SHARED_ROOT]` for sbatch/salloc/srun.
 *
 *   job prolog   creates <root>/<user>/<jobid> (0700, owned by the job's user);
 *   task init    exports HAM_JOB_DIR into the job's environment;
 *   job epilog   removes the job's intermediate data even if every HAM process was SIGKILLed;
 *                and, for every job (--ham or not), the task runners' node-local working
 *                directories <local>/ham-<user>/<jobid> that a killed runner left.
 *
 * plugstack.conf:   required /path/ham_spank.so root=/lustre/ham [local=/tmp]
 * (root= is the shared root used when --ham is given without a value; local= the nodes'
 * runner_local_dir, /tmp unless given). A job that names another
 * directory (--ham=DIR) gets it worked on with its user's identity, not root's (user_root). The
 * directory logic is in ham_dirs.c. */
#define _GNU_SOURCE
#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <slurm/spank.h>

#include "ham_dirs.h"

SPANK_PLUGIN(ham, 1);

#define OPT_HAM 1

static char default_root[4096] = "";
static char local_dir[4096] = "/tmp";
static char chosen_root[4096] = "";
static int ham_requested = 0;

static int opt_cb(int val, const char *optarg, int remote);

static struct spank_option ham_option = {
    "ham", "[SHARED_ROOT]",
    "Create a HAM per-job directory under SHARED_ROOT (default: the site's) and export "
    "HAM_JOB_DIR; its intermediate data is removed when the job ends.",
    2, OPT_HAM, opt_cb};

/* `--ham` given without a value reaches the job's steps (an srun inside the batch script)
 * through the environment as the string "(null)" (Slurm 22.05): that is no value either. */
static int has_value(const char *optarg)
{
    return optarg && optarg[0] && strcmp(optarg, "(null)") != 0;
}

static int opt_cb(int val, const char *optarg, int remote)
{
    (void)val;
    ham_requested = 1;
    if (has_value(optarg)) {
        if (optarg[0] != '/' || strlen(optarg) >= sizeof(chosen_root)) {
            slurm_error("ham: --ham wants an absolute directory, got '%s'", optarg);
            return ESPANK_BAD_ARG;
        }
        /* Checked where the user submits (sbatch, salloc, srun), so that a typo is one error
         * there, not a job without its directory. */
        struct stat st;
        if (!remote && (stat(optarg, &st) != 0 || !S_ISDIR(st.st_mode))) {
            slurm_error("ham: --ham=%s: no such directory (name an existing shared directory, "
                        "or give --ham alone for the site's)", optarg);
            return ESPANK_BAD_ARG;
        }
        strcpy(chosen_root, optarg);
    }
    return ESPANK_SUCCESS;
}

/* Called from every entry point: slurmd's job_script context never calls slurm_spank_init. */
static int parse_args(int ac, char **av)
{
    default_root[0] = '\0';
    strcpy(local_dir, "/tmp");
    for (int i = 0; i < ac; i++) {
        if (strncmp(av[i], "root=", 5) == 0 && av[i][5] == '/' &&
            strlen(av[i] + 5) < sizeof(default_root)) {
            strcpy(default_root, av[i] + 5);
        } else if (strncmp(av[i], "local=", 6) == 0 && av[i][6] == '/' &&
                   strlen(av[i] + 6) < sizeof(local_dir)) {
            strcpy(local_dir, av[i] + 6);
        } else {
            slurm_error("ham: unknown or bad plugstack argument '%s' (valid: root=/absolute/dir, "
                        "local=/absolute/dir)", av[i]);
            return ESPANK_BAD_ARG;
        }
    }
    return ESPANK_SUCCESS;
}

int slurm_spank_init(spank_t sp, int ac, char **av)
{
    if (parse_args(ac, av) != ESPANK_SUCCESS)
        return ESPANK_BAD_ARG;
    /* sbatch/salloc ignore a static spank_options table: register explicitly. */
    spank_context_t ctx = spank_context();
    if (ctx == S_CTX_LOCAL || ctx == S_CTX_ALLOCATOR || ctx == S_CTX_REMOTE) {
        spank_err_t rc = spank_option_register(sp, &ham_option);
        if (rc != ESPANK_SUCCESS) {
            slurm_error("ham: spank_option_register: %s", spank_strerror(rc));
            return rc;
        }
    }
    return ESPANK_SUCCESS;
}

/* In job_prolog/epilog the option arrives through the job's environment: read it back. */
static int requested_root(spank_t sp, const char **root)
{
    char *optarg = NULL;
    if (!ham_requested) {
        spank_err_t rc = spank_option_getopt(sp, &ham_option, &optarg);
        if (rc != ESPANK_SUCCESS)
            return 0;  /* --ham not given: nothing to do */
        ham_requested = 1;
        if (has_value(optarg) && optarg[0] == '/' && strlen(optarg) < sizeof(chosen_root))
            strcpy(chosen_root, optarg);
    }
    *root = chosen_root[0] ? chosen_root : default_root;
    if (!(*root)[0]) {
        slurm_error("ham: --ham without a directory and no root= in plugstack.conf");
        return -1;
    }
    return 1;
}

static int job_identity(spank_t sp, uint32_t *jobid, uid_t *uid, gid_t *gid, char *user, size_t len)
{
    spank_err_t rc;
    if ((rc = spank_get_item(sp, S_JOB_ID, jobid)) != ESPANK_SUCCESS ||
        (rc = spank_get_item(sp, S_JOB_UID, uid)) != ESPANK_SUCCESS ||
        (rc = spank_get_item(sp, S_JOB_GID, gid)) != ESPANK_SUCCESS) {
        slurm_error("ham: spank_get_item: %s", spank_strerror(rc));
        return -1;
    }
    struct passwd pw, *res = NULL;
    char buf[4096];
    int err = getpwuid_r(*uid, &pw, buf, sizeof(buf), &res);
    if (err != 0 || res == NULL || strlen(pw.pw_name) >= len) {
        slurm_error("ham: getpwuid_r(%u): %s", (unsigned)*uid, err ? strerror(err) : "no such user");
        return -1;
    }
    strcpy(user, pw.pw_name);
    return 0;
}

/* What every entry point needs: the plugstack arguments, whether the job asked for --ham, and
 * who and which job it is. Returns 1 to act on ctx; otherwise 0 with *rc the ESPANK_* code the
 * callback returns (ESPANK_SUCCESS when --ham was not given). */
struct job_ctx {
    const char *root;
    uint32_t jobid;
    uid_t uid;
    gid_t gid;
    char user[256];
};

static int load_ctx(spank_t sp, int ac, char **av, struct job_ctx *ctx, int *rc)
{
    *rc = ESPANK_SUCCESS;
    if (parse_args(ac, av) != ESPANK_SUCCESS) {
        *rc = ESPANK_BAD_ARG;
        return 0;
    }
    int want = requested_root(sp, &ctx->root);
    if (want <= 0) {
        *rc = want == 0 ? ESPANK_SUCCESS : ESPANK_ERROR;
        return 0;
    }
    if (job_identity(sp, &ctx->jobid, &ctx->uid, &ctx->gid, ctx->user, sizeof(ctx->user)) != 0) {
        *rc = ESPANK_ERROR;
        return 0;
    }
    return 1;
}

/* Whether ctx's root is one the job chose rather than the site's (plugstack's root=). slurmd
 * runs the prolog and epilog as root: in a root the job chose, they act as the job's user
 * (as_user), so that --ham=/etc cannot make a directory of the user's where the user could
 * not; and a failure there is the user's, logged but not returned, since a failed prolog or
 * epilog drains the node. */
static int user_root(const struct job_ctx *ctx)
{
    return strcmp(ctx->root, default_root) != 0;
}

static int create(const struct job_ctx *c)
{
    return ham_create_job_dir(c->root, c->user, c->jobid, c->uid, c->gid);
}

static int clean(const struct job_ctx *c)
{
    return ham_remove_intermediate(c->root, c->user, c->jobid) < 0 ? -1 : 0;
}

/* fn(c) in a child process with the job user's uid, gid and groups. Returns 0, or -1 with
 * errno set (the child's errno). */
static int as_user(const struct job_ctx *c, int (*fn)(const struct job_ctx *))
{
    gid_t groups[256];
    int ngroups = (int)(sizeof(groups) / sizeof(groups[0]));
    if (getgrouplist(c->user, c->gid, groups, &ngroups) < 0)
        ngroups = 1, groups[0] = c->gid;  /* more groups than room: the primary one only */
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        if (setgroups((size_t)ngroups, groups) != 0 || setgid(c->gid) != 0 ||
            setuid(c->uid) != 0)
            _exit(errno & 0xff ? errno & 0xff : EPERM);
        _exit(fn(c) == 0 ? 0 : (errno & 0xff ? errno & 0xff : EIO));
    }
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return -1;
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
        return 0;
    errno = WIFEXITED(status) ? WEXITSTATUS(status) : EINTR;
    return -1;
}

/* fn(c) as root in the site's root, as the job's user in a root the job chose (user_root). */
static int act(const struct job_ctx *c, int (*fn)(const struct job_ctx *))
{
    return user_root(c) ? as_user(c, fn) : fn(c);
}

int slurm_spank_job_prolog(spank_t sp, int ac, char **av)
{
    struct job_ctx c;
    int rc;
    if (!load_ctx(sp, ac, av, &c, &rc))
        return rc;
    if (act(&c, create) != 0) {
        slurm_error("ham: cannot create the job directory for job %u under %s/%s: %s%s",
                    c.jobid, c.root, c.user, strerror(errno),
                    user_root(&c) ? " (as the job's user, in the directory the job named; the "
                                    "job runs without it)" : "");
        return user_root(&c) ? ESPANK_SUCCESS : ESPANK_ERROR;
    }
    return ESPANK_SUCCESS;
}

int slurm_spank_user_init(spank_t sp, int ac, char **av)
{
    struct job_ctx c;
    int rc;
    if (!spank_remote(sp) || !load_ctx(sp, ac, av, &c, &rc))
        return spank_remote(sp) ? rc : ESPANK_SUCCESS;
    char path[4096];
    if (ham_job_dir_path(path, sizeof(path), c.root, c.user, c.jobid) != 0)
        return ESPANK_ERROR;
    struct stat st;  /* the prolog could not make it (user_root): HAM makes its own */
    if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode))
        return ESPANK_SUCCESS;
    spank_err_t err = spank_setenv(sp, "HAM_JOB_DIR", path, 1);
    if (err == ESPANK_SUCCESS)
        err = spank_setenv(sp, "HAM_SHARED_ROOT", c.root, 1);
    if (err != ESPANK_SUCCESS) {
        slurm_error("ham: spank_setenv: %s", spank_strerror(err));
        return err;
    }
    return ESPANK_SUCCESS;
}

static int clean_local(const struct job_ctx *c)
{
    return ham_remove_local(local_dir, c->user, c->jobid) < 0 ? -1 : 0;
}

/* The runners' node-local directories of any job (ham.runner.local.dir does not need --ham):
 * as the job's user, in a directory of the user's; only when there is one (a stat, not a
 * fork, for the jobs that ran no runner here). A failure is logged, not returned: it must not
 * drain the node. */
static void epilog_local(spank_t sp)
{
    struct job_ctx c;
    if (job_identity(sp, &c.jobid, &c.uid, &c.gid, c.user, sizeof(c.user)) != 0)
        return;
    char path[4096];
    struct stat st;
    if (ham_local_dir_path(path, sizeof(path), local_dir, c.user, c.jobid) != 0 ||
        lstat(path, &st) != 0)
        return;
    if (as_user(&c, clean_local) != 0)
        slurm_error("ham: removing the task runners' directory %s of job %u: %s", path, c.jobid,
                    strerror(errno));
}

int slurm_spank_job_epilog(spank_t sp, int ac, char **av)
{
    struct job_ctx c;
    int rc;
    if (parse_args(ac, av) != ESPANK_SUCCESS)
        return ESPANK_BAD_ARG;
    epilog_local(sp);
    if (!load_ctx(sp, ac, av, &c, &rc))
        return rc;
    if (act(&c, clean) != 0) {
        slurm_error("ham: cleaning job %u under %s/%s: %s", c.jobid, c.root, c.user,
                    strerror(errno));
        return user_root(&c) ? ESPANK_SUCCESS : ESPANK_ERROR;
    }
    return ESPANK_SUCCESS;
}
