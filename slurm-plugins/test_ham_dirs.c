/* Unit tests of ham_dirs.c (no Slurm): `make test` (which passes the shared vectors file,
 * tests/vectors/job_dir_cleaning.tsv). Prints "N passed, N failed". */
#define _GNU_SOURCE
#include "ham_dirs.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int passed, failed;

#define CHECK(cond)                                                              \
    do {                                                                         \
        if (cond) {                                                              \
            passed++;                                                            \
        } else {                                                                 \
            failed++;                                                            \
            fprintf(stderr, "%s:%d: FAILED: %s\n", __FILE__, __LINE__, #cond);   \
        }                                                                        \
    } while (0)

static int exists(const char *path)
{
    struct stat st;
    return lstat(path, &st) == 0;
}

static void touch(const char *path)
{
    FILE *f = fopen(path, "w");
    if (f) {
        fputs("x", f);
        fclose(f);
    }
}

static void mkdirs(const char *base, const char *rel)
{
    char cmd[8192];
    snprintf(cmd, sizeof(cmd), "mkdir -p '%s/%s'", base, rel);
    if (system(cmd) != 0)
        fprintf(stderr, "mkdir -p failed\n");
}

/* tests/vectors/job_dir_cleaning.tsv: the tree the launcher's and the Java runtime's cleaners
 * are tested on; each case is a session <root>/u/<200 + case>, cleaned as the epilog does. */
#define MAX_ROWS 256
struct row {
    char kase[64];
    char path[512];
    int kept;
};

static void copy(char *dst, size_t size, const char *src)
{
    size_t n = strlen(src);
    if (n >= size)
        n = size - 1;
    memcpy(dst, src, n);
    dst[n] = '\0';
}

static int read_vectors(const char *file, struct row *rows)
{
    FILE *f = fopen(file, "r");
    if (f == NULL) {
        fprintf(stderr, "%s: %s\n", file, strerror(errno));
        return -1;
    }
    char line[1200];
    int n = 0;
    while (n < MAX_ROWS && fgets(line, sizeof(line), f) != NULL) {
        line[strcspn(line, "\n")] = '\0';
        char *path = strchr(line, '\t');
        char *session = path ? strchr(path + 1, '\t') : NULL;
        char *run_end = session ? strchr(session + 1, '\t') : NULL;
        if (line[0] == '#' || line[0] == '\0' || run_end == NULL)
            continue;
        *path++ = '\0';
        *session++ = '\0';
        *run_end = '\0';
        copy(rows[n].kase, sizeof(rows[n].kase), line);
        copy(rows[n].path, sizeof(rows[n].path), path);
        rows[n].kept = strcmp(session, "kept") == 0;
        n++;
    }
    fclose(f);
    return n;
}

static void check_vectors(const char *root, const char *file)
{
    static struct row rows[MAX_ROWS];
    char kases[16][64];
    int n = read_vectors(file, rows), nk = 0;
    CHECK(n > 0);
    for (int i = 0; i < n; i++) {
        int k = 0;
        while (k < nk && strcmp(kases[k], rows[i].kase) != 0)
            k++;
        if (k == nk && nk < 16)
            copy(kases[nk++], sizeof(kases[0]), rows[i].kase);
        char p[4096];
        snprintf(p, sizeof(p), "%s/u/%d/%s", root, 200 + k, rows[i].path);
        *strrchr(p, '/') = '\0';
        mkdirs(p, ".");
        snprintf(p, sizeof(p), "%s/u/%d/%s", root, 200 + k, rows[i].path);
        touch(p);
    }
    for (int k = 0; k < nk; k++) {
        int cleaned = ham_remove_intermediate(root, "u", (unsigned)(200 + k));
        CHECK(cleaned == 0 || cleaned == 1);
    }
    for (int i = 0; i < n; i++) {
        int k = 0;
        while (strcmp(kases[k], rows[i].kase) != 0)
            k++;
        char p[4096];
        snprintf(p, sizeof(p), "%s/u/%d/%s", root, 200 + k, rows[i].path);
        if (exists(p) != rows[i].kept) {
            failed++;
            fprintf(stderr, "%s: case %s: %s %s, expected %s\n", file, rows[i].kase,
                    rows[i].path, exists(p) ? "kept" : "removed",
                    rows[i].kept ? "kept" : "removed");
        } else {
            passed++;
        }
    }
}

int main(int argc, char **argv)
{
    char buf[64];
    CHECK(ham_job_dir_path(buf, sizeof(buf), "/r", "alice", 42) == 0 && strcmp(buf, "/r/alice/42") == 0);
    CHECK(ham_job_dir_path(buf, sizeof(buf), "rel", "alice", 1) == -1 && errno == EINVAL);
    CHECK(ham_job_dir_path(buf, sizeof(buf), "/r", "../x", 1) == -1 && errno == EINVAL);
    CHECK(ham_job_dir_path(buf, sizeof(buf), "/r", "..", 1) == -1 && errno == EINVAL);
    CHECK(ham_job_dir_path(buf, 8, "/r", "alice", 42) == -1 && errno == ENAMETOOLONG);

    char root[] = "/tmp/ham-dirs-test-XXXXXX";
    if (!mkdtemp(root))
        return 1;
    char p[4096], outside[4096];
    uid_t uid = getuid();
    gid_t gid = getgid();

    /* create: private directories, idempotent, symlinks refused */
    CHECK(ham_create_job_dir(root, "u", 7, uid, gid) == 0);
    snprintf(p, sizeof(p), "%s/u/7", root);
    struct stat st;
    CHECK(stat(p, &st) == 0 && S_ISDIR(st.st_mode) && (st.st_mode & 0777) == 0700);
    CHECK(ham_create_job_dir(root, "u", 7, uid, gid) == 0);
    snprintf(outside, sizeof(outside), "%s/elsewhere", root);
    mkdirs(root, "elsewhere");
    snprintf(p, sizeof(p), "%s/u/8", root);
    CHECK(symlink(outside, p) == 0);
    CHECK(ham_create_job_dir(root, "u", 8, uid, gid) == -1 && errno == EEXIST);
    snprintf(p, sizeof(p), "%s/not-a-dir", root);
    touch(p);
    CHECK(ham_create_job_dir(p, "u", 9, uid, gid) == -1 && errno == ENOTDIR);

    /* remove_intermediate: staging/tmp/local and jobs/ * /{intermediate,work} go; the rest stays */
    mkdirs(root, "u/7/staging/x");
    mkdirs(root, "u/7/conf");
    mkdirs(root, "u/7/jobs/job_1/intermediate/a");
    mkdirs(root, "u/7/jobs/job_1/work/b");
    mkdirs(root, "u/7/jobs/job_1/logs");
    mkdirs(root, "u/7.1/tmp/y");
    mkdirs(root, "u/77/staging");
    snprintf(p, sizeof(p), "%s/u/7/staging/x/f", root); touch(p);
    snprintf(p, sizeof(p), "%s/u/7/jobs/job_1/logs/a.node1.syslog", root); touch(p);
    snprintf(p, sizeof(p), "%s/elsewhere/precious", root); touch(p);
    /* a symlink inside intermediate data must be removed, not followed */
    snprintf(p, sizeof(p), "%s/u/7/jobs/job_1/work/b/link", root);
    CHECK(symlink(outside, p) == 0);
    /* a symlinked "local" must not be followed either */
    snprintf(p, sizeof(p), "%s/u/7.1/local", root);
    CHECK(symlink(outside, p) == 0);

    int n = ham_remove_intermediate(root, "u", 7);
    CHECK(n == -1);  /* 7.1/local is a symlink: refused, reported */
    snprintf(p, sizeof(p), "%s/u/7/staging", root); CHECK(!exists(p));
    snprintf(p, sizeof(p), "%s/u/7/jobs/job_1/intermediate", root); CHECK(!exists(p));
    snprintf(p, sizeof(p), "%s/u/7/jobs/job_1/work", root); CHECK(!exists(p));
    snprintf(p, sizeof(p), "%s/u/7/jobs/job_1/logs/a.node1.syslog", root); CHECK(exists(p));
    snprintf(p, sizeof(p), "%s/u/7/conf", root); CHECK(exists(p));
    snprintf(p, sizeof(p), "%s/u/7.1/tmp", root); CHECK(!exists(p));
    snprintf(p, sizeof(p), "%s/u/77/staging", root); CHECK(exists(p));  /* another job */
    snprintf(p, sizeof(p), "%s/elsewhere/precious", root); CHECK(exists(p));
    snprintf(p, sizeof(p), "%s/u/7.1/local", root);
    CHECK(unlink(p) == 0);
    CHECK(ham_remove_intermediate(root, "u", 7) == 2);
    CHECK(ham_remove_intermediate(root, "nobody-here", 7) == 0);

    /* a session with a resumable Hadoop job is left whole; the others of the job are cleaned */
    mkdirs(root, "u/9/staging/s");
    mkdirs(root, "u/9/jobs/job_2/intermediate/m");
    mkdirs(root, "u/9/jobs/job_3/intermediate/m");
    snprintf(p, sizeof(p), "%s/u/9/jobs/job_2/resumable", root); touch(p);
    mkdirs(root, "u/9.1/staging/s");
    CHECK(ham_remove_intermediate(root, "u", 9) == 1);
    snprintf(p, sizeof(p), "%s/u/9/staging/s", root); CHECK(exists(p));
    snprintf(p, sizeof(p), "%s/u/9/jobs/job_2/intermediate/m", root); CHECK(exists(p));
    snprintf(p, sizeof(p), "%s/u/9/jobs/job_3/intermediate/m", root); CHECK(exists(p));
    snprintf(p, sizeof(p), "%s/u/9.1/staging", root); CHECK(!exists(p));
    snprintf(p, sizeof(p), "%s/u/9/jobs/job_2/resumable", root); CHECK(unlink(p) == 0);
    CHECK(ham_remove_intermediate(root, "u", 9) == 2);
    snprintf(p, sizeof(p), "%s/u/9/jobs/job_2/intermediate", root); CHECK(!exists(p));

    /* remove_local: <local>/ham-<user>/<jobid> goes whole (links removed, not followed); other
     * jobs' directories stay; none is 0; a link in its place is refused */
    mkdirs(root, "node/ham-u/31/job_1_0001.abcd/g1-p0/sub");
    mkdirs(root, "node/ham-u/32/job_1_0001.abcd/g1-p0");
    snprintf(p, sizeof(p), "%s/node/ham-u", root);
    CHECK(chmod(p, 0700) == 0);
    snprintf(p, sizeof(p), "%s/node/ham-u/31/job_1_0001.abcd/g1-p0/job.xml", root); touch(p);
    snprintf(p, sizeof(p), "%s/node/ham-u/31/job_1_0001.abcd/g1-p0/cache", root);
    CHECK(symlink(outside, p) == 0);
    snprintf(p, sizeof(p), "%s/node", root);
    CHECK(ham_remove_local(p, "u", 31) == 1);
    snprintf(p, sizeof(p), "%s/node/ham-u/31", root); CHECK(!exists(p));
    snprintf(p, sizeof(p), "%s/node/ham-u/32/job_1_0001.abcd/g1-p0", root); CHECK(exists(p));
    snprintf(p, sizeof(p), "%s/elsewhere/precious", root); CHECK(exists(p));
    snprintf(p, sizeof(p), "%s/node", root);
    CHECK(ham_remove_local(p, "u", 31) == 0);
    CHECK(ham_remove_local(p, "nobody-here", 31) == 0);
    CHECK(ham_remove_local("rel", "u", 31) == -1 && errno == EINVAL);
    CHECK(ham_remove_local(p, "../x", 31) == -1 && errno == EINVAL);
    snprintf(p, sizeof(p), "%s/node/ham-u/33", root);
    CHECK(symlink(outside, p) == 0);
    snprintf(p, sizeof(p), "%s/node", root);
    CHECK(ham_remove_local(p, "u", 33) == -1 && errno == ENOTDIR);
    snprintf(p, sizeof(p), "%s/elsewhere/precious", root); CHECK(exists(p));
    /* a link planted as the user's top directory (someone else's trap): nothing removed where
     * it points, though <jobid> exists there */
    mkdirs(root, "elsewhere/34/keep");
    snprintf(p, sizeof(p), "%s/trap", root);
    mkdirs(root, "trap");
    snprintf(p, sizeof(p), "%s/trap/ham-u", root);
    CHECK(symlink(outside, p) == 0);
    snprintf(p, sizeof(p), "%s/trap", root);
    CHECK(ham_remove_local(p, "u", 34) == -1 && errno == EPERM);
    snprintf(p, sizeof(p), "%s/elsewhere/34/keep", root); CHECK(exists(p));
    /* local named through a link (/tmp -> /local/tmp): the directory it names counts */
    mkdirs(root, "real-local/ham-u/36/j");
    snprintf(p, sizeof(p), "%s/real-local", root);
    CHECK(chmod(p, 01777) == 0);
    snprintf(p, sizeof(p), "%s/real-local/ham-u", root);
    CHECK(chmod(p, 0700) == 0);
    snprintf(p, sizeof(p), "%s/linked-local", root);
    snprintf(outside, sizeof(outside), "%s/real-local", root);
    CHECK(symlink(outside, p) == 0);
    CHECK(ham_remove_local(p, "u", 36) == 1);
    snprintf(p, sizeof(p), "%s/real-local/ham-u/36", root); CHECK(!exists(p));
    snprintf(outside, sizeof(outside), "%s/elsewhere", root);
    /* a top others may write, or in a world-writable directory without the sticky bit */
    mkdirs(root, "open/ham-u/35");
    snprintf(p, sizeof(p), "%s/open/ham-u", root);
    CHECK(chmod(p, 0777) == 0);
    snprintf(p, sizeof(p), "%s/open", root);
    CHECK(ham_remove_local(p, "u", 35) == -1 && errno == EPERM);
    snprintf(p, sizeof(p), "%s/open/ham-u", root);
    CHECK(chmod(p, 0755) == 0);  /* readable by others: not as the runner makes it */
    snprintf(p, sizeof(p), "%s/open", root);
    CHECK(ham_remove_local(p, "u", 35) == -1 && errno == EPERM);
    snprintf(p, sizeof(p), "%s/open/ham-u", root);
    CHECK(chmod(p, 0700) == 0);
    snprintf(p, sizeof(p), "%s/open", root);
    CHECK(chmod(p, 0777) == 0);
    CHECK(ham_remove_local(p, "u", 35) == -1 && errno == EPERM);
    CHECK(chmod(p, 01777) == 0);
    CHECK(ham_remove_local(p, "u", 35) == 1);
    CHECK(chmod(p, 0755) == 0);

    if (argc > 1)
        check_vectors(root, argv[1]);

    char cmd[4200];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
    if (system(cmd) != 0)
        fprintf(stderr, "cleanup failed\n");
    printf("%d passed, %d failed\n", passed, failed);
    return failed != 0;
}
