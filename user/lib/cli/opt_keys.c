// SPDX-License-Identifier: GPL-2.0
/*
 * The key rules of --key FUNC=RULE (opttab.h): "arg1:log2", "callsite",
 * "shape", "auto", "none" to a struct key_rule and back.
 */
#include <stdio.h>
#include <string.h>

#include "cli/opttab.h"

bool key_rule_parse(const char *s, struct key_rule *rule)
{
	static const struct {
		const char *name;
		enum key_kind kind;
	} words[] = {
		{ "none", KEY_NONE }, { "callsite", KEY_CALLSITE },
		{ "auto", KEY_AUTO }, { "shape", KEY_SHAPE },
	};
	size_t i;

	memset(rule, 0, sizeof(*rule));
	for (i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
		if (!strcmp(s, words[i].name)) {
			rule->kind = words[i].kind;
			return true;
		}
	}
	if (strncmp(s, "arg", 3) || s[3] < '0' || s[3] > '2')
		return false;
	rule->kind = KEY_ARG;
	rule->arg = s[3] - '0';
	if (!strcmp(s + 4, ":log2"))
		rule->log2 = true;
	return !s[4] || rule->log2;
}

void key_rule_format(const struct key_rule *rule, char *buf, size_t len)
{
	switch (rule->kind) {
	case KEY_ARG:
		snprintf(buf, len, "arg%u%s", rule->arg,
			 rule->log2 ? ":log2" : "");
		break;
	case KEY_CALLSITE:
		snprintf(buf, len, "callsite");
		break;
	case KEY_AUTO:
		snprintf(buf, len, "auto");
		break;
	case KEY_SHAPE:
		snprintf(buf, len, "shape");
		break;
	default:
		snprintf(buf, len, "%s", "");
	}
}
