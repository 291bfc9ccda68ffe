// SPDX-License-Identifier: GPL-2.0
/*
 * Portability of the CO-RE tracer to the build host's kernel (6.18 here),
 * which refuses every fentry/fexit LOAD: relocations are resolved against
 * its BTF without loading (tools/lab/corecheck.c), cross-checked
 * with libbpf's own relocation code through `bpftool gen min_core_btf`,
 * and the one program type this kernel accepts (tp_btf) is really loaded
 * through the verifier -- never attached.  Also a synthetic BTF on which
 * relocations must fail, so the checker is shown to be able to say no.
 * Tests that need the host BTF, bpftool or root skip with a reason.
 */
#include <errno.h>
#include <glob.h>
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
#include <bpf/libbpf.h>

#include "../../tools/lab/corecheck.h"
#include "vsockbatch.skel.h"

#define HOST_BTF "/sys/kernel/btf/vmlinux"

static const struct vb_cc_prog *prog(const struct vb_cc_result *r,
				     const char *name)
{
	size_t i;

	for (i = 0; i < r->nprogs; i++)
		if (!strcmp(r->progs[i].name, name))
			return &r->progs[i];
	return NULL;
}

static const struct vb_cc_relo *relo(const struct vb_cc_result *r,
				     const char *sec, const char *path)
{
	size_t i;

	for (i = 0; i < r->nrelos; i++)
		if (!strcmp(r->relos[i].prog_sec, sec) &&
		    !strcmp(r->relos[i].path, path))
			return &r->relos[i];
	return NULL;
}

/* offset of member path "a.b" inside struct sname, via the BTF API */
static long member_off(const struct btf *btf, const char *sname,
		       const char *m1, const char *m2)
{
	const struct btf_type *t;
	const struct btf_member *m;
	long off = 0;
	int id, i;

	id = btf__find_by_name_kind(btf, sname, BTF_KIND_STRUCT);
	if (id < 0)
		return -1;
	t = btf__type_by_id(btf, id);
	for (const char *want = m1; want; want = (want == m1 ? m2 : NULL)) {
		m = btf_members(t);
		for (i = 0; i < btf_vlen(t); i++, m++)
			if (!strcmp(btf__name_by_offset(btf, m->name_off), want))
				break;
		if (i == btf_vlen(t))
			return -1;
		off += btf_member_bit_offset(t, i) / 8;
		t = btf__type_by_id(btf, m->type);
		while (btf_is_typedef(t) || btf_is_const(t) || btf_is_volatile(t))
			t = btf__type_by_id(btf, t->type);
	}
	return off;
}

static void test_host_btf_relocates(void **state)
{
	struct vb_cc_result r;
	struct btf *host;
	const char *names[] = { "vmlinux" };
	const struct vb_cc_relo *x;
	const void *elf;
	char err[256];
	size_t sz, i;

	(void)state;
	if (access(HOST_BTF, R_OK)) {
		print_message("skip: %s not readable on this host\n", HOST_BTF);
		skip();
	}
	host = btf__parse(HOST_BTF, NULL);
	assert_false(libbpf_get_error(host));
	elf = vsockbatch_bpf__elf_bytes(&sz);
	assert_int_equal(vb_corecheck(elf, sz, &host, names, 1, &r, err,
				      sizeof(err)), 0);
	print_message("host: %zu programs, %zu relocations\n", r.nprogs, r.nrelos);
	assert_true(r.nprogs >= 14);
	assert_true(r.nrelos >= 18);
	/* every program whose target this kernel has relocates */
	for (i = 0; i < r.nprogs; i++)
		if (r.progs[i].target_exists && r.progs[i].nfail) {
			print_error("%s does not relocate\n", r.progs[i].name);
			fail();
		}
	/* the one generic hook (contended socket locks) is in every kernel */
	assert_true(prog(&r, "user_wait_begin")->target_exists);
	/* the series' tracepoint is not in a stock kernel */
	assert_false(prog(&r, "rx_batch_tp")->target_exists);
	/* offsets agree with an independent lookup in the same BTF */
	x = relo(&r, "fentry/__lock_sock", "sock.__sk_common.skc_family");
	assert_non_null(x);
	assert_true(x->ok);
	assert_int_equal(x->target_off,
			 member_off(host, "sock", "__sk_common", "skc_family"));
	x = relo(&r, "tracepoint/vsock/virtio_transport_recv_pkt",
		 "trace_event_raw_virtio_transport_recv_pkt.len");
	assert_non_null(x);
	if (x->ok) {	/* only when vsock is built in */
		assert_int_equal(x->target_off,
				 member_off(host, "trace_event_raw_virtio_transport_recv_pkt",
					    "len", NULL));
		print_message("host: trace_event_raw_virtio_transport_recv_pkt.len @%u (local header @%u)\n",
			      x->target_off, x->local_off);
	}
	vb_cc_result_free(&r);
	btf__free(host);
}

/*
 * Cross-check with libbpf's relocation logic: bpftool's min_core_btf
 * keeps exactly the types and members the object's relocations resolve
 * to.  Every relocation our checker resolved must find its member there.
 */
static void test_matches_bpftool_min_core_btf(void **state)
{
	char dir[] = "/tmp/vb-test-cc-XXXXXX", cmd[512], out[128];
	const char *names[] = { "vmlinux" };
	struct btf *host, *min;
	struct vb_cc_result r;
	const void *elf;
	char err[256];
	size_t sz, i;
	int n = 0;

	(void)state;
	if (access(HOST_BTF, R_OK) || access("build/bpf/vsockbatch.bpf.o", R_OK) ||
	    system("bpftool version >/dev/null 2>&1")) {
		print_message("skip: needs %s, build/bpf/vsockbatch.bpf.o (run from the repo root) and bpftool\n",
			      HOST_BTF);
		skip();
	}
	assert_non_null(mkdtemp(dir));
	snprintf(out, sizeof(out), "%s/min.btf", dir);
	snprintf(cmd, sizeof(cmd),
		 "bpftool gen min_core_btf %s %s build/bpf/vsockbatch.bpf.o",
		 HOST_BTF, out);
	assert_int_equal(system(cmd), 0);
	min = btf__parse(out, NULL);
	assert_false(libbpf_get_error(min));
	host = btf__parse(HOST_BTF, NULL);
	elf = vsockbatch_bpf__elf_bytes(&sz);
	assert_int_equal(vb_corecheck(elf, sz, &host, names, 1, &r, err,
				      sizeof(err)), 0);
	for (i = 0; i < r.nrelos; i++) {
		const struct vb_cc_relo *x = &r.relos[i];
		char root[192], *dot;
		const char *m1, *m2;

		if (!x->ok || x->kind != 0)	/* FIELD_BYTE_OFFSET only */
			continue;
		snprintf(root, sizeof(root), "%s", x->path);
		dot = strchr(root, '.');
		assert_non_null(dot);
		*dot = 0;
		m1 = dot + 1;
		dot = strchr(dot + 1, '.');
		m2 = NULL;
		if (dot) {
			*dot = 0;
			m2 = dot + 1;
		}
		if (member_off(min, root, m1, m2) != (long)x->target_off) {
			print_error("%s: bpftool min BTF has %ld, we have %u\n",
				    x->path, member_off(min, root, m1, m2),
				    x->target_off);
			fail();
		}
		n++;
	}
	assert_true(n >= 2);
	vb_cc_result_free(&r);
	btf__free(min);
	btf__free(host);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
}

/* A kernel whose struct sock lacks the field: relocation must fail. */
static void test_synthetic_btf_fails(void **state)
{
	const char *names[] = { "synthetic" };
	struct vb_cc_result r;
	struct btf *b = btf__new_empty();
	const struct vb_cc_relo *x;
	int u32, sk, proto;
	const void *elf;
	char err[256];
	size_t sz;

	(void)state;
	u32 = btf__add_int(b, "unsigned int", 4, 0);
	sk = btf__add_struct(b, "sock", 8);
	btf__add_field(b, "sk_hash", u32, 0, 0);	/* no __sk_common */
	btf__add_ptr(b, sk);
	proto = btf__add_func_proto(b, 0);
	btf__add_func(b, "__lock_sock", BTF_FUNC_GLOBAL, proto);
	elf = vsockbatch_bpf__elf_bytes(&sz);
	assert_int_equal(vb_corecheck(elf, sz, &b, names, 1, &r, err,
				      sizeof(err)), 0);
	x = relo(&r, "fentry/__lock_sock", "sock.__sk_common.skc_family");
	assert_non_null(x);
	assert_false(x->ok);
	assert_non_null(strstr(x->why, "no member '__sk_common' in sock"));
	assert_true(prog(&r, "user_wait_begin")->target_exists);
	assert_true(prog(&r, "user_wait_begin")->nfail >= 1);
	/* targets the synthetic kernel lacks are reported as absent */
	assert_false(prog(&r, "recv_pkt_exit")->target_exists);
	x = relo(&r, "tracepoint/vsock/virtio_transport_recv_pkt",
		 "trace_event_raw_virtio_transport_recv_pkt.src_cid");
	assert_non_null(x);
	assert_false(x->ok);
	assert_non_null(strstr(x->why, "no type 'trace_event_raw_virtio_transport_recv_pkt'"));
	vb_cc_result_free(&r);
	btf__free(b);
}

/*
 * No lab kernel to check: a skip when unit tests run on their own, a
 * failure under `make check`, which builds the kernels first and sets
 * VB_REQUIRE_LAB_KERNELS, so CI never passes without this check.
 */
static void no_lab_kernel(const char *why)
{
	if (getenv("VB_REQUIRE_LAB_KERNELS"))
		fail_msg("%s, and VB_REQUIRE_LAB_KERNELS is set", why);
	print_message("skip: %s\n", why);
	skip();
}

/*
 * The lab's guest kernels (6.12.117, vsock as modules): vmlinux + the
 * vsock .ko files from the kernel cache, when it has been built.  On
 * the patched kernel the series' tracepoint must relocate too.
 */
static void test_lab_kernels(void **state)
{
	static const char *const mods[] = {
		"net/vmw_vsock/vsock.ko",
		"net/vmw_vsock/vmw_vsock_virtio_transport_common.ko",
		"net/vmw_vsock/vmw_vsock_virtio_transport.ko",
		"net/vmw_vsock/vsock_loopback.ko",
		"drivers/vhost/vhost_vsock.ko",
	};
	const char *cache = getenv("VSOCKBATCH_CACHE"), *names[8];
	char pat[512], path[1024], err[256];
	struct btf *t[8];
	struct vb_cc_result r;
	const void *elf;
	size_t sz, i, k;
	glob_t g;
	int n, checked = 0;

	(void)state;
	if (cache)
		snprintf(pat, sizeof(pat), "%s/kernels/*/vmlinux", cache);
	else
		snprintf(pat, sizeof(pat), "%s/.cache/vsockbatch/kernels/*/vmlinux",
			 getenv("HOME") ? getenv("HOME") : "/root");
	if (glob(pat, 0, NULL, &g) || !g.gl_pathc) {
		snprintf(path, sizeof(path), "no lab kernel built (%s)", pat);
		no_lab_kernel(path);
	}
	elf = vsockbatch_bpf__elf_bytes(&sz);
	for (i = 0; i < g.gl_pathc; i++) {
		char *dir = strdup(g.gl_pathv[i]);
		bool patched = strstr(dir, "/patched-") != NULL;
		bool baseline = strstr(dir, "/baseline-") != NULL;
		glob_t mg;

		*strrchr(dir, '/') = 0;
		t[0] = btf__parse(g.gl_pathv[i], NULL);
		if (libbpf_get_error(t[0])) {
			free(dir);
			continue;
		}
		names[0] = "vmlinux";
		n = 1;
		for (k = 0; k < sizeof(mods) / sizeof(mods[0]); k++) {
			snprintf(path, sizeof(path), "%s/modroot/lib/modules/*/kernel/%s",
				 dir, mods[k]);
			if (glob(path, 0, NULL, &mg) || !mg.gl_pathc)
				continue;
			t[n] = btf__parse_split(mg.gl_pathv[0], t[0]);
			globfree(&mg);
			if (libbpf_get_error(t[n]))
				continue;
			names[n++] = mods[k];
		}
		assert_int_equal(vb_corecheck(elf, sz, t, names, n, &r, err,
					      sizeof(err)), 0);
		for (k = 0; k < r.nprogs; k++) {
			/* modules present: every hook exists, except vhost
			 * on kernels built without it */
			if (strncmp(r.progs[k].name, "rx_batch_", 9) &&
			    strncmp(r.progs[k].name, "rb_", 3) &&
			    strncmp(r.progs[k].name, "vhost", 5))
				assert_true(r.progs[k].target_exists);
			if (r.progs[k].target_exists && r.progs[k].nfail) {
				print_error("%s: %s does not relocate\n", dir,
					    r.progs[k].name);
				fail();
			}
		}
		if (patched || baseline)	/* other variants: relocation only */
			assert_int_equal(prog(&r, "rx_batch_tp")->target_exists,
					 patched);
		print_message("%s: %zu programs, %zu relocations ok%s\n",
			      strrchr(dir, '/') + 1, r.nprogs, r.nrelos,
			      patched ? " (incl. rx_batch)" : "");
		vb_cc_result_free(&r);
		while (n--)
			btf__free(t[n]);
		free(dir);
		checked++;
	}
	globfree(&g);
	if (!checked)
		no_lab_kernel("no readable lab vmlinux");
}

/* The only real load allowed on this host: tp_btf, never attached. */
static void test_host_tp_btf_verifier_load(void **state)
{
	struct vsockbatch_bpf *skel;
	struct bpf_program *p;
	struct btf *host;
	int err;

	(void)state;
	if (geteuid() != 0) {
		print_message("skip: not root, cannot load BPF programs\n");
		skip();
	}
	host = btf__parse(HOST_BTF, NULL);
	if (libbpf_get_error(host)) {
		print_message("skip: no host BTF\n");
		skip();
	}
	err = btf__find_by_name_kind(host, "btf_trace_virtio_transport_recv_pkt",
				     BTF_KIND_TYPEDEF);
	btf__free(host);
	if (err < 0) {
		print_message("skip: this kernel has no vsock recv_pkt tracepoint in vmlinux BTF\n");
		skip();
	}
	skel = vsockbatch_bpf__open();
	assert_non_null(skel);
	bpf_object__for_each_program(p, skel->obj)
		bpf_program__set_autoload(p, p == skel->progs.recv_pkt_btf);
	err = vsockbatch_bpf__load(skel);	/* no attach anywhere */
	if (err == -EPERM) {
		vsockbatch_bpf__destroy(skel);
		print_message("skip: this kernel refuses BPF loads (EPERM)\n");
		skip();
	}
	assert_int_equal(err, 0);
	assert_true(bpf_program__fd(skel->progs.recv_pkt_btf) >= 0);
	assert_null(skel->links.recv_pkt_btf);
	vsockbatch_bpf__destroy(skel);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_host_btf_relocates),
		cmocka_unit_test(test_matches_bpftool_min_core_btf),
		cmocka_unit_test(test_synthetic_btf_fails),
		cmocka_unit_test(test_lab_kernels),
		cmocka_unit_test(test_host_tp_btf_verifier_load),
	};

	libbpf_set_print(NULL);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
