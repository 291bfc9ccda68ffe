#!/bin/sh
# The lab's default experiment on one kernel: the upstream suite, then
# vsock_perf at 64 B, 4 KiB and 64 KiB.  Arguments go to vsock_perf.sh.
rc=0
sh /vb/guest/vsock_test.sh || rc=1
sh /vb/guest/vsock_perf.sh "$@" || rc=1
exit $rc
