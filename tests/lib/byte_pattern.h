/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A byte stream whose byte at stream offset off is a function of off (and a
 * per-program salt): the guest test programs fill their writes with it and
 * check every received byte against it, so a lost, duplicated, reordered
 * or changed piece shows up at its offset without keeping a copy of what
 * was sent.  Not periodic in any write size.
 */
#ifndef BYTE_PATTERN_H
#define BYTE_PATTERN_H

#include <stddef.h>
#include <stdint.h>

static inline uint8_t byte_pattern(uint64_t off, uint8_t salt)
{
	return (uint8_t)(off ^ (off >> 8) ^ ((off >> 16) * 7) ^ salt);
}

/* buf[0..n) = the stream from offset off. */
void byte_pattern_fill(uint8_t *buf, size_t n, uint64_t off, uint8_t salt);

/* Index of the first byte of buf[0..n) that differs from the stream at off,
 * or n if all match.
 */
size_t byte_pattern_check(const uint8_t *buf, size_t n, uint64_t off,
			  uint8_t salt);

#endif
