// SPDX-License-Identifier: GPL-2.0
/*
 * lpend.c - drain light mode's per-CPU held runs (lpend.h).
 *
 * The drain is a BPF program run with BPF_PROG_TEST_RUN on each CPU in
 * turn (BPF_F_TEST_RUN_ON_CPU: an IPI there), so it never runs beside
 * the rx_batch program on the same slot: it either runs before or after
 * it, or interrupts it and then sees `busy` and returns 1.
 */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "cpulist.h"
#include "lpend.h"
#include "vsockbatch.skel.h"

/* An IPI costs microseconds; rx_batch holds the slot for ~300 insns. */
#define LPEND_TRIES	64

static int drain_prog_fd(struct vsockbatch_bpf *skel)
{
	if (!skel || !skel->progs.lpend_drain ||
	    !bpf_program__autoload(skel->progs.lpend_drain))
		return -1;
	return bpf_program__fd(skel->progs.lpend_drain);
}

static int drain_cpu(int fd, unsigned int cpu, __u32 *retval)
{
	LIBBPF_OPTS(bpf_test_run_opts, opts,
		.flags = BPF_F_TEST_RUN_ON_CPU,
		.cpu = cpu,
	);
	int err;

	err = bpf_prog_test_run_opts(fd, &opts);
	if (err)
		return -errno;
	*retval = opts.retval;
	return 0;
}

bool vb_lpend_setup(struct vsockbatch_bpf *skel)
{
	int fd = drain_prog_fd(skel), cpu = sched_getcpu();
	__u32 rv = 0;

	if (fd < 0)
		return false;
	/* nothing is held yet (not enabled): this only asks the kernel */
	if (drain_cpu(fd, cpu < 0 ? 0 : (unsigned int)cpu, &rv)) {
		/* unloaded: vb_lpend_drain() then has nothing to run */
		bpf_program__unload(skel->progs.lpend_drain);
		return false;
	}
	return true;
}

int vb_lpend_drain(struct vsockbatch_bpf *skel, char *errbuf, size_t errlen)
{
	uint32_t online[VB_MAX_CPUS];
	int fd = drain_prog_fd(skel), n, i, k, err;
	__u32 rv = 0;

	if (fd < 0)
		return 0;
	n = vb_cpulist_online(online, VB_MAX_CPUS);
	if (n <= 0) {
		snprintf(errbuf, errlen, "cannot read the online CPUs");
		return -EIO;
	}
	for (i = 0; i < n; i++) {
		for (k = 0; k < LPEND_TRIES; k++) {
			err = drain_cpu(fd, online[i], &rv);
			/* gone offline since the list was read */
			if (err == -ENXIO)
				break;
			if (err) {
				snprintf(errbuf, errlen,
					 "draining CPU %u's held runs: %s",
					 online[i], strerror(-err));
				return err;
			}
			if (!rv)
				break;
			/* rx_batch was preempted inside the slot: let it go on */
			sched_yield();
		}
	}
	return 0;
}
