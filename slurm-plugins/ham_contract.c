/* Prints, as JSON, the job-directory names the SPANK plugin removes after a job, for
 * tests/unit/test_contract.py to compare with the launcher and the Java runtime. */
#include <stdio.h>

#include "ham_dirs.h"

static void list(const char *name, const char *const *items, const char *end)
{
    printf("  \"%s\": [", name);
    for (const char *const *n = items; *n; n++)
        printf("%s\"%s\"", n == items ? "" : ", ", *n);
    printf("]%s\n", end);
}

int main(void)
{
    printf("{\n");
    list("SESSION_INTERMEDIATE", HAM_SESSION_INTERMEDIATE, ",");
    printf("  \"JOBS\": \"%s\",\n", HAM_JOBS_DIR);
    printf("  \"RESUMABLE\": \"%s\",\n", HAM_RESUMABLE);
    printf("  \"LOCAL_PREFIX\": \"%s\",\n", HAM_LOCAL_PREFIX);
    list("JOB_INTERMEDIATE", HAM_JOB_INTERMEDIATE, "");
    printf("}\n");
    return 0;
}
