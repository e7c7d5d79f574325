/* SPDX-License-Identifier: GPL-2.0 */
/*
 * C++ names: the system's __cxa_demangle, loaded at run time, and the
 * parts of a demangled name that specs match against.
 *
 * The demangler comes from libstdc++.so.6 or libc++.so.1 through dlopen(),
 * so ispotctl and ispotd stay linked against libc only.  Without either,
 * names stay mangled and a note says so once (on stderr).
 */
#ifndef ISPOT_DEMANGLE_H
#define ISPOT_DEMANGLE_H

#include <stdbool.h>
#include <stddef.h>

/* Whether name is an Itanium C++ ABI linkage name ("_Z..."). */
bool demangle_is_mangled(const char *name);

/*
 * The demangled form of name, malloc'd (free() it).  NULL when name is not
 * mangled, is not valid, or no demangler is installed.
 */
char *demangle(const char *name);

/*
 * A demangled function name without its return type: template functions
 * demangle as "int ns::max<int>(int, int)"; this points at "ns::max...".
 */
const char *demangle_skip_return(const char *demangled);

/*
 * Length of a demangled name without what may follow its parameter list
 * (" const", "&&", "[clone .cold]"): "ns::A::f(int) const" -> 13.
 */
size_t demangle_signature_len(const char *demangled);

/*
 * Length of a demangled name without its parameter list and what follows
 * it (" const", "&&", "[clone .cold]"): "ns::A::f(int) const" -> 8.
 */
size_t demangle_bare_len(const char *demangled);

/*
 * Test hook: the libraries to try instead of the default ones (NULL-ended,
 * NULL for the defaults); forgets the demangler found so far and lets the
 * note be printed again.
 */
void demangle_reset(const char *const *libs);

#endif /* ISPOT_DEMANGLE_H */
