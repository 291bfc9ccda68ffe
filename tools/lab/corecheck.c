// SPDX-License-Identifier: GPL-2.0
/*
 * corecheck.c - `vsockbatch-lab corecheck`: resolve the tracer's CO-RE field
 * relocations against a BTF by name, as libbpf would at load time, but
 * without a kernel load.  This is how the object is checked against the
 * build host's 6.18 kernel, which refuses to load fentry/fexit programs
 * at all, and against the guest kernels' vmlinux + module .ko files.
 *
 * Optionally (--load-tp-btf, running kernel only) the tp_btf program is
 * really loaded so the verifier checks it against this kernel; nothing
 * is ever attached.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <gelf.h>
#include <libelf.h>

#include "lab.h"
#include "corecheck.h"
#include "vsockbatch.skel.h"

/* .BTF.ext layout (Documentation/bpf/btf.rst, "BTF Extension"). */
struct ext_hdr {
	__u16 magic;
	__u8 version;
	__u8 flags;
	__u32 hdr_len;
	__u32 func_info_off, func_info_len;
	__u32 line_info_off, line_info_len;
	__u32 core_relo_off, core_relo_len;
};

struct ext_core_relo {
	__u32 insn_off;
	__u32 type_id;
	__u32 access_str_off;
	__u32 kind;
};

enum {	/* enum bpf_core_relo_kind */
	RELO_FIELD_BYTE_OFFSET = 0,
	RELO_FIELD_BYTE_SIZE = 1,
	RELO_FIELD_EXISTS = 2,
	RELO_FIELD_SIGNED = 3,
	RELO_FIELD_LSHIFT_U64 = 4,
	RELO_FIELD_RSHIFT_U64 = 5,
	RELO_TYPE_ID_LOCAL = 6,
	RELO_TYPE_ID_TARGET = 7,
	RELO_TYPE_EXISTS = 8,
	RELO_TYPE_SIZE = 9,
};

static const struct btf_type *skip_mods(const struct btf *btf, __u32 id,
					__u32 *res_id)
{
	const struct btf_type *t = btf__type_by_id(btf, id);

	while (t && (btf_is_typedef(t) || btf_is_const(t) ||
		     btf_is_volatile(t) || btf_is_restrict(t) ||
		     btf_kind(t) == BTF_KIND_TYPE_TAG)) {
		id = t->type;
		t = btf__type_by_id(btf, id);
	}
	if (res_id)
		*res_id = id;
	return t;
}

/* "task_struct___old" -> length of "task_struct" (libbpf flavors) */
static size_t essential_len(const char *name)
{
	const char *p = strstr(name, "___");

	return p ? (size_t)(p - name) : strlen(name);
}

static bool kinds_compat(const struct btf_type *l, const struct btf_type *t)
{
	bool li = btf_is_int(l) || btf_is_enum(l) || btf_is_enum64(l);
	bool ti = btf_is_int(t) || btf_is_enum(t) || btf_is_enum64(t);

	if (li || ti)
		return li && ti;
	if (btf_is_composite(l))
		return btf_is_composite(t);
	return btf_kind(l) == btf_kind(t);
}

/*
 * Find member `name` in composite type t, descending into anonymous
 * struct/union members.  Adds its bit offset to *bits and returns its
 * type id, or 0.
 */
static __u32 find_member(const struct btf *btf, const struct btf_type *t,
			 const char *name, __u32 *bits, int depth)
{
	const struct btf_member *m = btf_members(t);
	const struct btf_type *mt;
	__u32 sub, id;
	int i;

	if (depth > 8)
		return 0;
	for (i = 0; i < btf_vlen(t); i++, m++) {
		const char *mn = btf__name_by_offset(btf, m->name_off);

		if (mn && *mn) {
			if (!strcmp(mn, name)) {
				*bits += btf_member_bit_offset(t, i);
				return m->type;
			}
			continue;
		}
		mt = skip_mods(btf, m->type, NULL);
		if (!mt || !btf_is_composite(mt))
			continue;
		sub = 0;
		id = find_member(btf, mt, name, &sub, depth + 1);
		if (id) {
			*bits += btf_member_bit_offset(t, i) + sub;
			return id;
		}
	}
	return 0;
}

/* Resolve one access path against one candidate root type. */
static int resolve_in(const struct btf *lb, __u32 lroot, const struct btf *tb,
		      __u32 troot, const int *idx, int nidx,
		      struct vb_cc_relo *r)
{
	const struct btf_type *lt = skip_mods(lb, lroot, NULL);
	const struct btf_type *tt = skip_mods(tb, troot, NULL);
	__u32 lbits = 0, tbits = 0, tid;
	int i;

	/* idx[0] indexes the root pointer: x[idx0] */
	lbits += (__u32)idx[0] * lt->size * 8;
	tbits += (__u32)idx[0] * tt->size * 8;
	for (i = 1; i < nidx; i++) {
		const struct btf_member *m;
		const char *mn;

		if (btf_is_array(lt)) {
			const struct btf_array *la = btf_array(lt);
			const struct btf_type *le = skip_mods(lb, la->type, NULL);
			const struct btf_type *te;

			if (!btf_is_array(tt)) {
				snprintf(r->why, sizeof(r->why), "array vs non-array");
				return -1;
			}
			te = skip_mods(tb, btf_array(tt)->type, NULL);
			lbits += (__u32)idx[i] * btf__resolve_size(lb, la->type) * 8;
			tbits += (__u32)idx[i] *
				 btf__resolve_size(tb, btf_array(tt)->type) * 8;
			lt = le;
			tt = te;
			continue;
		}
		if (!btf_is_composite(lt) || idx[i] >= btf_vlen(lt)) {
			snprintf(r->why, sizeof(r->why), "bad local access path");
			return -1;
		}
		if (!btf_is_composite(tt)) {
			snprintf(r->why, sizeof(r->why), "target is not a struct");
			return -1;
		}
		m = btf_members(lt) + idx[i];
		mn = btf__name_by_offset(lb, m->name_off);
		if (!mn || !*mn) {
			snprintf(r->why, sizeof(r->why), "anonymous local member");
			return -1;
		}
		lbits += btf_member_bit_offset(lt, idx[i]);
		tid = find_member(tb, tt, mn, &tbits, 0);
		if (!tid) {
			snprintf(r->why, sizeof(r->why), "no member '%.40s' in %.60s",
				 mn, btf__name_by_offset(tb, tt->name_off));
			return -1;
		}
		lt = skip_mods(lb, m->type, NULL);
		tt = skip_mods(tb, tid, NULL);
	}
	if (!kinds_compat(lt, tt)) {
		snprintf(r->why, sizeof(r->why), "incompatible kinds (%u vs %u)",
			 btf_kind(lt), btf_kind(tt));
		return -1;
	}
	r->local_off = lbits / 8;
	r->target_off = tbits / 8;
	return 0;
}

static void build_path(const struct btf *lb, __u32 root, const int *idx,
		       int nidx, char *buf, size_t len)
{
	const struct btf_type *t = skip_mods(lb, root, NULL);
	size_t n;
	int i;

	snprintf(buf, len, "%s", btf__name_by_offset(lb, t->name_off));
	for (i = 1; i < nidx && t; i++) {
		n = strlen(buf);
		if (btf_is_array(t)) {
			snprintf(buf + n, len - n, "[%d]", idx[i]);
			t = skip_mods(lb, btf_array(t)->type, NULL);
		} else if (btf_is_composite(t) && idx[i] < btf_vlen(t)) {
			const struct btf_member *m = btf_members(t) + idx[i];

			snprintf(buf + n, len - n, ".%s",
				 btf__name_by_offset(lb, m->name_off));
			t = skip_mods(lb, m->type, NULL);
		} else {
			break;
		}
	}
}

static void resolve(const struct btf *lb, const struct ext_core_relo *rec,
		    struct btf **targets, const char **names, int ntargets,
		    struct vb_cc_relo *r)
{
	const char *acc = btf__name_by_offset(lb, rec->access_str_off);
	const struct btf_type *lt = skip_mods(lb, rec->type_id, NULL), *tt;
	const char *lname = lt ? btf__name_by_offset(lb, lt->name_off) : NULL;
	int idx[32], nidx = 0, i, n;
	bool type_relo;
	size_t elen;
	__u32 id;
	char *end;

	r->kind = rec->kind;
	while (acc && *acc && nidx < 32) {
		idx[nidx++] = (int)strtol(acc, &end, 10);
		acc = *end == ':' ? end + 1 : end;
		if (end == acc && *end)
			break;
	}
	build_path(lb, rec->type_id, idx, nidx, r->path, sizeof(r->path));
	/*
	 * Type relocations (bpf_core_type_size() & co.) need a target type of
	 * that name and kind, field relocations the field path in it too.
	 */
	type_relo = rec->kind >= RELO_TYPE_ID_LOCAL &&
		    rec->kind <= RELO_TYPE_SIZE && lname && *lname;
	if (type_relo) {
		snprintf(r->path, sizeof(r->path), "%.100s (type)", lname);
	} else if (rec->kind > RELO_FIELD_RSHIFT_U64 || !lname || !*lname ||
		   !nidx) {
		snprintf(r->why, sizeof(r->why), "relocation kind %u not checked",
			 rec->kind);
		return;
	}
	elen = essential_len(lname);
	for (i = 0; i < ntargets; i++) {
		n = (int)btf__type_cnt(targets[i]);
		for (id = 1; id < (__u32)n; id++) {
			const char *tn;

			tt = btf__type_by_id(targets[i], id);
			if (btf_kind(tt) != btf_kind(lt))
				continue;
			tn = btf__name_by_offset(targets[i], tt->name_off);
			if (!tn || essential_len(tn) != elen ||
			    strncmp(tn, lname, elen))
				continue;
			if (type_relo || !resolve_in(lb, rec->type_id, targets[i],
						     id, idx, nidx, r)) {
				r->ok = true;
				r->why[0] = 0;
				snprintf(r->target, sizeof(r->target), "%s",
					 strrchr(names[i], '/') ?
					 strrchr(names[i], '/') + 1 : names[i]);
				return;
			}
		}
	}
	if (!r->why[0])
		snprintf(r->why, sizeof(r->why), "no type '%.60s' in target BTF",
			 lname);
	/* these never fail a load: EXISTS evaluates to 0, ID_LOCAL is local */
	if (rec->kind == RELO_FIELD_EXISTS || rec->kind == RELO_TYPE_EXISTS ||
	    rec->kind == RELO_TYPE_ID_LOCAL)
		r->ok = true;
}

static bool target_exists(const char *sec, struct btf **targets, int ntargets)
{
	const char *name = NULL;
	char buf[160];
	__u32 kind = BTF_KIND_FUNC;
	int i;

	/* no attach target (lpend_drain: run, never attached): always loads */
	if (!strcmp(sec, "raw_tp") || !strcmp(sec, "raw_tracepoint"))
		return true;
	/* a kprobe needs no BTF, but its function being there says it exists */
	if (!strncmp(sec, "fentry/", 7) || !strncmp(sec, "fexit/", 6) ||
	    !strncmp(sec, "kprobe/", 7) || !strncmp(sec, "kretprobe/", 10)) {
		name = strchr(sec, '/') + 1;
	} else if (!strncmp(sec, "tp_btf/", 7)) {
		snprintf(buf, sizeof(buf), "btf_trace_%s", sec + 7);
		name = buf;
		kind = BTF_KIND_TYPEDEF;
	} else if (!strncmp(sec, "tracepoint/", 11) && strrchr(sec, '/')) {
		snprintf(buf, sizeof(buf), "trace_event_raw_%s",
			 strrchr(sec, '/') + 1);
		name = buf;
		kind = BTF_KIND_STRUCT;
	}
	if (!name)
		return false;
	for (i = 0; i < ntargets; i++)
		if (btf__find_by_name_kind(targets[i], name, kind) > 0)
			return true;
	return false;
}

static int find_ext(const void *elf_buf, size_t sz, const void **ext,
		    size_t *ext_sz)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	size_t shstrndx;
	Elf_Data *d;
	Elf *e;

	elf_version(EV_CURRENT);
	e = elf_memory((char *)elf_buf, sz);
	if (!e)
		return -EINVAL;
	if (elf_getshdrstrndx(e, &shstrndx)) {
		elf_end(e);
		return -EINVAL;
	}
	*ext = NULL;
	while ((scn = elf_nextscn(e, scn))) {
		const char *n;

		if (!gelf_getshdr(scn, &sh))
			continue;
		n = elf_strptr(e, shstrndx, sh.sh_name);
		if (!n || strcmp(n, ".BTF.ext"))
			continue;
		d = elf_getdata(scn, NULL);
		if (d && d->d_size) {
			/* d_buf points into elf_buf (elf_memory does not copy) */
			*ext = d->d_buf;
			*ext_sz = d->d_size;
		}
	}
	elf_end(e);
	return *ext ? 0 : -ENOENT;
}

int vb_corecheck(const void *elf, size_t elf_sz, struct btf **targets,
		 const char **names, int ntargets, struct vb_cc_result *res,
		 char *errbuf, size_t errlen)
{
	const struct ext_hdr *h;
	const __u8 *p, *end;
	struct bpf_object *obj;
	struct bpf_program *prog;
	const struct btf *lb;
	const void *ext = NULL;
	size_t ext_sz = 0, cap = 0, i;
	__u32 rec_size;
	int err;

	memset(res, 0, sizeof(*res));
	obj = bpf_object__open_mem(elf, elf_sz, NULL);
	if (!obj) {
		err = -errno;
		snprintf(errbuf, errlen, "libbpf cannot open the BPF object: %s",
			 strerror(errno));
		return err;
	}
	lb = bpf_object__btf(obj);
	bpf_object__for_each_program(prog, obj) {
		struct vb_cc_prog *cp;

		if (res->nprogs == sizeof(res->progs) / sizeof(res->progs[0]))
			break;
		cp = &res->progs[res->nprogs++];
		snprintf(cp->sec, sizeof(cp->sec), "%s",
			 bpf_program__section_name(prog));
		snprintf(cp->name, sizeof(cp->name), "%s",
			 bpf_program__name(prog));
		cp->target_exists = target_exists(cp->sec, targets, ntargets);
	}
	err = find_ext(elf, elf_sz, &ext, &ext_sz);
	if (err || !lb) {
		snprintf(errbuf, errlen, "BPF object has no .BTF/.BTF.ext");
		bpf_object__close(obj);
		return -ENOENT;
	}
	h = ext;
	if (ext_sz < sizeof(*h) || h->magic != 0xEB9F ||
	    h->hdr_len < sizeof(*h) || h->hdr_len > ext_sz ||
	    (size_t)h->hdr_len + h->core_relo_off + h->core_relo_len > ext_sz) {
		snprintf(errbuf, errlen, ".BTF.ext without CO-RE records");
		bpf_object__close(obj);
		return -EINVAL;
	}
	p = (const __u8 *)ext + h->hdr_len + h->core_relo_off;
	end = p + h->core_relo_len;
	if (h->core_relo_len < 4) {
		bpf_object__close(obj);
		return 0;
	}
	rec_size = *(const __u32 *)p;
	p += 4;
	if (rec_size < sizeof(struct ext_core_relo)) {
		snprintf(errbuf, errlen, "CO-RE record size %u too small", rec_size);
		bpf_object__close(obj);
		return -EINVAL;
	}
	while (p + 8 <= end) {
		__u32 sec_off = ((const __u32 *)p)[0];
		__u32 num = ((const __u32 *)p)[1];
		const char *sec = btf__name_by_offset(lb, sec_off);

		p += 8;
		if (p + (size_t)num * rec_size > end)
			break;
		for (; num; num--, p += rec_size) {
			struct vb_cc_relo *r;

			if (res->nrelos == cap) {
				cap = cap ? cap * 2 : 64;
				r = realloc(res->relos, cap * sizeof(*r));
				if (!r) {
					bpf_object__close(obj);
					return -ENOMEM;
				}
				res->relos = r;
			}
			r = &res->relos[res->nrelos++];
			memset(r, 0, sizeof(*r));
			snprintf(r->prog_sec, sizeof(r->prog_sec), "%s",
				 sec ? sec : "?");
			resolve(lb, (const struct ext_core_relo *)p, targets,
				names, ntargets, r);
			for (i = 0; i < res->nprogs; i++) {
				if (strcmp(res->progs[i].sec, r->prog_sec))
					continue;
				res->progs[i].nrelo++;
				res->progs[i].nfail += !r->ok;
			}
		}
	}
	bpf_object__close(obj);
	return 0;
}

void vb_cc_result_free(struct vb_cc_result *res)
{
	free(res->relos);
	memset(res, 0, sizeof(*res));
}

/* ---- the command ---------------------------------------------------- */

static void usage(FILE *f)
{
	fprintf(f,
"Usage: vsockbatch-lab corecheck [--btf VMLINUX] [--module-btf FILE]... [-v]\n"
"       vsockbatch-lab corecheck --load-tp-btf\n"
"\n"
"Resolve every CO-RE field relocation of the tracer by name against a\n"
"kernel's BTF, without loading anything: which programs would relocate\n"
"and whether their attach targets exist.  Default target: the running\n"
"kernel's /sys/kernel/btf (vmlinux and loaded modules).\n"
"\n"
"  -b, --btf FILE         vmlinux BTF (raw BTF or an ELF vmlinux)\n"
"  -m, --module-btf FILE  module BTF on top of it (raw split BTF or a .ko)\n"
"  -l, --load-tp-btf      also LOAD (never attach) the tp_btf program into\n"
"                         the running kernel: a real verifier check\n"
"  -v, --verbose          every relocation, not only failures\n"
"  -h, --help             this help\n"
"\n"
"Exit status: 0 every program whose target exists relocates (and loads),\n"
"1 some do not, 2 bad usage or unreadable BTF.\n");
}

static int load_tp_btf(void)
{
	struct vsockbatch_bpf *skel;
	struct bpf_program *prog;
	int err;

	skel = vsockbatch_bpf__open();
	if (!skel) {
		fprintf(stderr, "vsockbatch-lab corecheck: cannot open the object: %s\n",
			strerror(errno));
		return VB_EXIT_FAIL;
	}
	bpf_object__for_each_program(prog, skel->obj)
		bpf_program__set_autoload(prog, prog == skel->progs.recv_pkt_btf);
	err = vsockbatch_bpf__load(skel);	/* loaded, never attached */
	if (err)
		printf("tp_btf/virtio_transport_recv_pkt: verifier load FAILED: %s\n",
		       strerror(-err));
	else
		printf("tp_btf/virtio_transport_recv_pkt: verifier load ok (not attached)\n");
	vsockbatch_bpf__destroy(skel);
	return err ? VB_EXIT_FAIL : VB_EXIT_OK;
}

int cmd_corecheck(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "btf", required_argument, NULL, 'b' },
		{ "module-btf", required_argument, NULL, 'm' },
		{ "load-tp-btf", no_argument, NULL, 'l' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *vmlinux = NULL, *mods[VB_CC_MAX_TARGETS], *names[VB_CC_MAX_TARGETS];
	struct btf *targets[VB_CC_MAX_TARGETS] = { 0 };
	int nmods = 0, ntargets = 0, opt, i, bad = 0, ret = VB_EXIT_USAGE;
	bool verbose = false, load = false;
	struct vb_cc_result res = { 0 };
	const void *elf;
	size_t elf_sz, k;
	char err[256];

	optind = 1;
	opterr = 0;	/* one line of our own instead of getopt's */
	while ((opt = getopt_long(argc, argv, "b:m:lvh", longopts, NULL)) != -1) {
		switch (opt) {
		case 'b':
			vmlinux = optarg;
			break;
		case 'm':
			if (nmods == VB_CC_MAX_TARGETS - 1) {
				fprintf(stderr, "vsockbatch-lab corecheck: too many --module-btf\n");
				return VB_EXIT_USAGE;
			}
			mods[nmods++] = optarg;
			break;
		case 'l':
			load = true;
			break;
		case 'v':
			verbose = true;
			break;
		case 'h':
			usage(stdout);
			return VB_EXIT_OK;
		default:
			fprintf(stderr, "vsockbatch-lab corecheck: unknown option or missing argument '%s' (try --help)\n",
				argv[optind - 1]);
			return VB_EXIT_USAGE;
		}
	}
	if (optind != argc || (nmods && !vmlinux) || (load && (vmlinux || nmods))) {
		fprintf(stderr, "vsockbatch-lab corecheck: bad usage (--module-btf needs --btf; --load-tp-btf is for the running kernel)\n");
		return VB_EXIT_USAGE;
	}
	libbpf_set_strict_mode(LIBBPF_STRICT_ALL);

	if (vmlinux) {
		targets[0] = btf__parse(vmlinux, NULL);
		names[0] = vmlinux;
	} else {
		targets[0] = btf__load_vmlinux_btf();
		names[0] = "vmlinux";
	}
	if (libbpf_get_error(targets[0])) {
		fprintf(stderr, "vsockbatch-lab corecheck: cannot read BTF %s\n",
			vmlinux ? vmlinux : "/sys/kernel/btf/vmlinux");
		return VB_EXIT_USAGE;
	}
	ntargets = 1;
	for (i = 0; i < nmods; i++) {
		targets[ntargets] = btf__parse_split(mods[i], targets[0]);
		if (libbpf_get_error(targets[ntargets])) {
			fprintf(stderr, "vsockbatch-lab corecheck: cannot read module BTF %s\n",
				mods[i]);
			targets[ntargets] = NULL;
			goto out;
		}
		names[ntargets++] = mods[i];
	}
	if (!vmlinux) {	/* the running kernel's vsock modules */
		static const char *const m[] = {
			"vsock", "vmw_vsock_virtio_transport_common",
			"vmw_vsock_virtio_transport", "vsock_loopback",
			"vhost_vsock", NULL
		};
		char path[96];

		for (i = 0; m[i] && ntargets < VB_CC_MAX_TARGETS; i++) {
			snprintf(path, sizeof(path), "/sys/kernel/btf/%s", m[i]);
			if (access(path, R_OK))
				continue;
			targets[ntargets] = btf__load_module_btf(m[i], targets[0]);
			if (libbpf_get_error(targets[ntargets])) {
				targets[ntargets] = NULL;
				continue;
			}
			names[ntargets++] = m[i];
		}
	}

	elf = vsockbatch_bpf__elf_bytes(&elf_sz);
	if (vb_corecheck(elf, elf_sz, targets, names, ntargets, &res, err,
			 sizeof(err))) {
		fprintf(stderr, "vsockbatch-lab corecheck: %s\n", err);
		ret = VB_EXIT_FAIL;
		goto out;
	}
	printf("CO-RE check of vsockbatch.bpf.o against %s", names[0]);
	for (i = 1; i < ntargets; i++)
		printf(" + %s", names[i]);
	printf("\n");
	for (k = 0; k < res.nrelos; k++) {
		struct vb_cc_relo *r = &res.relos[k];
		bool absent = false;
		size_t j;

		for (j = 0; j < res.nprogs; j++)
			if (!strcmp(res.progs[j].sec, r->prog_sec))
				absent = !res.progs[j].target_exists;
		if ((r->ok || absent) && !verbose)
			continue;
		if (!r->ok && absent)
			printf("  n/a  %-44s %-44s %s\n", r->prog_sec, r->path,
			       r->why);
		else if (r->ok)
			printf("  ok   %-44s %-44s @%u (local @%u, %s)\n",
			       r->prog_sec, r->path, r->target_off,
			       r->local_off, r->target);
		else
			printf("  FAIL %-44s %-44s %s\n", r->prog_sec, r->path,
			       r->why);
	}
	for (k = 0; k < res.nprogs; k++) {
		struct vb_cc_prog *p = &res.progs[k];
		const char *verdict;

		if (!p->target_exists)
			verdict = "target absent: switched off by the loader";
		else if (p->nfail)
			verdict = "WOULD FAIL TO RELOCATE";
		else
			verdict = "relocates";
		printf("  %-21s %-44s %2d relocs, %d unresolved: %s\n", p->name,
		       p->sec, p->nrelo, p->nfail, verdict);
		if (p->target_exists && p->nfail)
			bad++;
	}
	printf("%s\n", bad ? "FAIL: programs with existing targets do not relocate"
			   : "ok: every program with an existing target relocates");
	ret = bad ? VB_EXIT_FAIL : VB_EXIT_OK;
	if (!bad && load)
		ret = load_tp_btf();
out:
	vb_cc_result_free(&res);
	for (i = ntargets - 1; i >= 0; i--)
		btf__free(targets[i]);
	return ret;
}
