// SPDX-License-Identifier: GPL-2.0
/*
 * Stress-test stream: generator, chunk framing, write-size patterns and the
 * receive-side verifier.  See stress_verify.h for the format.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "stress_verify.h"

#define GOLDEN 0x9e3779b97f4a7c15ULL

/* CRC32C (Castagnoli), reflected, byte-at-a-time table. */
static uint32_t crc_table[256];
static pthread_once_t crc_once = PTHREAD_ONCE_INIT;

static void crc_init(void)
{
	for (uint32_t i = 0; i < 256; i++) {
		uint32_t c = i;

		for (int k = 0; k < 8; k++)
			c = (c & 1) ? (c >> 1) ^ 0x82f63b78u : c >> 1;
		crc_table[i] = c;
	}
}

uint32_t stress_crc32c(uint32_t crc, const void *buf, size_t len)
{
	const uint8_t *p = buf;

	pthread_once(&crc_once, crc_init);
	crc = ~crc;
	while (len--)
		crc = crc_table[(crc ^ *p++) & 0xff] ^ (crc >> 8);
	return ~crc;
}

/* splitmix64's output function: a cheap, well-mixing 64-bit bijection. */
static uint64_t mix64(uint64_t z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

uint64_t stress_flow_key(uint64_t seed, unsigned int flow)
{
	return mix64(seed * GOLDEN + 0x5bd1e995u + flow) ^ ((uint64_t)flow << 48);
}

static inline uint64_t stream_word(uint64_t key, uint64_t word)
{
	return mix64(key + word * GOLDEN);
}

uint8_t stress_byte(uint64_t key, uint64_t off)
{
	return (uint8_t)(stream_word(key, off >> 3) >> ((off & 7) * 8));
}

void stress_fill(uint64_t key, uint64_t off, uint8_t *buf, size_t len)
{
	size_t i = 0;

	/* Head up to a word boundary, whole words, then the tail. */
	while (i < len && ((off + i) & 7))
		buf[i] = stress_byte(key, off + i), i++;
	for (; i + 8 <= len; i += 8) {
		uint64_t w = stream_word(key, (off + i) >> 3);

		for (int b = 0; b < 8; b++)
			buf[i + b] = (uint8_t)(w >> (b * 8));
	}
	for (; i < len; i++)
		buf[i] = stress_byte(key, off + i);
}

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = v;
	p[1] = v >> 8;
}

static void put32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = v >> (8 * i);
}

static void put64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = v >> (8 * i);
}

static uint16_t get16(const uint8_t *p)
{
	return p[0] | (uint16_t)p[1] << 8;
}

static uint32_t get32(const uint8_t *p)
{
	uint32_t v = 0;

	for (int i = 3; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static uint64_t get64(const uint8_t *p)
{
	uint64_t v = 0;

	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

void stress_hdr_encode(const struct stress_hdr *h, uint8_t out[STRESS_HDR_LEN])
{
	put32(out + 0, h->magic);
	put16(out + 4, h->flow);
	put16(out + 6, h->flags);
	put32(out + 8, h->seq);
	put32(out + 12, h->len);
	put64(out + 16, h->off);
	put32(out + 24, h->pcrc);
	put32(out + 28, stress_crc32c(0, out, 28));
}

bool stress_hdr_decode(const uint8_t in[STRESS_HDR_LEN], struct stress_hdr *h)
{
	h->magic = get32(in + 0);
	h->flow = get16(in + 4);
	h->flags = get16(in + 6);
	h->seq = get32(in + 8);
	h->len = get32(in + 12);
	h->off = get64(in + 16);
	h->pcrc = get32(in + 24);
	h->hcrc = get32(in + 28);
	return h->hcrc == stress_crc32c(0, in, 28);
}

void stress_chunk_build(uint64_t key, unsigned int flow, uint32_t seq,
			uint64_t off, uint32_t len, uint16_t flags,
			uint8_t *buf)
{
	struct stress_hdr h = {
		.magic = STRESS_MAGIC,
		.flow = (uint16_t)flow,
		.flags = flags,
		.seq = seq,
		.len = len,
		.off = off,
	};

	stress_fill(key, off + STRESS_HDR_LEN, buf + STRESS_HDR_LEN,
		    len - STRESS_HDR_LEN);
	h.pcrc = stress_crc32c(0, buf + STRESS_HDR_LEN, len - STRESS_HDR_LEN);
	stress_hdr_encode(&h, buf);
}

/* ---- write-size patterns ---- */

static const char *const pat_names[STRESS_PAT_NR] = {
	[STRESS_PAT_64] = "fixed64",
	[STRESS_PAT_4K] = "fixed4k",
	[STRESS_PAT_64K] = "fixed64k",
	[STRESS_PAT_RANDOM] = "rand64-64k",
	[STRESS_PAT_MIXED] = "mixed",
	[STRESS_PAT_SMALL] = "rand64-1k",
};

const char *stress_pattern_name(enum stress_pattern p)
{
	return (unsigned int)p < STRESS_PAT_NR ? pat_names[p] : "?";
}

void stress_plan_init(struct stress_plan *pl, enum stress_pattern pat,
		      uint64_t seed, unsigned int flow)
{
	pl->pat = pat;
	pl->rng = mix64(seed ^ ((uint64_t)flow * GOLDEN) ^ 0x706c616eu) | 1;
	pl->idx = 0;
}

static uint64_t plan_rand(struct stress_plan *pl)
{
	/* xorshift64* */
	pl->rng ^= pl->rng >> 12;
	pl->rng ^= pl->rng << 25;
	pl->rng ^= pl->rng >> 27;
	return pl->rng * 0x2545f4914f6cdd1dULL;
}

static uint32_t rand_range(struct stress_plan *pl, uint32_t lo, uint32_t hi)
{
	return lo + (uint32_t)((plan_rand(pl) >> 11) % (hi - lo + 1));
}

uint32_t stress_plan_next(struct stress_plan *pl, uint64_t remaining)
{
	static const uint32_t mixed[] = { 64, 1024, 65536, 100, 4096, 3000 };
	uint32_t s;

	switch (pl->pat) {
	case STRESS_PAT_64:
		s = 64;
		break;
	case STRESS_PAT_4K:
		s = 4096;
		break;
	case STRESS_PAT_64K:
		s = 65536;
		break;
	case STRESS_PAT_RANDOM:
		s = rand_range(pl, STRESS_CHUNK_MIN, STRESS_CHUNK_MAX);
		break;
	case STRESS_PAT_MIXED:
		s = mixed[pl->idx % (sizeof(mixed) / sizeof(mixed[0]))];
		break;
	case STRESS_PAT_SMALL:
	default:
		s = rand_range(pl, STRESS_CHUNK_MIN, 1024);
		break;
	}
	pl->idx++;
	if (!remaining)
		return s;
	/* Never leave a tail too short to be a chunk of its own. */
	if (remaining <= STRESS_CHUNK_MAX &&
	    (s >= remaining || remaining - s < STRESS_CHUNK_MIN))
		return (uint32_t)remaining;
	if (remaining - s < STRESS_CHUNK_MIN)
		return (uint32_t)(remaining - STRESS_CHUNK_MIN);
	return s;
}

uint64_t stress_plan_chunks(enum stress_pattern pat, uint64_t seed,
			    unsigned int flow, uint64_t total)
{
	struct stress_plan pl;
	uint64_t n = 0;

	stress_plan_init(&pl, pat, seed, flow);
	while (total) {
		total -= stress_plan_next(&pl, total);
		n++;
	}
	return n;
}

/* ---- verifier ---- */

void stress_verify_init(struct stress_verifier *v, uint64_t seed,
			unsigned int flow)
{
	memset(v, 0, sizeof(*v));
	v->key = stress_flow_key(seed, flow);
	v->flow = flow;
}

__attribute__((format(printf, 3, 4)))
static int fail(struct stress_verifier *v, uint64_t off, const char *fmt, ...)
{
	va_list ap;

	v->failed = true;
	v->err_off = off;
	va_start(ap, fmt);
	vsnprintf(v->err, sizeof(v->err), fmt, ap);
	va_end(ap);
	return -1;
}

void stress_verify_where(const struct stress_verifier *v, char *buf,
			 size_t len)
{
	if (v->hdr_fill == 0)
		snprintf(buf, len, "chunk %" PRIu32 " start", v->next_seq);
	else if (v->hdr_fill < STRESS_HDR_LEN)
		snprintf(buf, len, "chunk %" PRIu32 " header byte %" PRIu32,
			 v->next_seq, v->hdr_fill);
	else
		snprintf(buf, len, "chunk %" PRIu32 " payload, %" PRIu32
			 " of %" PRIu32 " bytes left", v->next_seq, v->pay_left,
			 v->cur.len - STRESS_HDR_LEN);
}

static int check_header(struct stress_verifier *v)
{
	uint64_t start = v->off - STRESS_HDR_LEN;
	struct stress_hdr *h = &v->cur;

	if (!stress_hdr_decode(v->hdr_buf, h))
		return fail(v, start, "chunk %" PRIu32 " at stream offset %"
			    PRIu64 ": header checksum mismatch (magic 0x%08"
			    PRIx32 " seq %" PRIu32 " off %" PRIu64 ")",
			    v->next_seq, start, h->magic, h->seq, h->off);
	if (h->magic != STRESS_MAGIC || h->flow != (uint16_t)v->flow)
		return fail(v, start, "chunk %" PRIu32 " at stream offset %"
			    PRIu64 ": bad magic 0x%08" PRIx32 " or flow %u",
			    v->next_seq, start, h->magic, h->flow);
	if (v->saw_last)
		return fail(v, start, "data after the last chunk (chunk %"
			    PRIu32 " at stream offset %" PRIu64 ")",
			    h->seq, start);
	if (h->seq != v->next_seq || h->off != start)
		return fail(v, start, "chunk at stream offset %" PRIu64
			    " is seq %" PRIu32 " off %" PRIu64 ", expected seq %"
			    PRIu32 " off %" PRIu64 " (%s)", start, h->seq,
			    h->off, v->next_seq, start,
			    h->seq < v->next_seq ? "duplicated/replayed data" :
			    "lost or reordered data");
	if (h->len <= STRESS_HDR_LEN || h->len > STRESS_CHUNK_MAX ||
	    (h->flags & ~STRESS_FLAG_LAST))
		return fail(v, start, "chunk %" PRIu32 ": bad length %" PRIu32
			    " or flags 0x%x", h->seq, h->len, h->flags);
	v->pay_left = h->len - STRESS_HDR_LEN;
	v->pcrc = 0;
	return 0;
}

static int check_payload(struct stress_verifier *v, const uint8_t *p,
			 uint32_t n)
{
	uint8_t want[512];

	for (uint32_t done = 0; done < n;) {
		uint32_t k = n - done < sizeof(want) ? n - done : sizeof(want);

		stress_fill(v->key, v->off + done, want, k);
		if (memcmp(want, p + done, k)) {
			uint32_t i = 0;

			while (want[i] == p[done + i])
				i++;
			return fail(v, v->off + done + i, "byte mismatch at "
				    "stream offset %" PRIu64 " (chunk %" PRIu32
				    " payload byte %" PRIu32 "): got 0x%02x, "
				    "want 0x%02x", v->off + done + i,
				    v->cur.seq, v->cur.len - STRESS_HDR_LEN -
				    v->pay_left + done + i, p[done + i],
				    want[i]);
		}
		done += k;
	}
	return 0;
}

int stress_verify_feed(struct stress_verifier *v, const void *buf, size_t len)
{
	const uint8_t *p = buf;

	if (v->failed)
		return -1;
	while (len) {
		if (v->hdr_fill < STRESS_HDR_LEN) {
			uint32_t n = STRESS_HDR_LEN - v->hdr_fill;

			if (n > len)
				n = (uint32_t)len;
			memcpy(v->hdr_buf + v->hdr_fill, p, n);
			v->hdr_fill += n;
			v->off += n;
			p += n;
			len -= n;
			if (v->hdr_fill == STRESS_HDR_LEN && check_header(v))
				return -1;
			continue;
		}
		uint32_t n = v->pay_left < len ? v->pay_left : (uint32_t)len;

		if (check_payload(v, p, n))
			return -1;
		v->pcrc = stress_crc32c(v->pcrc, p, n);
		v->pay_left -= n;
		v->off += n;
		p += n;
		len -= n;
		if (v->pay_left)
			continue;
		if (v->pcrc != v->cur.pcrc)
			return fail(v, v->off - v->cur.len, "chunk %" PRIu32
				    ": payload crc32c 0x%08" PRIx32 " != header's"
				    " 0x%08" PRIx32, v->cur.seq, v->pcrc,
				    v->cur.pcrc);
		v->chunks++;
		v->next_seq++;
		v->hdr_fill = 0;
		if (v->cur.flags & STRESS_FLAG_LAST)
			v->saw_last = true;
	}
	return 0;
}

int stress_verify_complete(struct stress_verifier *v, uint64_t bytes,
			   uint64_t chunks)
{
	char where[96];

	if (v->failed)
		return -1;
	stress_verify_where(v, where, sizeof(where));
	if (v->off != bytes || v->hdr_fill != 0)
		return fail(v, v->off, "EOF after %" PRIu64 " bytes (%s), "
			    "expected EOF after exactly %" PRIu64 " bytes",
			    v->off, where, bytes);
	if (v->chunks != chunks || !v->saw_last)
		return fail(v, v->off, "EOF after %" PRIu64 " chunks%s, "
			    "expected %" PRIu64 " ending with the LAST flag",
			    v->chunks, v->saw_last ? "" : " without LAST",
			    chunks);
	return 0;
}

int stress_verify_prefix(struct stress_verifier *v, uint64_t max_bytes)
{
	if (v->failed)
		return -1;
	if (v->off > max_bytes)
		return fail(v, v->off, "received %" PRIu64 " bytes, more than "
			    "the %" PRIu64 " the peer sent before it reset",
			    v->off, max_bytes);
	return 0;
}
