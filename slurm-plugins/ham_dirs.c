/* See ham_dirs.h for the contracts. */
#define _GNU_SOURCE
#include "ham_dirs.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fts.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const char *const HAM_SESSION_INTERMEDIATE[] = {"staging", "tmp", "local", NULL};
const char HAM_JOBS_DIR[] = "jobs";
const char *const HAM_JOB_INTERMEDIATE[] = {"intermediate", "work", NULL};
const char HAM_RESUMABLE[] = "resumable";
const char HAM_LOCAL_PREFIX[] = "ham-";

/* "<root>/<prefix><user>/<jobid>" into buf: the one place a user's name becomes part of a path. */
static int user_path(char *buf, size_t len, const char *root, const char *prefix,
                     const char *user, unsigned jobid)
{
    if (root[0] != '/' || user[0] == '\0' || strchr(user, '/') || strcmp(user, "..") == 0 ||
        strcmp(user, ".") == 0) {
        errno = EINVAL;
        return -1;
    }
    int n = snprintf(buf, len, "%s/%s%s/%u", root, prefix, user, jobid);
    if (n < 0 || (size_t)n >= len) {
        errno = ENAMETOOLONG;
        return -1;
    }
    return 0;
}

int ham_job_dir_path(char *buf, size_t len, const char *root, const char *user, unsigned jobid)
{
    return user_path(buf, len, root, "", user, jobid);
}

int ham_local_dir_path(char *buf, size_t len, const char *local, const char *user,
                       unsigned jobid)
{
    return user_path(buf, len, local, HAM_LOCAL_PREFIX, user, jobid);
}

/* mkdir path 0700 owned by uid:gid; an existing real directory owned by uid is fine. */
static int make_private_dir(const char *path, uid_t uid, gid_t gid)
{
    if (mkdir(path, 0700) == 0) {
        if (chown(path, uid, gid) != 0 || chmod(path, 0700) != 0)
            return -1;
        return 0;
    }
    if (errno != EEXIST)
        return -1;
    struct stat st;
    if (lstat(path, &st) != 0)
        return -1;
    if (!S_ISDIR(st.st_mode) || st.st_uid != uid) {
        errno = EEXIST;  /* a symlink, a file, or someone else's directory: refuse */
        return -1;
    }
    return 0;
}

int ham_create_job_dir(const char *root, const char *user, unsigned jobid, uid_t uid, gid_t gid)
{
    char path[4096];
    struct stat st;
    if (stat(root, &st) != 0)
        return -1;
    if (!S_ISDIR(st.st_mode)) {
        errno = ENOTDIR;
        return -1;
    }
    if (ham_job_dir_path(path, sizeof(path), root, user, jobid) != 0)
        return -1;
    char *slash = strrchr(path, '/');
    *slash = '\0';
    if (make_private_dir(path, uid, gid) != 0)
        return -1;
    *slash = '/';
    return make_private_dir(path, uid, gid);
}

/* rm -r of path: physical walk, one file system, nothing outside root. */
static int remove_tree(const char *root, const char *path)
{
    size_t rootlen = strlen(root);
    if (strncmp(path, root, rootlen) != 0 || path[rootlen] != '/' || strstr(path, "/../")) {
        errno = EPERM;
        return -1;
    }
    struct stat st;
    if (lstat(path, &st) != 0)
        return errno == ENOENT ? 0 : -1;
    if (!S_ISDIR(st.st_mode)) {
        errno = ENOTDIR;  /* a symlink where a directory should be: leave it alone */
        return -1;
    }
    char *const paths[] = {(char *)path, NULL};
    FTS *fts = fts_open(paths, FTS_PHYSICAL | FTS_XDEV | FTS_NOCHDIR, NULL);
    if (fts == NULL)
        return -1;
    int rc = 0;
    FTSENT *e;
    while ((e = fts_read(fts)) != NULL) {
        switch (e->fts_info) {
        case FTS_DP:
            if (rmdir(e->fts_accpath) != 0 && errno != ENOENT)
                rc = -1;
            break;
        case FTS_F: case FTS_SL: case FTS_SLNONE: case FTS_DEFAULT:
            if (unlink(e->fts_accpath) != 0 && errno != ENOENT)
                rc = -1;
            break;
        case FTS_DNR: case FTS_ERR: case FTS_NS:
            errno = e->fts_errno;
            rc = -1;
            break;
        default:
            break;
        }
    }
    int saved = errno;
    fts_close(fts);
    errno = saved;
    return rc;
}

/* out = a "/" b; -1 (errno ENAMETOOLONG) if it does not fit. */
static int join(char *out, size_t size, const char *a, const char *b)
{
    if (snprintf(out, size, "%s/%s", a, b) >= (int)size) {
        errno = ENAMETOOLONG;
        return -1;
    }
    return 0;
}

/* 1 if a Hadoop job under <jobdir>/jobs has the resumable marker (it has not reached a final
 * state: it may be resumed, and needs the session's staging and its map outputs), 0 if none,
 * -1 on error. */
static int has_resumable(const char *jobdir)
{
    char path[4096];
    if (join(path, sizeof(path), jobdir, HAM_JOBS_DIR) != 0)
        return -1;
    DIR *d = opendir(path);
    if (d == NULL)
        return errno == ENOENT ? 0 : -1;
    struct dirent *de;
    int found = 0;
    while (!found && (de = readdir(d)) != NULL) {
        char marker[4096];
        struct stat st;
        if (de->d_name[0] != '.' &&
            snprintf(marker, sizeof(marker), "%s/%s/%s", path, de->d_name, HAM_RESUMABLE) <
                (int)sizeof(marker) &&
            lstat(marker, &st) == 0)
            found = 1;
    }
    closedir(d);
    return found;
}

static int clean_one(const char *root, const char *jobdir)
{
    char path[4096];
    int resumable = has_resumable(jobdir);
    if (resumable != 0)
        return resumable < 0 ? -1 : 1;
    for (const char *const *n = HAM_SESSION_INTERMEDIATE; *n; n++) {
        if (join(path, sizeof(path), jobdir, *n) != 0)
            return -1;
        if (remove_tree(root, path) != 0)
            return -1;
    }
    if (join(path, sizeof(path), jobdir, HAM_JOBS_DIR) != 0)
        return -1;
    DIR *d = opendir(path);
    if (d == NULL)
        return errno == ENOENT ? 0 : -1;
    struct dirent *de;
    int rc = 0;
    while ((de = readdir(d)) != NULL) {
        if (de->d_name[0] == '.')
            continue;
        for (const char *const *n = HAM_JOB_INTERMEDIATE; *n; n++) {
            char sub[4096];
            if (snprintf(sub, sizeof(sub), "%s/%s/%s", path, de->d_name, *n) >= (int)sizeof(sub) ||
                remove_tree(root, sub) != 0)
                rc = -1;
        }
    }
    closedir(d);
    return rc;
}

int ham_remove_intermediate(const char *root, const char *user, unsigned jobid)
{
    char userdir[4096], prefix[32];
    if (ham_job_dir_path(userdir, sizeof(userdir), root, user, jobid) != 0)
        return -1;
    *strrchr(userdir, '/') = '\0';
    int plen = snprintf(prefix, sizeof(prefix), "%u", jobid);
    DIR *d = opendir(userdir);
    if (d == NULL)
        return errno == ENOENT ? 0 : -1;
    struct dirent *de;
    int cleaned = 0, rc = 0;
    while ((de = readdir(d)) != NULL) {
        /* "<jobid>" or "<jobid>.<n>" only */
        if (strncmp(de->d_name, prefix, (size_t)plen) != 0 ||
            (de->d_name[plen] != '\0' && de->d_name[plen] != '.'))
            continue;
        char jobdir[4096];
        if (join(jobdir, sizeof(jobdir), userdir, de->d_name) != 0) {
            rc = -1;
            continue;
        }
        struct stat st;
        if (lstat(jobdir, &st) != 0 || !S_ISDIR(st.st_mode))
            continue;  /* never follow a symlinked job directory */
        int one = clean_one(root, jobdir);
        if (one < 0)
            rc = -1;
        else if (one == 0)
            cleaned++;
    }
    closedir(d);
    return rc == 0 ? cleaned : -1;
}

int ham_remove_local(const char *local, const char *user, unsigned jobid)
{
    char real[4096], top[4096], path[4096];
    if (ham_local_dir_path(path, sizeof(path), local, user, jobid) != 0)
        return -1;  /* local relative or user not a name: before realpath makes either a path */
    /* The directory local names (/tmp may be a link to /local/tmp): its mode is checked below,
     * not the link's. */
    if (strlen(local) >= sizeof(real) || realpath(local, real) == NULL)
        return errno == ENOENT ? 0 : -1;
    if (ham_local_dir_path(path, sizeof(path), real, user, jobid) != 0)
        return -1;
    strcpy(top, path);
    *strrchr(top, '/') = '\0';
    /* Everything below top is safe from other users only if top is a real directory of the
     * caller's (the job's user: the epilog runs this as the user), private as the runner's
     * shell makes it (0700), in a directory where others cannot rename it (sticky like /tmp,
     * or not writable by them): a link planted as <local>/ham-<user> would otherwise take the
     * removal to wherever it points (the user's job directory on the shared file system). */
    struct stat st;
    if (lstat(top, &st) != 0)
        return errno == ENOENT ? 0 : -1;
    if (!S_ISDIR(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & 077)) {
        errno = EPERM;
        return -1;
    }
    if (lstat(real, &st) != 0)
        return -1;
    if ((st.st_mode & 022) && !(st.st_mode & S_ISVTX)) {
        errno = EPERM;
        return -1;
    }
    if (lstat(path, &st) != 0)
        return errno == ENOENT ? 0 : -1;
    if (remove_tree(top, path) != 0)
        return -1;
    return 1;
}
