// SPDX-License-Identifier: GPL-2.0
/*
 * zread.c - a file read whole, decompressed by its magic bytes: gzip
 * through zlib, zstd through libzstd (no subprocess, so a static binary
 * on a guest reads them too).  Concatenated gzip members and zstd frames
 * are read as one stream, as gzip -d and zstd -d do; anything after the
 * last gzip member that is not another one is refused.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>
#include <zstd.h>

#include "zread.h"

#define ZREAD_CHUNK	((size_t)64 << 10)

/* Output so far; cap bytes usable, one more allocated for the NUL. */
struct zbuf {
	char *p;
	size_t len, cap;
};

enum vb_zkind vb_zkind_of(const void *data, size_t len)
{
	const unsigned char *b = data;

	if (len >= 2 && b[0] == 0x1f && b[1] == 0x8b)
		return VB_Z_GZIP;
	if (len >= 4 && b[0] == 0x28 && b[1] == 0xb5 && b[2] == 0x2f &&
	    b[3] == 0xfd)
		return VB_Z_ZSTD;
	return VB_Z_PLAIN;
}

static const char *kind_name(enum vb_zkind kind)
{
	return kind == VB_Z_GZIP ? "gzip" : kind == VB_Z_ZSTD ? "zstd" : "plain";
}

/*
 * Room for more output: doubles the buffer when it is full, up to one
 * byte past max (so that data longer than max shows as such).
 */
static int zbuf_room(struct zbuf *b, size_t max)
{
	size_t cap;
	char *p;

	if (b->len < b->cap)
		return 0;
	cap = b->cap ? b->cap * 2 : ZREAD_CHUNK;
	if (cap > max + 1)
		cap = max + 1;
	if (cap <= b->cap)
		return -EFBIG;
	p = realloc(b->p, cap + 1);
	if (!p)
		return -ENOMEM;
	b->p = p;
	b->cap = cap;
	return 0;
}

static int too_big(enum vb_zkind kind, size_t max, char *errbuf,
		   size_t errlen)
{
	snprintf(errbuf, errlen, "%s data decompresses to more than %zu bytes",
		 kind_name(kind), max);
	return -EINVAL;
}

static int room(struct zbuf *b, enum vb_zkind kind, size_t max, char *errbuf,
		size_t errlen)
{
	int err = zbuf_room(b, max);

	if (err == -EFBIG)
		return too_big(kind, max, errbuf, errlen);
	if (err)
		snprintf(errbuf, errlen, "out of memory");
	return err;
}

static int gunzip(const unsigned char *in, size_t len, size_t max,
		  struct zbuf *b, char *errbuf, size_t errlen)
{
	z_stream zs;
	int zr, err = 0;

	if (len > UINT_MAX) {
		snprintf(errbuf, errlen, "gzip input larger than %u bytes", UINT_MAX);
		return -EINVAL;
	}
	memset(&zs, 0, sizeof(zs));
	/* 16 + 15: a gzip wrapper around a deflate stream, any window */
	if (inflateInit2(&zs, 16 + MAX_WBITS) != Z_OK) {
		snprintf(errbuf, errlen, "out of memory");
		return -ENOMEM;
	}
	zs.next_in = (Bytef *)in;
	zs.avail_in = (uInt)len;
	for (;;) {
		err = room(b, VB_Z_GZIP, max, errbuf, errlen);
		if (err)
			break;
		zs.next_out = (Bytef *)b->p + b->len;
		zs.avail_out = (uInt)(b->cap - b->len);
		zr = inflate(&zs, Z_NO_FLUSH);
		b->len = b->cap - zs.avail_out;
		if (b->len > max) {
			err = too_big(VB_Z_GZIP, max, errbuf, errlen);
			break;
		}
		if (zr == Z_STREAM_END) {
			if (!zs.avail_in)
				break;
			/* another member (cat a.gz b.gz), else garbage */
			if (vb_zkind_of(zs.next_in, zs.avail_in) != VB_Z_GZIP) {
				snprintf(errbuf, errlen,
					 "corrupt gzip data (%u bytes of trailing garbage)",
					 zs.avail_in);
				err = -EINVAL;
				break;
			}
			inflateReset(&zs);
			continue;
		}
		if ((zr == Z_OK || zr == Z_BUF_ERROR) && zs.avail_out) {
			/* all input taken, output room left: the stream
			 * ended early */
			snprintf(errbuf, errlen,
				 "truncated gzip data (input ends inside the stream)");
			err = -EINVAL;
			break;
		}
		if (zr == Z_OK || zr == Z_BUF_ERROR)
			continue;	/* output full: more room */
		if (zr == Z_MEM_ERROR) {
			snprintf(errbuf, errlen, "out of memory");
			err = -ENOMEM;
		} else {
			snprintf(errbuf, errlen, "corrupt gzip data (%s)",
				 zs.msg ? zs.msg : "invalid stream");
			err = -EINVAL;
		}
		break;
	}
	inflateEnd(&zs);
	return err;
}

static int unzstd(const unsigned char *in, size_t len, size_t max,
		  struct zbuf *b, char *errbuf, size_t errlen)
{
	ZSTD_DCtx *dc = ZSTD_createDCtx();
	ZSTD_inBuffer ib = { in, len, 0 };
	ZSTD_outBuffer ob;
	size_t ret = 1;
	int err = 0;

	if (!dc) {
		snprintf(errbuf, errlen, "out of memory");
		return -ENOMEM;
	}
	for (;;) {
		err = room(b, VB_Z_ZSTD, max, errbuf, errlen);
		if (err)
			break;
		ob.dst = b->p;
		ob.size = b->cap;
		ob.pos = b->len;
		ret = ZSTD_decompressStream(dc, &ob, &ib);
		b->len = ob.pos;
		if (ZSTD_isError(ret)) {
			snprintf(errbuf, errlen, "corrupt zstd data (%s)",
				 ZSTD_getErrorName(ret));
			err = -EINVAL;
			break;
		}
		if (b->len > max) {
			err = too_big(VB_Z_ZSTD, max, errbuf, errlen);
			break;
		}
		/* done: the last frame ended with the input, or all input
		 * is taken and output was not the limit (ret says whether
		 * the frame is complete) */
		if (ib.pos == ib.size && (ret == 0 || ob.pos < ob.size))
			break;
	}
	/* ret: 0 at the end of a frame, else bytes the frame still needs */
	if (!err && ret != 0) {
		snprintf(errbuf, errlen,
			 "truncated zstd data (input ends inside a frame)");
		err = -EINVAL;
	}
	ZSTD_freeDCtx(dc);
	return err;
}

int vb_zdecode(enum vb_zkind kind, const void *data, size_t len, size_t max,
	       char **out, size_t *outlen, char *errbuf, size_t errlen)
{
	struct zbuf b = { NULL, 0, 0 };
	int err;

	*out = NULL;
	*outlen = 0;
	switch (kind) {
	case VB_Z_GZIP:
		err = gunzip(data, len, max, &b, errbuf, errlen);
		break;
	case VB_Z_ZSTD:
		err = unzstd(data, len, max, &b, errbuf, errlen);
		break;
	default:
		if (len > max)
			return too_big(kind, max, errbuf, errlen);
		b.p = malloc(len + 1);
		if (!b.p) {
			snprintf(errbuf, errlen, "out of memory");
			return -ENOMEM;
		}
		memcpy(b.p, data, len);
		b.len = len;
		err = 0;
		break;
	}
	if (err) {
		free(b.p);
		return err;
	}
	if (!b.p) {
		/* a stream of nothing: still a string */
		b.p = malloc(1);
		if (!b.p) {
			snprintf(errbuf, errlen, "out of memory");
			return -ENOMEM;
		}
	}
	b.p[b.len] = '\0';
	*out = b.p;
	*outlen = b.len;
	return 0;
}

/* The file's bytes, at most max (more is refused: not a results file). */
static int slurp(FILE *f, size_t max, struct zbuf *b, char *errbuf,
		 size_t errlen)
{
	size_t n;
	int err;

	for (;;) {
		err = zbuf_room(b, max);
		if (err == -EFBIG) {
			snprintf(errbuf, errlen, "larger than %zu bytes", max);
			return -EINVAL;
		}
		if (err) {
			snprintf(errbuf, errlen, "out of memory");
			return err;
		}
		n = fread(b->p + b->len, 1, b->cap - b->len, f);
		b->len += n;
		if (b->len > max) {
			snprintf(errbuf, errlen, "larger than %zu bytes", max);
			return -EINVAL;
		}
		if (n == 0)
			break;
	}
	if (ferror(f)) {
		snprintf(errbuf, errlen, "read error");
		return -EIO;
	}
	return 0;
}

int vb_zread_file(const char *path, size_t max, char **out, size_t *outlen,
		  char *errbuf, size_t errlen)
{
	struct zbuf raw = { NULL, 0, 0 };
	char why[256];
	enum vb_zkind kind;
	FILE *f;
	int err;

	*out = NULL;
	*outlen = 0;
	f = fopen(path, "rb");
	if (!f) {
		err = -errno;
		snprintf(errbuf, errlen, "%s: %s", path, strerror(errno));
		return err;
	}
	/* compressed input may be up to max too: it only shrinks JSON */
	err = slurp(f, max, &raw, why, sizeof(why));
	fclose(f);
	if (err)
		goto fail;
	kind = vb_zkind_of(raw.p, raw.len);
	if (kind == VB_Z_PLAIN) {
		if (!raw.p) {
			raw.p = malloc(1);
			if (!raw.p) {
				snprintf(why, sizeof(why), "out of memory");
				err = -ENOMEM;
				goto fail;
			}
		}
		raw.p[raw.len] = '\0';
		*out = raw.p;
		*outlen = raw.len;
		return 0;
	}
	err = vb_zdecode(kind, raw.p, raw.len, max, out, outlen, why,
			 sizeof(why));
	free(raw.p);
	if (err)
		snprintf(errbuf, errlen, "%s: %s", path, why);
	return err;
fail:
	free(raw.p);
	snprintf(errbuf, errlen, "%s: %s", path, why);
	return err;
}
