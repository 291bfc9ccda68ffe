/* SPDX-License-Identifier: GPL-2.0 */
/*
 * test_util.h - small helpers the unit tests share.  Include after
 * <cmocka.h> (and the headers cmocka needs before it).
 */
#ifndef VSOCKBATCH_TEST_UTIL_H
#define VSOCKBATCH_TEST_UTIL_H

#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/*
 * assert_near(got, want, eps): |got - want| <= eps, on full doubles
 * (cmocka 1.1's assert_float_equal() casts to float).  A NaN never is.
 */
#define assert_near(got, want, eps) \
	test_near_((got), (want), (eps), #got, __FILE__, __LINE__)

static inline void test_near_(double got, double want, double eps,
			      const char *what, const char *file, int line)
{
	if (!(fabs(got - want) <= eps)) {
		print_error("%s:%d: %s = %.9g, want %.9g (+-%g)\n",
			    file, line, what, got, want, eps);
		fail();
	}
}

/* Read a whole file into a NUL-terminated malloc'ed string. */
static inline char *test_slurp_(const char *path)
{
	FILE *f = fopen(path, "r");
	char *s;
	long n;

	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	s = calloc(1, (size_t)n + 1);
	assert_non_null(s);
	assert_int_equal(fread(s, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	return s;
}

/*
 * Run a command's entry point fn(argc, argv) (argv NULL-terminated) with
 * stdout and stderr captured in files under dir; *out and *err get their
 * contents (malloc'ed).  Returns the command's exit status.
 */
static inline int test_run_captured(int (*fn)(int, char **), const char *dir,
				    int argc, char **argv, char **out,
				    char **err)
{
	char opath[256], epath[256];
	int ofd, efd, so, se, rc;

	snprintf(opath, sizeof(opath), "%s/stdout", dir);
	snprintf(epath, sizeof(epath), "%s/stderr", dir);
	fflush(stdout);
	fflush(stderr);
	ofd = open(opath, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	efd = open(epath, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	assert_true(ofd >= 0 && efd >= 0);
	so = dup(1);
	se = dup(2);
	dup2(ofd, 1);
	dup2(efd, 2);
	rc = fn(argc, argv);
	fflush(stdout);
	fflush(stderr);
	dup2(so, 1);
	dup2(se, 2);
	close(so);
	close(se);
	close(ofd);
	close(efd);
	*out = test_slurp_(opath);
	*err = test_slurp_(epath);
	return rc;
}

/* test_run_captured() with argv as arguments: argc strings, at most 15. */
static inline int test_run_args(int (*fn)(int, char **), const char *dir,
				char **out, char **err, int argc, ...)
{
	char *argv[16];
	va_list ap;
	int i;

	assert_true(argc < 16);
	va_start(ap, argc);
	for (i = 0; i < argc; i++)
		argv[i] = va_arg(ap, char *);
	va_end(ap);
	argv[argc] = NULL;
	return test_run_captured(fn, dir, argc, argv, out, err);
}

/* A test's temporary directory removed: 0, or -1 (a group teardown's). */
static inline int test_rm_rf(const char *dir)
{
	char cmd[4200];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

#endif /* VSOCKBATCH_TEST_UTIL_H */
