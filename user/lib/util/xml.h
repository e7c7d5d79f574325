/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Text taken from a traced program (function names, key labels, paths,
 * notes) into XML or HTML, as text or as an attribute value: the SVG
 * pictures and the HTML report write every such string through here.
 */
#ifndef ISPOT_XML_H
#define ISPOT_XML_H

#include <stddef.h>
#include <stdio.h>

/*
 * @s with '<', '>', '&' and both quotes as entities; control characters
 * but newline and tab, and bytes that are not UTF-8, as '?' (so the
 * document stays well formed whatever the bytes were); at most @max
 * bytes of @s (0: all), "..." after a cut.
 */
void xml_escape(FILE *f, const char *s, size_t max);

#endif /* ISPOT_XML_H */
