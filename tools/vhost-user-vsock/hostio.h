/* SPDX-License-Identifier: GPL-2.0 */
/* Host-side test endpoints of the hybrid-vsock convention. */
#ifndef HOSTIO_H
#define HOSTIO_H

int hostio_send(int argc, char **argv);
int hostio_recv(int argc, char **argv);
int hostio_pingpong(int argc, char **argv);

#endif
