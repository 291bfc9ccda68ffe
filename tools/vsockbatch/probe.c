// SPDX-License-Identifier: GPL-2.0
/* probe.c - hook availability from BTF, tracefs and kallsyms. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "probe.h"

#define MOD_COMMON	"vmw_vsock_virtio_transport_common"

const struct vb_hook_desc vb_hooks[VB_HOOK_NR] = {
	[VB_HOOK_RX_WORK] = { "fentry+fexit/virtio_transport_rx_work",
		"virtio_transport_rx_work", "vmw_vsock_virtio_transport",
		{ "rx_work_enter", "rx_work_exit" }, false },
	[VB_HOOK_LOOPBACK_WORK] = { "fentry+fexit/vsock_loopback_work",
		"vsock_loopback_work", "vsock_loopback",
		{ "loopback_work_enter", "loopback_work_exit" }, false },
	[VB_HOOK_VHOST_KICK] = { "fentry+fexit/vhost_vsock_handle_tx_kick",
		"vhost_vsock_handle_tx_kick", "vhost_vsock",
		{ "vhost_tx_kick_enter", "vhost_tx_kick_exit" }, false },
	[VB_HOOK_LOCK] = { "fexit/lock_sock_nested", "lock_sock_nested",
		NULL, { "lock_acquired" }, true },
	[VB_HOOK_RELEASE] = { "fentry/release_sock", "release_sock", NULL,
		{ "release" }, true },
	[VB_HOOK_LOCK_WAIT] = { "fentry+fexit/__lock_sock", "__lock_sock", NULL,
		{ "user_wait_begin", "user_wait_end" }, false },
	[VB_HOOK_READABLE] = { "fentry/sock_def_readable",
		"sock_def_readable", NULL, { "readable" }, false },
	[VB_HOOK_WRITE_SPACE] = { "fentry/sock_def_write_space",
		"sock_def_write_space", NULL, { "write_space" }, false },
	[VB_HOOK_LOOKUP] = { "fentry/vsock_find_connected_socket",
		"vsock_find_connected_socket", "vsock", { "find_connected" },
		false },
	[VB_HOOK_RECV_PKT_BTF] = { "tp_btf/virtio_transport_recv_pkt",
		"virtio_transport_recv_pkt", MOD_COMMON, { "recv_pkt_btf" },
		false },
	[VB_HOOK_RECV_PKT_TP] = { "tracepoint/vsock/virtio_transport_recv_pkt",
		"virtio_transport_recv_pkt", MOD_COMMON, { "recv_pkt_tp" },
		false },
	[VB_HOOK_RX_BATCH_TP] = { "tracepoint/vsock/virtio_transport_rx_batch",
		"virtio_transport_rx_batch", MOD_COMMON, { "rx_batch_tp" },
		false },
	[VB_HOOK_RECVMSG] = { "fexit/vsock_connectible_recvmsg",
		"vsock_connectible_recvmsg", "vsock", { "recvmsg_exit" },
		false },
	[VB_HOOK_ERROR_REPORT] = { "fentry/sk_error_report",
		"sk_error_report", NULL, { "error_report" }, false },
};

/* Fields the programs read from the tracepoint records (CO-RE by name). */
static const char *const recv_pkt_fields[] = {
	"src_cid", "src_port", "dst_cid", "dst_port", "len", "op", NULL
};
static const char *const rx_batch_fields[] = {
	"src_cid", "src_port", "dst_cid", "dst_port", "pkts", "bytes",
	"hold_ns", "reason", "write_space", "data_ready", NULL
};

struct btfs {
	struct btf *vmlinux;
	struct btf *mod[VB_HOOK_NR];	/* per hook, NULL = none */
	bool running;			/* probing the running kernel */
};

static struct btf *load_mod(struct btfs *b, const char *mod)
{
	char path[128];

	if (!b->running || !mod)
		return NULL;
	snprintf(path, sizeof(path), "/sys/kernel/btf/%s", mod);
	if (access(path, R_OK))
		return NULL;
	return btf__load_module_btf(mod, b->vmlinux);
}

/* Find name/kind in vmlinux, then in the hook's module BTF. */
static int find(struct btfs *b, int hook, const char *name, __u32 kind,
		struct btf **in, char *where, size_t wlen)
{
	int id = btf__find_by_name_kind(b->vmlinux, name, kind);

	if (id > 0) {
		*in = b->vmlinux;
		snprintf(where, wlen, "vmlinux");
		return id;
	}
	if (b->mod[hook]) {
		id = btf__find_by_name_kind(b->mod[hook], name, kind);
		if (id > 0) {
			*in = b->mod[hook];
			snprintf(where, wlen, "%s", vb_hooks[hook].module);
			return id;
		}
	}
	return -ENOENT;
}

static bool struct_has_int_fields(const struct btf *btf, int id,
				  const char *const *fields, const char **miss)
{
	const struct btf_type *t = btf__type_by_id(btf, id), *mt;
	const struct btf_member *m;
	int i, j;

	for (j = 0; fields[j]; j++) {
		bool found = false;

		m = btf_members(t);
		for (i = 0; i < btf_vlen(t); i++, m++) {
			if (strcmp(btf__name_by_offset(btf, m->name_off),
				   fields[j]))
				continue;
			mt = btf__type_by_id(btf, m->type);
			while (mt && (btf_is_typedef(mt) || btf_is_const(mt) ||
				      btf_is_volatile(mt)))
				mt = btf__type_by_id(btf, mt->type);
			found = mt && (btf_is_int(mt) || btf_is_enum(mt));
			break;
		}
		if (!found) {
			*miss = fields[j];
			return false;
		}
	}
	return true;
}

static bool tracefs_event(const struct vb_probe *p, const char *ev)
{
	char path[192];

	if (!p->tracefs[0])
		return false;
	snprintf(path, sizeof(path), "%s/events/vsock/%s/id", p->tracefs, ev);
	return access(path, R_OK) == 0;
}

static void find_tracefs(struct vb_probe *p)
{
	static const char *const dirs[] = {
		"/sys/kernel/tracing", "/sys/kernel/debug/tracing", NULL
	};
	char path[96];
	int i;

	p->tracefs[0] = 0;
	for (i = 0; dirs[i]; i++) {
		snprintf(path, sizeof(path), "%s/events", dirs[i]);
		if (access(path, R_OK | X_OK) == 0) {
			snprintf(p->tracefs, sizeof(p->tracefs), "%s", dirs[i]);
			return;
		}
	}
}

static void probe_tracepoint(struct vb_probe *p, struct btfs *b, int hook,
			     const char *const *fields, bool running)
{
	const char *ev = vb_hooks[hook].target, *miss = NULL;
	char sname[128];
	struct btf *in;
	int id;

	snprintf(sname, sizeof(sname), "trace_event_raw_%s", ev);
	id = find(b, hook, sname, BTF_KIND_STRUCT, &in, p->where[hook],
		  sizeof(p->where[hook]));
	if (id < 0) {
		snprintf(p->why[hook], sizeof(p->why[hook]),
			 "no BTF type %.100s", sname);
		return;
	}
	if (!struct_has_int_fields(in, id, fields, &miss)) {
		snprintf(p->why[hook], sizeof(p->why[hook]),
			 "%.70s has no integer field '%.20s'", sname, miss);
		return;
	}
	if (running && !tracefs_event(p, ev)) {
		snprintf(p->why[hook], sizeof(p->why[hook]), p->tracefs[0]
			 ? "no tracefs event vsock/%s" : "tracefs not mounted",
			 ev);
		return;
	}
	p->avail[hook] = true;
}

/*
 * tp_btf reads the raw tracepoint arguments by position, so check the
 * prototype really is the 6.12 one: (void *__data, u32 src_cid, u32
 * src_port, u32 dst_cid, u32 dst_port, u32 len, u16 type, u16 op, ...).
 */
static void probe_recv_pkt_btf(struct vb_probe *p, struct btfs *b)
{
	const int hook = VB_HOOK_RECV_PKT_BTF;
	const struct btf_type *t;
	const struct btf_param *prm;
	struct btf *in;
	int id, i;

	id = find(b, hook, "btf_trace_virtio_transport_recv_pkt",
		  BTF_KIND_TYPEDEF, &in, p->where[hook], sizeof(p->where[hook]));
	if (id < 0) {
		snprintf(p->why[hook], sizeof(p->why[hook]),
			 "no BTF typedef btf_trace_virtio_transport_recv_pkt");
		return;
	}
	t = btf__type_by_id(in, id);
	t = t ? btf__type_by_id(in, t->type) : NULL;	/* pointer */
	t = (t && btf_is_ptr(t)) ? btf__type_by_id(in, t->type) : NULL;
	if (!t || !btf_is_func_proto(t) || btf_vlen(t) < 8) {
		snprintf(p->why[hook], sizeof(p->why[hook]),
			 "unexpected prototype of the recv_pkt tracepoint");
		return;
	}
	prm = btf_params(t);
	for (i = 1; i < 8; i++) {
		const struct btf_type *a = btf__type_by_id(in, prm[i].type);

		while (a && btf_is_typedef(a))
			a = btf__type_by_id(in, a->type);
		if (!a || !btf_is_int(a) || a->size != (i < 6 ? 4 : 2)) {
			snprintf(p->why[hook], sizeof(p->why[hook]),
				 "recv_pkt tracepoint argument %d is not the 6.12 type",
				 i);
			return;
		}
	}
	p->avail[hook] = true;
}

static bool kallsyms_prefix(const char *prefix, char *sym, size_t len)
{
	char line[512], name[256], type;
	unsigned long long addr;
	size_t plen = strlen(prefix);
	bool found = false;
	FILE *f = fopen("/proc/kallsyms", "r");

	if (!f)
		return false;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx %c %255s", &addr, &type, name) != 3)
			continue;
		if (!strncmp(name, prefix, plen)) {
			snprintf(sym, len, "%s", name);
			found = true;
			break;
		}
	}
	fclose(f);
	return found;
}

static void detect_mode(struct vb_probe *p, struct btfs *b, bool running)
{
	static const char *const funcs[] = {
		"virtio_transport_rx_batch_recv",
		"virtio_transport_rx_batch_begin",
		"virtio_transport_rx_batch_end", NULL
	};
	char sym[256], where[48];
	struct btf *in;
	int i;

	if (running && kallsyms_prefix("virtio_transport_rx_batch_", sym,
				       sizeof(sym))) {
		p->mode = VB_MODE_BATCHED;
		snprintf(p->detected_by, sizeof(p->detected_by),
			 "kallsyms: %.120s present", sym);
		return;
	}
	for (i = 0; funcs[i]; i++) {
		if (find(b, VB_HOOK_RECV_PKT_TP, funcs[i], BTF_KIND_FUNC, &in,
			 where, sizeof(where)) > 0) {
			p->mode = VB_MODE_BATCHED;
			snprintf(p->detected_by, sizeof(p->detected_by),
				 "BTF (%s): function %s present", where,
				 funcs[i]);
			return;
		}
	}
	if (p->avail[VB_HOOK_RX_BATCH_TP]) {
		p->mode = VB_MODE_BATCHED;
		snprintf(p->detected_by, sizeof(p->detected_by),
			 "tracepoint vsock:virtio_transport_rx_batch present");
		return;
	}
	if (p->avail[VB_HOOK_RECV_PKT_BTF] || p->avail[VB_HOOK_RECV_PKT_TP]) {
		p->mode = VB_MODE_BASELINE;
		snprintf(p->detected_by, sizeof(p->detected_by),
			 "no virtio_transport_rx_batch_* in %s, no rx_batch tracepoint",
			 running ? "kallsyms or BTF" : "BTF");
		return;
	}
	p->mode = VB_MODE_UNKNOWN;
	snprintf(p->detected_by, sizeof(p->detected_by),
		 "virtio transport (recv_pkt tracepoint) not found");
}

int vb_probe_kernel(struct vb_probe *p, const char *btf_path,
		    char *errbuf, size_t errlen)
{
	struct btfs b = { .running = !btf_path };
	struct utsname u;
	int i, id, err;
	struct btf *in;

	memset(p, 0, sizeof(*p));
	if (btf_path)
		snprintf(p->release, sizeof(p->release), "(BTF file %s)",
			 btf_path);
	else if (uname(&u) == 0)
		snprintf(p->release, sizeof(p->release), "%s", u.release);

	b.vmlinux = btf_path ? btf__parse(btf_path, NULL)
			     : btf__load_vmlinux_btf();
	err = libbpf_get_error(b.vmlinux);
	if (err) {
		b.vmlinux = NULL;
		snprintf(errbuf, errlen, btf_path ? "cannot read BTF from %s: %s"
			 : "kernel has no BTF (%s%s): CONFIG_DEBUG_INFO_BTF=y is required",
			 btf_path ? btf_path : "/sys/kernel/btf/vmlinux: ",
			 strerror(-err));
		return -ENOENT;
	}
	p->btf = true;
	if (!btf_path)
		find_tracefs(p);

	for (i = 0; i < VB_HOOK_NR; i++) {
		int j;

		/* hooks of one module share its BTF */
		for (j = 0; j < i && vb_hooks[i].module; j++)
			if (b.mod[j] && vb_hooks[j].module &&
			    !strcmp(vb_hooks[j].module, vb_hooks[i].module))
				break;
		if (vb_hooks[i].module && j < i && b.mod[j])
			b.mod[i] = b.mod[j];
		else
			b.mod[i] = load_mod(&b, vb_hooks[i].module);
	}

	for (i = 0; i < VB_HOOK_NR; i++) {
		if (i == VB_HOOK_RECV_PKT_BTF || i == VB_HOOK_RECV_PKT_TP ||
		    i == VB_HOOK_RX_BATCH_TP)
			continue;
		id = find(&b, i, vb_hooks[i].target, BTF_KIND_FUNC, &in,
			  p->where[i], sizeof(p->where[i]));
		if (id > 0)
			p->avail[i] = true;
		else if (vb_hooks[i].module && !b.mod[i] && b.running)
			snprintf(p->why[i], sizeof(p->why[i]),
				 "not in vmlinux BTF and module %s has no BTF (not loaded?)",
				 vb_hooks[i].module);
		else
			snprintf(p->why[i], sizeof(p->why[i]),
				 "function %s not in BTF", vb_hooks[i].target);
	}
	probe_recv_pkt_btf(p, &b);
	probe_tracepoint(p, &b, VB_HOOK_RECV_PKT_TP, recv_pkt_fields,
			 b.running);
	probe_tracepoint(p, &b, VB_HOOK_RX_BATCH_TP, rx_batch_fields,
			 b.running);
	detect_mode(p, &b, b.running);

	memcpy(p->use, p->avail, sizeof(p->use));
	/* one packet source is enough: prefer tp_btf (no trace buffer) */
	if (p->use[VB_HOOK_RECV_PKT_BTF])
		p->use[VB_HOOK_RECV_PKT_TP] = false;

	for (i = 0; i < VB_HOOK_NR; i++) {
		int j;

		if (!b.mod[i])
			continue;
		for (j = i + 1; j < VB_HOOK_NR; j++)
			if (b.mod[j] == b.mod[i])
				b.mod[j] = NULL;
		btf__free(b.mod[i]);
	}
	btf__free(b.vmlinux);
	return 0;
}

int vb_probe_usable(const struct vb_probe *p, char *errbuf, size_t errlen)
{
	if (!p->avail[VB_HOOK_RX_WORK] && !p->avail[VB_HOOK_LOOPBACK_WORK] &&
	    !p->avail[VB_HOOK_VHOST_KICK]) {
		snprintf(errbuf, errlen,
			 "kernel without vsock RX workers: none of virtio_transport_rx_work, "
			 "vsock_loopback_work, vhost_vsock_handle_tx_kick in BTF "
			 "(vsock modules not loaded, or no module BTF)");
		return -ENOENT;
	}
	if (!p->avail[VB_HOOK_RECV_PKT_BTF] && !p->avail[VB_HOOK_RECV_PKT_TP]) {
		snprintf(errbuf, errlen,
			 "no vsock:virtio_transport_recv_pkt tracepoint (%s; %s)",
			 p->why[VB_HOOK_RECV_PKT_BTF],
			 p->why[VB_HOOK_RECV_PKT_TP]);
		return -ENOENT;
	}
	if (!p->avail[VB_HOOK_LOCK] || !p->avail[VB_HOOK_RELEASE]) {
		snprintf(errbuf, errlen,
			 "lock_sock_nested/release_sock not in BTF: cannot see lock windows");
		return -ENOENT;
	}
	return 0;
}

void vb_probe_print(const struct vb_probe *p, FILE *f)
{
	int i;

	fprintf(f, "kernel %s: %s (%s)\n", p->release, vb_mode_name(p->mode),
		p->detected_by);
	for (i = 0; i < VB_HOOK_NR; i++)
		fprintf(f, "  %-44s %-4s %s\n", vb_hooks[i].label,
			p->use[i] ? "use" : p->avail[i] ? "alt" : "no",
			p->avail[i] ? p->where[i] : p->why[i]);
}
