// SPDX-License-Identifier: GPL-2.0
/*
 * Block specs to USDT probe sites: "NAME" for include/ispot.h's markers
 * (ispot:NAME_begin and ispot:NAME_end in the main executable) and
 * "NAME=[OBJ:]PROV:BEGIN,PROV:END" for any two probes of one object.
 *
 * A probe name may have several sites (a marker used in several places,
 * copies of an inline function); a block starts at any site of its begin
 * probe and ends at any site of its end probe.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "elf/elf_internal.h"

#define BLOCK_USAGE	"--block wants NAME=[OBJ:]PROV:BEGIN,PROV:END"
#define MARKER_PROVIDER	"ispot"
/* NAME_begin must fit a probe name. */
#define BLOCK_NAME_MAX	(ELF_USDT_NAME_MAX - sizeof("_begin"))
/* Names listed in a "not found" message before " ...". */
#define MAX_LISTED	16

struct block_spec {
	char name[ELF_SYM_NAME_MAX];	/* display name */
	char *obj;			/* OBJ, or NULL: the executable */
	char prov[2][ELF_USDT_NAME_MAX];	/* [0] begin, [1] end */
	char probe[2][ELF_USDT_NAME_MAX];
	bool marker;			/* the "NAME" form */
};

static const char *const which[2] = { "begin", "end" };

static bool is_identifier(const char *s)
{
	if (!isalpha((unsigned char)*s) && *s != '_')
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '_')
			return false;
	return true;
}

static int check_name(const char *name, const char *spec, char *err,
		      size_t errlen)
{
	size_t len = strlen(name);

	if (!len)
		return elf_fail(err, errlen, -EINVAL,
				"empty block name in '%s': name the block, as in block:critical or --block critical=...",
				spec);
	if (len > BLOCK_NAME_MAX)
		return elf_fail(err, errlen, -EINVAL,
				"block name '%.32s...' is too long (%zu characters): use at most %zu",
				name, len, BLOCK_NAME_MAX);
	return 0;
}

/* "PROV:PROBE" (end == NULL: up to the NUL) into prov and probe. */
static bool split_probe(const char *s, const char *end, char *prov,
			char *probe)
{
	const char *colon;
	size_t plen, nlen;

	if (!end)
		end = s + strlen(s);
	colon = memchr(s, ':', (size_t)(end - s));
	if (!colon)
		return false;
	plen = (size_t)(colon - s);
	nlen = (size_t)(end - colon - 1);
	if (!plen || !nlen || plen >= ELF_USDT_NAME_MAX ||
	    nlen >= ELF_USDT_NAME_MAX || memchr(colon + 1, ':', nlen))
		return false;
	memcpy(prov, s, plen);
	prov[plen] = '\0';
	memcpy(probe, colon + 1, nlen);
	probe[nlen] = '\0';
	return true;
}

/*
 * NAME=[OBJ:]PROV:BEGIN,PROV:END: the end probe follows the last ',', the
 * begin probe is the last two ':'-separated fields before it, and OBJ
 * (which may hold ':' or ',') is what comes before those.
 */
static int parse_pair(const char *spec, const char *eq, struct block_spec *b,
		      char *err, size_t errlen)
{
	const char *rhs = eq + 1, *comma, *c1 = NULL, *c2 = NULL, *s;
	size_t len = (size_t)(eq - spec);
	int rc;

	if (len >= sizeof(b->name))
		len = sizeof(b->name) - 1;
	memcpy(b->name, spec, len);
	b->name[len] = '\0';
	if (!b->name[0])
		return elf_fail(err, errlen, -EINVAL,
				"bad --block '%s' (empty NAME): " BLOCK_USAGE,
				spec);
	rc = check_name(b->name, spec, err, errlen);
	if (rc)
		return rc;
	comma = strrchr(rhs, ',');
	if (!comma || !split_probe(comma + 1, NULL, b->prov[1], b->probe[1]))
		return elf_fail(err, errlen, -EINVAL,
				"bad --block '%s' (no PROV:END after ','): " BLOCK_USAGE,
				spec);
	for (s = rhs; s < comma; s++)
		if (*s == ':') {
			c1 = c2;
			c2 = s;
		}
	if (!c2 || !split_probe(c1 ? c1 + 1 : rhs, comma, b->prov[0],
				b->probe[0]))
		return elf_fail(err, errlen, -EINVAL,
				"bad --block '%s' (no PROV:BEGIN before ','): " BLOCK_USAGE,
				spec);
	if (c1) {
		if (c1 == rhs)
			return elf_fail(err, errlen, -EINVAL,
					"bad --block '%s' (empty OBJ): " BLOCK_USAGE,
					spec);
		b->obj = strndup(rhs, (size_t)(c1 - rhs));
		if (!b->obj)
			return elf_fail(err, errlen, -ENOMEM, "out of memory");
	}
	return 0;
}

static int parse_spec(const char *spec, struct block_spec *b, char *err,
		      size_t errlen)
{
	const char *eq = strchr(spec, '=');
	int rc, i;

	memset(b, 0, sizeof(*b));
	if (eq)
		return parse_pair(spec, eq, b, err, errlen);
	rc = check_name(spec, spec, err, errlen);
	if (rc)
		return rc;
	if (!is_identifier(spec))
		return elf_fail(err, errlen, -EINVAL,
				"bad block name '%s': ISPOT_BLOCK_BEGIN() takes a C identifier (a pair of other probes is --block NAME=[OBJ:]PROV:BEGIN,PROV:END)",
				spec);
	b->marker = true;
	snprintf(b->name, sizeof(b->name), "block:%s", spec);
	for (i = 0; i < 2; i++) {
		elf_copy_str(b->prov[i], sizeof(b->prov[i]), MARKER_PROVIDER);
		snprintf(b->probe[i], sizeof(b->probe[i]), "%s_%s", spec,
			 which[i]);
	}
	return 0;
}

/* Append fmt to the message in err, as far as it fits. */
static void append(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void append(char *err, size_t errlen, const char *fmt, ...)
{
	size_t used;
	va_list ap;

	if (!err || !errlen)
		return;
	used = strlen(err);
	va_start(ap, fmt);
	vsnprintf(err + used, errlen - used, fmt, ap);
	va_end(ap);
}

enum list_kind {
	LIST_PROVIDERS,		/* every provider */
	LIST_PROBES,		/* probe names of one provider */
	LIST_BLOCKS,		/* NAME of ispot:NAME_begin/NAME_end */
};

/* The length of NAME in NAME_begin or NAME_end, else 0. */
static size_t marker_stem(const char *probe)
{
	size_t len = strlen(probe), i;

	for (i = 0; i < 2; i++) {
		size_t slen = strlen(which[i]) + 1;

		if (len > slen && probe[len - slen] == '_' &&
		    !strcmp(probe + len - slen + 1, which[i]))
			return len - slen;
	}
	return 0;
}

/* What p contributes to a list of kind: *key, of the length returned. */
static size_t list_key(const struct elf_usdt_probe *p, enum list_kind kind,
		       const char *prov, const char **key)
{
	switch (kind) {
	case LIST_PROVIDERS:
		*key = p->provider;
		return strlen(p->provider);
	case LIST_PROBES:
		*key = p->name;
		return strcmp(p->provider, prov) ? 0 : strlen(p->name);
	default:
		*key = p->name;
		return strcmp(p->provider, MARKER_PROVIDER) ? 0 :
		       marker_stem(p->name);
	}
}

/* Append the distinct keys of kind, comma-separated; how many. */
static size_t append_list(char *err, size_t errlen,
			  const struct elf_usdt_probe *p, size_t n,
			  enum list_kind kind, const char *prov)
{
	size_t i, k, listed = 0;

	for (i = 0; i < n; i++) {
		const char *key, *other;
		size_t len = list_key(&p[i], kind, prov, &key);
		bool seen = false;

		for (k = 0; len && k < i && !seen; k++)
			seen = list_key(&p[k], kind, prov, &other) == len &&
			       !memcmp(key, other, len);
		if (!len || seen)
			continue;
		if (listed == MAX_LISTED) {
			append(err, errlen, ", ...");
			break;
		}
		append(err, errlen, "%s%.*s", listed ? ", " : "", (int)len,
		       key);
		listed++;
	}
	return listed;
}

/*
 * Probe i (0 begin, 1 end) of b is not in the object: say what is, and
 * for a marker missing its other half, which macro is missing.
 */
static int not_found(const struct block_spec *b, int i, bool other_found,
		     const char *shown, const struct elf_usdt_probe *p,
		     size_t n, char *err, size_t errlen)
{
	const char *stem = b->name + strlen("block:");
	size_t k;

	if (b->marker && other_found)
		return elf_fail(err, errlen, -ENOENT,
				"block '%s' in %s has %s %s marker but no %s marker: add ISPOT_BLOCK_%s(%s)",
				stem, shown, i ? "a" : "an", which[!i], which[i],
				i ? "END" : "BEGIN", stem);
	if (b->marker) {
		elf_fail(err, errlen, -ENOENT, "no block '%s' in %s: ", stem,
			 shown);
		append(err, errlen, "its ispot blocks are: ");
		if (!append_list(err, errlen, p, n, LIST_BLOCKS, NULL))
			append(err, errlen,
			       "none (mark one with include/ispot.h)");
		append(err, errlen, "; ");
	} else {
		elf_fail(err, errlen, -ENOENT,
			 "no USDT probe '%s:%s' (the %s of block '%s') in %s: ",
			 b->prov[i], b->probe[i], which[i], b->name, shown);
		for (k = 0; k < n; k++)
			if (!strcmp(p[k].provider, b->prov[i]))
				break;
		if (k < n) {
			append(err, errlen, "its %s probes are: ",
			       b->prov[i]);
			append_list(err, errlen, p, n, LIST_PROBES,
				    b->prov[i]);
			append(err, errlen, "; ");
		}
	}
	append(err, errlen, "providers present: ");
	append_list(err, errlen, p, n, LIST_PROVIDERS, NULL);
	return -ENOENT;
}

static int site_cmp(const void *pa, const void *pb)
{
	const struct elf_usdt_site *a = pa, *b = pb;

	return a->offset < b->offset ? -1 : a->offset > b->offset;
}

/* The sites of probe i of b into *sites, sorted by offset. */
static int collect(const struct block_spec *b, int i, const char *canon,
		   const char *shown, const struct elf_usdt_probe *p,
		   size_t n, struct elf_usdt_site **sites, size_t *nsites,
		   char *warn, size_t warnlen, char *err, size_t errlen)
{
	struct elf_usdt_site *v;
	size_t k, nv = 0;

	*sites = NULL;
	*nsites = 0;
	v = calloc(n ? n : 1, sizeof(*v));
	if (!v)
		return elf_fail(err, errlen, -ENOMEM, "out of memory");
	for (k = 0; k < n; k++) {
		const struct elf_usdt_probe *pr = &p[k];

		if (strcmp(pr->provider, b->prov[i]) ||
		    strcmp(pr->name, b->probe[i]))
			continue;
		if (pr->bad) {
			free(v);
			return elf_fail(err, errlen, -EINVAL,
					"USDT probe '%s:%s' in %s (address 0x%" PRIx64 ") %s: the object is corrupt or was not built for this machine",
					pr->provider, pr->name, shown,
					pr->vaddr, pr->bad);
		}
		if (pr->sem_bad && !warn[0])
			elf_fail(warn, warnlen, 0,
				 "%s: the semaphore of USDT probe '%s:%s' (address 0x%" PRIx64 ") %s; tracing it without",
				 shown, pr->provider, pr->name, pr->sem_vaddr,
				 pr->sem_bad);
		elf_copy_str(v[nv].obj, sizeof(v[nv].obj), canon);
		v[nv].vaddr = pr->vaddr;
		v[nv].offset = pr->offset;
		v[nv].sem_offset = pr->sem_offset;
		nv++;
	}
	qsort(v, nv, sizeof(*v), site_cmp);
	if (!nv) {
		free(v);
		return 0;
	}
	*sites = v;
	*nsites = nv;
	return 0;
}

void elf_block_free(struct elf_block *b)
{
	free(b->begin);
	free(b->end);
	b->begin = b->end = NULL;
	b->nr_begin = b->nr_end = 0;
}

int elf_resolve_block(const char *spec, pid_t pid, const char *exe,
		      struct elf_block *out, char *err, size_t errlen)
{
	struct elf_usdt_probe *p = NULL;
	struct elf_usdt_site *sites[2] = { NULL, NULL };
	size_t nsites[2] = { 0, 0 }, n = 0;
	char path[PATH_MAX], canon[PATH_MAX];
	struct block_spec b;
	int rc, i;

	memset(out, 0, sizeof(*out));
	if (!spec)
		spec = "";
	rc = parse_spec(spec, &b, err, errlen);
	if (rc)
		goto out;
	rc = elf_locate_object(b.obj, pid, exe, spec, path, sizeof(path),
			       err, errlen);
	if (rc)
		goto out;
	rc = elf_usdt_list(path, &p, &n, err, errlen);
	if (rc)
		goto out;
	if (!n) {
		rc = elf_fail(err, errlen, -ENOENT,
			      "%s has no USDT probes (.note.stapsdt): build it with include/ispot.h or sys/sdt.h",
			      path);
		goto out;
	}
	if (!realpath(path, canon))
		elf_copy_str(canon, sizeof(canon), path);
	for (i = 0; i < 2; i++) {
		rc = collect(&b, i, canon, path, p, n, &sites[i], &nsites[i],
			     out->warn, sizeof(out->warn), err, errlen);
		if (rc)
			goto out;
	}
	for (i = 0; i < 2; i++)
		if (!nsites[i]) {
			rc = not_found(&b, i, nsites[!i] > 0, path, p, n, err,
				       errlen);
			goto out;
		}
	elf_copy_str(out->name, sizeof(out->name), b.name);
	elf_copy_str(out->obj, sizeof(out->obj), canon);
	out->begin = sites[0];
	out->nr_begin = nsites[0];
	out->end = sites[1];
	out->nr_end = nsites[1];
	sites[0] = sites[1] = NULL;
out:
	if (rc)
		out->warn[0] = '\0';
	free(sites[0]);
	free(sites[1]);
	free(p);
	free(b.obj);
	return rc;
}
