/* SPDX-License-Identifier: GPL-2.0 */
/*
 * test_util.h - small helpers the unit tests share.  Include after
 * <cmocka.h> (and the headers cmocka needs before it).
 */
#ifndef VSOCKBATCH_TEST_UTIL_H
#define VSOCKBATCH_TEST_UTIL_H

#include <math.h>

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

#endif /* VSOCKBATCH_TEST_UTIL_H */
