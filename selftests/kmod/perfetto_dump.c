// SPDX-License-Identifier: GPL-2.0
/*
 * perfetto_dump FILE: print a Perfetto trace written by ispotctl
 * --perfetto one line per track and event, as perfetto_lib.sh reads them
 * (selftests/host/perfetto_test.sh makes the same lines from protoc's
 * decoding on the host; the guest has no protoc):
 *
 *	trace PACKETS CLEARED SEQUENCED CLOCK DESCRIPTORS_FIRST
 *	track UUID PARENT TID NAME
 *	event TS TRACK B|E|I FLOWS TERMINATING NAME
 *
 * FLOWS: the flow ids the event starts, joined by commas, 0 for none.
 *
 * Exits 1, with one line on stderr, when the file cannot be read or is
 * not well-formed protobuf.
 */
#include <stdio.h>

#include "perfetto_reader.h"

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t cap = 0, n;

	if (!f)
		return NULL;
	*len = 0;
	for (;;) {
		if (*len == cap) {
			char *b = realloc(buf, cap ? 2 * cap : 65536);

			if (!b)
				break;
			buf = b;
			cap = cap ? 2 * cap : 65536;
		}
		n = fread(buf + *len, 1, cap - *len, f);
		*len += n;
		if (!n)
			break;
	}
	if (ferror(f) || !buf) {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	return buf;
}

int main(int argc, char **argv)
{
	struct pr_trace t;
	size_t len, i;
	char *buf;

	if (argc != 2) {
		fprintf(stderr, "usage: perfetto_dump FILE\n");
		return 2;
	}
	buf = slurp(argv[1], &len);
	if (!buf) {
		fprintf(stderr, "perfetto_dump: cannot read %s\n", argv[1]);
		return 1;
	}
	if (pr_read(buf, len, &t)) {
		fprintf(stderr, "perfetto_dump: %s is not a well-formed "
			"trace\n", argv[1]);
		return 1;
	}
	printf("trace %zu %d %d %d %d\n", t.nr_packets, t.first_cleared,
	       t.all_sequenced, t.clock_snapshot, t.descriptors_first);
	for (i = 0; i < t.nr_tr; i++)
		printf("track %llu %llu %llu %s\n",
		       (unsigned long long)t.tr[i].uuid,
		       (unsigned long long)t.tr[i].parent,
		       (unsigned long long)t.tr[i].tid,
		       t.tr[i].name[0] ? t.tr[i].name : "-");
	for (i = 0; i < t.nr_ev; i++) {
		const struct pr_event *e = &t.ev[i];
		unsigned int j;

		printf("event %llu %llu %c ", (unsigned long long)e->ts,
		       (unsigned long long)e->track,
		       e->type == 1 ? 'B' : e->type == 2 ? 'E' :
		       e->type == 3 ? 'I' : '?');
		for (j = 0; j < e->nr_flows; j++)
			printf("%s%llu", j ? "," : "",
			       (unsigned long long)e->flows[j]);
		printf("%s %llu %s\n", e->nr_flows ? "" : "0",
		       (unsigned long long)e->terminating,
		       e->name[0] ? e->name : "-");
	}
	pr_free(&t);
	free(buf);
	return 0;
}
