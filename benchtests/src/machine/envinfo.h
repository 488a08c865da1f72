/* The environment a measurement was taken in, stored with results and
 * baselines: source revision, build, machine, OS and library versions. */
#ifndef KB_ENVINFO_H
#define KB_ENVINFO_H

#include <cjson/cJSON.h>

/* A new object describing this process's environment (NULL when out of
 * memory). `hardware_id` and `profile` come from the backend. */
cJSON *kb_env_describe(const char *hardware_id, const char *profile);

/* Peak resident set size of this process, in MiB. */
double kb_env_peak_rss_mib(void);

#endif
