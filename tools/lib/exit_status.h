/* SPDX-License-Identifier: GPL-2.0 */
/*
 * exit_status.h - the process exit statuses every vsockbatch command (the
 * tracer's and the lab's) returns: 0 success, 1 runtime failure, 2 bad
 * usage or bad input.
 */
#ifndef VSOCKBATCH_EXIT_STATUS_H
#define VSOCKBATCH_EXIT_STATUS_H

#define VB_EXIT_OK	0
#define VB_EXIT_FAIL	1
#define VB_EXIT_USAGE	2

#endif
