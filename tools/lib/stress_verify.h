/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The stress-test byte stream and its verifier.
 *
 * A flow's stream is a sequence of chunks; a chunk is a 32-byte header
 * followed by payload.  Every byte of the stream (header bytes aside) is a
 * pure function of (seed, flow, stream offset), so the receiver can check
 * each byte *and* its position without keeping any copy of what was sent:
 * a lost, duplicated or reordered byte shows up at the first offset where
 * the data no longer matches.  The header carries a sequence number, the
 * chunk's stream offset and length, a CRC32C of the payload and a CRC32C of
 * itself, so framing errors are named precisely too.
 *
 * Header (little endian):
 *   0 magic u32   4 flow u16   6 flags u16   8 seq u32   12 len u32
 *  16 off u64    24 payload crc32c u32      28 header crc32c u32 (of 0..27)
 * len is the whole chunk (header included); off is the stream offset of the
 * chunk's first header byte.
 */
#ifndef STRESS_VERIFY_H
#define STRESS_VERIFY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define STRESS_MAGIC		0x54535356u	/* "VSST" on the wire */
#define STRESS_HDR_LEN		32u
#define STRESS_CHUNK_MIN	64u		/* smallest write of a pattern */
#define STRESS_CHUNK_MAX	65536u		/* largest write (64 KiB) */
#define STRESS_FLAG_LAST	0x0001u		/* final chunk of a complete stream */

struct stress_hdr {
	uint32_t magic;
	uint16_t flow;
	uint16_t flags;
	uint32_t seq;
	uint32_t len;
	uint64_t off;
	uint32_t pcrc;
	uint32_t hcrc;
};

uint32_t stress_crc32c(uint32_t crc, const void *buf, size_t len);

/* Per-flow key from the run seed: different flows get unrelated bytes. */
uint64_t stress_flow_key(uint64_t seed, unsigned int flow);

/* The stream byte at stream offset @off of the flow with key @key. */
uint8_t stress_byte(uint64_t key, uint64_t off);

/* Fill @buf with the stream bytes at [@off, @off + @len). */
void stress_fill(uint64_t key, uint64_t off, uint8_t *buf, size_t len);

void stress_hdr_encode(const struct stress_hdr *h, uint8_t out[STRESS_HDR_LEN]);
/* Decodes and checks the header CRC; false if it does not match. */
bool stress_hdr_decode(const uint8_t in[STRESS_HDR_LEN], struct stress_hdr *h);

/*
 * Build chunk number @seq of length @len (>= STRESS_HDR_LEN + 1,
 * <= STRESS_CHUNK_MAX) starting at stream offset @off into @buf.
 */
void stress_chunk_build(uint64_t key, unsigned int flow, uint32_t seq,
			uint64_t off, uint32_t len, uint16_t flags,
			uint8_t *buf);

/*
 * Chunk-size patterns: every write a sender makes is one chunk, so a
 * pattern is the flow's write-size sequence.
 */
enum stress_pattern {
	STRESS_PAT_64,		/* every write 64 B */
	STRESS_PAT_4K,		/* every write 4 KiB */
	STRESS_PAT_64K,		/* every write 64 KiB */
	STRESS_PAT_RANDOM,	/* uniform 64 B .. 64 KiB */
	STRESS_PAT_MIXED,	/* 64 B, 1 KiB, 64 KiB, 100 B, 4 KiB, 3000 B cycle */
	STRESS_PAT_SMALL,	/* uniform 64 B .. 1 KiB */
	STRESS_PAT_NR
};

const char *stress_pattern_name(enum stress_pattern p);

struct stress_plan {
	enum stress_pattern pat;
	uint64_t rng;		/* xorshift state, seeded per flow */
	uint32_t idx;
};

void stress_plan_init(struct stress_plan *pl, enum stress_pattern pat,
		      uint64_t seed, unsigned int flow);
/*
 * Size of the next chunk when @remaining stream bytes are left to send
 * (0 = unbounded).  Sizes stay within [STRESS_CHUNK_MIN, STRESS_CHUNK_MAX]
 * and the last chunk ends exactly at the end of the stream, which must be
 * at least STRESS_CHUNK_MIN long.
 */
uint32_t stress_plan_next(struct stress_plan *pl, uint64_t remaining);

/* Chunk count of a complete stream of @total bytes (replays the plan). */
uint64_t stress_plan_chunks(enum stress_pattern pat, uint64_t seed,
			    unsigned int flow, uint64_t total);

/* Streaming verifier: feed it what recv() returned, in order. */
struct stress_verifier {
	uint64_t key;
	unsigned int flow;
	uint64_t off;		/* stream bytes accepted so far */
	uint64_t chunks;	/* complete, verified chunks */
	uint32_t next_seq;
	bool saw_last;		/* a chunk flagged LAST completed */
	/* current chunk */
	uint8_t hdr_buf[STRESS_HDR_LEN];
	uint32_t hdr_fill;	/* header bytes collected */
	struct stress_hdr cur;
	uint32_t pay_left;	/* payload bytes of cur still to come */
	uint32_t pcrc;		/* running CRC of cur's payload */
	/* first failure, sticky */
	bool failed;
	uint64_t err_off;	/* stream offset of the failure */
	char err[200];
};

void stress_verify_init(struct stress_verifier *v, uint64_t seed,
			unsigned int flow);
/* 0 if all of @buf is consistent with the stream, else -1 (see v->err). */
int stress_verify_feed(struct stress_verifier *v, const void *buf, size_t len);
/* Stream position inside a chunk, as text ("chunk 17 header byte 5"...). */
void stress_verify_where(const struct stress_verifier *v, char *buf,
			 size_t len);
/*
 * At EOF of a stream that must be complete: exactly @bytes bytes in
 * @chunks chunks, ending on a chunk boundary with the LAST flag.
 * 0 or -1 (v->err set).
 */
int stress_verify_complete(struct stress_verifier *v, uint64_t bytes,
			   uint64_t chunks);
/*
 * For a stream that was cut (peer reset, receiver stopped): everything
 * seen is a correct prefix (guaranteed while feed never failed) of at most
 * @max_bytes bytes.  0 or -1.
 */
int stress_verify_prefix(struct stress_verifier *v, uint64_t max_bytes);

#endif
