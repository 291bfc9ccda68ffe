// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for tools/vsockbatch/probe.c on synthetic BTF files: which
 * hooks are switched on/off, how the kernel mode is detected (baseline,
 * batched by function, batched by tracepoint), the recv_pkt tp_btf
 * prototype check, and the "no BTF" / "no vsock" refusals.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include <bpf/btf.h>

#include "../../tools/vsockbatch/commands.h"
#include "../../tools/vsockbatch/probe.h"

struct kbtf {
	struct btf *b;
	int u32, u16, vptr, proto;
};

static void kbtf_init(struct kbtf *k)
{
	k->b = btf__new_empty();
	k->u32 = btf__add_int(k->b, "unsigned int", 4, 0);
	k->u16 = btf__add_int(k->b, "short unsigned int", 2, 0);
	k->vptr = btf__add_ptr(k->b, 0);
	k->proto = btf__add_func_proto(k->b, 0);
}

static void add_func(struct kbtf *k, const char *name)
{
	btf__add_func(k->b, name, BTF_FUNC_GLOBAL, k->proto);
}

/* typedef void (*btf_trace_virtio_transport_recv_pkt)(void *, u32 x5, u16 x2, u32 x3) */
static void add_recv_pkt_tp(struct kbtf *k, bool good)
{
	int proto, ptr, i;

	proto = btf__add_func_proto(k->b, 0);
	btf__add_func_param(k->b, "__data", k->vptr);
	for (i = 1; i <= 10; i++)
		btf__add_func_param(k->b, "a",
				    (i == 6 || i == 7) && good ? k->u16 : k->u32);
	ptr = btf__add_ptr(k->b, proto);
	btf__add_typedef(k->b, "btf_trace_virtio_transport_recv_pkt", ptr);
}

/* typedef void (*btf_trace_virtio_transport_rx_batch)(void *, const void *,
 * u32 x6, u64, u8, bool, bool) */
static void add_rx_batch_tp(struct kbtf *k)
{
	int proto, ptr, i, u64, u8, b;

	u64 = btf__add_int(k->b, "long long unsigned int", 8, 0);
	u8 = btf__add_int(k->b, "unsigned char", 1, 0);
	b = btf__add_int(k->b, "_Bool", 1, BTF_INT_BOOL);
	proto = btf__add_func_proto(k->b, 0);
	btf__add_func_param(k->b, "__data", k->vptr);
	btf__add_func_param(k->b, "skaddr", k->vptr);
	for (i = 0; i < 6; i++)
		btf__add_func_param(k->b, "a", k->u32);
	btf__add_func_param(k->b, "hold_ns", u64);
	btf__add_func_param(k->b, "reason", u8);
	btf__add_func_param(k->b, "write_space", b);
	btf__add_func_param(k->b, "data_ready", b);
	ptr = btf__add_ptr(k->b, proto);
	btf__add_typedef(k->b, "btf_trace_virtio_transport_rx_batch", ptr);
}

static void add_raw_struct(struct kbtf *k, const char *name,
			   const char *const *fields)
{
	int i, n = 0;

	while (fields[n])
		n++;
	btf__add_struct(k->b, name, 8 + 4 * n);
	for (i = 0; fields[i]; i++)
		btf__add_field(k->b, fields[i], k->u32, (8 + 4 * i) * 8, 0);
}

static char *kbtf_write(struct kbtf *k)
{
	static int seq;
	const void *raw;
	char *path;
	__u32 sz;
	FILE *f;

	raw = btf__raw_data(k->b, &sz);
	assert_true(asprintf(&path, "/tmp/vb-test-probe-%d-%d.btf",
			     (int)getpid(), seq++) > 0);
	f = fopen(path, "w");
	assert_non_null(f);
	assert_int_equal(fwrite(raw, 1, sz, f), sz);
	fclose(f);
	btf__free(k->b);
	return path;
}

static const char *const recv_fields[] = {
	"src_cid", "src_port", "dst_cid", "dst_port", "len", "op", NULL
};
static const char *const batch_fields[] = {
	"src_cid", "src_port", "dst_cid", "dst_port", "pkts", "bytes",
	"hold_ns", "reason", "write_space", "data_ready", NULL
};

static void base_kernel(struct kbtf *k)
{
	kbtf_init(k);
	add_func(k, "lock_sock_nested");
	add_func(k, "release_sock");
	add_func(k, "sock_def_readable");
	add_func(k, "vsock_loopback_work");
	add_func(k, "vsock_data_ready");
	add_func(k, "virtio_transport_recv_pkt");
	add_recv_pkt_tp(k, true);
	add_raw_struct(k, "trace_event_raw_virtio_transport_recv_pkt",
		       recv_fields);
}

static void test_baseline_kernel(void **state)
{
	struct vb_probe p;
	struct kbtf k;
	char err[256], *path;
	int i;

	(void)state;
	base_kernel(&k);
	path = kbtf_write(&k);
	assert_int_equal(vb_probe_kernel(&p, path, err, sizeof(err)), 0);
	assert_int_equal(p.mode, VB_MODE_BASELINE);
	assert_non_null(strstr(p.detected_by, "no virtio_transport_rx_batch_*"));
	/* no rx_batch event: AUTO is full; light is the recv_pkt event only */
	assert_false(p.light_ok);
	assert_int_equal(p.trace, VB_TRACE_FULL);
	assert_int_equal(vb_probe_choose(&p, VB_TRACE_LIGHT, err, sizeof(err)), 0);
	assert_int_equal(p.trace, VB_TRACE_LIGHT);
	for (i = 0; i < VB_HOOK_NR; i++)
		assert_int_equal(p.use[i], i == VB_HOOK_RECV_PKT_BTF);
	assert_int_equal(vb_probe_choose(&p, VB_TRACE_AUTO, err, sizeof(err)), 0);
	assert_int_equal(p.trace, VB_TRACE_FULL);
	assert_true(p.use[VB_HOOK_LOOPBACK_WORK]);
	assert_false(p.use[VB_HOOK_RX_WORK]);		/* absent: off */
	assert_false(p.use[VB_HOOK_VHOST_KICK]);
	assert_false(p.use[VB_HOOK_LOCK_WAIT]);
	assert_true(p.use[VB_HOOK_RECV_PKT_EXIT]);
	assert_true(p.use[VB_HOOK_DATA_READY]);
	/* tp_btf preferred; the classic tracepoint stays available */
	assert_true(p.use[VB_HOOK_RECV_PKT_BTF]);
	assert_true(p.avail[VB_HOOK_RECV_PKT_TP]);
	assert_false(p.use[VB_HOOK_RECV_PKT_TP]);
	assert_false(p.avail[VB_HOOK_RX_BATCH_TP]);
	assert_non_null(strstr(p.why[VB_HOOK_RX_BATCH_TP],
			       "trace_event_raw_virtio_transport_rx_batch"));
	assert_int_equal(vb_probe_usable(&p, err, sizeof(err)), 0);
	unlink(path);
	free(path);
}

static void test_batched_by_function_and_tracepoint(void **state)
{
	struct vb_probe p;
	struct kbtf k;
	char err[256], *path;
	int i;

	(void)state;
	base_kernel(&k);
	add_func(&k, "virtio_transport_rx_batch_recv_run");
	path = kbtf_write(&k);
	assert_int_equal(vb_probe_kernel(&p, path, err, sizeof(err)), 0);
	assert_int_equal(p.mode, VB_MODE_BATCHED);
	assert_non_null(strstr(p.detected_by,
			       "virtio_transport_rx_batch_recv_run"));
	/* batching without the rx_batch event (p1-3): full, runs invisible */
	assert_false(p.light_ok);
	assert_int_equal(p.trace, VB_TRACE_FULL_NORUNS);
	/* light would hide the runs and count each packet as a lookup */
	assert_int_equal(vb_probe_choose(&p, VB_TRACE_LIGHT, err, sizeof(err)),
			 -ENOENT);
	assert_non_null(strstr(err, "light mode on a kernel that batches needs the series' vsock:virtio_transport_rx_batch"));
	unlink(path);
	free(path);

	base_kernel(&k);
	add_rx_batch_tp(&k);
	add_raw_struct(&k, "trace_event_raw_virtio_transport_rx_batch",
		       batch_fields);
	path = kbtf_write(&k);
	assert_int_equal(vb_probe_kernel(&p, path, err, sizeof(err)), 0);
	assert_int_equal(p.mode, VB_MODE_BATCHED);
	assert_non_null(strstr(p.detected_by, "tracepoint"));
	/*
	 * AUTO = light: the rx_batch event (raw flavour), once per run, and
	 * the unbatched function for the packets in no run
	 */
	assert_true(p.light_ok);
	assert_int_equal(p.trace, VB_TRACE_LIGHT);
	for (i = 0; i < VB_HOOK_NR; i++)
		assert_int_equal(p.use[i], i == VB_HOOK_RX_BATCH_BTF ||
					   i == VB_HOOK_RECV_PKT_FN);
	/* full: + the vsock function hooks */
	assert_int_equal(vb_probe_choose(&p, VB_TRACE_FULL, err, sizeof(err)), 0);
	/* full reads the run's socket: the classic event (tp_btf cannot) */
	assert_false(p.use[VB_HOOK_RX_BATCH_BTF]);
	assert_true(p.use[VB_HOOK_RX_BATCH_TP]);
	assert_true(p.use[VB_HOOK_DATA_READY]);
	assert_true(p.use[VB_HOOK_RECV_PKT_EXIT]);
	assert_true(p.use[VB_HOOK_LOOPBACK_WORK]);
	unlink(path);
	free(path);
}

/*
 * The series without its optional event: light mode counts the runs at
 * the run-close function, alone but for the lock-wait pair; AUTO stays
 * full, which times the windows.
 */
static void test_batched_light_by_run_close(void **state)
{
	struct vb_probe p;
	struct kbtf k;
	char err[256], *path;
	int i;

	(void)state;
	base_kernel(&k);
	add_func(&k, "virtio_transport_rx_batch_recv_run");
	add_func(&k, "virtio_transport_rx_batch_end");
	add_func(&k, "virtio_transport_rx_batch_close");
	add_func(&k, "__lock_sock");
	path = kbtf_write(&k);
	assert_int_equal(vb_probe_kernel(&p, path, err, sizeof(err)), 0);
	assert_int_equal(p.mode, VB_MODE_BATCHED);
	assert_false(p.light_ok);
	assert_int_equal(p.trace, VB_TRACE_FULL);
	assert_true(p.use[VB_HOOK_RB_RECV] && p.use[VB_HOOK_RB_END]);
	assert_false(p.use[VB_HOOK_RB_CLOSE]);
	assert_true(p.use[VB_HOOK_LOCK_WAIT]);
	assert_int_equal(vb_probe_choose(&p, VB_TRACE_LIGHT, err, sizeof(err)), 0);
	assert_int_equal(p.trace, VB_TRACE_LIGHT);
	for (i = 0; i < VB_HOOK_NR; i++)
		assert_int_equal(p.use[i], i == VB_HOOK_RB_CLOSE ||
					   i == VB_HOOK_LOCK_WAIT ||
					   i == VB_HOOK_RECV_PKT_FN);
	unlink(path);
	free(path);
}

static void test_wrong_shapes_switched_off(void **state)
{
	static const char *const short_batch[] = {
		"src_cid", "src_port", "dst_cid", "dst_port", "pkts", NULL
	};
	struct vb_probe p;
	struct kbtf k;
	char err[256], *path;

	(void)state;
	kbtf_init(&k);
	add_func(&k, "virtio_transport_recv_pkt");
	add_func(&k, "virtio_transport_rx_work");
	add_recv_pkt_tp(&k, false);	/* op is not u16: not the 6.12 proto */
	add_raw_struct(&k, "trace_event_raw_virtio_transport_recv_pkt",
		       recv_fields);
	add_raw_struct(&k, "trace_event_raw_virtio_transport_rx_batch",
		       short_batch);
	path = kbtf_write(&k);
	assert_int_equal(vb_probe_kernel(&p, path, err, sizeof(err)), 0);
	assert_false(p.avail[VB_HOOK_RECV_PKT_BTF]);
	assert_non_null(strstr(p.why[VB_HOOK_RECV_PKT_BTF], "argument 6"));
	assert_false(p.avail[VB_HOOK_RX_BATCH_BTF]);
	/* falls back to the classic tracepoint */
	assert_true(p.use[VB_HOOK_RECV_PKT_TP]);
	assert_false(p.avail[VB_HOOK_RX_BATCH_TP]);
	assert_non_null(strstr(p.why[VB_HOOK_RX_BATCH_TP], "no integer field 'bytes'"));
	assert_int_equal(vb_probe_usable(&p, err, sizeof(err)), 0);
	unlink(path);
	free(path);
}

static void test_refusals(void **state)
{
	struct vb_probe p;
	struct kbtf k;
	char err[256], *path;

	(void)state;
	/* no vsock at all: no workers, no tracepoint */
	kbtf_init(&k);
	add_func(&k, "lock_sock_nested");
	add_func(&k, "release_sock");
	path = kbtf_write(&k);
	assert_int_equal(vb_probe_kernel(&p, path, err, sizeof(err)), 0);
	assert_int_equal(p.mode, VB_MODE_UNKNOWN);
	assert_int_equal(vb_probe_usable(&p, err, sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, "kernel without vsock"));
	unlink(path);
	free(path);

	/* workers but no recv_pkt tracepoint */
	kbtf_init(&k);
	add_func(&k, "lock_sock_nested");
	add_func(&k, "release_sock");
	add_func(&k, "vsock_loopback_work");
	path = kbtf_write(&k);
	assert_int_equal(vb_probe_kernel(&p, path, err, sizeof(err)), 0);
	assert_int_equal(vb_probe_usable(&p, err, sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, "no vsock:virtio_transport_recv_pkt tracepoint"));
	unlink(path);
	free(path);

	/* recv_pkt tracepoint, but neither the function nor rx_batch:
	 * full mode sees no window */
	kbtf_init(&k);
	add_recv_pkt_tp(&k, true);
	add_raw_struct(&k, "trace_event_raw_virtio_transport_recv_pkt",
		       recv_fields);
	path = kbtf_write(&k);
	assert_int_equal(vb_probe_kernel(&p, path, err, sizeof(err)), 0);
	assert_int_equal(vb_probe_choose(&p, VB_TRACE_FULL, err, sizeof(err)),
			 -ENOENT);
	assert_non_null(strstr(err, "full mode sees no lock window"));
	unlink(path);
	free(path);

	/* no BTF */
	assert_int_equal(vb_probe_kernel(&p, "/nonexistent/vmlinux", err,
					 sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, "cannot read BTF from /nonexistent/vmlinux"));
}

/* cmd_probe --btf PATH with stderr captured into err; returns the status. */
static int probe_btf(const char *path, char *err, size_t len)
{
	char tmpl[] = "/tmp/vb-probe-err.XXXXXX";
	char *argv[] = { "probe", "--btf", (char *)path, NULL };
	int fd = mkstemp(tmpl), saved, rc;
	ssize_t n;

	assert_true(fd >= 0);
	unlink(tmpl);
	fflush(stderr);
	saved = dup(2);
	dup2(fd, 2);
	rc = cmd_probe(3, argv);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	n = pread(fd, err, len - 1, 0);
	err[n > 0 ? n : 0] = 0;
	close(fd);
	return rc;
}

/* A --btf FILE that is no BTF: one line, exit 2 (it once said "Unknown
 * error 4001" after raw libbpf lines, and exited 1). */
static void test_cmd_bad_btf_file(void **state)
{
	char path[] = "/tmp/vb-probe-notbtf.XXXXXX", err[1024];
	int fd = mkstemp(path);

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "not a BTF file\n", 15), 15);
	close(fd);
	assert_int_equal(probe_btf(path, err, sizeof(err)), VB_EXIT_USAGE);
	assert_non_null(strstr(err, "is not BTF"));
	assert_null(strstr(err, "libbpf"));
	assert_int_equal(strchr(err, '\n')[1], 0);	/* one line */

	/* an ELF file without .BTF (this test binary, its DWARF aside) */
	assert_int_equal(probe_btf("/proc/self/exe", err, sizeof(err)),
			 VB_EXIT_USAGE);
	assert_null(strstr(err, "libbpf"));
	assert_null(strstr(err, "Unknown error"));
	assert_int_equal(strchr(err, '\n')[1], 0);

	/* raw BTF magic, then garbage */
	fd = open(path, O_WRONLY | O_TRUNC);
	assert_int_equal(write(fd, "\x9f\xeb\x01\x00garbage", 11), 11);
	close(fd);
	assert_int_equal(probe_btf(path, err, sizeof(err)), VB_EXIT_USAGE);
	assert_null(strstr(err, "libbpf"));
	assert_null(strstr(err, "Unknown error"));
	assert_int_equal(strchr(err, '\n')[1], 0);
	unlink(path);

	assert_int_equal(probe_btf("/nonexistent/vmlinux", err, sizeof(err)),
			 VB_EXIT_USAGE);
	assert_non_null(strstr(err, "No such file"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cmd_bad_btf_file),
		cmocka_unit_test(test_baseline_kernel),
		cmocka_unit_test(test_batched_by_function_and_tracepoint),
		cmocka_unit_test(test_batched_light_by_run_close),
		cmocka_unit_test(test_wrong_shapes_switched_off),
		cmocka_unit_test(test_refusals),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
