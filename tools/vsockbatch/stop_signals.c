// SPDX-License-Identifier: GPL-2.0
/* stop_signals.c - see stop_signals.h. */
#include <signal.h>
#include <string.h>

#include "stop_signals.h"

void vb_catch_stop_signals(void (*fn)(int))
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = fn;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}
