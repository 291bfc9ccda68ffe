/* SPDX-License-Identifier: GPL-2.0 */
/*
 * attach_check.h - can a hook's programs really run on this kernel?
 *
 * BTF says a function exists; only the kernel says whether the verifier
 * takes our program and a trampoline or kprobe can be put on it.  So, as
 * bcc's fentry_can_attach() does, load and attach -- but the real
 * programs, not an empty one: on Debian's 6.1 the hooks were all in BTF
 * and the verifier still refused the object.
 */
#ifndef VB_ATTACH_CHECK_H
#define VB_ATTACH_CHECK_H

#include <stddef.h>

/*
 * Load exactly the programs named in progs[] (n of them, NULL entries
 * skipped) from a throwaway copy of the tracer's object whose maps hold
 * one entry, attach each, then detach and free everything.  0 if all
 * loaded and attached; else -errno and a one-line reason in why: the
 * verifier's last message, or what the attach error means here.
 * -ENOENT when the object has no such program (a fallback this build
 * lacks).
 */
int vb_attach_check(const char *const *progs, size_t n, char *why,
		    size_t len);

#endif
