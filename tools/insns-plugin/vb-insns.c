// SPDX-License-Identifier: GPL-2.0
/*
 * vb-insns - a QEMU TCG plugin that counts guest instructions per vCPU,
 * split into user and kernel mode, and writes the counts at every mark
 * the guest sets with vb_insn_mark() (tools/lib/insn_mark.h).
 *
 *   qemu-system-x86_64 -icount shift=0,sleep=off \
 *       -plugin build/host/vb-insns.so,outfile=insns.tsv ...
 *
 * Output, one row per vCPU per mark (cumulative counts since boot):
 *   seq  id  vcpu  user  kernel
 * and a final row set with id "exit" when QEMU ends.  The window between
 * two marks is the difference of their rows.
 *
 * With profile=PATH it also writes where the kernel's instructions went:
 * at each mark after the first, one row per kernel translation block and
 * vCPU that ran since the previous mark (the first mark only starts the
 * profile: before it is the boot, tens of thousands of blocks),
 *   seq  id  vcpu  block_address  block_insns  insns_since_last_mark
 * (seq and id as in outfile's rows).  The rows of a window (seq in
 * (a, b]) sum, per vCPU, to its kernel column's difference; a block's
 * address resolves to a kernel function through System.map
 * (scripts/insns-profile.sh).  Kernel blocks only: user space is a few
 * programs the lab wrote, the kernel is what the series changes.
 *
 * Counting is per translation block: a callback on each block's entry
 * adds its instruction count to the running vCPU's counter.  A block left
 * early by an exception is counted whole; that over-counts by at most the
 * rest of one block per fault, and does so identically on every run.
 * Kernel vs user is the block's address half (x86-64: kernel text lives
 * in the upper half), decided once at translation.  Under -icount all
 * vCPUs run in one host thread, round-robin, so the rows of one mark are
 * a consistent snapshot; without -icount (MTTCG) they are each vCPU's own
 * counter read at slightly different moments.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "qemu_plugin_api.h"
#include "insn_mark.h"

QEMU_PLUGIN_EXPORT int qemu_plugin_version = VB_QEMU_PLUGIN_VERSION;

struct vcpu_count {
	uint64_t insns[2];	/* [0] user, [1] kernel */
	uint32_t pending;	/* id digits received so far */
};

/*
 * profile=: one entry per kernel block (address and length: the same
 * address is translated again with fewer instructions when an icount
 * budget ends inside it), never freed, so its address is the block's
 * callback data for the rest of the run.
 */
struct block_prof {
	uint64_t key;		/* block_key(): the hash table's key */
	uint64_t vaddr;
	uint32_t n_insns;
	uint64_t *insns;	/* per vCPU, since boot */
	uint64_t *written;	/* per vCPU, as of the last mark */
};

static struct vcpu_count *counts;
static unsigned int nvcpus;
static FILE *out;
static uint64_t seq;
static FILE *prof_out;
static GHashTable *blocks;
/* MTTCG translates on several host threads at once; icount on one. */
static GMutex blocks_lock;

/* Block udata: instruction count << 1 | kernel bit. */
static void tb_exec(unsigned int vcpu, void *udata)
{
	uintptr_t v = (uintptr_t)udata;

	if (vcpu < nvcpus)
		counts[vcpu].insns[v & 1] += v >> 1;
}

/* profile=: a kernel block ran; its instructions count as kernel too. */
static void tb_exec_prof(unsigned int vcpu, void *udata)
{
	struct block_prof *b = udata;

	if (vcpu < nvcpus) {
		b->insns[vcpu] += b->n_insns;
		counts[vcpu].insns[1] += b->n_insns;
	}
}

/*
 * Canonical x86-64 kernel addresses have bits 47-63 set, so the low 48
 * bits name the block and the length (at most 512) fits above them.
 */
static uint64_t block_key(uint64_t vaddr, size_t n)
{
	return (vaddr & 0xffffffffffffull) | (uint64_t)n << 48;
}

static struct block_prof *block_get(uint64_t vaddr, size_t n)
{
	uint64_t key = block_key(vaddr, n);
	struct block_prof *b;

	g_mutex_lock(&blocks_lock);
	b = g_hash_table_lookup(blocks, &key);
	if (!b) {
		b = g_new0(struct block_prof, 1);
		b->key = key;
		b->vaddr = vaddr;
		b->n_insns = (uint32_t)n;
		b->insns = g_new0(uint64_t, nvcpus);
		b->written = g_new0(uint64_t, nvcpus);
		g_hash_table_insert(blocks, &b->key, b);
	}
	g_mutex_unlock(&blocks_lock);
	return b;
}

static void write_block(gpointer key, gpointer value, gpointer udata)
{
	struct block_prof *b = value;
	const char *id = udata;
	unsigned int i;

	(void)key;
	for (i = 0; i < nvcpus; i++) {
		if (b->insns[i] == b->written[i])
			continue;
		if (seq > 1)
			fprintf(prof_out,
				"%" PRIu64 "\t%s\t%u\t%016" PRIx64 "\t%u\t%" PRIu64 "\n",
				seq, id, i, b->vaddr, b->n_insns,
				b->insns[i] - b->written[i]);
		b->written[i] = b->insns[i];
	}
}

static void write_rows(const char *id)
{
	unsigned int i;

	seq++;
	for (i = 0; i < nvcpus; i++)
		fprintf(out, "%" PRIu64 "\t%s\t%u\t%" PRIu64 "\t%" PRIu64 "\n",
			seq, id, i, counts[i].insns[0], counts[i].insns[1]);
	fflush(out);
	if (prof_out) {
		g_mutex_lock(&blocks_lock);
		g_hash_table_foreach(blocks, write_block, (gpointer)id);
		g_mutex_unlock(&blocks_lock);
		fflush(prof_out);
	}
}

/* Marker udata: the displacement's low half (a digit, or COMMIT). */
static void mark_exec(unsigned int vcpu, void *udata)
{
	unsigned int lo = (unsigned int)(uintptr_t)udata;
	char id[8];

	if (vcpu >= nvcpus)
		return;
	if (lo < 0x10) {
		counts[vcpu].pending = (counts[vcpu].pending << 4 | lo) & 0xffff;
		return;
	}
	snprintf(id, sizeof(id), "%u", counts[vcpu].pending);
	counts[vcpu].pending = 0;
	write_rows(id);
}

/* The marker's low displacement half, or -1 if insn is no marker. */
static int marker_of(struct qemu_plugin_insn *insn)
{
	const uint8_t *b;
	unsigned int lo;

	if (qemu_plugin_insn_size(insn) != 8)
		return -1;
	b = qemu_plugin_insn_data(insn);
	if (b[0] != 0x0f || b[1] != 0x1f || b[2] != 0x84 || b[3] != 0x00 ||
	    (b[6] | b[7] << 8) != VB_INSN_MARK_TAG)
		return -1;
	lo = b[4] | b[5] << 8;
	if (lo >= 0x10 && lo != VB_INSN_MARK_COMMIT)
		return -1;
	return (int)lo;
}

static void tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	size_t n = qemu_plugin_tb_n_insns(tb), i;
	uintptr_t kernel = qemu_plugin_tb_vaddr(tb) >> 63;
	int m;

	(void)id;
	if (prof_out && kernel)
		qemu_plugin_register_vcpu_tb_exec_cb(tb, tb_exec_prof,
				QEMU_PLUGIN_CB_NO_REGS,
				block_get(qemu_plugin_tb_vaddr(tb), n));
	else
		qemu_plugin_register_vcpu_tb_exec_cb(tb, tb_exec,
				QEMU_PLUGIN_CB_NO_REGS, (void *)(n << 1 | kernel));
	for (i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);

		m = marker_of(insn);
		if (m >= 0)
			qemu_plugin_register_vcpu_insn_exec_cb(insn, mark_exec,
					QEMU_PLUGIN_CB_NO_REGS,
					(void *)(uintptr_t)m);
	}
}

static void at_exit(qemu_plugin_id_t id, void *udata)
{
	(void)id;
	(void)udata;
	write_rows("exit");
	fclose(out);
	if (prof_out)
		fclose(prof_out);
}

/*
 * qemu_plugin_outs() reaches the user only with -d plugin; a refusal at
 * load must be seen, so it goes to stderr as well.
 */
static int refuse(const char *msg)
{
	fprintf(stderr, "%s\n", msg);
	qemu_plugin_outs(msg);
	qemu_plugin_outs("\n");
	return -1;
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id,
					   const qemu_info_t *info,
					   int argc, char **argv)
{
	const char *path = NULL, *prof_path = NULL;
	char msg[256];
	int i;

	if (!info->system_emulation || strcmp(info->target_name, "x86_64"))
		return refuse("vb-insns: needs qemu-system-x86_64");
	for (i = 0; i < argc; i++) {
		if (!strncmp(argv[i], "outfile=", 8)) {
			path = argv[i] + 8;
		} else if (!strncmp(argv[i], "profile=", 8) && argv[i][8]) {
			prof_path = argv[i] + 8;
		} else {
			snprintf(msg, sizeof(msg),
				 "vb-insns: unknown argument '%s' (known: outfile=PATH, profile=PATH)",
				 argv[i]);
			return refuse(msg);
		}
	}
	if (!path || !*path)
		return refuse("vb-insns: outfile=PATH is required");
	nvcpus = (unsigned int)info->system.max_vcpus;
	counts = calloc(nvcpus ? nvcpus : 1, sizeof(*counts));
	out = fopen(path, "w");
	if (!counts || !out) {
		snprintf(msg, sizeof(msg), "vb-insns: %s: %s", path,
			 strerror(errno));
		return refuse(msg);
	}
	fprintf(out, "# vb-insns: guest instructions per vCPU, cumulative, at each mark\n"
		     "# seq\tid\tvcpu\tuser\tkernel\n");
	fflush(out);
	if (prof_path) {
		prof_out = fopen(prof_path, "w");
		if (!prof_out) {
			snprintf(msg, sizeof(msg), "vb-insns: %s: %s",
				 prof_path, strerror(errno));
			return refuse(msg);
		}
		blocks = g_hash_table_new(g_int64_hash, g_int64_equal);
		fprintf(prof_out, "# vb-insns: kernel instructions per block and vCPU since the previous mark\n"
			"# seq\tid\tvcpu\tblock\tblock_insns\tinsns\n");
		fflush(prof_out);
	}
	qemu_plugin_register_vcpu_tb_trans_cb(id, tb_trans);
	qemu_plugin_register_atexit_cb(id, at_exit, NULL);
	return 0;
}
