/* HAM SPANK plugin: `--ham[=SHARED_ROOT]` for sbatch/salloc/srun.
 *
 *   job prolog   creates <root>/<user>/<jobid> (0700, owned by the job's user);
 *   task init    exports HAM_JOB_DIR into the job's environment;
 *   job epilog   removes the job's intermediate data even if every HAM process was SIGKILLed.
 *
 * plugstack.conf:   required /path/ham_spank.so root=/lustre/ham
 * (root= is the shared root used when --ham is given without a value). The directory logic is
 * in ham_dirs.c. */
#define _GNU_SOURCE
#include <errno.h>
#include <pwd.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <slurm/spank.h>

#include "ham_dirs.h"

SPANK_PLUGIN(ham, 1);

#define OPT_HAM 1

static char default_root[4096] = "";
static char chosen_root[4096] = "";
static int ham_requested = 0;

static int opt_cb(int val, const char *optarg, int remote);

static struct spank_option ham_option = {
    "ham", "[SHARED_ROOT]",
    "Create a HAM per-job directory under SHARED_ROOT (default: the site's) and export "
    "HAM_JOB_DIR; its intermediate data is removed when the job ends.",
    2, OPT_HAM, opt_cb};

static int opt_cb(int val, const char *optarg, int remote)
{
    (void)val;
    (void)remote;
    ham_requested = 1;
    if (optarg && optarg[0]) {
        if (optarg[0] != '/' || strlen(optarg) >= sizeof(chosen_root)) {
            slurm_error("ham: --ham wants an absolute directory, got '%s'", optarg);
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
    for (int i = 0; i < ac; i++) {
        if (strncmp(av[i], "root=", 5) == 0 && av[i][5] == '/' &&
            strlen(av[i] + 5) < sizeof(default_root)) {
            strcpy(default_root, av[i] + 5);
        } else {
            slurm_error("ham: unknown or bad plugstack argument '%s' (valid: root=/absolute/dir)",
                        av[i]);
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
        if (optarg && optarg[0] == '/' && strlen(optarg) < sizeof(chosen_root))
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

int slurm_spank_job_prolog(spank_t sp, int ac, char **av)
{
    const char *root;
    if (parse_args(ac, av) != ESPANK_SUCCESS)
        return ESPANK_BAD_ARG;
    int want = requested_root(sp, &root);
    if (want <= 0)
        return want == 0 ? ESPANK_SUCCESS : ESPANK_ERROR;
    uint32_t jobid;
    uid_t uid;
    gid_t gid;
    char user[256];
    if (job_identity(sp, &jobid, &uid, &gid, user, sizeof(user)) != 0)
        return ESPANK_ERROR;
    if (ham_create_job_dir(root, user, jobid, uid, gid) != 0) {
        slurm_error("ham: cannot create the job directory for job %u under %s/%s: %s", jobid,
                    root, user, strerror(errno));
        return ESPANK_ERROR;
    }
    return ESPANK_SUCCESS;
}

int slurm_spank_user_init(spank_t sp, int ac, char **av)
{
    const char *root;
    if (parse_args(ac, av) != ESPANK_SUCCESS)
        return ESPANK_BAD_ARG;
    if (!spank_remote(sp) || requested_root(sp, &root) <= 0)
        return ESPANK_SUCCESS;
    uint32_t jobid;
    uid_t uid;
    gid_t gid;
    char user[256], path[4096];
    if (job_identity(sp, &jobid, &uid, &gid, user, sizeof(user)) != 0 ||
        ham_job_dir_path(path, sizeof(path), root, user, jobid) != 0)
        return ESPANK_ERROR;
    spank_err_t rc = spank_setenv(sp, "HAM_JOB_DIR", path, 1);
    if (rc == ESPANK_SUCCESS)
        rc = spank_setenv(sp, "HAM_SHARED_ROOT", root, 1);
    if (rc != ESPANK_SUCCESS) {
        slurm_error("ham: spank_setenv: %s", spank_strerror(rc));
        return rc;
    }
    return ESPANK_SUCCESS;
}

int slurm_spank_job_epilog(spank_t sp, int ac, char **av)
{
    const char *root;
    if (parse_args(ac, av) != ESPANK_SUCCESS)
        return ESPANK_BAD_ARG;
    int want = requested_root(sp, &root);
    if (want <= 0)
        return want == 0 ? ESPANK_SUCCESS : ESPANK_ERROR;
    uint32_t jobid;
    uid_t uid;
    gid_t gid;
    char user[256];
    if (job_identity(sp, &jobid, &uid, &gid, user, sizeof(user)) != 0)
        return ESPANK_ERROR;
    if (ham_remove_intermediate(root, user, jobid) < 0) {
        slurm_error("ham: cleaning job %u under %s/%s: %s", jobid, root, user, strerror(errno));
        return ESPANK_ERROR;
    }
    return ESPANK_SUCCESS;
}
