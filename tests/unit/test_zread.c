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
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf %s", tmpdir);
	return system(cmd) == 0 ? 0 : -1;
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

static void test_load_compressed(void **state)
{
	char *text, *plain = plain_fixture("a.json", true, &text);
	struct blob g = gz(text, strlen(text)), z = zst(text, strlen(text));
	char *want = loaded(plain), *p, *got;
	/* name says one thing, bytes another: the bytes win */
	const struct {
		const char *name;
		struct blob b;
	} files[] = {
		{ "a.json.gz", g }, { "a.json.zst", z },
		{ "gzip-named.json", g }, { "zstd-named.json.gz", z },
		{ "plain-named.json.zst", { (unsigned char *)text, strlen(text) } },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		p = write_blob(files[i].name, files[i].b.p, files[i].b.len);
		got = loaded(p);
		assert_string_equal(got, want);
		free(got);
		free(p);
	}
	/* the compressed files are smaller: the point of keeping them */
	assert_true(g.len < strlen(text) / 4);
	assert_true(z.len < strlen(text) / 4);
	free(g.p);
	free(z.p);
	free(want);
	free(plain);
	free(text);
}

static void test_concatenated_members(void **state)
{
	char *text, *plain = plain_fixture("c.json", false, &text);
	size_t half = strlen(text) / 2;
	struct blob a = gz(text, half), b = gz(text + half, strlen(text) - half);
	unsigned char *cat = malloc(a.len + b.len);
	char *p, *got, *want = loaded(plain);

	(void)state;
	assert_non_null(cat);
	memcpy(cat, a.p, a.len);
	memcpy(cat + a.len, b.p, b.len);
	p = write_blob("cat.json.gz", cat, a.len + b.len);
	got = loaded(p);
	assert_string_equal(got, want);
	free(got);
	free(p);
	free(cat);
	free(a.p);
	free(b.p);
	free(want);
	free(plain);
	free(text);
}

static void test_truncated(void **state)
{
	char *text, *plain = plain_fixture("t.json", true, &text);
	struct blob g = gz(text, strlen(text)), z = zst(text, strlen(text));
	char *p;

	(void)state;
	p = write_blob("t.json.gz", g.p, g.len / 2);
	refused(p, "truncated gzip data");
	free(p);
	p = write_blob("t.json.zst", z.p, z.len / 2);
	refused(p, "truncated zstd data");
	free(p);
	/* the gzip trailer (CRC, length) cut off */
	p = write_blob("t2.json.gz", g.p, g.len - 4);
	refused(p, "truncated gzip data");
	free(p);
	free(g.p);
	free(z.p);
	free(plain);
	free(text);
}

static void test_corrupt(void **state)
{
	char *text, *plain = plain_fixture("x.json", true, &text);
	struct blob g = gz(text, strlen(text)), z = zst(text, strlen(text));
	unsigned char *junk, first;
	char *p;

	(void)state;
	/* the stored CRC-32 no longer matches */
	g.p[g.len - 8] ^= 0xff;
	p = write_blob("crc.json.gz", g.p, g.len);
	refused(p, "corrupt gzip data");
	free(p);
	g.p[g.len - 8] ^= 0xff;
	/* a deflate block type that does not exist (BTYPE 11; the first
	 * block's header follows the 10-byte gzip header) */
	first = g.p[10];
	g.p[10] |= 0x06;
	p = write_blob("btype.json.gz", g.p, g.len);
	refused(p, "corrupt gzip data");
	free(p);
	g.p[10] = first;
	/* zstd's content checksum (the frame's last 4 bytes) */
	z.p[z.len - 1] ^= 0xff;
	p = write_blob("sum.json.zst", z.p, z.len);
	refused(p, "corrupt zstd data");
	free(p);
	/* garbage after a complete gzip member */
	junk = malloc(g.len + 4);
	assert_non_null(junk);
	memcpy(junk, g.p, g.len);
	memcpy(junk + g.len, "junk", 4);
	p = write_blob("tail.json.gz", junk, g.len + 4);
	refused(p, "trailing garbage");
	free(p);
	free(junk);
	/* magic only */
	p = write_blob("magic.json.gz", "\x1f\x8b", 2);
	refused(p, "gzip data");
	free(p);
	free(g.p);
	free(z.p);
	free(plain);
	free(text);
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
static int run(int (*fn)(int, char **), char **out, char **errout, int argc,
	       ...)
{
	char *argv[16];
	va_list ap;
	int i;

	va_start(ap, argc);
	for (i = 0; i < argc; i++)
		argv[i] = va_arg(ap, char *);
	va_end(ap);
	argv[argc] = NULL;
	return test_run_captured(fn, tmpdir, argc, argv, out, errout);
}

/* s with every occurrence of name cut out (the report prints its file). */
static void cut(char *s, const char *name)
{
	size_t n = strlen(name);
	char *p;

	while ((p = strstr(s, name)))
		memmove(p, p + n, strlen(p + n) + 1);
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
	cut(o1, patched);
	cut(o2, pzst);
	assert_string_equal(o1, o2);
	free(o1);
	free(e1);
	free(o2);
	free(e2);

	assert_int_equal(run(cmd_compare, &o1, &e1, 4, "compare", "--json", base, patched), 0);
	assert_int_equal(run(cmd_compare, &o2, &e2, 4, "compare", "--json", bgz, pzst), 0);
	cut(o1, base);
	cut(o1, patched);
	cut(o2, bgz);
	cut(o2, pzst);
	assert_string_equal(o1, o2);
	free(o1);
	free(e1);
	free(o2);
	free(e2);

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
