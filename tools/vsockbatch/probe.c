// SPDX-License-Identifier: GPL-2.0
/* probe.c - hook availability from BTF, tracefs and kallsyms. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "attach_check.h"
#include "probe.h"

#define MOD_COMMON	"vmw_vsock_virtio_transport_common"

const struct vb_hook_desc vb_hooks[VB_HOOK_NR] = {
	[VB_HOOK_RECV_PKT_BTF] = { "tp_btf/virtio_transport_recv_pkt",
		"virtio_transport_recv_pkt", MOD_COMMON, { "recv_pkt_btf" },
		false },
	[VB_HOOK_RECV_PKT_TP] = { "tracepoint/vsock/virtio_transport_recv_pkt",
		"virtio_transport_recv_pkt", MOD_COMMON, { "recv_pkt_tp" },
		false },
	[VB_HOOK_RX_BATCH_BTF] = { "tp_btf/virtio_transport_rx_batch",
		"virtio_transport_rx_batch", MOD_COMMON, { "rx_batch_btf" },
		false },
	[VB_HOOK_RX_BATCH_TP] = { "tracepoint/vsock/virtio_transport_rx_batch",
		"virtio_transport_rx_batch", MOD_COMMON, { "rx_batch_tp" },
		false },
	[VB_HOOK_RECV_PKT_EXIT] = { "fexit/virtio_transport_recv_pkt",
		"virtio_transport_recv_pkt", MOD_COMMON, { "recv_pkt_exit" },
		true,
		{ "recv_pkt_exit_kp" }, "kretprobe/virtio_transport_recv_pkt" },
	[VB_HOOK_DATA_READY] = { "fentry/vsock_data_ready", "vsock_data_ready",
		"vsock", { "data_ready" }, true,
		{ "data_ready_kp" }, "kprobe/vsock_data_ready" },
	[VB_HOOK_RX_WORK] = { "fentry+fexit/virtio_transport_rx_work",
		"virtio_transport_rx_work", "vmw_vsock_virtio_transport",
		{ "rx_work_enter", "rx_work_exit" }, true,
		{ "rx_work_enter_kp", "rx_work_exit_kp" },
		"kprobe+kretprobe/virtio_transport_rx_work" },
	[VB_HOOK_LOOPBACK_WORK] = { "fentry+fexit/vsock_loopback_work",
		"vsock_loopback_work", "vsock_loopback",
		{ "loopback_work_enter", "loopback_work_exit" }, true,
		{ "loopback_work_enter_kp", "loopback_work_exit_kp" },
		"kprobe+kretprobe/vsock_loopback_work" },
	[VB_HOOK_VHOST_KICK] = { "fentry+fexit/vhost_vsock_handle_tx_kick",
		"vhost_vsock_handle_tx_kick", "vhost_vsock",
		{ "vhost_tx_kick_enter", "vhost_tx_kick_exit" }, true,
		{ "vhost_tx_kick_enter_kp", "vhost_tx_kick_exit_kp" },
		"kprobe+kretprobe/vhost_vsock_handle_tx_kick" },
	[VB_HOOK_LOCK_WAIT] = { "fentry+fexit/__lock_sock", "__lock_sock", NULL,
		{ "user_wait_begin", "user_wait_end" }, false,
		{ "user_wait_begin_kp", "user_wait_end_kp" },
		"kprobe+kretprobe/__lock_sock" },
	[VB_HOOK_RECVMSG] = { "fexit/vsock_connectible_recvmsg",
		"vsock_connectible_recvmsg", "vsock", { "recvmsg_exit" },
		true,
		{ "recvmsg_exit_kp" }, "kretprobe/vsock_connectible_recvmsg" },
	[VB_HOOK_ERROR_REPORT] = { "fentry/sk_error_report",
		"sk_error_report", NULL, { "error_report" }, true,
		{ "error_report_kp" }, "kprobe/sk_error_report" },
	[VB_HOOK_RB_RECV] = { "fentry+fexit/virtio_transport_rx_batch_recv_run",
		"virtio_transport_rx_batch_recv_run", MOD_COMMON,
		{ "rb_recv_enter", "rb_recv_exit" }, true, { NULL }, NULL },
	[VB_HOOK_RB_END] = { "fentry+fexit/virtio_transport_rx_batch_end",
		"virtio_transport_rx_batch_end", MOD_COMMON,
		{ "rb_end_enter", "rb_end_exit" }, true, { NULL }, NULL },
	[VB_HOOK_RB_CLOSE] = { "fentry/virtio_transport_rx_batch_close",
		"virtio_transport_rx_batch_close", MOD_COMMON,
		{ "rb_close" }, false, { NULL }, NULL },
	[VB_HOOK_RECV_PKT_FN] = { "fentry/virtio_transport_recv_pkt",
		"virtio_transport_recv_pkt", MOD_COMMON, { "recv_pkt_unbatched" },
		false,
		{ "recv_pkt_unbatched_kp" }, "kprobe/virtio_transport_recv_pkt" },
};

static bool is_tracepoint(int hook)
{
	return hook == VB_HOOK_RECV_PKT_BTF || hook == VB_HOOK_RECV_PKT_TP ||
	       hook == VB_HOOK_RX_BATCH_BTF || hook == VB_HOOK_RX_BATCH_TP;
}

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
 * prototype is the one the program was written for: after `void *__data`,
 * each argument's size in bytes (0 = a pointer).
 *   recv_pkt (6.12): u32 src_cid, src_port, dst_cid, dst_port, len,
 *     u16 type, op, ...
 *   rx_batch (series): const void *skaddr, u32 x6, u64 hold_ns, u8 reason,
 *     bool write_space, bool data_ready
 */
static const int recv_pkt_args[] = { 4, 4, 4, 4, 4, 2, 2, -1 };
static const int rx_batch_args[] = { 0, 4, 4, 4, 4, 4, 4, 8, 1, 1, 1, -1 };

static void probe_raw_tp(struct vb_probe *p, struct btfs *b, int hook,
			 const int *args)
{
	const char *ev = vb_hooks[hook].target;
	const struct btf_type *t;
	const struct btf_param *prm;
	char name[128];
	struct btf *in;
	int id, i, n = 0;

	while (args[n] >= 0)
		n++;
	snprintf(name, sizeof(name), "btf_trace_%s", ev);
	id = find(b, hook, name, BTF_KIND_TYPEDEF, &in, p->where[hook],
		  sizeof(p->where[hook]));
	if (id < 0) {
		snprintf(p->why[hook], sizeof(p->why[hook]),
			 "no BTF typedef %.100s", name);
		return;
	}
	t = btf__type_by_id(in, id);
	t = t ? btf__type_by_id(in, t->type) : NULL;	/* pointer */
	t = (t && btf_is_ptr(t)) ? btf__type_by_id(in, t->type) : NULL;
	if (!t || !btf_is_func_proto(t) || btf_vlen(t) < n + 1) {
		snprintf(p->why[hook], sizeof(p->why[hook]),
			 "unexpected prototype of the %.60s tracepoint", ev);
		return;
	}
	prm = btf_params(t);
	for (i = 1; i <= n; i++) {
		const struct btf_type *a = btf__type_by_id(in, prm[i].type);

		while (a && (btf_is_typedef(a) || btf_is_const(a) ||
			     btf_is_volatile(a)))
			a = btf__type_by_id(in, a->type);
		if (!a || (args[i - 1] ? !btf_is_int(a) ||
			   a->size != (unsigned int)args[i - 1]
				       : !btf_is_ptr(a))) {
			snprintf(p->why[hook], sizeof(p->why[hook]),
				 "%.60s tracepoint argument %d is not of the expected type",
				 ev, i);
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
		"virtio_transport_rx_batch_recv_run",
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

/* Is module m (file name spelling) installed for the running kernel? */
static bool module_installed(const char *release, const char *m)
{
	static const char *const lists[] = { "modules.dep", "modules.builtin" };
	char path[256], line[512], want[80];
	bool found = false;
	size_t i;
	FILE *f;

	snprintf(want, sizeof(want), "/%s.ko", m);
	for (i = 0; i < 2 && !found; i++) {
		snprintf(path, sizeof(path), "/lib/modules/%s/%s", release,
			 lists[i]);
		f = fopen(path, "r");
		if (!f)
			continue;
		while (!found && fgets(line, sizeof(line), f)) {
			char *colon = strchr(line, ':');

			if (colon)
				*colon = 0;
			found = strstr(line, want) != NULL;
		}
		fclose(f);
	}
	return found;
}

/*
 * No vsock transport in BTF: say what to do -- which module to load
 * (those installed for this kernel), or which kernel option is missing.
 */
static void vsock_hint(struct vb_probe *p)
{
	static const char *const mods[] = {
		"vsock_loopback", "vmw_vsock_virtio_transport", "vhost_vsock",
	};
	static const char *const roles[] = {
		"loopback, CID 1", "guest of a virtio-vsock device",
		"host of vhost-vsock guests",
	};
	char load[192] = "";
	size_t i, used;

	if (!access("/sys/module/" MOD_COMMON, F_OK)) {
		snprintf(p->vsock_hint, sizeof(p->vsock_hint),
			 "module %s is loaded but has no BTF: CONFIG_DEBUG_INFO_BTF_MODULES=y is required",
			 MOD_COMMON);
		return;
	}
	for (i = 0; i < 3; i++) {
		if (!module_installed(p->release, mods[i]))
			continue;
		used = strlen(load);
		snprintf(load + used, sizeof(load) - used, "%s%s (%s)",
			 used ? ", " : "", mods[i], roles[i]);
	}
	if (load[0])
		snprintf(p->vsock_hint, sizeof(p->vsock_hint),
			 "no vsock transport loaded: modprobe %.190s", load);
	else
		snprintf(p->vsock_hint, sizeof(p->vsock_hint),
			 "no vsock transport in this kernel: CONFIG_VSOCKETS with CONFIG_VSOCKETS_LOOPBACK, CONFIG_VIRTIO_VSOCKETS or CONFIG_VHOST_VSOCK");
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
		char why[128];

		/* libbpf's own codes (4000 and up) have no strerror() text */
		if (btf_path && err == -ENOENT && !access(btf_path, R_OK))
			snprintf(why, sizeof(why), "no .BTF section in it");
		else if (libbpf_strerror(err, why, sizeof(why)))
			snprintf(why, sizeof(why), "%s", strerror(-err));
		if (btf_path)
			snprintf(errbuf, errlen, "cannot read BTF from %s: %s",
				 btf_path, why);
		else if (access("/sys/kernel/btf/vmlinux", F_OK))
			snprintf(errbuf, errlen,
				 "kernel has no BTF (no /sys/kernel/btf/vmlinux): CONFIG_DEBUG_INFO_BTF=y is required");
		else
			snprintf(errbuf, errlen,
				 "kernel BTF unreadable (/sys/kernel/btf/vmlinux: %s): CONFIG_DEBUG_INFO_BTF=y is required",
				 why);
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
		if (is_tracepoint(i))
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
	probe_raw_tp(p, &b, VB_HOOK_RECV_PKT_BTF, recv_pkt_args);
	probe_raw_tp(p, &b, VB_HOOK_RX_BATCH_BTF, rx_batch_args);
	probe_tracepoint(p, &b, VB_HOOK_RECV_PKT_TP, recv_pkt_fields,
			 b.running);
	probe_tracepoint(p, &b, VB_HOOK_RX_BATCH_TP, rx_batch_fields,
			 b.running);
	for (i = 0; i < VB_HOOK_NR; i++)
		p->how[i] = p->avail[i] ? VB_ATTACH_PREFERRED : VB_ATTACH_NONE;
	memcpy(p->in_btf, p->avail, sizeof(p->in_btf));
	if (b.running && !p->avail[VB_HOOK_RECV_PKT_BTF] &&
	    !p->avail[VB_HOOK_RECV_PKT_TP])
		vsock_hint(p);
	detect_mode(p, &b, b.running);
	p->light_ok = (p->avail[VB_HOOK_RECV_PKT_BTF] ||
		       p->avail[VB_HOOK_RECV_PKT_TP]) &&
		      (p->avail[VB_HOOK_RX_BATCH_BTF] ||
		       p->avail[VB_HOOK_RX_BATCH_TP]);
	/* what AUTO would attach; callers may choose again */
	vb_probe_choose(p, VB_TRACE_AUTO, NULL, 0);

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

static int refuse(char *errbuf, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int refuse(char *errbuf, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (errbuf && errlen) {
		va_start(ap, fmt);
		vsnprintf(errbuf, errlen, fmt, ap);
		va_end(ap);
	}
	return -ENOENT;
}

int vb_probe_choose(struct vb_probe *p, enum vb_trace_mode want,
		    char *errbuf, size_t errlen)
{
	bool recv = p->avail[VB_HOOK_RECV_PKT_BTF] ||
		    p->avail[VB_HOOK_RECV_PKT_TP];
	int i;

	memset(p->use, 0, sizeof(p->use));
	if (!recv && p->vsock_hint[0])
		return refuse(errbuf, errlen,
			      "kernel without vsock virtio transport: %s",
			      p->vsock_hint);
	if (!recv)
		return refuse(errbuf, errlen,
			      "kernel without vsock virtio transport: no vsock:virtio_transport_recv_pkt tracepoint (%.100s; %.100s)",
			      p->why[VB_HOOK_RECV_PKT_BTF],
			      p->why[VB_HOOK_RECV_PKT_TP]);
	if (want == VB_TRACE_AUTO)
		want = p->light_ok ? VB_TRACE_LIGHT : VB_TRACE_FULL;
	/*
	 * Light without the series' rx_batch event, on a kernel that does
	 * not batch (stock kernels): the recv_pkt tracepoint alone, packets
	 * and bytes by kind; every packet is its own lookup and lock there.
	 * A kernel that batches without the event would hide its runs, but
	 * for the series' run-close function where fentry reaches it.
	 */
	if (want == VB_TRACE_LIGHT && !p->light_ok &&
	    p->mode != VB_MODE_BASELINE && !p->avail[VB_HOOK_RB_CLOSE])
		return refuse(errbuf, errlen,
			      "light mode on a kernel that batches needs the series' vsock:virtio_transport_rx_batch tracepoint (%s) or fentry on virtio_transport_rx_batch_close (%s): use full mode",
			      p->why[VB_HOOK_RX_BATCH_TP],
			      p->why[VB_HOOK_RB_CLOSE]);
	if (want == VB_TRACE_FULL && !p->avail[VB_HOOK_RECV_PKT_EXIT] &&
	    !p->light_ok)
		return refuse(errbuf, errlen,
			      "full mode sees no lock window: neither %s (%.150s) nor the rx_batch tracepoint",
			      p->in_btf[VB_HOOK_RECV_PKT_EXIT]
			      ? "fexit or kretprobe on virtio_transport_recv_pkt"
			      : "virtio_transport_recv_pkt in BTF",
			      p->why[VB_HOOK_RECV_PKT_EXIT]);
	p->trace = want;
	for (i = 0; i < VB_HOOK_NR; i++)
		p->use[i] = p->avail[i] &&
			    (want == VB_TRACE_FULL || !vb_hooks[i].full_only);
	/*
	 * The series' run functions are only needed where no rx_batch event
	 * says when a run ends (p1-3); without both, the runs are invisible.
	 */
	if (p->light_ok)
		p->use[VB_HOOK_RB_RECV] = p->use[VB_HOOK_RB_END] = false;
	/*
	 * Light where the series batches without its (optional) event: the
	 * run-close function, once per run, in place of the event.  It
	 * gives the run's packets, bytes and flow, not its hold time or end
	 * reason; every data packet of an eligible socket is in a run, so
	 * the per-packet event is left out as with the event.
	 */
	p->use[VB_HOOK_RB_CLOSE] = p->use[VB_HOOK_RB_CLOSE] &&
				   want == VB_TRACE_LIGHT && !p->light_ok &&
				   p->mode == VB_MODE_BATCHED;
	if (p->use[VB_HOOK_RB_CLOSE])
		p->use[VB_HOOK_RECV_PKT_BTF] = p->use[VB_HOOK_RECV_PKT_TP] = false;
	/*
	 * Light on a kernel with the rx_batch event costs per run, not per
	 * packet: the event's pkts and bytes count the data packets, and
	 * the per-packet recv_pkt event (control packets, packets outside
	 * runs) is left out.  Measured: at 64 B it was ~60 % of light's
	 * own instructions (scripts/tracer-cost.sh).
	 */
	if (want == VB_TRACE_LIGHT && p->light_ok)
		p->use[VB_HOOK_RECV_PKT_BTF] = p->use[VB_HOOK_RECV_PKT_TP] = false;
	/*
	 * Light where the series batches: a packet that is in no run (of
	 * another kind or socket type, or that the next one would not
	 * join) goes through virtio_transport_recv_pkt(), which the series'
	 * RX workers call for nothing else; counted there, per such packet.
	 */
	p->use[VB_HOOK_RECV_PKT_FN] = p->use[VB_HOOK_RECV_PKT_FN] &&
				      want == VB_TRACE_LIGHT &&
				      p->mode == VB_MODE_BATCHED;
	if (want == VB_TRACE_FULL && p->mode == VB_MODE_BATCHED && !p->light_ok &&
	    !(p->use[VB_HOOK_RB_RECV] && p->use[VB_HOOK_RB_END])) {
		p->use[VB_HOOK_RB_RECV] = p->use[VB_HOOK_RB_END] = false;
		p->trace = VB_TRACE_FULL_NORUNS;
	}
	/*
	 * One source per event: prefer tp_btf (no trace buffer), except for
	 * rx_batch in full mode, which reads the socket the event names and
	 * tp_btf cannot read a void * argument; it fires once per run.
	 */
	if (p->use[VB_HOOK_RECV_PKT_BTF])
		p->use[VB_HOOK_RECV_PKT_TP] = false;
	if (want == VB_TRACE_FULL && p->use[VB_HOOK_RX_BATCH_TP])
		p->use[VB_HOOK_RX_BATCH_BTF] = false;
	if (p->use[VB_HOOK_RX_BATCH_BTF])
		p->use[VB_HOOK_RX_BATCH_TP] = false;
	return 0;
}

int vb_probe_usable(const struct vb_probe *p, char *errbuf, size_t errlen)
{
	struct vb_probe copy = *p;

	return vb_probe_choose(&copy, VB_TRACE_AUTO, errbuf, errlen);
}

void vb_probe_print(const struct vb_probe *p, FILE *f)
{
	int i;

	fprintf(f, "kernel %s: %s (%s)\n", p->release, vb_mode_name(p->mode),
		p->detected_by);
	fprintf(f, "tracer modes: light %s, full %s; default %s\n",
		p->light_ok ? "yes" :
		p->mode == VB_MODE_BASELINE ? "packets only (no rx_batch tracepoint: the recv_pkt event)" :
		p->avail[VB_HOOK_RB_CLOSE] ? "runs without hold times or end reasons (no rx_batch tracepoint: the run-close function)" :
		"no (batches without the rx_batch tracepoint)",
		p->avail[VB_HOOK_RECV_PKT_EXIT] || p->light_ok ? "yes" : "no",
		p->light_ok ? "light" : "full");
	for (i = 0; i < VB_HOOK_NR; i++) {
		fprintf(f, "  %-44s %-4s %s", vb_hook_label(p, i),
			p->use[i] ? "use" : p->avail[i] ? "alt" : "no",
			p->avail[i] ? p->where[i] : p->why[i]);
		if (p->how[i] == VB_ATTACH_KPROBE)
			fprintf(f, " (fallback: %s: %s)", vb_hooks[i].label,
				p->fallback[i]);
		fputc('\n', f);
	}
	if (p->btf && !p->loaded)
		fprintf(f, "  (from BTF only: nothing loaded)\n");
}

const char *vb_hook_label(const struct vb_probe *p, int hook)
{
	const struct vb_hook_desc *h = &vb_hooks[hook];

	return p->how[hook] == VB_ATTACH_KPROBE ? h->klabel : h->label;
}

const char *const *vb_hook_progs(const struct vb_probe *p, int hook)
{
	return p->how[hook] == VB_ATTACH_KPROBE ? vb_hooks[hook].kprogs
						: vb_hooks[hook].progs;
}

/* A test switch: on only when set to exactly "1". */
static bool env_switch(const char *name)
{
	const char *e = getenv(name);

	return e && !strcmp(e, "1");
}

bool vb_probe_forced_kprobe(void)
{
	return env_switch("VSOCKBATCH_FORCE_KPROBE");
}

bool vb_probe_no_held(void)
{
	return env_switch("VSOCKBATCH_NO_HELD");
}

void vb_probe_load(struct vb_probe *p, bool per_hook)
{
	const char *all[2 * VB_HOOK_NR];
	/* choose again what was wanted (FULL_NORUNS is what FULL became) */
	enum vb_trace_mode mode = p->trace == VB_TRACE_FULL_NORUNS
				  ? VB_TRACE_FULL : p->trace;
	char why[192];
	size_t n = 0;
	int i, j;

	p->loaded = true;
	for (i = 0; i < VB_HOOK_NR; i++)
		for (j = 0; j < 2 && p->avail[i] && vb_hooks[i].progs[j]; j++)
			all[n++] = vb_hooks[i].progs[j];
	if (!per_hook && !vb_probe_forced_kprobe() &&
	    !vb_attach_check(all, n, why, sizeof(why)))
		return;		/* how[] stays PREFERRED where avail */
	for (i = 0; i < VB_HOOK_NR; i++) {
		const struct vb_hook_desc *h = &vb_hooks[i];
		bool twins = h->kprogs[0] != NULL;

		if (!p->avail[i])
			continue;
		/*
		 * Forcing simulates a kernel that refuses fentry/fexit: a
		 * function hook without a kprobe twin is then unavailable
		 * too, as it would be there.
		 */
		if (vb_probe_forced_kprobe() && !is_tracepoint(i)) {
			snprintf(p->fallback[i], sizeof(p->fallback[i]),
				 twins ? "not tried: VSOCKBATCH_FORCE_KPROBE=1" :
				 "not tried: VSOCKBATCH_FORCE_KPROBE=1, no kprobe twin");
		} else if (vb_attach_check(h->progs, 2, why, sizeof(why))) {
			snprintf(p->fallback[i], sizeof(p->fallback[i]), "%s",
				 why);
		} else {
			p->how[i] = VB_ATTACH_PREFERRED;
			continue;
		}
		if (twins && !vb_attach_check(h->kprogs, 2, why, sizeof(why))) {
			p->how[i] = VB_ATTACH_KPROBE;
			continue;
		}
		p->avail[i] = false;
		p->how[i] = VB_ATTACH_NONE;
		if (twins)
			snprintf(p->why[i], sizeof(p->why[i]),
				 "%.150s; kprobe fallback: %.80s", p->fallback[i],
				 why);
		else
			snprintf(p->why[i], sizeof(p->why[i]), "%s",
				 p->fallback[i]);
		p->fallback[i][0] = 0;
	}
	p->light_ok = (p->avail[VB_HOOK_RECV_PKT_BTF] ||
		       p->avail[VB_HOOK_RECV_PKT_TP]) &&
		      (p->avail[VB_HOOK_RX_BATCH_BTF] ||
		       p->avail[VB_HOOK_RX_BATCH_TP]);
	if (vb_probe_choose(p, mode ? mode : VB_TRACE_AUTO, NULL, 0))
		memset(p->use, 0, sizeof(p->use));
}
