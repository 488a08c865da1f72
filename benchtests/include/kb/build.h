/* What the build tells a driver about the kernel it was built for.
 *
 * kbench_add_kernel (cmake/KbenchKernels.cmake) reads the kernel's manifest
 * at configure time and generates one C file per driver defining kb_build,
 * so that the kernel's name is written once, in its manifest, and a driver
 * knows its manifest without being told. */
#ifndef KB_BUILD_H
#define KB_BUILD_H

#ifdef __cplusplus
extern "C" {
#endif

typedef struct kb_build_info {
    const char *kernel;   /* the manifest's "name" */
    const char *manifest; /* absolute path of the kernel's kernel.json */
} kb_build_info;

extern const kb_build_info kb_build;

#ifdef __cplusplus
}
#endif

#endif
