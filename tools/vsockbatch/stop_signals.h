/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stop_signals.h - the signals that end a live command (record, top,
 * export): SIGINT, SIGTERM and SIGHUP call fn, which only sets a flag the
 * command's loop reads.  Installed before the slow attach (seconds under
 * TCG), so a Ctrl-C then is not lost: it ends the run right after it.
 */
#ifndef VB_STOP_SIGNALS_H
#define VB_STOP_SIGNALS_H

void vb_catch_stop_signals(void (*fn)(int));

#endif
