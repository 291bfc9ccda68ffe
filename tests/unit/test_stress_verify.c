// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the stress-test stream verifier (tests/lib/stress_verify.c):
 * a clean stream passes however it is split, and corruption, loss,
 * duplication, reordering, truncation and trailing data are each caught at
 * the right place.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "stress_verify.h"

#define SEED 42

struct stream {
	uint8_t *buf;
	size_t len;
	uint64_t chunks;
	size_t *starts;		/* stream offset of each chunk */
};

/* A complete stream of @total bytes as a sender would write it. */
static void build(struct stream *s, enum stress_pattern pat, unsigned int flow,
		  uint64_t total)
{
	uint64_t key = stress_flow_key(SEED, flow);
	struct stress_plan pl;
	uint64_t off = 0;

	s->buf = malloc(total);
	s->starts = malloc(sizeof(size_t) * (total / STRESS_CHUNK_MIN + 1));
	assert_non_null(s->buf);
	assert_non_null(s->starts);
	s->len = total;
	s->chunks = 0;
	stress_plan_init(&pl, pat, SEED, flow);
	while (off < total) {
		uint32_t n = stress_plan_next(&pl, total - off);

		stress_chunk_build(key, flow, (uint32_t)s->chunks, off, n,
				   off + n == total ? STRESS_FLAG_LAST : 0,
				   s->buf + off);
		s->starts[s->chunks++] = off;
		off += n;
	}
	assert_int_equal(off, total);
}

static void release(struct stream *s)
{
	free(s->buf);
	free(s->starts);
}

/* Feed @buf in pieces of pseudo-random size, as recv() would return it. */
static int feed_split(struct stress_verifier *v, const uint8_t *buf,
		      size_t len, unsigned int rs)
{
	size_t off = 0;

	while (off < len) {
		size_t n = 1 + (rand_r(&rs) % 9000);

		if (n > len - off)
			n = len - off;
		if (stress_verify_feed(v, buf + off, n))
			return -1;
		off += n;
	}
	return 0;
}

static void test_plan_sizes(void **state)
{
	static const uint64_t totals[] = { 64, 65, 127, 128, 4096, 65536,
					   65537, 65599, 65600, 200000,
					   1 << 20 };
	(void)state;

	for (int p = 0; p < STRESS_PAT_NR; p++) {
		for (size_t t = 0; t < sizeof(totals) / sizeof(totals[0]); t++) {
			struct stress_plan pl;
			uint64_t left = totals[t], n = 0;

			stress_plan_init(&pl, p, SEED, 3);
			while (left) {
				uint32_t s = stress_plan_next(&pl, left);

				assert_in_range(s, STRESS_CHUNK_MIN,
						STRESS_CHUNK_MAX);
				assert_true(s <= left);
				left -= s;
				n++;
			}
			assert_int_equal(n, stress_plan_chunks(p, SEED, 3,
							       totals[t]));
		}
	}
	/* Unbounded plans (receiver-close flows) stay in range too. */
	struct stress_plan pl;

	stress_plan_init(&pl, STRESS_PAT_RANDOM, SEED, 0);
	for (int i = 0; i < 10000; i++)
		assert_in_range(stress_plan_next(&pl, 0), STRESS_CHUNK_MIN,
				STRESS_CHUNK_MAX);
}

static void test_clean_stream_all_patterns(void **state)
{
	(void)state;
	for (int p = 0; p < STRESS_PAT_NR; p++) {
		struct stress_verifier v;
		struct stream s;

		build(&s, p, 5, 300000);
		stress_verify_init(&v, SEED, 5);
		assert_int_equal(feed_split(&v, s.buf, s.len, p + 1), 0);
		assert_int_equal(stress_verify_complete(&v, s.len, s.chunks), 0);
		assert_int_equal(v.chunks, s.chunks);
		release(&s);
	}
}

static void test_byte_at_a_time(void **state)
{
	struct stress_verifier v;
	struct stream s;

	(void)state;
	build(&s, STRESS_PAT_MIXED, 1, 5000);
	stress_verify_init(&v, SEED, 1);
	for (size_t i = 0; i < s.len; i++)
		assert_int_equal(stress_verify_feed(&v, s.buf + i, 1), 0);
	assert_int_equal(stress_verify_complete(&v, s.len, s.chunks), 0);
	release(&s);
}

static void test_corrupt_payload(void **state)
{
	struct stress_verifier v;
	struct stream s;
	size_t at = 70000;

	(void)state;
	build(&s, STRESS_PAT_4K, 0, 100000);
	assert_true(at % 4096 >= STRESS_HDR_LEN);	/* inside a payload */
	s.buf[at] ^= 0x10;
	stress_verify_init(&v, SEED, 0);
	assert_int_equal(feed_split(&v, s.buf, s.len, 7), -1);
	assert_int_equal(v.err_off, at);
	assert_non_null(strstr(v.err, "byte mismatch"));
	assert_int_equal(stress_verify_complete(&v, s.len, s.chunks), -1);
	release(&s);
}

static void test_corrupt_header(void **state)
{
	struct stress_verifier v;
	struct stream s;

	(void)state;
	build(&s, STRESS_PAT_4K, 0, 100000);
	s.buf[3 * 4096 + 9] ^= 0x01;	/* seq field of chunk 3 */
	stress_verify_init(&v, SEED, 0);
	assert_int_equal(feed_split(&v, s.buf, s.len, 3), -1);
	assert_int_equal(v.err_off, 3 * 4096);
	assert_non_null(strstr(v.err, "header checksum"));
	release(&s);
}

static void test_lost_byte(void **state)
{
	struct stress_verifier v;
	struct stream s;
	size_t at = 12345;

	(void)state;
	build(&s, STRESS_PAT_RANDOM, 2, 200000);
	memmove(s.buf + at, s.buf + at + 1, s.len - at - 1);
	stress_verify_init(&v, SEED, 2);
	assert_int_equal(feed_split(&v, s.buf, s.len - 1, 11), -1);
	/* Found at the gap, or at most a few bytes later if equal by chance. */
	assert_in_range(v.err_off, at, at + 4);
	release(&s);
}

static void test_lost_chunk(void **state)
{
	struct stress_verifier v;
	struct stream s;
	size_t a, b;

	(void)state;
	build(&s, STRESS_PAT_MIXED, 4, 300000);
	a = s.starts[5];
	b = s.starts[6];
	memmove(s.buf + a, s.buf + b, s.len - b);
	stress_verify_init(&v, SEED, 4);
	assert_int_equal(feed_split(&v, s.buf, s.len - (b - a), 1), -1);
	assert_int_equal(v.err_off, a);
	assert_non_null(strstr(v.err, "lost or reordered"));
	release(&s);
}

static void test_duplicated_chunk(void **state)
{
	struct stress_verifier v;
	struct stream s;
	uint8_t *dup;
	size_t a, b;

	(void)state;
	build(&s, STRESS_PAT_SMALL, 6, 50000);
	a = s.starts[10];
	b = s.starts[11];
	/* chunks 0..10, chunk 10 again, then the rest */
	dup = malloc(s.len + (b - a));
	assert_non_null(dup);
	memcpy(dup, s.buf, b);
	memcpy(dup + b, s.buf + a, b - a);
	memcpy(dup + b + (b - a), s.buf + b, s.len - b);
	stress_verify_init(&v, SEED, 6);
	assert_int_equal(feed_split(&v, dup, s.len + (b - a), 9), -1);
	assert_int_equal(v.err_off, b);
	assert_non_null(strstr(v.err, "duplicated"));
	free(dup);
	release(&s);
}

static void test_reordered_chunks(void **state)
{
	struct stress_verifier v;
	struct stream s;
	uint8_t *ro;
	size_t a, b, c;

	(void)state;
	build(&s, STRESS_PAT_MIXED, 7, 300000);
	a = s.starts[2];
	b = s.starts[3];
	c = s.starts[4];
	ro = malloc(s.len);
	assert_non_null(ro);
	memcpy(ro, s.buf, s.len);
	/* chunk 3 before chunk 2 */
	memcpy(ro + a, s.buf + b, c - b);
	memcpy(ro + a + (c - b), s.buf + a, b - a);
	stress_verify_init(&v, SEED, 7);
	assert_int_equal(feed_split(&v, ro, s.len, 5), -1);
	assert_int_equal(v.err_off, a);
	free(ro);
	release(&s);
}

static void test_swapped_bytes(void **state)
{
	struct stress_verifier v;
	struct stream s;
	uint8_t tmp[8];
	size_t at = 4096 + 100;

	(void)state;
	build(&s, STRESS_PAT_4K, 0, 16384);
	memcpy(tmp, s.buf + at, 8);
	memcpy(s.buf + at, s.buf + at + 8, 8);
	memcpy(s.buf + at + 8, tmp, 8);
	stress_verify_init(&v, SEED, 0);
	assert_int_equal(feed_split(&v, s.buf, s.len, 2), -1);
	assert_in_range(v.err_off, at, at + 7);
	release(&s);
}

static void test_truncated(void **state)
{
	struct stress_verifier v;
	struct stream s;
	size_t cut = 77777;

	(void)state;
	build(&s, STRESS_PAT_RANDOM, 3, 300000);
	stress_verify_init(&v, SEED, 3);
	assert_int_equal(feed_split(&v, s.buf, cut, 4), 0);
	/* A cut stream is a correct prefix ... */
	assert_int_equal(stress_verify_prefix(&v, cut), 0);
	assert_int_equal(stress_verify_prefix(&v, s.len), 0);
	/* ... but longer than what the peer claims to have sent is not */
	assert_int_equal(stress_verify_prefix(&v, cut - 1), -1);
	/* and it is not a complete stream */
	stress_verify_init(&v, SEED, 3);
	assert_int_equal(feed_split(&v, s.buf, cut, 4), 0);
	assert_int_equal(stress_verify_complete(&v, s.len, s.chunks), -1);
	assert_non_null(strstr(v.err, "expected EOF after exactly"));
	release(&s);
}

static void test_truncated_on_chunk_boundary(void **state)
{
	struct stress_verifier v;
	struct stream s;

	(void)state;
	build(&s, STRESS_PAT_4K, 0, 40960);
	stress_verify_init(&v, SEED, 0);
	assert_int_equal(feed_split(&v, s.buf, 8 * 4096, 4), 0);
	/* right byte count claimed, but the LAST chunk never came */
	assert_int_equal(stress_verify_complete(&v, 8 * 4096, 8), -1);
	assert_non_null(strstr(v.err, "without LAST"));
	release(&s);
}

static void test_data_after_last(void **state)
{
	struct stress_verifier v;
	struct stream s, t;

	(void)state;
	build(&s, STRESS_PAT_4K, 0, 8192);
	build(&t, STRESS_PAT_4K, 0, 8192);
	stress_verify_init(&v, SEED, 0);
	assert_int_equal(stress_verify_feed(&v, s.buf, s.len), 0);
	assert_true(v.saw_last);
	assert_int_equal(stress_verify_feed(&v, t.buf, 64), -1);
	assert_non_null(strstr(v.err, "after the last chunk"));
	release(&s);
	release(&t);
}

static void test_other_flow(void **state)
{
	struct stress_verifier v;
	struct stream s;

	(void)state;
	build(&s, STRESS_PAT_4K, 1, 8192);
	stress_verify_init(&v, SEED, 2);
	assert_int_equal(stress_verify_feed(&v, s.buf, s.len), -1);
	assert_int_equal(v.err_off, 0);
	release(&s);
}

static void test_other_seed(void **state)
{
	struct stress_verifier v;
	struct stream s;

	(void)state;
	build(&s, STRESS_PAT_4K, 1, 8192);
	stress_verify_init(&v, SEED + 1, 1);
	/* header is fine (same flow), the payload is another seed's */
	assert_int_equal(stress_verify_feed(&v, s.buf, s.len), -1);
	assert_in_range(v.err_off, STRESS_HDR_LEN, STRESS_HDR_LEN + 3);
	release(&s);
}

static void test_failure_is_sticky(void **state)
{
	struct stress_verifier v;
	struct stream s;

	(void)state;
	build(&s, STRESS_PAT_64, 0, 640);
	s.buf[100] ^= 1;
	stress_verify_init(&v, SEED, 0);
	assert_int_equal(stress_verify_feed(&v, s.buf, 128), -1);
	/* later, valid-looking data does not clear the failure */
	assert_int_equal(stress_verify_feed(&v, s.buf + 128, 64), -1);
	assert_int_equal(stress_verify_prefix(&v, 1 << 20), -1);
	assert_int_equal(v.err_off, 100);
	release(&s);
}

static void test_crc32c_known_value(void **state)
{
	(void)state;
	/* The standard CRC32C check value. */
	assert_int_equal(stress_crc32c(0, "123456789", 9), 0xe3069283);
	/* incremental == one shot */
	assert_int_equal(stress_crc32c(stress_crc32c(0, "1234", 4), "56789", 5),
			 0xe3069283);
}

static void test_fill_matches_byte(void **state)
{
	uint64_t key = stress_flow_key(SEED, 9);
	uint8_t buf[100];

	(void)state;
	for (uint64_t off = 0; off < 20; off++) {
		stress_fill(key, off, buf, sizeof(buf));
		for (size_t i = 0; i < sizeof(buf); i++)
			assert_int_equal(buf[i], stress_byte(key, off + i));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_crc32c_known_value),
		cmocka_unit_test(test_fill_matches_byte),
		cmocka_unit_test(test_plan_sizes),
		cmocka_unit_test(test_clean_stream_all_patterns),
		cmocka_unit_test(test_byte_at_a_time),
		cmocka_unit_test(test_corrupt_payload),
		cmocka_unit_test(test_corrupt_header),
		cmocka_unit_test(test_lost_byte),
		cmocka_unit_test(test_lost_chunk),
		cmocka_unit_test(test_duplicated_chunk),
		cmocka_unit_test(test_reordered_chunks),
		cmocka_unit_test(test_swapped_bytes),
		cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_truncated_on_chunk_boundary),
		cmocka_unit_test(test_data_after_last),
		cmocka_unit_test(test_other_flow),
		cmocka_unit_test(test_other_seed),
		cmocka_unit_test(test_failure_is_sticky),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
