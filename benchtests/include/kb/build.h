/* What the build tells a driver: the kernel it was built for, and what the
 * project that built it knows (its source tree, where results and baselines
 * go, how the kernel's sources were compiled). The driver uses these as
 * defaults and records them in every result.
 *
 * kbench_add_kernel (cmake/KbenchKernels.cmake) reads the kernel's manifest
 * at configure time and generates one C file per driver defining kb_build, in
 * the calling project's build tree: the kernel's name is written once, in its
 * manifest, a driver knows its manifest without being told, and no driver
 * carries the paths of the build that compiled kbench's libraries. */
#ifndef KB_BUILD_H
#define KB_BUILD_H

#ifdef __cplusplus
extern "C" {
#endif

typedef struct kb_build_info {
    const char *kernel;       /* the manifest's "name" */
    const char *manifest;     /* absolute path of the kernel's kernel.json */
    const char *source_dir;   /* the project's source tree ("" none): git state of results */
    const char *results_dir;  /* default --results-dir */
    const char *baseline_dir; /* default --baseline-dir */
    const char *profile;      /* default --profile ("auto": detected) */
    const char *compiler;     /* the C compiler of the kernel's sources, "GNU 12.2.0" */
    const char *c_flags;      /* their flags */
    const char *build_type;   /* CMAKE_BUILD_TYPE */
    const char *docs_dir;     /* kbench's documentation, which messages name ("" unknown) */
} kb_build_info;

extern const kb_build_info kb_build;

#ifdef __cplusplus
}
#endif

#endif
