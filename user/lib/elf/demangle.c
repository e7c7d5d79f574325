// SPDX-License-Identifier: GPL-2.0
/*
 * C++ demangling through the system's __cxa_demangle, found with dlopen()
 * so that the link stays libc-only (dlopen is in libc since glibc 2.34).
 * See demangle.h.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "elf/demangle.h"
#include "util/errors.h"

typedef char *(*cxa_demangle_fn)(const char *name, char *buf, size_t *len,
				 int *status);

static const char *const default_libs[] = {
	"libstdc++.so.6", "libc++.so.1", "libc++abi.so.1", NULL
};

static const char *const *libs = default_libs;
static cxa_demangle_fn cxa_demangle;
static bool looked, noted;

static cxa_demangle_fn demangler(void)
{
	size_t i;

	if (looked)
		return cxa_demangle;
	looked = true;
	for (i = 0; libs[i] && !cxa_demangle; i++) {
		/* Kept open: the function is used for the process lifetime. */
		void *h = dlopen(libs[i], RTLD_NOW | RTLD_LOCAL);

		if (h)
			cxa_demangle = (cxa_demangle_fn)dlsym(h,
							      "__cxa_demangle");
	}
	return cxa_demangle;
}

bool demangle_is_mangled(const char *name)
{
	return name[0] == '_' && name[1] == 'Z';
}

char *demangle(const char *name)
{
	cxa_demangle_fn fn;
	int status = -1;
	char *d;

	if (!demangle_is_mangled(name))
		return NULL;
	fn = demangler();
	if (!fn) {
		if (!noted)
			ispot_say("note: no C++ demangler found (install "
				  "libstdc++6); C++ names stay mangled");
		noted = true;
		return NULL;
	}
	d = fn(name, NULL, NULL, &status);
	if (status) {
		free(d);
		return NULL;
	}
	return d;
}

/* Whether s[0..] starts the keyword "operator" as a name component. */
static bool at_operator(const char *start, const char *s)
{
	return !strncmp(s, "operator", 8) &&
	       (s == start || s[-1] == ':' || s[-1] == ' ');
}

const char *demangle_skip_return(const char *demangled)
{
	size_t end = demangle_bare_len(demangled), i;
	const char *name = demangled;
	int depth = 0;

	for (i = 0; i < end; i++) {
		char c = demangled[i];

		/* Past "operator" come '<', '(' and spaces of its own. */
		if (!depth && at_operator(demangled, demangled + i))
			break;
		if (c == '(' || c == '<' || c == '[' || c == '{')
			depth++;
		else if ((c == ')' || c == '>' || c == ']' || c == '}') &&
			 depth)
			depth--;
		else if (c == ' ' && !depth)
			name = demangled + i + 1;
	}
	return name;
}

/* Trailing words a demangled function may carry after its parameters. */
static const char *const trailers[] = {
	" const", " volatile", " &&", " &", " noexcept", NULL
};

size_t demangle_signature_len(const char *demangled)
{
	size_t len = strlen(demangled), i;
	bool again = true;

	while (again) {
		again = false;
		/* GCC clones: "f(int) [clone .cold]". */
		if (len && demangled[len - 1] == ']') {
			const char *c = strstr(demangled, " [clone ");

			if (c && (size_t)(c - demangled) < len) {
				len = (size_t)(c - demangled);
				again = true;
				continue;
			}
		}
		for (i = 0; trailers[i]; i++) {
			size_t tl = strlen(trailers[i]);

			if (len > tl &&
			    !strncmp(demangled + len - tl, trailers[i], tl)) {
				len -= tl;
				again = true;
				break;
			}
		}
	}
	return len;
}

size_t demangle_bare_len(const char *demangled)
{
	size_t len = demangle_signature_len(demangled), i;
	int depth = 0;

	if (!len || demangled[len - 1] != ')')
		return strlen(demangled);
	for (i = len; i-- > 0;) {
		if (demangled[i] == ')')
			depth++;
		else if (demangled[i] == '(' && !--depth)
			return i;
	}
	return strlen(demangled);
}

void demangle_reset(const char *const *l)
{
	libs = l ? l : default_libs;
	cxa_demangle = NULL;
	looked = false;
	noted = false;
}
