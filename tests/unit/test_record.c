// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of `vsockbatch record`'s argument handling that needs no
 * root and attaches nothing: a mistyped -o is refused (exit 2) before
 * anything is attached, and so are bad -i values.  (What it prints while
 * tracing, SIGHUP and a Ctrl-C during the attach are tested in a guest:
 * tests/guest/tracer.sh.)
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "../../tools/vsockbatch/commands.h"

/*
 * cmd_record(argv) in a child without root: should a refusal ever be
 * missed, the child stops at "must run as root" (exit 1) instead of
 * attaching probes to this machine's kernel.
 */
static int record(int argc, ...)
{
	char *argv[16];
	va_list ap;
	int i, status;
	pid_t pid;

	va_start(ap, argc);
	for (i = 0; i < argc; i++)
		argv[i] = va_arg(ap, char *);
	va_end(ap);
	argv[argc] = NULL;
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		if (geteuid() == 0 && (setgid(65534) || setuid(65534)))
			_exit(99);
		_exit(cmd_record(argc, argv));
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	return WEXITSTATUS(status);
}

static void test_output_checked_first(void **state)
{
	char dir[] = "/tmp/vb-test-record-XXXXXX", file[64];

	(void)state;
	assert_non_null(mkdtemp(dir));
	assert_int_equal(chmod(dir, 0755), 0);	/* the child runs as nobody */
	/* the parent directory does not exist */
	assert_int_equal(record(4, "record", "-o", "/nonexistent-vb/x.json", "-d1"),
			 VB_EXIT_USAGE);
	/* FILE is a directory */
	assert_int_equal(record(3, "record", "-o", dir), VB_EXIT_USAGE);
	/* a parent that is a file; a directory nobody may write in */
	snprintf(file, sizeof(file), "%s/f", dir);
	fclose(fopen(file, "w"));
	snprintf(file, sizeof(file), "%s/f/x.json", dir);
	assert_int_equal(record(3, "record", "-o", file), VB_EXIT_USAGE);
	snprintf(file, sizeof(file), "%s/x.json", dir);
	assert_int_equal(record(3, "record", "-o", file),
			 geteuid() == 0 ? VB_EXIT_USAGE : VB_EXIT_FAIL);
	snprintf(file, sizeof(file), "%s/f", dir);
	unlink(file);
	rmdir(dir);
}

static void test_interval_values(void **state)
{
	(void)state;
	assert_int_equal(record(5, "record", "-o", "/tmp/x.json", "-i", "0"),
			 VB_EXIT_USAGE);
	assert_int_equal(record(5, "record", "-o", "/tmp/x.json", "-i", "abc"),
			 VB_EXIT_USAGE);
	assert_int_equal(record(5, "record", "-o", "/tmp/x.json", "-i", "3601"),
			 VB_EXIT_USAGE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_output_checked_first),
		cmocka_unit_test(test_interval_values),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
