// SPDX-License-Identifier: GPL-2.0
/*
 * /etc/ld.so.cache, the new format ("glibc-ld.so.cache1.1", alone or
 * after an old-format cache's entries): read whole, bounded, each offset
 * checked, and looked up by library name as ld.so does.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "elf/elf_internal.h"

/* Keeps a hostile cache from making us allocate without limit. */
#define MAX_LDCACHE_SIZE	(64u << 20)

#define LDCACHE_OLD_MAGIC	"ld.so-1.7.0"
#define LDCACHE_NEW_MAGIC	"glibc-ld.so.cache1.1"
#define LDCACHE_NEW_HDR		48	/* magic, version, counts... */
#define LDCACHE_NEW_ENT		24	/* flags, key, value, hwcap */
#define LDCACHE_OLD_HDR		16	/* magic, pad, nlibs */
#define LDCACHE_OLD_ENT		12	/* flags, key, value */
#define LDCACHE_FLAG_TYPE_MASK	0x00ff
#define LDCACHE_FLAG_ELF_LIBC6	0x0003

void elf_ldcache_load(struct elf_ldcache *c)
{
	struct elf_file f = { .fd = -1 };
	struct stat st;
	size_t off = 0;
	uint32_t n;

	memset(c, 0, sizeof(*c));
	f.fd = elf_open_regular("/etc/ld.so.cache", &st, NULL, 0);
	if (f.fd < 0)
		return;
	if ((uint64_t)st.st_size > MAX_LDCACHE_SIZE)
		goto out;
	f.size = (uint64_t)st.st_size;
	if (elf_read_dup(&f, 0, f.size, &c->buf))
		goto out;
	c->size = (size_t)f.size;

	/* An old-format cache may carry the new one after its entries. */
	if (c->size >= LDCACHE_OLD_HDR &&
	    !memcmp(c->buf, LDCACHE_OLD_MAGIC, sizeof(LDCACHE_OLD_MAGIC) - 1)) {
		memcpy(&n, c->buf + 12, sizeof(n));
		if (n > (c->size - LDCACHE_OLD_HDR) / LDCACHE_OLD_ENT)
			goto bad;
		off = LDCACHE_OLD_HDR + (size_t)n * LDCACHE_OLD_ENT;
		off = (off + 7) & ~(size_t)7;
	}
	if (off > c->size || c->size - off < LDCACHE_NEW_HDR ||
	    memcmp(c->buf + off, LDCACHE_NEW_MAGIC,
		   sizeof(LDCACHE_NEW_MAGIC) - 1))
		goto bad;
	memcpy(&n, c->buf + off + 20, sizeof(n));
	if (n > (c->size - off - LDCACHE_NEW_HDR) / LDCACHE_NEW_ENT)
		goto bad;
	c->base = c->buf + off;
	c->entries = (const uint8_t *)c->buf + off + LDCACHE_NEW_HDR;
	c->nlibs = n;
	goto out;
bad:
	free(c->buf);
	memset(c, 0, sizeof(*c));
out:
	close(f.fd);
}

/* A NUL-terminated string at offset so of the cache, or NULL. */
static const char *ldcache_str(const struct elf_ldcache *c, uint32_t so)
{
	size_t start = (size_t)(c->base - c->buf) + so;

	if (start >= c->size || !memchr(c->buf + start, '\0', c->size - start))
		return NULL;
	return c->buf + start;
}

/*
 * Entries for other ABIs (lib32 next to lib64) share the key, so each hit
 * is checked for the right machine.  Hardware-capability variants come
 * last: ld.so prefers them only on matching CPUs, which we cannot judge.
 */
bool elf_ldcache_lookup(const struct elf_ldcache *c, const char *name,
			uint16_t machine, char *out, size_t outlen)
{
	int pass;
	uint32_t i;

	for (pass = 0; pass < 2; pass++) {
		for (i = 0; i < c->nlibs; i++) {
			const uint8_t *e = c->entries +
					   (size_t)i * LDCACHE_NEW_ENT;
			int32_t flags;
			uint32_t key, value;
			uint64_t hwcap;
			const char *k, *v;

			memcpy(&flags, e, 4);
			memcpy(&key, e + 4, 4);
			memcpy(&value, e + 8, 4);
			memcpy(&hwcap, e + 16, 8);
			if ((flags & LDCACHE_FLAG_TYPE_MASK) !=
			    LDCACHE_FLAG_ELF_LIBC6 || (hwcap != 0) != pass)
				continue;
			k = ldcache_str(c, key);
			v = ldcache_str(c, value);
			if (k && v && !strcmp(k, name) &&
			    elf_lib_try(v, machine, out, outlen))
				return true;
		}
	}
	return false;
}

void elf_ldcache_free(struct elf_ldcache *c)
{
	free(c->buf);
	memset(c, 0, sizeof(*c));
}
