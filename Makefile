# vsockbatch — build, lab and tests.
#
#   make            BPF objects + skeletons, the loader, the lab program,
#                   benchmarks and test programs (build/)
#   make deps       install the Debian packages the project needs
#   make check      unit tests, then the guest tests (boots lab kernels)
#   make results-check  results/ regenerates from its archives; file sizes;
#                   the docs' quoted paths (part of make check)
#   make lab        build/reuse both lab kernels, run the default experiment
#   make experiment the AB/BA benchmark matrix (results/<date>-<label>/)
#   make install    the user's tools, man pages and bash completion
#                   (PREFIX=/usr/local, DESTDIR=; NO_EXPORT=1 leaves out
#                   the one dynamic program, vsockbatch-export); make uninstall
#   make static     build/dist/vsockbatch-VERSION-static-ARCH.tar.gz: the
#                   same tree as make install without vsockbatch-export
#                   (libmicrohttpd has no static build on Debian 12), for a
#                   guest without libbpf
#   make deb        build/deb/vsockbatch_VERSION_ARCH.deb (dpkg-buildpackage)
#   make docs-check the results index, the paths the docs quote, the man
#                   pages against --help, the bash completion
#
# Layout of build/: bpf/*.bpf.o + *.skel.h, obj/ (user objects), the static
# binaries at the top (they are copied into guest initramfs images), and
# tests/ (unit-test binaries, linked dynamically: they run on the host).
#
# Who owns what: tools/vsockbatch/ is the user's tracer (record, report,
# compare, top, probe) and nothing else; tools/lab/ is build/vsockbatch-lab,
# the experiment's and the build's own commands (summarize, corecheck);
# tools/lib/ is code they all link (the stress stream among it, which the
# lab's vhost-user back-end writes and the tests check); tests/lib/ is test
# support for tests/progs/ and the unit tests.

OUTPUT    := build
CC        ?= gcc
CLANG     ?= clang
LLVM_STRIP ?= llvm-strip
BPFTOOL   ?= bpftool
ARCH      := $(shell uname -m | sed 's/x86_64/x86/;s/aarch64/arm64/')

# Our own code: warnings are errors.
CFLAGS    ?= -g -O2
CFLAGS    += -Wall -Wextra -Werror -std=gnu11 -D_GNU_SOURCE \
	     -Iinclude -Itools/lib -I$(OUTPUT)/bpf
BPFCFLAGS := -g -O2 -Wall -Werror -target bpf -D__TARGET_ARCH_$(ARCH) \
	     -Iinclude -Ibpf
# v3 (kernels >= 5.1; the oldest the tool supports is 6.1): 32-bit
# subregisters and jlt/jle, so that a __u32 costs no zero-extending shift
# pair and a compare with a constant no extra move, on the per-packet path.
BPFCFLAGS += -mcpu=v3
# The object's bytes are --version's BPF build id: keep the build
# directory out of its BTF line info, so the same source gives the same id
# wherever it is built (a package build, a clone).
BPFCFLAGS += -fdebug-prefix-map=$(CURDIR)=.
# Guest binaries are static: they run in a busybox initramfs.
STATIC_LDFLAGS := -static
BPF_LIBS  := -lbpf -lelf -lz -lzstd
TOOL_LIBS := -ljansson -lncursesw -ltinfo -lm
TEST_LIBS := -lcmocka -ljansson -lncursesw -ltinfo -lm -lmicrohttpd -lpthread
# The exporter's HTTP server: Debian's libmicrohttpd needs GnuTLS and
# p11-kit, which has no static library, so the exporter is the one
# dynamically linked tool (build/dyn/; initramfs.sh copies its libraries).
EXPORT_LIBS := -lmicrohttpd -lpthread

BPF_SRCS   := $(wildcard bpf/*.bpf.c)
BPF_OBJS   := $(patsubst bpf/%.bpf.c,$(OUTPUT)/bpf/%.bpf.o,$(BPF_SRCS))
BPF_SKELS  := $(patsubst bpf/%.bpf.c,$(OUTPUT)/bpf/%.skel.h,$(BPF_SRCS))

LIB_SRCS   := $(wildcard tools/lib/*.c)
LIB_OBJS   := $(patsubst %.c,$(OUTPUT)/obj/%.o,$(LIB_SRCS))
LIBVB      := $(OUTPUT)/libvsockbatch.a

TESTLIB_SRCS := $(wildcard tests/lib/*.c)
TESTLIB_OBJS := $(patsubst %.c,$(OUTPUT)/obj/%.o,$(TESTLIB_SRCS))
LIBVBTEST  := $(OUTPUT)/libvbtest.a

LOADER_SRCS := $(wildcard tools/vsockbatch/*.c)
LOADER_OBJS := $(patsubst %.c,$(OUTPUT)/obj/%.o,$(LOADER_SRCS))
# Everything of the loader but the two main()s, for the unit tests.
LOADER_LIB_OBJS := $(filter-out $(OUTPUT)/obj/tools/vsockbatch/main.o \
	$(OUTPUT)/obj/tools/vsockbatch/export_main.o,$(LOADER_OBJS))
# The exporter's own objects (libmicrohttpd): not in the static vsockbatch,
# whose `export` runs build/dyn/vsockbatch-export (export_exec.c).
EXPORT_OBJS := $(addprefix $(OUTPUT)/obj/tools/vsockbatch/,export.o export_http.o export_main.o)
EXPORT_DYN := $(OUTPUT)/dyn/vsockbatch-export

# The lab program reads the tracer's results files: it links results.o
# (and zread.o, which reads them gzip- or zstd-compressed).
LAB_SRCS   := $(wildcard tools/lab/*.c)
LAB_OBJS   := $(patsubst %.c,$(OUTPUT)/obj/%.o,$(LAB_SRCS))
LAB_LIB_OBJS := $(filter-out $(OUTPUT)/obj/tools/lab/main.o,$(LAB_OBJS))

BENCH_SRCS := $(wildcard tools/bench/*.c)
BENCH_BINS := $(patsubst tools/bench/%.c,$(OUTPUT)/%,$(BENCH_SRCS))
# Guest-side test programs (stress tests): one .c, one static binary.
PROG_SRCS  := $(wildcard tests/progs/*.c)
PROG_BINS  := $(patsubst tests/progs/%.c,$(OUTPUT)/%,$(PROG_SRCS))

# BPF programs of the guest test helpers (not the tracer's), with their
# skeletons in their own directory so the tracer never includes them.
TEST_BPF_SRCS  := $(wildcard tests/bpf/*.bpf.c)
# They use the UAPI headers (linux/bpf.h), whose asm/ lives in the
# multiarch directory clang -target bpf does not search.
TEST_BPF_INC   := -I/usr/include/$(shell $(CC) -dumpmachine)
TEST_BPF_SKELS := $(patsubst tests/bpf/%.bpf.c,$(OUTPUT)/tests-bpf/%.skel.h,$(TEST_BPF_SRCS))

# The lab's QEMU TCG plugin (host side, a shared object QEMU dlopen()s):
# per-vCPU guest instruction counts at guest marks.  Kept out of the top of
# build/ so initramfs.sh does not take it for a guest binary.
INSNS_PLUGIN := $(OUTPUT)/host/vb-insns.so

UNIT_SRCS  := $(wildcard tests/unit/test_*.c)
UNIT_BINS  := $(patsubst tests/unit/%.c,$(OUTPUT)/tests/%,$(UNIT_SRCS))

# vhost-user-vsock: the lab's host-side vsock device back-end.  Linked
# static like everything at the top of build/ (initramfs.sh copies those).
# Its unit tests (test_vhost_user*) link its objects but main/hostio.
VU_SRCS    := $(wildcard tools/vhost-user-vsock/*.c)
VU_OBJS    := $(patsubst %.c,$(OUTPUT)/obj/%.o,$(VU_SRCS))
VU_LIB_OBJS := $(filter-out %/main.o %/hostio.o,$(VU_OBJS))
VU_TEST_BINS := $(filter $(OUTPUT)/tests/test_vhost_user%,$(UNIT_BINS))
VU_FUZZ    := $(OUTPUT)/tests/fuzz_vhost_user
VSOCK_FUZZ := $(OUTPUT)/tests/fuzz_vsock_pkt
VU_DISPATCH_FUZZ := $(OUTPUT)/tests/fuzz_vu_dispatch
# The back-end and its unit test built with ASan + UBSan: make check runs
# the unit tests against these (test_vhost_user_vsock drives the binary
# named by VB_VHOST_USER_VSOCK).
SAN_FLAGS  := -g -O1 -fno-omit-frame-pointer -fsanitize=address,undefined \
	      -fno-sanitize-recover=undefined
VU_ASAN    := $(OUTPUT)/asan/vhost-user-vsock
VU_UNIT_ASAN := $(OUTPUT)/asan/test_vhost_user
VU_HDRS    := $(wildcard tools/vhost-user-vsock/*.h)

ifeq ($(V),1)
Q =
msg =
else
Q = @
msg = @printf '  %-8s %s\n' "$(1)" "$(2)";
endif

# What a user installs: the tracer, its top name, the benchmarks, their
# man pages (scdoc sources in man/) and the bash completion.
TOOL_BINS  := $(OUTPUT)/vsockbatch $(OUTPUT)/vsockbatch-top $(BENCH_BINS)
MAN_SRCS   := $(wildcard man/*.scd)
MAN_PAGES  := $(patsubst man/%.scd,$(OUTPUT)/man/%,$(MAN_SRCS))
VB_VERSION := $(shell cat VERSION)
PREFIX     ?= /usr/local
BINDIR     ?= $(PREFIX)/bin
MANDIR     ?= $(PREFIX)/share/man
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
INSTALL    ?= install

.PHONY: all deps check check-full unit-check results-check lab-check guest-check docs-check lab experiment \
	clean kernels tools man install uninstall static deb results-index
all: $(BPF_OBJS) $(BPF_SKELS) $(if $(LOADER_SRCS),$(OUTPUT)/vsockbatch \
	$(OUTPUT)/vsockbatch-top $(EXPORT_DYN)) $(if $(LAB_SRCS),$(OUTPUT)/vsockbatch-lab) \
	$(BENCH_BINS) $(PROG_BINS) \
	$(if $(VU_SRCS),$(OUTPUT)/vhost-user-vsock) $(INSNS_PLUGIN) $(MAN_PAGES)

tools: $(TOOL_BINS) $(EXPORT_DYN) $(MAN_PAGES)
man: $(MAN_PAGES)

$(OUTPUT)/man/%: man/%.scd
	$(call msg,SCDOC,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)scdoc < $< > $@

# Everything at the top of build/ is linked static already (guests boot a
# busybox initramfs), so install copies the same binaries the lab uses.
install: tools
	$(Q)$(INSTALL) -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1 \
		$(DESTDIR)$(MANDIR)/man8 $(DESTDIR)$(BASHCOMPDIR)
	$(Q)$(INSTALL) -m 755 $(OUTPUT)/vsockbatch $(BENCH_BINS) $(DESTDIR)$(BINDIR)/
	$(if $(NO_EXPORT),,$(Q)$(INSTALL) -m 755 $(EXPORT_DYN) $(DESTDIR)$(BINDIR)/)
	$(Q)ln -sf vsockbatch $(DESTDIR)$(BINDIR)/vsockbatch-top
	$(Q)$(INSTALL) -m 644 $(filter %.1,$(MAN_PAGES)) $(DESTDIR)$(MANDIR)/man1/
	$(Q)$(INSTALL) -m 644 $(filter %.8,$(MAN_PAGES)) $(DESTDIR)$(MANDIR)/man8/
	$(Q)$(INSTALL) -m 644 completion/vsockbatch.bash $(DESTDIR)$(BASHCOMPDIR)/vsockbatch
	$(Q)for p in vsockbatch-top $(notdir $(BENCH_BINS)); do \
		ln -sf vsockbatch $(DESTDIR)$(BASHCOMPDIR)/$$p; done

uninstall:
	$(Q)rm -f $(DESTDIR)$(BINDIR)/vsockbatch $(DESTDIR)$(BINDIR)/vsockbatch-top \
		$(DESTDIR)$(BINDIR)/vsockbatch-export \
		$(addprefix $(DESTDIR)$(BINDIR)/,$(notdir $(BENCH_BINS))) \
		$(addprefix $(DESTDIR)$(MANDIR)/man1/,$(notdir $(filter %.1,$(MAN_PAGES)))) \
		$(addprefix $(DESTDIR)$(MANDIR)/man8/,$(notdir $(filter %.8,$(MAN_PAGES)))) \
		$(addprefix $(DESTDIR)$(BASHCOMPDIR)/,vsockbatch vsockbatch-top $(notdir $(BENCH_BINS)))

# A tarball of `make install PREFIX=/usr/local` for a guest with no
# libbpf, libelf, zlib or libzstd: every binary in it must be static, so
# it has no exporter (`vsockbatch export` says where it looked).
STATIC_TAR := $(OUTPUT)/dist/vsockbatch-$(VB_VERSION)-static-$(shell uname -m).tar.gz
static: tools
	$(Q)rm -rf $(OUTPUT)/dist/root && mkdir -p $(OUTPUT)/dist/root
	$(Q)$(MAKE) --no-print-directory install NO_EXPORT=1 DESTDIR=$(CURDIR)/$(OUTPUT)/dist/root PREFIX=/usr/local
	$(Q)./scripts/check-static.sh $(OUTPUT)/dist/root/usr/local/bin/*
	$(Q)tar -C $(OUTPUT)/dist/root -czf $(STATIC_TAR) --owner=0 --group=0 usr
	@echo "  STATIC   $(STATIC_TAR)"

# The package is built from a copy of the committed tree (HEAD), so it
# is what a commit holds, never a half-edited work tree, and the package
# build's clean step cannot touch this build/.
deb:
	$(Q)./scripts/make-deb.sh $(OUTPUT)/deb

# docs/results.md, one row per results set, generated from the sets.
results-index:
	$(Q)./scripts/results-index.sh > docs/results.md

$(OUTPUT) $(OUTPUT)/bpf $(OUTPUT)/tests:
	$(Q)mkdir -p $@

# CO-RE objects: DWARF stripped (BTF kept) so the skeleton stays small.
$(OUTPUT)/bpf/%.bpf.o: bpf/%.bpf.c $(wildcard include/*.h bpf/*.h) | $(OUTPUT)/bpf
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(BPFCFLAGS) -c $< -o $@
	$(Q)$(LLVM_STRIP) -g $@

$(OUTPUT)/bpf/%.skel.h: $(OUTPUT)/bpf/%.bpf.o
	$(call msg,GEN-SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< name $(subst -,_,$*)_bpf > $@

$(OUTPUT)/tests-bpf/%.bpf.o: tests/bpf/%.bpf.c
	$(call msg,BPF,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CLANG) $(BPFCFLAGS) $(TEST_BPF_INC) -c $< -o $@
	$(Q)$(LLVM_STRIP) -g $@

$(OUTPUT)/tests-bpf/%.skel.h: $(OUTPUT)/tests-bpf/%.bpf.o
	$(call msg,GEN-SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< name $(subst -,_,$*)_bpf > $@

$(OUTPUT)/obj/tests/progs/vsock-widen.o: CFLAGS += -I$(OUTPUT)/tests-bpf
$(OUTPUT)/obj/tests/progs/vsock-widen.o: $(TEST_BPF_SKELS)

$(OUTPUT)/obj/%.o: %.c $(wildcard include/*.h tools/lib/*.h tools/vsockbatch/*.h \
		tools/lab/*.h tests/lib/*.h) $(BPF_SKELS)
	$(call msg,CC,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CC) $(CFLAGS) -c $< -o $@

$(LIBVB): $(LIB_OBJS)
	$(call msg,AR,$@)
	$(Q)rm -f $@ && ar rcs $@ $^

# Test support headers are visible only to what tests (and the lab's
# back-end, which sends the stress stream), never to the tracer.
$(OUTPUT)/obj/tests/%.o: CFLAGS += -Itests/lib
# the lab reads the tracer's results files with the tracer's own model
$(OUTPUT)/obj/tools/lab/%.o: CFLAGS += -Itools/vsockbatch

$(LIBVBTEST): $(TESTLIB_OBJS)
	$(call msg,AR,$@)
	$(Q)rm -f $@ && ar rcs $@ $^

# --version's release, git describe and BPF build id.  Always run, but the
# header is rewritten only when its text changes, so only a new commit, a
# dirty tree or new BPF code recompiles main.o.
VERSION_H := $(OUTPUT)/version.h
$(VERSION_H): $(OUTPUT)/bpf/vsockbatch.bpf.o VERSION FORCE
	$(Q)./scripts/gen-version.sh $@ $<
$(OUTPUT)/obj/tools/vsockbatch/main.o: $(VERSION_H)
$(OUTPUT)/obj/tools/vsockbatch/main.o: CFLAGS += -I$(OUTPUT)

$(OUTPUT)/vsockbatch: $(filter-out $(EXPORT_OBJS),$(LOADER_OBJS)) $(LIBVB)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CFLAGS) $(STATIC_LDFLAGS) $^ $(BPF_LIBS) $(TOOL_LIBS) -o $@

$(EXPORT_DYN): $(filter-out $(OUTPUT)/obj/tools/vsockbatch/main.o,$(LOADER_OBJS)) $(LIBVB)
	$(call msg,LINK,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CC) $(CFLAGS) $^ $(BPF_LIBS) $(TOOL_LIBS) $(EXPORT_LIBS) -o $@

# Same program; started by this name it runs `vsockbatch top`.
$(OUTPUT)/vsockbatch-top: $(OUTPUT)/vsockbatch
	$(Q)ln -sf vsockbatch $@

# The lab's commands (experiment statistics, CO-RE check); runs on the host.
$(OUTPUT)/vsockbatch-lab: $(LAB_OBJS) $(OUTPUT)/obj/tools/vsockbatch/results.o \
		$(OUTPUT)/obj/tools/vsockbatch/zread.o $(LIBVB)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CFLAGS) $(STATIC_LDFLAGS) $^ $(BPF_LIBS) -ljansson -lm -o $@

$(OUTPUT)/%: $(OUTPUT)/obj/tools/bench/%.o $(LIBVB)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CFLAGS) $(STATIC_LDFLAGS) $^ -lm -o $@

$(OUTPUT)/%: $(OUTPUT)/obj/tests/progs/%.o $(LIBVBTEST) $(LIBVB)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CFLAGS) $(STATIC_LDFLAGS) $^ -lm -lpthread -o $@

# The sockmap test and the window widener load BPF programs: they also
# link libbpf.
$(OUTPUT)/vsock-sockmap $(OUTPUT)/vsock-widen: $(OUTPUT)/%: $(OUTPUT)/obj/tests/progs/%.o $(LIBVBTEST) $(LIBVB)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CFLAGS) $(STATIC_LDFLAGS) $^ $(BPF_LIBS) -lm -lpthread -o $@

$(OUTPUT)/tests/%: $(OUTPUT)/obj/tests/unit/%.o $(LOADER_LIB_OBJS) $(LAB_LIB_OBJS) \
		$(LIBVBTEST) $(LIBVB) | $(OUTPUT)/tests
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CFLAGS) $^ $(BPF_LIBS) $(TEST_LIBS) -o $@

$(OUTPUT)/vhost-user-vsock: $(VU_OBJS) $(LIBVBTEST) $(LIBVB)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CFLAGS) $(STATIC_LDFLAGS) $^ -lm -o $@

$(VU_OBJS) $(patsubst $(OUTPUT)/tests/%,$(OUTPUT)/obj/tests/unit/%.o,$(VU_TEST_BINS)): \
	$(wildcard tools/vhost-user-vsock/*.h)
$(VU_TEST_BINS): $(VU_LIB_OBJS)

$(VU_ASAN): $(VU_SRCS) $(LIB_SRCS) $(TESTLIB_SRCS) $(VU_HDRS) \
		$(wildcard tools/lib/*.h tests/lib/*.h include/*.h) $(BPF_SKELS)
	$(call msg,ASAN,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CC) $(SAN_FLAGS) -std=gnu11 -D_GNU_SOURCE -Iinclude -Itools/lib -Itests/lib \
		-I$(OUTPUT)/bpf $(VU_SRCS) $(LIB_SRCS) $(TESTLIB_SRCS) -lm -o $@

$(VU_UNIT_ASAN): tests/unit/test_vhost_user.c $(filter-out %/main.c %/hostio.c,$(VU_SRCS)) $(VU_HDRS)
	$(call msg,ASAN,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CC) $(SAN_FLAGS) -std=gnu11 -D_GNU_SOURCE -Itools/vhost-user-vsock \
		$(filter %.c,$^) -lcmocka -o $@

# libFuzzer target for the vhost-user parser and the virtqueue walker,
# built with clang and sanitizers; tests/fuzz-vhost-user.sh runs it briefly.
$(VU_FUZZ): tests/fuzz/fuzz_vhost_user.c $(filter-out %/main.c %/hostio.c %/vsock.c %/loop.c,$(VU_SRCS)) \
	$(wildcard tools/vhost-user-vsock/*.h) | $(OUTPUT)/tests
	$(call msg,FUZZ,$@)
	$(Q)$(CLANG) -g -O1 -std=gnu11 -D_GNU_SOURCE -Itools/vhost-user-vsock \
		-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
		$(filter %.c,$^) -o $@

# libFuzzer target for the virtio-vsock protocol (vsock.c): guest TX packets,
# RX buffers and host sockets against the real connection code, with the
# device log routed through log_sink (silent unless VB_FUZZ_LOG is set);
# backend_dispatch() (loop.c) is its loop step.
$(VSOCK_FUZZ): tests/fuzz/fuzz_vsock_pkt.c \
	$(filter-out %/main.c %/hostio.c,$(VU_SRCS)) \
	$(wildcard tools/vhost-user-vsock/*.h) | $(OUTPUT)/tests
	$(call msg,FUZZ,$@)
	$(Q)$(CLANG) -g -O1 -std=gnu11 -D_GNU_SOURCE -Itools/vhost-user-vsock \
		-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
		$(filter %.c,$^) -o $@

$(INSNS_PLUGIN): tools/insns-plugin/vb-insns.c tools/insns-plugin/qemu_plugin_api.h \
		tools/lib/insn_mark.h
	$(call msg,PLUGIN,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CC) $(CFLAGS) -Itools/insns-plugin -fPIC -shared -fvisibility=hidden \
		$(shell pkg-config --cflags glib-2.0) \
		$< -o $@ $(shell pkg-config --libs glib-2.0)

# libFuzzer target for the event loop (loop.c): vhost-user messages with
# real fds mixed into batches of host and guest events.
$(VU_DISPATCH_FUZZ): tests/fuzz/fuzz_vu_dispatch.c \
	$(filter-out %/main.c %/hostio.c,$(VU_SRCS)) \
	$(wildcard tools/vhost-user-vsock/*.h) | $(OUTPUT)/tests
	$(call msg,FUZZ,$@)
	$(Q)$(CLANG) -g -O1 -std=gnu11 -D_GNU_SOURCE -Itools/vhost-user-vsock \
		-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
		$(filter %.c,$^) -o $@

deps:
	$(Q)./scripts/deps.sh

unit-check: all $(UNIT_BINS) $(if $(VU_SRCS),$(VU_ASAN) $(VU_UNIT_ASAN) $(VU_FUZZ) $(VSOCK_FUZZ) $(VU_DISPATCH_FUZZ))
	$(Q)VB_VHOST_USER_VSOCK=$(VU_ASAN) ./tests/run-unit.sh \
		$(filter-out $(OUTPUT)/tests/test_vhost_user,$(UNIT_BINS)) \
		$(if $(VU_SRCS),$(VU_UNIT_ASAN))
	$(if $(VU_SRCS),$(Q)./tests/fuzz-vhost-user.sh $(VU_FUZZ))
	$(if $(VU_SRCS),$(Q)./tests/fuzz-vhost-user.sh $(VSOCK_FUZZ))
	$(if $(VU_SRCS),$(Q)./tests/fuzz-vhost-user.sh $(VU_DISPATCH_FUZZ))
	$(Q)./tests/top-tmux.sh
	$(Q)$(MAKE) --no-print-directory results-check

# results/ as data a clone can carry (no guest): committed sets regenerate
# their summary.json from raw.tar.xz, no tracked file above 1 MiB but the
# listed exceptions, every path the docs quote resolves.
results-check: $(if $(LAB_SRCS),$(OUTPUT)/vsockbatch-lab)
	$(Q)./tests/results-regen.sh
	$(Q)./tests/file-size.sh
	$(Q)./tests/doc-paths.sh

# The docs agree with the tree: the results index is current, the
# README's tracer cost table is its set's (scripts/tracer-cost-tables.sh),
# the series' cover letters and the README's series tables are their
# sets' (scripts/cover-letter.sh), every
# results/ and docs/ path the Markdown quotes exists, each man page lists
# the options of its program's --help, the bash completion works, and
# --version names the release and the embedded BPF object.
docs-check: tools
	$(Q)./scripts/results-index.sh --check docs/results.md
	$(Q)./scripts/tracer-cost-tables.sh --check README.md
	$(Q)./scripts/cover-letter.sh 7.2 --check
	$(Q)./scripts/cover-letter.sh 6.12 --check
	$(Q)./scripts/cover-letter.sh 7.2 --readme README.md --check
	$(Q)./scripts/man-check.sh $(OUTPUT)
	$(Q)./tests/completion.sh $(OUTPUT)
	$(Q)./tests/version.sh $(OUTPUT)

# Bad input to the lab scripts: clear reasons, non-zero exits.
lab-check:
	$(Q)./tests/lab-inputs.sh

guest-check: all
	$(Q)./tests/run-guest-tests.sh

# The kernels come before the unit tests so that the CO-RE check against
# the lab's own vmlinux runs (and must pass) on a fresh machine too.
# pins-drift: which newer Debian versions exist for each pinned package and
# whether the series applies to the newest (informational while the pins
# or their series are served).
check: deps
	$(Q)./scripts/pins-drift.sh
	$(Q)$(MAKE) --no-print-directory all
	$(Q)./scripts/kernel-build.sh baseline >/dev/null
	$(Q)./scripts/kernel-build.sh patched >/dev/null
	$(Q)VB_REQUIRE_LAB_KERNELS=1 $(MAKE) --no-print-directory unit-check
	$(Q)$(MAKE) --no-print-directory docs-check
	$(Q)$(MAKE) --no-print-directory lab-check
	$(Q)$(MAKE) --no-print-directory guest-check

# make check plus the debug kernels of both series (lockdep + KASAN) and
# Debian's stock 7.2 in the guest tests (tests/run-guest-tests.sh,
# VB_CHECK_FULL): cold, they do not fit CI's 90 min on 2 cores.
check-full:
	$(Q)VB_CHECK_FULL=1 $(MAKE) --no-print-directory check

kernels: deps
	$(Q)./scripts/kernel-build.sh baseline >/dev/null
	$(Q)./scripts/kernel-build.sh patched >/dev/null

lab: deps
	$(Q)$(MAKE) --no-print-directory all
	$(Q)./scripts/lab.sh

experiment: deps
	$(Q)$(MAKE) --no-print-directory all
	$(Q)./scripts/experiment.sh $(EXPERIMENT_ARGS)

clean:
	$(call msg,CLEAN)
	$(Q)rm -rf $(OUTPUT)

FORCE:

.DELETE_ON_ERROR:
.SECONDARY:
