/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vsockbatch_core.h - the few kernel types bpf/vsockbatch.bpf.c reads,
 * declared by hand for CO-RE instead of a generated vmlinux.h.
 *
 * Why not vmlinux.h: a vmlinux.h is a dump of ONE kernel's BTF (usually
 * the build machine's).  Here the build machine runs 6.18 with vsock
 * built in, while the targets are 6.12 guests with vsock as modules, and
 * a patched 6.12 whose new tracepoint exists in no vmlinux.h at all.  The
 * program only needs a handful of fields; declaring exactly those with
 * __attribute__((preserve_access_index)) makes every access a CO-RE
 * relocation that libbpf resolves by NAME against the running kernel's
 * BTF (vmlinux and module BTF), so offsets are never baked in from the
 * build host.  Struct sizes and the order of members below do not
 * matter; only member names and kinds (int, pointer, struct) do.  A field
 * the target kernel lacks fails the load of the programs that read it,
 * which the loader avoids by probing BTF and switching those programs
 * off (bpf_program__set_autoload) before loading.
 *
 * No kernel or libc headers are included: the BPF build must not depend
 * on the build machine's UAPI headers either.
 */
#ifndef VSOCKBATCH_CORE_H
#define VSOCKBATCH_CORE_H
/* Kernel names for the pt_regs fields in bpf_tracing.h, as a vmlinux.h has. */
#define __VMLINUX_H__

typedef signed char __s8;
typedef unsigned char __u8;
typedef short __s16;
typedef unsigned short __u16;
typedef int __s32;
typedef unsigned int __u32;
typedef long long __s64;
typedef unsigned long long __u64;
typedef __u16 __be16;
typedef __u32 __be32;
typedef __u32 __wsum;
typedef _Bool bool;
#define true 1
#define false 0
#define NULL ((void *)0)

/* UAPI constants bpf_helpers.h's map definitions refer to (linux/bpf.h). */
enum bpf_map_type {
	BPF_MAP_TYPE_HASH = 1,
	BPF_MAP_TYPE_ARRAY = 2,
	BPF_MAP_TYPE_PERCPU_HASH = 5,
	BPF_MAP_TYPE_PERCPU_ARRAY = 6,
	BPF_MAP_TYPE_TASK_STORAGE = 29,
};

enum {
	BPF_F_NO_PREALLOC = 1,			/* map_flags */
	BPF_LOCAL_STORAGE_GET_F_CREATE = 1,	/* bpf_task_storage_get() */
};

enum {
	BPF_ANY = 0,
	BPF_NOEXIST = 1,
	BPF_EXIST = 2,
};

/* ---- kernel structures (CO-RE: names and kinds only) ---------------- */

/* A pointer (bpf_get_current_task_btf, task storage) and its PF_* flags. */
struct task_struct {
	unsigned int flags;
} __attribute__((preserve_access_index));

struct sock_common {
	unsigned short skc_family;
} __attribute__((preserve_access_index));

struct sock {
	struct sock_common __sk_common;
	int sk_err;
} __attribute__((preserve_access_index));

/* include/net/af_vsock.h: `struct sock sk` is the first member. */
struct vsock_sock {
	struct sock sk;
	void *trans;		/* struct virtio_vsock_sock on virtio */
} __attribute__((preserve_access_index));

/*
 * include/linux/virtio_vsock.h: the RX side's credit and queue state,
 * read under the socket lock in full mode (advise's queue and credit
 * rules).  fwd_cnt .. buf_alloc have been four consecutive u32 since the
 * credit code was written; the program checks that at load (CO-RE field
 * offsets) and reads them in one go.
 */
struct sk_buff_head {
	__u32 qlen;
} __attribute__((preserve_access_index));

struct virtio_vsock_sock {
	__u32 fwd_cnt;		/* bytes the reader consumed */
	__u32 last_fwd_cnt;	/* fwd_cnt as last sent to the peer */
	__u32 rx_bytes;		/* bytes queued, not yet read */
	__u32 buf_alloc;	/* our buffer size = the peer's window */
	struct sk_buff_head rx_queue;
} __attribute__((preserve_access_index));

/*
 * Their sizes: SKB_TRUESIZE(0) = the skb budget's unit.  head: where a
 * received packet's virtio_vsock_hdr is (virtio_vsock_hdr()).
 */
struct sk_buff {
	unsigned int len;
	unsigned char *head;
} __attribute__((preserve_access_index));

/*
 * The packet header (include/uapi/linux/virtio_vsock.h), little endian:
 * where len is; type and op follow it, as the virtio spec lays them out.
 */
struct virtio_vsock_hdr {
	__u32 len;
} __attribute__((preserve_access_index));

struct skb_shared_info {
	unsigned char nr_frags;
} __attribute__((preserve_access_index));

/*
 * The series' RX worker state (include/linux/virtio_vsock.h, patch 2),
 * read on kernels that batch without the rx_batch event.  data_ready
 * (patch 6): the run's end owes the readable callback.
 */
struct sockaddr_vm {
	unsigned int svm_port;
	unsigned int svm_cid;
} __attribute__((preserve_access_index));

struct virtio_vsock_rx_batch {
	struct sock *sk;
	struct sockaddr_vm src;
	struct sockaddr_vm dst;
	__u32 pkts;
	__u32 bytes;
	bool data_ready;
} __attribute__((preserve_access_index));

/* Pointer-only arguments of hooked functions. */
struct socket;
struct msghdr;

/*
 * A kprobe's context (x86-64): only the argument and return registers
 * that bpf_tracing.h's PT_REGS_PARM1..5/PT_REGS_RC read, relocated by
 * name like the rest.
 */
struct pt_regs {
	unsigned long r8;
	unsigned long ax;
	unsigned long cx;
	unsigned long dx;
	unsigned long si;
	unsigned long di;
	unsigned long sp;
	unsigned long ip;
} __attribute__((preserve_access_index));

/*
 * Tracepoint records for classic SEC("tracepoint/...") programs.  The
 * common header is 8 bytes; the event fields follow.  Relocated by name
 * against trace_event_raw_<event> in the BTF of the module that defines
 * the event (vmw_vsock_virtio_transport_common) or vmlinux.
 */
struct trace_entry {
	unsigned short type;
	unsigned char flags;
	unsigned char preempt_count;
	int pid;
} __attribute__((preserve_access_index));

/* include/trace/events/vsock_virtio_transport_common.h (6.12) */
struct trace_event_raw_virtio_transport_recv_pkt {
	struct trace_entry ent;
	__u32 src_cid;
	__u32 src_port;
	__u32 dst_cid;
	__u32 dst_port;
	__u32 len;
	__u16 type;
	__u16 op;
	__u32 flags;
	__u32 buf_alloc;
	__u32 fwd_cnt;
} __attribute__((preserve_access_index));

/*
 * The patched series' run event (one per flushed run).  Only the fields
 * named here are read; integer sizes may differ in the kernel (libbpf
 * adjusts the load width); `skaddr` is the socket (full mode reads its
 * RX queue state through it).
 */
struct trace_event_raw_virtio_transport_rx_batch {
	struct trace_entry ent;
	const void *skaddr;
	__u32 src_cid;
	__u32 src_port;
	__u32 dst_cid;
	__u32 dst_port;
	__u32 pkts;
	__u32 bytes;
	__u64 hold_ns;
	__u8 reason;
	__u8 write_space;
	__u8 data_ready;
} __attribute__((preserve_access_index));

#endif /* VSOCKBATCH_CORE_H */
