// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for compressed results files (tools/vsockbatch/zread.c):
 * gzip and zstd told apart by their magic bytes, not their names, loaded
 * as the plain file loads; corrupt, truncated, trailing-garbage and
 * oversized input refused with a one-line reason; `vsockbatch report` and
 * `compare` on compressed files print what they print on plain ones, and
 * exit 2 on a corrupt one.  The compressed inputs are made here with
 * zlib and libzstd from the tracer fixture.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include <zlib.h>
#include <zstd.h>

#include "../../tools/vsockbatch/commands.h"
#include "../../tools/vsockbatch/results.h"
#include "../../tools/vsockbatch/zread.h"
#include "test_util.h"
#include "tracer_fixture.h"

static char tmpdir[] = "/tmp/vb-test-zread-XXXXXX";

struct blob {
	unsigned char *p;
	size_t len;
};

static int setup(void **state)
{
	(void)state;
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	return test_rm_rf(tmpdir);
}

static char *path_of(const char *name)
{
	char *p;

	assert_true(asprintf(&p, "%s/%s", tmpdir, name) > 0);
	return p;
}

static char *write_blob(const char *name, const void *data, size_t len)
{
	char *p = path_of(name);
	FILE *f = fopen(p, "wb");

	assert_non_null(f);
	assert_int_equal(fwrite(data, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
	return p;
}

/* The fixture as a plain results file; its text in *text. */
static char *plain_fixture(const char *name, bool batched, char **text)
{
	struct vb_results r;
	char err[256], *p = path_of(name);

	fixture_results(&r, batched, VB_COST_CYCLES);
	/* compare takes two files that start at one instant for one
	 * recording: the batched one starts 5 s later */
	if (batched)
		r.start_unix_ns += 5000000000ULL;
	assert_int_equal(vb_results_save(p, &r, err, sizeof(err)), 0);
	vb_results_free(&r);
	*text = test_slurp_(p);
	return p;
}

static struct blob gz(const void *data, size_t len)
{
	struct blob b;
	z_stream zs;

	memset(&zs, 0, sizeof(zs));
	assert_int_equal(deflateInit2(&zs, 6, Z_DEFLATED, 16 + MAX_WBITS, 8,
				      Z_DEFAULT_STRATEGY), Z_OK);
	b.len = deflateBound(&zs, len);
	b.p = malloc(b.len);
	assert_non_null(b.p);
	zs.next_in = (Bytef *)data;
	zs.avail_in = len;
	zs.next_out = b.p;
	zs.avail_out = b.len;
	assert_int_equal(deflate(&zs, Z_FINISH), Z_STREAM_END);
	b.len = zs.total_out;
	deflateEnd(&zs);
	return b;
}

/* zstd with the content checksum on, as the zstd tool writes it. */
static struct blob zst(const void *data, size_t len)
{
	ZSTD_CCtx *cc = ZSTD_createCCtx();
	struct blob b;

	assert_non_null(cc);
	assert_false(ZSTD_isError(ZSTD_CCtx_setParameter(cc, ZSTD_c_checksumFlag, 1)));
	b.len = ZSTD_compressBound(len);
	b.p = malloc(b.len);
	assert_non_null(b.p);
	b.len = ZSTD_compress2(cc, b.p, b.len, data, len);
	assert_false(ZSTD_isError(b.len));
	ZSTD_freeCCtx(cc);
	return b;
}

/* The results at path, as the canonical JSON the model writes. */
static char *loaded(const char *path)
{
	struct vb_results r;
	char err[512], *s;

	if (vb_results_load(path, &r, err, sizeof(err))) {
		print_error("%s\n", err);
		fail();
	}
	s = vb_results_dump_string(&r, 0);
	assert_non_null(s);
	vb_results_free(&r);
	return s;
}

/* Loading path fails with -EINVAL and one line naming path and want. */
static void refused(const char *path, const char *want)
{
	struct vb_results r;
	char err[512];

	assert_int_equal(vb_results_load(path, &r, err, sizeof(err)), -EINVAL);
	if (strncmp(err, path, strlen(path)) || !strstr(err, want) ||
	    strchr(err, '\n')) {
		print_error("reason \"%s\": want one line, %s, \"%s\"\n", err,
			    path, want);
		fail();
	}
}

static void test_kind_by_magic(void **state)
{
	static const unsigned char g[] = { 0x1f, 0x8b, 8 };
	static const unsigned char z[] = { 0x28, 0xb5, 0x2f, 0xfd, 0 };

	(void)state;
	assert_int_equal(vb_zkind_of(g, sizeof(g)), VB_Z_GZIP);
	assert_int_equal(vb_zkind_of(z, sizeof(z)), VB_Z_ZSTD);
	assert_int_equal(vb_zkind_of("{\"a\":1}", 7), VB_Z_PLAIN);
	/* too short to hold a magic */
	assert_int_equal(vb_zkind_of(g, 1), VB_Z_PLAIN);
	assert_int_equal(vb_zkind_of(z, 3), VB_Z_PLAIN);
	assert_int_equal(vb_zkind_of("", 0), VB_Z_PLAIN);
}

/* The fixture plain, gzipped and zstd-compressed, and as loaded. */
struct fix {
	char *text, *plain, *want;
	struct blob g, z;
};

static void fix_make(struct fix *f, const char *name, bool batched)
{
	f->plain = plain_fixture(name, batched, &f->text);
	f->want = loaded(f->plain);
	f->g = gz(f->text, strlen(f->text));
	f->z = zst(f->text, strlen(f->text));
}

static void fix_free(struct fix *f)
{
	free(f->text);
	free(f->plain);
	free(f->want);
	free(f->g.p);
	free(f->z.p);
}

/* tmpdir/name holding data loads as f's plain file does. */
static void loads_as(const struct fix *f, const char *name, const void *data,
		     size_t len)
{
	char *p = write_blob(name, data, len), *got = loaded(p);

	assert_string_equal(got, f->want);
	free(got);
	free(p);
}

/* tmpdir/name holding data is refused with want in the reason. */
static void refused_as(const char *name, const void *data, size_t len,
		       const char *want)
{
	char *p = write_blob(name, data, len);

	refused(p, want);
	free(p);
}

static void test_load_compressed(void **state)
{
	struct fix f;

	(void)state;
	fix_make(&f, "a.json", true);
	loads_as(&f, "a.json.gz", f.g.p, f.g.len);
	loads_as(&f, "a.json.zst", f.z.p, f.z.len);
	/* the name says one thing, the bytes another: the bytes win */
	loads_as(&f, "gzip-named.json", f.g.p, f.g.len);
	loads_as(&f, "zstd-named.json.gz", f.z.p, f.z.len);
	loads_as(&f, "plain-named.json.zst", f.text, strlen(f.text));
	/* the compressed files are smaller: the point of keeping them */
	assert_true(f.g.len < strlen(f.text) / 4);
	assert_true(f.z.len < strlen(f.text) / 4);
	fix_free(&f);
}

static void test_concatenated_members(void **state)
{
	struct fix f;
	struct blob a, b;
	unsigned char *cat;
	size_t half;

	(void)state;
	fix_make(&f, "c.json", false);
	half = strlen(f.text) / 2;
	a = gz(f.text, half);
	b = gz(f.text + half, strlen(f.text) - half);
	cat = malloc(a.len + b.len);
	assert_non_null(cat);
	memcpy(cat, a.p, a.len);
	memcpy(cat + a.len, b.p, b.len);
	loads_as(&f, "cat.json.gz", cat, a.len + b.len);
	free(cat);
	free(a.p);
	free(b.p);
	fix_free(&f);
}

static void test_truncated(void **state)
{
	struct fix f;

	(void)state;
	fix_make(&f, "t.json", true);
	refused_as("t.json.gz", f.g.p, f.g.len / 2, "truncated gzip data");
	refused_as("t.json.zst", f.z.p, f.z.len / 2, "truncated zstd data");
	/* the gzip trailer (CRC, length) cut off */
	refused_as("t2.json.gz", f.g.p, f.g.len - 4, "truncated gzip data");
	fix_free(&f);
}

static void test_corrupt(void **state)
{
	unsigned char *junk, first;
	struct fix f;

	(void)state;
	fix_make(&f, "x.json", true);
	/* the stored CRC-32 no longer matches */
	f.g.p[f.g.len - 8] ^= 0xff;
	refused_as("crc.json.gz", f.g.p, f.g.len, "corrupt gzip data");
	f.g.p[f.g.len - 8] ^= 0xff;
	/* a deflate block type that does not exist (BTYPE 11; the first
	 * block's header follows the 10-byte gzip header) */
	first = f.g.p[10];
	f.g.p[10] |= 0x06;
	refused_as("btype.json.gz", f.g.p, f.g.len, "corrupt gzip data");
	f.g.p[10] = first;
	/* zstd's content checksum (the frame's last 4 bytes) */
	f.z.p[f.z.len - 1] ^= 0xff;
	refused_as("sum.json.zst", f.z.p, f.z.len, "corrupt zstd data");
	/* garbage after a complete gzip member */
	junk = malloc(f.g.len + 4);
	assert_non_null(junk);
	memcpy(junk, f.g.p, f.g.len);
	memcpy(junk + f.g.len, "junk", 4);
	refused_as("tail.json.gz", junk, f.g.len + 4, "trailing garbage");
	free(junk);
	/* magic only */
	refused_as("magic.json.gz", "\x1f\x8b", 2, "gzip data");
	fix_free(&f);
}

static void test_size_limit(void **state)
{
	size_t n = (size_t)1 << 20;
	char *zeros = calloc(1, n), *out, err[256];
	struct blob g, z;
	size_t len;

	(void)state;
	assert_non_null(zeros);
	g = gz(zeros, n);
	z = zst(zeros, n);
	/* a MiB of zeros packs into a few KB: a bomb at a 4 KiB limit */
	assert_int_equal(vb_zdecode(VB_Z_GZIP, g.p, g.len, 4096, &out, &len,
				    err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "more than 4096 bytes"));
	assert_null(out);
	assert_int_equal(vb_zdecode(VB_Z_ZSTD, z.p, z.len, 4096, &out, &len,
				    err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "more than 4096 bytes"));
	/* exactly at the limit is fine */
	assert_int_equal(vb_zdecode(VB_Z_GZIP, g.p, g.len, n, &out, &len, err,
				    sizeof(err)), 0);
	assert_int_equal(len, n);
	assert_int_equal(out[n], '\0');
	assert_int_equal(memcmp(out, zeros, n), 0);
	free(out);
	assert_int_equal(vb_zdecode(VB_Z_ZSTD, z.p, z.len, n, &out, &len, err,
				    sizeof(err)), 0);
	assert_int_equal(len, n);
	free(out);
	free(g.p);
	free(z.p);
	free(zeros);
}

/* Run a command with stdout and stderr captured; returns exit status. */
#define run(fn, out, err, ...) test_run_args(fn, tmpdir, out, err, __VA_ARGS__)

/* s with every occurrence of name cut out (the report prints its file). */
static void cut(char *s, const char *name)
{
	size_t n = strlen(name);
	char *p;

	while ((p = strstr(s, name)))
		memmove(p, p + n, strlen(p + n) + 1);
}

/*
 * o1 with the names a1, b1 cut equals o2 with a2, b2 cut (the outputs of
 * one command on plain and on compressed files); all four freed.
 */
static void same_output(char *o1, char *e1, const char *a1, const char *b1,
			char *o2, char *e2, const char *a2, const char *b2)
{
	if (*a1)
		cut(o1, a1);
	if (*b1)
		cut(o1, b1);
	if (*a2)
		cut(o2, a2);
	if (*b2)
		cut(o2, b2);
	assert_string_equal(o1, o2);
	free(o1);
	free(e1);
	free(o2);
	free(e2);
}

static void test_report_compare_commands(void **state)
{
	char *tb, *tp, *base = plain_fixture("base.json", false, &tb);
	char *patched = plain_fixture("patched.json", true, &tp);
	struct blob gb = gz(tb, strlen(tb)), zp = zst(tp, strlen(tp));
	char *bgz = write_blob("base.json.gz", gb.p, gb.len);
	char *pzst = write_blob("patched.json.zst", zp.p, zp.len);
	char *o1, *e1, *o2, *e2, *bad;

	(void)state;
	assert_int_equal(run(cmd_report, &o1, &e1, 3, "report", "-w", patched), 0);
	assert_int_equal(run(cmd_report, &o2, &e2, 3, "report", "-w", pzst), 0);
	same_output(o1, e1, patched, "", o2, e2, pzst, "");

	assert_int_equal(run(cmd_compare, &o1, &e1, 4, "compare", "--json", base, patched), 0);
	assert_int_equal(run(cmd_compare, &o2, &e2, 4, "compare", "--json", bgz, pzst), 0);
	same_output(o1, e1, base, patched, o2, e2, bgz, pzst);

	/* corrupt compressed input: exit 2, one line of reason */
	gb.p[gb.len - 8] ^= 0xff;
	bad = write_blob("bad.json.gz", gb.p, gb.len);
	assert_int_equal(run(cmd_report, &o1, &e1, 2, "report", bad), 2);
	assert_string_equal(o1, "");
	assert_non_null(strstr(e1, "corrupt gzip data"));
	assert_int_equal(strchr(e1, '\n') - e1 + 1, (long)strlen(e1));
	free(o1);
	free(e1);
	assert_int_equal(run(cmd_compare, &o1, &e1, 3, "compare", bad, pzst), 2);
	assert_non_null(strstr(e1, "corrupt gzip data"));
	assert_int_equal(strchr(e1, '\n') - e1 + 1, (long)strlen(e1));
	free(o1);
	free(e1);

	free(bad);
	free(gb.p);
	free(zp.p);
	free(bgz);
	free(pzst);
	free(base);
	free(patched);
	free(tb);
	free(tp);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kind_by_magic),
		cmocka_unit_test(test_load_compressed),
		cmocka_unit_test(test_concatenated_members),
		cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_corrupt),
		cmocka_unit_test(test_size_limit),
		cmocka_unit_test(test_report_compare_commands),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
