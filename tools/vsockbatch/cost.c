// SPDX-License-Identifier: GPL-2.0
/* cost.c - cycles (or cpu-clock busy ns without a PMU) per CPU. */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cost.h"

/* ---- the system calls, replaceable by a test double ---------------- */

static int sys_open(const struct perf_event_attr *attr, int cpu)
{
	return (int)syscall(__NR_perf_event_open, attr, -1, cpu, -1,
			    PERF_FLAG_FD_CLOEXEC);
}

static ssize_t sys_read(int fd, void *buf, size_t n)
{
	return read(fd, buf, n);
}

static int sys_ioctl(int fd, unsigned long req)
{
	return ioctl(fd, req, 0);
}

static char *read_proc_stat(void);

static const struct vb_perf_ops sys_ops = {
	.open = sys_open,
	.read = sys_read,
	.ioctl = sys_ioctl,
	.close = close,
	.proc_stat = read_proc_stat,
};
static const struct vb_perf_ops *ops = &sys_ops;

void vb_cost_set_ops(const struct vb_perf_ops *o)
{
	ops = o ? o : &sys_ops;
}

static int perf_open(uint32_t type, uint64_t config, uint32_t cpu)
{
	struct perf_event_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = type;
	attr.config = config;
	attr.disabled = 1;
	attr.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED |
			   PERF_FORMAT_TOTAL_TIME_RUNNING;
	return ops->open(&attr, (int)cpu);
}

/* The cycles event does not exist here (no PMU: TCG, most VMs). */
static bool no_pmu_errno(int e)
{
	return e == ENOENT || e == EOPNOTSUPP || e == ENODEV || e == ENXIO;
}

/*
 * The event exists but may not be used now: perf_event_paranoid / no
 * CAP_PERFMON (EACCES, EPERM) or the PMU is taken, e.g. by a pinned
 * event of another tool (EBUSY).  cpu-clock is a software event and
 * usually still works.
 */
static bool refused_errno(int e)
{
	return e == EACCES || e == EPERM || e == EBUSY;
}

/* Open one counter per CPU; on failure close them all, return errno. */
static int open_all(struct vb_costctr *c, uint32_t type, uint64_t config)
{
	size_t i, j;
	int e;

	for (i = 0; i < c->n; i++) {
		c->fds[i] = perf_open(type, config, c->cpus[i]);
		if (c->fds[i] >= 0)
			continue;
		e = errno ? errno : EIO;
		for (j = 0; j < i; j++) {
			ops->close(c->fds[j]);
			c->fds[j] = -1;
		}
		c->fds[i] = -1;
		return e;
	}
	return 0;
}

int vb_proc_stat_cpu(const char *text, uint32_t cpu, uint64_t *busy,
		     uint64_t *total)
{
	unsigned long long v[8] = { 0 };
	char want[24];
	const char *p = text;
	size_t wl;
	int n;

	snprintf(want, sizeof(want), "cpu%u ", cpu);
	wl = strlen(want);
	while (p && *p) {
		if (!strncmp(p, want, wl)) {
			n = sscanf(p + wl, "%llu %llu %llu %llu %llu %llu %llu %llu",
				   &v[0], &v[1], &v[2], &v[3], &v[4], &v[5],
				   &v[6], &v[7]);
			if (n < 4)
				return -EINVAL;
			/* user nice system idle iowait irq softirq steal */
			*busy = v[0] + v[1] + v[2] + v[5] + v[6] + v[7];
			*total = *busy + v[3] + v[4];
			return 0;
		}
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return -ENOENT;
}

static char *read_proc_stat(void)
{
	size_t cap = 1 << 16, len = 0, r;
	char *buf = malloc(cap), *nb;
	FILE *f = fopen("/proc/stat", "r");

	if (!f || !buf) {
		if (f)
			fclose(f);
		free(buf);
		return NULL;
	}
	while ((r = fread(buf + len, 1, cap - len - 1, f)) > 0) {
		len += r;
		if (len + 1 == cap) {
			nb = realloc(buf, cap * 2);
			if (!nb)
				break;
			buf = nb;
			cap *= 2;
		}
	}
	buf[len] = 0;
	fclose(f);
	return buf;
}

static int stat_snapshot(struct vb_costctr *c, uint64_t *busy, uint64_t *total)
{
	char *text = ops->proc_stat();
	size_t i;
	int err = 0;

	if (!text)
		return -EIO;
	for (i = 0; i < c->n && !err; i++)
		err = vb_proc_stat_cpu(text, c->cpus[i], &busy[i], &total[i]);
	free(text);
	return err;
}

int vb_cost_open(struct vb_costctr *c, const uint32_t *cpus, size_t n)
{
	int hw_err = 0, sw_err = 0;
	size_t i;

	memset(c, 0, sizeof(*c));
	c->n = n;
	c->cpus = calloc(n ? n : 1, sizeof(*c->cpus));
	c->fds = calloc(n ? n : 1, sizeof(*c->fds));
	c->busy0 = calloc(n ? n : 1, sizeof(uint64_t));
	c->total0 = calloc(n ? n : 1, sizeof(uint64_t));
	if (!c->cpus || !c->fds || !c->busy0 || !c->total0) {
		vb_cost_close(c);
		return -ENOMEM;
	}
	memcpy(c->cpus, cpus, n * sizeof(*cpus));
	for (i = 0; i < n; i++)
		c->fds[i] = -1;

	c->unit = VB_COST_CYCLES;
	hw_err = open_all(c, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES);
	if (!hw_err) {
		snprintf(c->source, sizeof(c->source), "%s", VB_COST_SRC_CYCLES);
		c->open = true;
		return 0;
	}
	if (!no_pmu_errno(hw_err) && !refused_errno(hw_err)) {
		snprintf(c->note, sizeof(c->note),
			 "cycles counter failed: %s; CPU cost not measured",
			 strerror(hw_err));
		return 0;
	}

	c->unit = VB_COST_CPU_CLOCK_NS;
	sw_err = open_all(c, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK);
	if (sw_err) {
		snprintf(c->note, sizeof(c->note),
			 "%s (cycles: %s) and cpu-clock failed: %s; CPU cost not measured",
			 no_pmu_errno(hw_err) ? "no PMU" : "cycles counter refused",
			 strerror(hw_err), strerror(sw_err));
		return 0;
	}
	snprintf(c->source, sizeof(c->source), "%s", VB_COST_SRC_CPU_CLOCK);
	if (no_pmu_errno(hw_err))
		snprintf(c->note, sizeof(c->note),
			 "no PMU (cycles: %s): cost is busy CPU time in ns (cpu-clock), not cycles",
			 strerror(hw_err));
	else
		snprintf(c->note, sizeof(c->note),
			 "cycles counter refused (%s%s): cost is busy CPU time in ns (cpu-clock), not cycles",
			 strerror(hw_err), hw_err == EBUSY ? ": PMU in use by another tool"
				: ": perf_event_paranoid or missing CAP_PERFMON");
	c->open = true;
	return 0;
}

int vb_cost_start(struct vb_costctr *c)
{
	size_t i;

	if (!c->open)
		return 0;
	if (c->unit == VB_COST_CPU_CLOCK_NS &&
	    stat_snapshot(c, c->busy0, c->total0)) {
		snprintf(c->note, sizeof(c->note),
			 "cannot read /proc/stat; CPU cost not measured");
		c->open = false;
		return 0;
	}
	for (i = 0; i < c->n; i++) {
		ops->ioctl(c->fds[i], PERF_EVENT_IOC_RESET);
		ops->ioctl(c->fds[i], PERF_EVENT_IOC_ENABLE);
	}
	return 0;
}

/* Counter values (scaled like perf stat) and, for cpu-clock, the ticks. */
static int read_raw(struct vb_costctr *c, double *raw, uint64_t *busy,
		    uint64_t *total)
{
	uint64_t rf[3];
	size_t i;

	if (!c->open)
		return -ENODEV;
	if (c->unit == VB_COST_CPU_CLOCK_NS && stat_snapshot(c, busy, total))
		return -EIO;
	for (i = 0; i < c->n; i++) {
		if (ops->read(c->fds[i], rf, sizeof(rf)) != sizeof(rf))
			return -EIO;
		/* multiplexed: scale by enabled/running like perf stat */
		raw[i] = (double)rf[0];
		if (rf[2] && rf[2] < rf[1])
			raw[i] = raw[i] * (double)rf[1] / (double)rf[2];
	}
	return 0;
}

uint64_t vb_cost_interval(enum vb_cost_unit unit, double draw, uint64_t db,
			  uint64_t dt)
{
	if (draw < 0)
		draw = 0;
	if (unit != VB_COST_CPU_CLOCK_NS)
		return (uint64_t)draw;
	return dt ? (uint64_t)(draw * (double)db / (double)dt) : 0;
}

int vb_cost_read(struct vb_costctr *c, uint64_t *vals)
{
	uint64_t *busy = NULL, *total = NULL;
	double *raw = NULL;
	size_t i;
	int err;

	if (!c->open)
		return -ENODEV;
	raw = calloc(c->n ? c->n : 1, sizeof(*raw));
	busy = calloc(c->n ? c->n : 1, sizeof(*busy));
	total = calloc(c->n ? c->n : 1, sizeof(*total));
	err = raw && busy && total ? read_raw(c, raw, busy, total) : -ENOMEM;
	for (i = 0; !err && i < c->n; i++)
		vals[i] = vb_cost_interval(c->unit, raw[i], busy[i] - c->busy0[i],
				    total[i] - c->total0[i]);
	free(raw);
	free(busy);
	free(total);
	return err;
}

int vb_cost_mark_init(const struct vb_costctr *c, struct vb_cost_mark *m)
{
	size_t n = c->n ? c->n : 1;

	m->raw = calloc(n, sizeof(*m->raw));	/* counters start at 0 */
	m->busy = calloc(n, sizeof(*m->busy));
	m->total = calloc(n, sizeof(*m->total));
	if (!m->raw || !m->busy || !m->total) {
		vb_cost_mark_free(m);
		return -ENOMEM;
	}
	if (c->busy0)
		memcpy(m->busy, c->busy0, c->n * sizeof(*m->busy));
	if (c->total0)
		memcpy(m->total, c->total0, c->n * sizeof(*m->total));
	return 0;
}

int vb_cost_read_interval(struct vb_costctr *c, struct vb_cost_mark *m,
			  uint64_t *vals, double *span_ns)
{
	struct vb_cost_mark now;
	size_t i;
	int err;

	if (!c->open)
		return -ENODEV;
	if (vb_cost_mark_init(c, &now))
		return -ENOMEM;
	err = read_raw(c, now.raw, now.busy, now.total);
	if (span_ns)
		*span_ns = 0;
	for (i = 0; !err && i < c->n; i++) {
		vals[i] = vb_cost_interval(c->unit, now.raw[i] - m->raw[i],
				    now.busy[i] - m->busy[i],
				    now.total[i] - m->total[i]);
		if (span_ns && c->unit == VB_COST_CPU_CLOCK_NS)
			*span_ns += (now.raw[i] - m->raw[i]) / (double)c->n;
	}
	if (!err) {
		vb_cost_mark_free(m);
		*m = now;
	} else {
		vb_cost_mark_free(&now);
	}
	return err;
}

void vb_cost_mark_free(struct vb_cost_mark *m)
{
	free(m->raw);
	free(m->busy);
	free(m->total);
	memset(m, 0, sizeof(*m));
}

int vb_cost_fill(struct vb_costctr *c, struct vb_results *r)
{
	uint64_t *vals;
	size_t i, j;

	r->cost.unit = c->unit;
	snprintf(r->cost.source, sizeof(r->cost.source), "%s",
		 c->open ? c->source : "none");
	snprintf(r->cost.note, sizeof(r->cost.note), "%s", c->note);
	r->cost.measured = false;
	r->cost.total = 0;
	free(r->cost.cpus);
	r->cost.cpus = calloc(c->n ? c->n : 1, sizeof(uint32_t));
	if (!r->cost.cpus)
		return -ENOMEM;
	memcpy(r->cost.cpus, c->cpus, c->n * sizeof(uint32_t));
	r->cost.ncpus = c->n;
	if (!c->open)
		return 0;
	vals = calloc(c->n ? c->n : 1, sizeof(*vals));
	if (!vals)
		return -ENOMEM;
	if (vb_cost_read(c, vals)) {
		snprintf(r->cost.note, sizeof(r->cost.note),
			 "reading the counters failed; CPU cost not measured");
		free(vals);
		return 0;
	}
	for (i = 0; i < c->n; i++) {
		r->cost.total += vals[i];
		for (j = 0; j < r->ncpus; j++)
			if (r->cpus[j].cpu == c->cpus[i])
				r->cpus[j].cost = (int64_t)vals[i];
	}
	r->cost.measured = true;
	free(vals);
	return 0;
}

void vb_cost_close(struct vb_costctr *c)
{
	size_t i;

	for (i = 0; c->fds && i < c->n; i++)
		if (c->fds[i] >= 0)
			ops->close(c->fds[i]);
	free(c->fds);
	free(c->cpus);
	free(c->busy0);
	free(c->total0);
	memset(c, 0, sizeof(*c));
}
