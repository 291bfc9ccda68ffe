// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for tools/vsockbatch/cost.c through a perf_event_open test
 * double (vb_cost_set_ops): the cycles branch, perf-stat style multiplex
 * scaling, every errno fallback (no PMU -> cpu-clock, refused/busy ->
 * cpu-clock with a note, anything else -> not measured), the cpu-clock
 * busy-share scaling from /proc/stat, and the results fill.
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "test_util.h"

#include "../../tools/vsockbatch/cost.h"

/* ---- the double ------------------------------------------------------ */

#define MAXFD 16

static struct fake {
	int hw_errno, sw_errno;		/* 0 = open succeeds */
	int fail_at_cpu;		/* -1, or the CPU whose open fails */
	uint64_t value[MAXFD], enabled[MAXFD], running[MAXFD];
	uint32_t type[MAXFD];
	int cpu[MAXFD];
	bool open[MAXFD], enabled_ioctl[MAXFD], reset[MAXFD];
	int nopen, nclose;
	const char *stat0, *stat1;	/* /proc/stat at start / at read */
	int nstat;
	bool short_read;
} F;

static int f_open(const struct perf_event_attr *a, int cpu)
{
	int e = a->type == PERF_TYPE_HARDWARE ? F.hw_errno : F.sw_errno;
	int fd;

	/* what record opens: CPU-wide, disabled, time enabled/running */
	assert_true(a->disabled);
	assert_int_equal(a->read_format, PERF_FORMAT_TOTAL_TIME_ENABLED |
					 PERF_FORMAT_TOTAL_TIME_RUNNING);
	if (a->type == PERF_TYPE_HARDWARE)
		assert_int_equal(a->config, PERF_COUNT_HW_CPU_CYCLES);
	else
		assert_int_equal(a->config, PERF_COUNT_SW_CPU_CLOCK);
	if (e && (F.fail_at_cpu < 0 || F.fail_at_cpu == cpu)) {
		errno = e;
		return -1;
	}
	fd = 3 + F.nopen++;
	assert_true(fd < MAXFD);
	F.open[fd] = true;
	F.type[fd] = a->type;
	F.cpu[fd] = cpu;
	return fd;
}

static ssize_t f_read(int fd, void *buf, size_t n)
{
	uint64_t *v = buf;

	assert_true(F.open[fd]);
	assert_int_equal(n, 3 * sizeof(uint64_t));
	v[0] = F.value[fd];
	v[1] = F.enabled[fd];
	v[2] = F.running[fd];
	return F.short_read ? 8 : (ssize_t)n;
}

static int f_ioctl(int fd, unsigned long req)
{
	assert_true(F.open[fd]);
	if (req == PERF_EVENT_IOC_RESET)
		F.reset[fd] = true;
	if (req == PERF_EVENT_IOC_ENABLE)
		F.enabled_ioctl[fd] = true;
	return 0;
}

static int f_close(int fd)
{
	assert_true(F.open[fd]);
	F.open[fd] = false;
	F.nclose++;
	return 0;
}

static char *f_stat(void)
{
	const char *s = F.nstat++ ? F.stat1 : F.stat0;

	return s ? strdup(s) : NULL;
}

static const struct vb_perf_ops fake_ops = {
	.open = f_open, .read = f_read, .ioctl = f_ioctl, .close = f_close,
	.proc_stat = f_stat,
};

static int setup(void **state)
{
	(void)state;
	memset(&F, 0, sizeof(F));
	F.fail_at_cpu = -1;
	vb_cost_set_ops(&fake_ops);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	vb_cost_set_ops(NULL);
	return 0;
}

static const uint32_t cpus2[] = { 0, 1 };

/* ---- tests ------------------------------------------------------------ */

static void test_cycles_and_multiplex_scaling(void **state)
{
	struct vb_costctr c;
	uint64_t vals[2];

	(void)state;
	assert_int_equal(vb_cost_open(&c, cpus2, 2), 0);
	assert_true(c.open);
	assert_int_equal(c.unit, VB_COST_CYCLES);
	assert_string_equal(c.source, VB_COST_SRC_CYCLES);
	assert_string_equal(c.note, "");
	assert_int_equal(F.nopen, 2);
	assert_int_equal(F.cpu[3], 0);
	assert_int_equal(F.cpu[4], 1);
	assert_int_equal(vb_cost_start(&c), 0);
	assert_true(F.reset[3] && F.enabled_ioctl[3] && F.enabled_ioctl[4]);
	/* CPU 0 counted all the time; CPU 1 only a quarter (multiplexed):
	 * scaled by enabled/running like perf stat */
	F.value[3] = 1000000; F.enabled[3] = 500; F.running[3] = 500;
	F.value[4] = 250000; F.enabled[4] = 400; F.running[4] = 100;
	assert_int_equal(vb_cost_read(&c, vals), 0);
	assert_int_equal(vals[0], 1000000);
	assert_int_equal(vals[1], 1000000);
	/* never ran at all: no scaling by 0 */
	F.running[4] = 0;
	assert_int_equal(vb_cost_read(&c, vals), 0);
	assert_int_equal(vals[1], 250000);
	F.short_read = true;
	assert_int_equal(vb_cost_read(&c, vals), -EIO);
	vb_cost_close(&c);
	assert_int_equal(F.nclose, 2);
}

/* Every "no PMU" errno falls back to cpu-clock, labelled as such. */
static void test_no_pmu_falls_back(void **state)
{
	static const int errs[] = { ENOENT, EOPNOTSUPP, ENODEV, ENXIO };
	struct vb_costctr c;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(errs) / sizeof(errs[0]); i++) {
		setup(NULL);
		F.hw_errno = errs[i];
		assert_int_equal(vb_cost_open(&c, cpus2, 2), 0);
		assert_true(c.open);
		assert_int_equal(c.unit, VB_COST_CPU_CLOCK_NS);
		assert_string_equal(c.source, VB_COST_SRC_CPU_CLOCK);
		assert_non_null(strstr(c.note, "no PMU (cycles: "));
		assert_non_null(strstr(c.note, strerror(errs[i])));
		assert_non_null(strstr(c.note, "busy CPU time in ns (cpu-clock), not cycles"));
		assert_int_equal(F.type[3], PERF_TYPE_SOFTWARE);
		vb_cost_close(&c);
	}
}

/* Refused (paranoid, no CAP_PERFMON) or busy PMU: cpu-clock + note. */
static void test_refused_or_busy_falls_back(void **state)
{
	static const int errs[] = { EACCES, EPERM, EBUSY };
	struct vb_costctr c;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(errs) / sizeof(errs[0]); i++) {
		setup(NULL);
		F.hw_errno = errs[i];
		assert_int_equal(vb_cost_open(&c, cpus2, 2), 0);
		assert_true(c.open);
		assert_int_equal(c.unit, VB_COST_CPU_CLOCK_NS);
		assert_non_null(strstr(c.note, "cycles counter refused ("));
		assert_non_null(strstr(c.note, strerror(errs[i])));
		assert_non_null(strstr(c.note, errs[i] == EBUSY ?
				       "PMU in use by another tool" :
				       "perf_event_paranoid"));
		vb_cost_close(&c);
	}
}

/* A failure on the second CPU closes the first counter before falling back. */
static void test_partial_open_is_undone(void **state)
{
	struct vb_costctr c;

	(void)state;
	F.hw_errno = EBUSY;
	F.fail_at_cpu = 1;
	assert_int_equal(vb_cost_open(&c, cpus2, 2), 0);
	assert_int_equal(c.unit, VB_COST_CPU_CLOCK_NS);
	/* cycles fd of CPU 0 (3) closed; cpu-clock fds 4 and 5 open */
	assert_false(F.open[3]);
	assert_true(F.open[4] && F.open[5]);
	assert_int_equal(F.type[4], PERF_TYPE_SOFTWARE);
	vb_cost_close(&c);
	assert_false(F.open[4] || F.open[5]);
}

/* Other errnos, or cpu-clock failing too: not measured, reason given. */
static void test_not_measured(void **state)
{
	struct vb_results r;
	struct vb_costctr c;

	(void)state;
	F.hw_errno = EINVAL;
	assert_int_equal(vb_cost_open(&c, cpus2, 2), 0);
	assert_false(c.open);
	assert_string_equal(c.note, "cycles counter failed: Invalid argument; CPU cost not measured");
	vb_results_init(&r);
	assert_int_equal(vb_cost_fill(&c, &r), 0);
	assert_false(r.cost.measured);
	assert_string_equal(r.cost.source, "none");
	vb_results_free(&r);
	vb_cost_close(&c);

	setup(NULL);
	F.hw_errno = ENOENT;
	F.sw_errno = EACCES;
	assert_int_equal(vb_cost_open(&c, cpus2, 2), 0);
	assert_false(c.open);
	assert_non_null(strstr(c.note, "no PMU (cycles: No such file or directory) and cpu-clock failed: Permission denied"));
	assert_int_equal(F.nopen, 0);
	vb_cost_close(&c);

	setup(NULL);
	F.hw_errno = EACCES;
	F.sw_errno = EACCES;
	assert_int_equal(vb_cost_open(&c, cpus2, 2), 0);
	assert_false(c.open);
	assert_non_null(strstr(c.note, "cycles counter refused (cycles: Permission denied) and cpu-clock failed"));
	vb_cost_close(&c);
}

/*
 * Open and start cpu-clock counters on CPUs 0 and 1 (no PMU), with
 * /proc/stat stat0 at start and stat1 at every later read, and each
 * counter at ns when read.
 */
static void cpu_clock_open(struct vb_costctr *c, const char *stat0,
			   const char *stat1, uint64_t ns)
{
	F.hw_errno = ENOENT;
	F.stat0 = stat0;
	F.stat1 = stat1;
	assert_int_equal(vb_cost_open(c, cpus2, 2), 0);
	assert_int_equal(vb_cost_start(c), 0);
	F.value[3] = F.value[4] = ns;
	F.enabled[3] = F.running[3] = F.enabled[4] = F.running[4] = 1;
}

/* cpu-clock counts wall time, idle included: scaled by the busy share. */
static void test_cpu_clock_busy_share(void **state)
{
	struct vb_costctr c;
	struct vb_results r;
	uint64_t vals[2];

	(void)state;
	/* user nice system idle iowait irq softirq steal; 1 s of cpu-clock
	 * each: CPU 0 busy 40 of 80 ticks, CPU 1 25 of 100 */
	cpu_clock_open(&c,
		"cpu  0 0 0 0 0 0 0 0\ncpu0 10 0 10 80 0 0 0 0\ncpu1 0 0 0 100 0 0 0 0\n",
		"cpu  0 0 0 0 0 0 0 0\ncpu0 40 0 20 120 0 0 0 0\ncpu1 25 0 0 175 0 0 0 0\n",
		1000000000);
	vb_results_init(&r);
	r.cpus = calloc(2, sizeof(*r.cpus));
	r.ncpus = 2;
	r.cpus[0].cpu = 0;
	r.cpus[1].cpu = 1;
	assert_int_equal(vb_cost_fill(&c, &r), 0);
	assert_true(r.cost.measured);
	assert_int_equal(r.cost.unit, VB_COST_CPU_CLOCK_NS);
	assert_int_equal(r.cpus[0].cost, 500000000);
	assert_int_equal(r.cpus[1].cost, 250000000);
	assert_int_equal(r.cost.total, 750000000);
	assert_string_equal(r.cost.source, VB_COST_SRC_CPU_CLOCK);
	vb_results_free(&r);
	/* /proc/stat unreadable at start: not measured, said so */
	vb_cost_close(&c);
	setup(NULL);
	F.hw_errno = ENOENT;
	assert_int_equal(vb_cost_open(&c, cpus2, 2), 0);
	assert_int_equal(vb_cost_start(&c), 0);
	assert_false(c.open);
	assert_string_equal(c.note, "cannot read /proc/stat; CPU cost not measured");
	assert_int_equal(vb_cost_read(&c, vals), -ENODEV);
	vb_cost_close(&c);
}

/*
 * top and record -i: an interval's cost and the span the counters
 * counted it over.  A read that comes late on a loaded guest gives the
 * counters more time than the caller's own interval; the busy share is
 * cost / span, so a fully busy interval reads 100 %, not more.
 */
static void test_cpu_clock_interval_span(void **state)
{
	struct vb_costctr c;
	struct vb_cost_mark m;
	uint64_t vals[2];
	double span = -1;

	(void)state;
	/* 1.02 s counted on each CPU: CPU 0 busy throughout, CPU 1 half */
	cpu_clock_open(&c,
		"cpu  0 0 0 0 0 0 0 0\ncpu0 0 0 0 100 0 0 0 0\ncpu1 0 0 0 100 0 0 0 0\n",
		"cpu  0 0 0 0 0 0 0 0\ncpu0 102 0 0 100 0 0 0 0\ncpu1 51 0 0 151 0 0 0 0\n",
		1020000000);
	assert_int_equal(vb_cost_mark_init(&c, &m), 0);
	assert_int_equal(vb_cost_read_interval(&c, &m, vals, &span), 0);
	assert_int_equal(vals[0], 1020000000);
	assert_int_equal(vals[1], 510000000);
	assert_true(fabs(span - 1.02e9) < 1);
	/* busy share of the two CPUs: (1 + 0.5) / 2, whatever the caller's
	 * clock said the interval was */
	assert_true(fabs((vals[0] + vals[1]) / (2 * span) - 0.75) < 1e-9);
	/* NULL span is allowed */
	assert_int_equal(vb_cost_read_interval(&c, &m, vals, NULL), 0);
	vb_cost_mark_free(&m);
	vb_cost_close(&c);
	/* cycles: no time base */
	setup(NULL);
	F.value[3] = F.value[4] = 5000;
	F.enabled[3] = F.running[3] = F.enabled[4] = F.running[4] = 1;
	assert_int_equal(vb_cost_open(&c, cpus2, 2), 0);
	assert_int_equal(vb_cost_start(&c), 0);
	assert_int_equal(vb_cost_mark_init(&c, &m), 0);
	assert_int_equal(vb_cost_read_interval(&c, &m, vals, &span), 0);
	assert_int_equal(vals[0], 5000);
	assert_true(span == 0);
	vb_cost_mark_free(&m);
	vb_cost_close(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_cycles_and_multiplex_scaling, setup, teardown),
		cmocka_unit_test_setup_teardown(test_no_pmu_falls_back, setup, teardown),
		cmocka_unit_test_setup_teardown(test_refused_or_busy_falls_back, setup, teardown),
		cmocka_unit_test_setup_teardown(test_partial_open_is_undone, setup, teardown),
		cmocka_unit_test_setup_teardown(test_not_measured, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cpu_clock_busy_share, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cpu_clock_interval_span, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
