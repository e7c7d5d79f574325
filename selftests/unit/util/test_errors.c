// SPDX-License-Identifier: GPL-2.0
/*
 * One-line errors and notes (util/errors.c): the program's name first,
 * and one line whatever the message quotes.
 */
#include <string.h>

#include "ispot_test.h"
#include "stderr_capture.h"
#include "util/errors.h"

/*
 * A path any user names (here with a newline and a forged line after
 * it, and a byte that is not UTF-8) stays on the line of the message
 * that quotes it: each control character, and each byte that starts no
 * UTF-8 sequence, as \xNN; valid UTF-8 as it is.
 */
TEST(quoted_names_stay_on_one_line)
{
	static const char path[] = "/tmp/x\nispotd: target 1 gone\r\t\x1b[2J";

	ispot_progname = "ispotd";
	capture_begin();
	ispot_say("note: caf\xc3\xa9 \xff\xc3");
	capture_end();
	EXPECT_STREQ(captured, "ispotd: note: caf\xc3\xa9 \\xff\\xc3\n");

	ispot_progname = "ispotd";
	capture_begin();
	ispot_error("cannot read %s", path);
	ispot_say("note: %s", path);
	capture_end();
	EXPECT_STREQ(captured,
		     "ispotd: cannot read /tmp/x\\x0aispotd: target 1 gone"
		     "\\x0d\\x09\\x1b[2J\n"
		     "ispotd: note: /tmp/x\\x0aispotd: target 1 gone"
		     "\\x0d\\x09\\x1b[2J\n");
}

/* A message longer than the line's first buffer is said whole. */
TEST(long_messages_whole)
{
	char name[5000];

	memset(name, 'n', sizeof(name) - 1);
	name[sizeof(name) - 1] = '\0';
	ispot_progname = "ispotctl";
	capture_begin();
	ispot_error("%s.", name);
	capture_end();
	EXPECT_EQ(strlen(captured), strlen("ispotctl: .\n") + 4999);
	EXPECT_EQ(strncmp(captured, "ispotctl: nnn", 13), 0);
	EXPECT_STREQ(captured + strlen(captured) - 3, "n.\n");
}

TEST_HARNESS_MAIN
