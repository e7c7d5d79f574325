// SPDX-License-Identifier: GPL-2.0
/*
 * pictures_gen DIR PAGE: the synthetic trace of pictures_scenario.h
 * through the real pipeline, its pictures into DIR (as --svg DIR) and
 * its HTML report into PAGE (as --html PAGE), for pictures_test.sh to
 * render with rsvg-convert and to load in Chromium.  Prints the traced
 * functions' names, one a line.
 */
#include <stdio.h>

#include "unit/pictures_scenario.h"
#include "report/html.h"
#include "report/pictures.h"
#include "util/afile.h"
#include "util/errors.h"

int main(int argc, char **argv)
{
	struct pictures_scenario s;
	struct afile page;
	size_t i;
	int ret;

	ispot_progname = "pictures_gen";
	if (argc != 3) {
		fprintf(stderr, "usage: %s DIR PAGE\n", argv[0]);
		return 2;
	}
	if (pictures_scenario_build(&s)) {
		fprintf(stderr, "%s: cannot build the trace\n", argv[0]);
		return 1;
	}
	ret = pictures_write(argv[1], &s.rep, &s.pics) ? 1 : 0;
	if (!ret && afile_open(&page, argv[2]) == 0) {
		if (report_html(page.f, &s.rep, &s.pics)) {
			afile_abort(&page);
			ret = 1;
		} else if (afile_commit(&page)) {
			ret = 1;
		}
	} else if (!ret) {
		ret = 1;
	}
	for (i = 0; !ret && i < s.sci->nr_funcs; i++)
		printf("%s\n", ps_names[s.sci->funcs[i].func_id]);
	pictures_scenario_free(&s);
	return ret;
}
