/* SPDX-License-Identifier: GPL-2.0 */
/*
 * lpend.h - the runs light mode holds per CPU on the series' kernels
 * (struct vb_lpend in bpf/vsockbatch.bpf.c), drained into the flow map
 * before every read of it.
 */
#ifndef VB_LPEND_H
#define VB_LPEND_H

#include <stdbool.h>
#include <stddef.h>

struct vsockbatch_bpf;

/*
 * After load: can the drain run on a chosen CPU?  If not (a kernel
 * without BPF_PROG_TEST_RUN for raw_tp on a CPU), the drain is unloaded
 * and the caller attaches rx_batch_btf, which counts straight into the
 * flow map, instead of rx_batch_held.  Returns whether the slots can be
 * used.  A skeleton whose drain program is not loaded: false.
 */
bool vb_lpend_setup(struct vsockbatch_bpf *skel);
/*
 * Every online CPU's held runs into the flow map.  0, or -errno with a
 * one-line reason; a CPU whose slot stays busy (rx_batch counting there,
 * preempted) after the retries keeps its runs for the next read.
 */
int vb_lpend_drain(struct vsockbatch_bpf *skel, char *errbuf, size_t errlen);

#endif
