/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ispotd's scores over time (`ispotctl plot --windows LOG --svg DIR`,
 * Documentation/usage.rst, "Scores over time"): the daemon's window log
 * (Documentation/ispotd.rst, "A window"), one JSON object a line, read
 * back, and each function's SCI, and INTERF where the windows had wait
 * records, drawn as a line over the windows' time.
 */
#ifndef ISPOT_WINDOW_PLOT_H
#define ISPOT_WINDOW_PLOT_H

/*
 * DIR/windows.sci.svg, and DIR/windows.interf.svg when any window has
 * INTERF, from the window log @log.  The PICTURE_LINES functions with
 * the highest peak are drawn, the others counted under the picture.  DIR
 * is made if missing, once the log has been read.  On any error (an
 * unreadable log, a line that is not a window, no window at all, a file
 * that cannot be written): one line said, nothing left written, -1.
 */
int window_plot(const char *log, const char *dir);

#endif /* ISPOT_WINDOW_PLOT_H */
