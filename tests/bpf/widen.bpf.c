// SPDX-License-Identifier: GPL-2.0
/*
 * widen.bpf.c - a test helper, not part of the tracer: a kprobe that
 * busy-waits for delay_ns at the entry of the function it is attached to,
 * so that a race window which opens before that call (a lock released by
 * the caller, re-taken by the callee) stays open long enough for another
 * CPU to get in.  tests/progs/vsock-widen.c attaches it; sockmap-order.sh
 * uses it on __vsock_connectible_recvmsg(), which vsock_bpf_recvmsg()
 * calls after releasing the socket lock.  No CO-RE: it reads nothing of
 * the kernel's, so it loads without BTF.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

const volatile __u64 delay_ns = 1000000;

__u64 hits;

static long spin(__u32 i, void *ctx)
{
	__u64 *end = ctx;

	return bpf_ktime_get_ns() >= *end;	/* 1 ends the loop */
}

SEC("kprobe")
int widen(void *ctx)
{
	__u64 end = bpf_ktime_get_ns() + delay_ns;

	/* bpf_loop's limit (8M) is far above what 1-10 ms take under TCG */
	bpf_loop(1 << 23, spin, &end, 0);
	__sync_fetch_and_add(&hits, 1);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
