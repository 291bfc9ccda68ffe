// SPDX-License-Identifier: GPL-2.0
/* The guest test programs' byte stream: see byte_pattern.h. */
#include "byte_pattern.h"

void byte_pattern_fill(uint8_t *buf, size_t n, uint64_t off, uint8_t salt)
{
	size_t i;

	for (i = 0; i < n; i++)
		buf[i] = byte_pattern(off + i, salt);
}

size_t byte_pattern_check(const uint8_t *buf, size_t n, uint64_t off,
			  uint8_t salt)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (buf[i] != byte_pattern(off + i, salt))
			break;
	return i;
}
