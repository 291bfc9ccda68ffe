/* SPDX-License-Identifier: GPL-2.0 */
/*
 * zread.h - read a file whole, gzip- or zstd-compressed or not, so a
 * results file can be kept small (`gzip run.json`, `zstd run.json`) and
 * still be read by report, compare and the lab's summarize.
 */
#ifndef VSOCKBATCH_ZREAD_H
#define VSOCKBATCH_ZREAD_H

#include <stddef.h>

enum vb_zkind {
	VB_Z_PLAIN,
	VB_Z_GZIP,
	VB_Z_ZSTD,
};

/* Results files are a few MB; anything that inflates past this is not one. */
#define VB_ZREAD_MAX	((size_t)1 << 30)

/* What the first bytes say the data is (never the file's name). */
enum vb_zkind vb_zkind_of(const void *data, size_t len);

/*
 * Decompress data of kind (VB_Z_PLAIN: copied) into a malloc'ed buffer,
 * NUL-terminated, at most max bytes.  0, or a negative errno with a
 * one-line reason in errbuf: -EINVAL corrupt or truncated data, or data
 * past max; -ENOMEM.
 */
int vb_zdecode(enum vb_zkind kind, const void *data, size_t len, size_t max,
	       char **out, size_t *outlen, char *errbuf, size_t errlen);

/*
 * Read path whole and decompress it by its magic bytes (gzip 1f 8b,
 * zstd 28 b5 2f fd; anything else is taken as it is).  Errors as
 * vb_zdecode(), plus -errno of open() and -EIO for a read error; the
 * reason starts with path.
 */
int vb_zread_file(const char *path, size_t max, char **out, size_t *outlen,
		  char *errbuf, size_t errlen);

#endif
