# rdmirror: RAM disk as the primary read member of an md RAID1 mirror.
#
#   make                  module/rdmirror.ko (for KDIR, default the running
#                         kernel) and utils/rdctl
#   make demo             the main job, in a VM: before/after table
#   make check            every test (installs its own dependencies);
#                         docs/TESTING.md maps what runs where
#   make check-quick      for development: unit tests, lint and one VM over
#                         the suites most changes meet (about 10 min)
#   make check-vm         the VM suite alone, on Debian's 6.1 and 6.12
#   make check-stress     the concurrency part of it and the torture suite
#                         (STRESS_MINUTES=N: a soak of N minutes a kernel)
#   make check-boot       real reboots and a power cut of a Debian image
#   make check-crash      crash consistency: dm-log-writes under the mirror's
#                         disk, replayed to every flush (CRASH_OPS=N: more)
#   make check-kunit      KUnit tests and the VM suite on a debug kernel
#                         (KASAN, lockdep, kmemleak) built from the newest
#                         linux-source-X.Y Debian ships (7.2)
#   make bench            the article's table on written data in a VM: HDD,
#                         RAID1, rd0, brd and RAM mirrors, memcpy as the
#                         ceiling; JSON, chart and doc in build/bench/
#                         (BENCH_ARGS="-r 5 -u" for more rounds, into docs/)
#   make bench-copy       the read path's copy loops and its struct page check
#                         on this CPU, natively (no emulator): rd's and brd's
#                         cost per 4 KiB (COPY_ROUNDS, 41); then a compressed
#                         disk's: lz4 and zstd per 4 KiB page against memcpy
#                         (ZCOMP_ROUNDS, 15)
#   make bench-native     make demo's journey and table with the kernel's code
#                         on this CPU, where no KVM guest boots: user-mode
#                         Linux built from the debug kernel's source, the
#                         HDD stand-ins throttled by the block layer
#   make lint             checkpatch, sparse, W=1, shellcheck, man page
#   make fuzz             libFuzzer on rdctl's parsers (size, config, sysfs and
#                         /proc values, mdadm output), FUZZ_SECONDS (15) each
#   make check-pkg        DKMS builds for 6.1 and 6.12, .debs, install/uninstall,
#                         the RPMs (rpmbuild, rpmlint), and a build against the
#                         newest mainline source (7.x)
#   make install          rdctl, man page, bash completion, systemd unit and
#                         example config (DESTDIR=, PREFIX=, default /usr/local)
#   make install-module   rdmirror.ko for KVER (default the running kernel) into
#                         /lib/modules/KVER/updates, then depmod
#   make dkms-install     the module sources to /usr/src/rdmirror-VERSION and
#                         dkms add/build/install for KVER
#   make uninstall        undoes all three
#   make deb              build/deb/rdmirror_VERSION-1_amd64.deb and
#                         build/deb/rdmirror-dkms_VERSION-1_all.deb
#   make rpm              build/rpm/RPMS: rdmirror-VERSION-1.x86_64.rpm and
#                         rdmirror-dkms-VERSION-1.noarch.rpm (rpmbuild)
#   make dist             build/rdmirror-VERSION.tar.gz, the source with the
#                         build identity baked in (docs/RELEASING.md)

KVER ?= $(shell uname -r)
KDIR ?= /lib/modules/$(KVER)/build
VERSION := $(shell cat VERSION)
# The build identity (scripts/build-id): the commit in a git tree, else
# BUILD_ID, else VERSION. Packaging bakes it into BUILD_ID, since the trees
# it builds from (and DKMS's copy) have no .git (docs/RELEASING.md).
BUILD_ID := $(shell bash scripts/build-id .)
HOST_CFLAGS := -std=c11 -O2 -Wall -Wextra -Werror -D_FORTIFY_SOURCE=2 \
	-fstack-protector-strong -fPIE -pie -Wl,-z,relro,-z,now

all: module utils

module:
	@test -d "$(KDIR)" || { echo "no kernel headers at $(KDIR): install them or pass KDIR=/path/to/kernel/build" >&2; exit 1; }
	$(MAKE) -C $(KDIR) M=$(CURDIR)/module modules

utils:
	$(MAKE) -C utils

# rdctl with the tests' seams (utils/lib/seams.h), first on the tests' PATH
test-bin: utils
	$(MAKE) -C utils test-bin

test/helpers/rd-ioctl: test/helpers/rd-ioctl.c module/uapi/rdmirror.h
	$(CC) $(HOST_CFLAGS) -o $@ $<

test/helpers/rd-ioctl-fuzz: test/helpers/rd-ioctl-fuzz.c module/uapi/rdmirror.h
	$(CC) $(HOST_CFLAGS) -pthread -o $@ $<

test/helpers/crash-workload: test/helpers/crash-workload.c
	$(CC) $(HOST_CFLAGS) -o $@ $<

test/helpers/log-replay: test/helpers/log-replay.c
	$(CC) $(HOST_CFLAGS) -o $@ $<

test/helpers/rd-random: test/helpers/rd-random.c
	$(CC) $(HOST_CFLAGS) -o $@ $<

test/helpers/rd-cmp: test/helpers/rd-cmp.c
	$(CC) $(HOST_CFLAGS) -o $@ $<

test/helpers/rd-sum: test/helpers/rd-sum.c
	$(CC) $(HOST_CFLAGS) -o $@ $<

# What the VM suite runs on the host's userspace.
tools: utils test-bin test/helpers/rd-ioctl test/helpers/rd-ioctl-fuzz test/helpers/crash-workload \
	test/helpers/log-replay test/helpers/rd-random test/helpers/rd-cmp test/helpers/rd-sum

deps:
	test/deps.sh

check: deps
	test/check

check-quick: deps
	test/check-quick

check-vm: deps tools
	test/vm/run

check-boot: deps tools
	test/boot/run

# The concurrency suite and the torture suite; STRESS_MINUTES=N repeats the
# torture's fault cycle for N minutes on each kernel (a soak; default: one
# cycle, as make check runs it).
check-stress: deps tools
	STRESS_MINUTES="$(STRESS_MINUTES)" test/vm/run test/bats/stress.bats test/bats/torture.bats

check-kunit: deps tools
	test/kunit/run

# Crash consistency (dm-log-writes, replayed on the host); CRASH_OPS=N for
# more crash points (test/crash/run).
check-crash: deps tools
	test/crash/run

demo: deps tools
	test/demo/run

bench: deps tools
	test/bench/run $(BENCH_ARGS)

COPY_ROUNDS ?= 41
ZCOMP_ROUNDS ?= 15
# (zcomp-cost: Debian's liblz4, libzstd and libxxhash, test/deps.sh)
bench-copy:
	mkdir -p build/bench
	$(CC) $(HOST_CFLAGS) -o build/bench/copy-cost test/bench/copy-cost.c
	$(CC) $(HOST_CFLAGS) -o build/bench/zcomp-cost test/bench/zcomp-cost.c -llz4 -lzstd -lxxhash
	taskset -c 0 build/bench/copy-cost $(COPY_ROUNDS)
	taskset -c 0 build/bench/zcomp-cost $(ZCOMP_ROUNDS)

bench-native: deps tools
	test/bench/native

FUZZ_SECONDS ?= 15
fuzz: deps
	test/fuzz/run $(FUZZ_SECONDS)

# Never remove a tree with a mount under it: a removal would reach into
# the mounted file system (a bind of the host's /dev is its device nodes).
clean:
	test/boot/remove-tree "$(CURDIR)/build"
	rm -rf test/helpers/rd-ioctl test/helpers/rd-ioctl-fuzz test/helpers/crash-workload \
		test/helpers/log-replay test/helpers/rd-random test/helpers/rd-cmp test/helpers/rd-sum
	-$(MAKE) -C utils clean
	-test -d "$(KDIR)" && $(MAKE) -C $(KDIR) M=$(CURDIR)/module clean

.PHONY: all module utils test-bin tools deps check check-quick check-vm check-boot check-stress check-kunit check-crash demo bench bench-copy bench-native fuzz clean

# --- installation ----------------------------------------------------------

PREFIX ?= /usr/local
SBINDIR ?= $(PREFIX)/sbin
MANDIR ?= $(PREFIX)/share/man
COMPLETIONDIR ?= $(PREFIX)/share/bash-completion/completions
SYSCONFDIR ?= /etc
SYSTEMDUNITDIR ?= $(or $(shell pkg-config --variable=systemdsystemunitdir systemd 2>/dev/null),/lib/systemd/system)
DEPMOD ?= depmod
DKMS ?= dkms

DOCDIR ?= $(PREFIX)/share/doc/rdmirror
DOCS := $(wildcard docs/*.md docs/*.png)
# The example that becomes /etc/rdmirror.conf when there is none.
CONF_EXAMPLE := $(firstword $(wildcard utils/rdmirror.conf.example scripts/rdmirror.conf))

# What DKMS needs to build the module: the sources, Kbuild, the VERSION file,
# and scripts/build-id (Kbuild runs it) with the BUILD_ID it reads (written
# at install).
MODULE_SRCS := $(filter-out %.mod.c,$(wildcard module/*.c module/*.h module/uapi/*.h)) \
	module/Kbuild module/Makefile
DKMS_SRC := $(DESTDIR)/usr/src/rdmirror-$(VERSION)
MODULE_DEST := $(DESTDIR)/lib/modules/$(KVER)/updates
INSTALL_DIRS := DESTDIR="$(DESTDIR)" SBINDIR="$(SBINDIR)" MANDIR="$(MANDIR)" \
	COMPLETIONDIR="$(COMPLETIONDIR)" SYSTEMDUNITDIR="$(SYSTEMDUNITDIR)" DOCDIR="$(DOCDIR)"

install: install-utils install-config

# rdctl, its man page and bash completion, rdmirror-restore.service and
# rdmirror-boot (both pointed at $(SBINDIR)/rdctl), rdmirror.conf.example;
# docs/ (its .md and the images they show) in $(DOCDIR)/docs, where the
# README's links find them.
install-utils:
	$(MAKE) -C utils install $(INSTALL_DIRS)
	install -d "$(DESTDIR)$(DOCDIR)/docs"
	install -m 0644 $(DOCS) "$(DESTDIR)$(DOCDIR)/docs/"

# /etc/rdmirror.conf from the example, only when there is none.
install-config:
ifneq ($(CONF_EXAMPLE),)
	@if [ -e "$(DESTDIR)$(SYSCONFDIR)/rdmirror.conf" ]; then \
		echo "keeping $(DESTDIR)$(SYSCONFDIR)/rdmirror.conf"; \
	else \
		echo "install -D -m 0644 $(CONF_EXAMPLE) $(DESTDIR)$(SYSCONFDIR)/rdmirror.conf"; \
		install -D -m 0644 $(CONF_EXAMPLE) "$(DESTDIR)$(SYSCONFDIR)/rdmirror.conf"; \
	fi
endif

# rdmirror.ko for KVER, without DKMS: it will not follow kernel upgrades.
install-module: module
	install -D -m 0644 module/rdmirror.ko "$(MODULE_DEST)/rdmirror.ko"
	$(if $(DESTDIR),,$(DEPMOD) -a $(KVER))

dkms-install:
ifeq ($(DESTDIR),)
	@test -d "$(KDIR)" || { echo "no kernel headers at $(KDIR): install linux-headers-$(KVER) or pass KVER=" >&2; exit 1; }
endif
	rm -rf "$(DKMS_SRC)"
	install -d -m 0755 "$(DKMS_SRC)/module/uapi" "$(DKMS_SRC)/scripts"
	for f in $(MODULE_SRCS); do install -m 0644 "$$f" "$(DKMS_SRC)/$$f"; done
	install -m 0644 VERSION "$(DKMS_SRC)/VERSION"
	install -m 0755 scripts/build-id "$(DKMS_SRC)/scripts/build-id"
	echo "$(BUILD_ID)" >"$(DKMS_SRC)/BUILD_ID"
	sed 's/#MODULE_VERSION#/$(VERSION)/' dkms.conf >"$(DKMS_SRC)/dkms.conf"
ifeq ($(DESTDIR),)
	$(DKMS) status -m rdmirror -v $(VERSION) | grep -q . || $(DKMS) add -m rdmirror -v $(VERSION)
	$(DKMS) build -m rdmirror -v $(VERSION) -k $(KVER)
	$(DKMS) install -m rdmirror -v $(VERSION) -k $(KVER)
endif

# Refuses, as the packages do, while an md array has a RAM member or is
# still set up for one (its slot, write-mostly disks: what rdctl --release
# leaves; scripts/removal-check asks the installed rdctl): the arrays
# would be stranded. Only for the installed system (no DESTDIR).
uninstall-check:
ifeq ($(DESTDIR),)
	sh scripts/removal-check "make uninstall" "$(SBINDIR)/rdctl"
endif

# Leaves nothing behind: the files of install, the module installed by
# install-module for any kernel, and the DKMS module (all kernels) with its
# sources. /etc/rdmirror.conf goes only when it is still the example. The
# units are stopped and disabled first: an active release unit would run a
# removed rdctl at the next shutdown (systemd keeps a loaded unit whose
# file is gone); its stop releases nothing, since uninstall-check found no
# RAM member.
uninstall: uninstall-check
ifeq ($(DESTDIR),)
	-if [ -d /run/systemd/system ] && command -v systemctl >/dev/null; then \
		systemctl stop rdmirror-release.service rdmirror-restore.service rdmirror-metrics.timer; \
	fi
	-if command -v systemctl >/dev/null; then \
		systemctl disable rdmirror-restore.service rdmirror-release.service rdmirror-metrics.timer 2>/dev/null; \
	fi
endif
	-$(MAKE) -C utils uninstall $(INSTALL_DIRS)
ifeq ($(DESTDIR),)
	-[ ! -d /run/systemd/system ] || ! command -v systemctl >/dev/null || systemctl daemon-reload
endif
	-rm -f $(addprefix "$(DESTDIR)$(DOCDIR)/,$(addsuffix ",$(DOCS)))
	-rmdir "$(DESTDIR)$(DOCDIR)/docs" "$(DESTDIR)$(DOCDIR)" 2>/dev/null
	@conf="$(DESTDIR)$(SYSCONFDIR)/rdmirror.conf"; \
	if [ -e "$$conf" ]; then \
		if [ -n "$(CONF_EXAMPLE)" ] && cmp -s "$$conf" "$(CONF_EXAMPLE)"; then \
			echo "rm -f $$conf"; rm -f "$$conf"; \
		else \
			echo "keeping $$conf: it is not the example any more"; \
		fi; \
	fi
	@for ko in "$(DESTDIR)"/lib/modules/*/updates/rdmirror.ko; do \
		[ -e "$$ko" ] || continue; \
		kver=$${ko#"$(DESTDIR)"/lib/modules/}; kver=$${kver%%/*}; \
		echo "rm -f $$ko"; rm -f "$$ko"; \
		$(if $(DESTDIR),,$(DEPMOD) -a "$$kver" || true;) \
	done
ifeq ($(DESTDIR),)
	@if dpkg-query -W -f='$${Status}' rdmirror-dkms 2>/dev/null | grep -q 'ok installed'; then \
		echo "rdmirror-dkms is installed as a package: remove it with apt-get purge rdmirror-dkms"; \
	else \
		if command -v $(DKMS) >/dev/null 2>&1; then \
			for v in $$($(DKMS) status -m rdmirror | sed -n 's|^rdmirror/\([^,:]*\)[,:].*|\1|p' | sort -u); do \
				echo "$(DKMS) remove -m rdmirror -v $$v --all"; \
				$(DKMS) remove -m rdmirror -v "$$v" --all; \
			done; \
		fi; \
		echo "rm -rf $(DKMS_SRC)"; rm -rf "$(DKMS_SRC)"; \
	fi
else
	rm -rf "$(DKMS_SRC)"
endif

# --- Debian packages ----------------------------------------------------------

DEB_DIR := build/deb
DEB_SRC := $(DEB_DIR)/rdmirror-$(VERSION)
DEB_REVISION ?= 1
DEB_MAINTAINER ?= rdmirror maintainers <maintainers@users.noreply.a-seed-2d9470e9.example>
# The changelog is written from docs/NEWS.md (scripts/changelog), the
# packages' version from VERSION; its date is the last commit's, so that
# rebuilding gives the same packages.
DEB_DATE ?= $(shell date -R -d @$$(git log -1 --format=%ct 2>/dev/null || date +%s))

deb:
	rm -rf "$(DEB_DIR)"
	install -d "$(DEB_SRC)/module/uapi"
	cp -r debian utils scripts "$(DEB_SRC)/"
	cp VERSION dkms.conf Makefile README.md "$(DEB_SRC)/"
	echo "$(BUILD_ID)" >"$(DEB_SRC)/BUILD_ID"
	install -d "$(DEB_SRC)/docs"
	cp $(DOCS) "$(DEB_SRC)/docs/"
	for f in $(MODULE_SRCS); do cp "$$f" "$(DEB_SRC)/$$f"; done
	find "$(DEB_SRC)/utils" -name "*.o" -delete
	rm -f "$(DEB_SRC)/utils/rdctl"
	scripts/changelog deb docs/NEWS.md "$(VERSION)" "$(BUILD_ID)" "$(DEB_DATE)" \
		"$(DEB_MAINTAINER)" "$(DEB_REVISION)" >"$(DEB_SRC)/debian/changelog"
	# the removal guard, one source for both packages' prerm
	sed -i -e '/^#REMOVAL_CHECK#$$/{r scripts/removal-check' -e 'd;}' "$(DEB_SRC)"/debian/*.prerm
	! grep -l '^#REMOVAL_CHECK#$$' "$(DEB_SRC)"/debian/*.prerm
	cd "$(DEB_SRC)" && dpkg-buildpackage -us -uc -b
	ls -l $(DEB_DIR)/*.deb

# --- RPM packages -------------------------------------------------------------

# build/rpm/RPMS: rdmirror and rdmirror-dkms for Fedora, RHEL 10, Rocky,
# Alma. The build dependencies are not checked (--nodeps): on Debian rpm's
# database is empty; the headers and libraries are Debian's.
RPM_DIR := build/rpm
RPM_DATE ?= $(shell LC_ALL=C date -u '+%a %b %d %Y' -d @$$(git log -1 --format=%ct 2>/dev/null || date +%s))
# (test/boot/remove-tree and mounted-under: how make clean removes build/)
RPM_FILES := Makefile VERSION dkms.conf README.md $(DOCS) debian/copyright rpm scripts \
	test/boot/remove-tree test/boot/mounted-under \
	$(filter-out %.o utils/rdctl $(patsubst %/,%,$(wildcard utils/*/)),$(wildcard utils/* utils/*/*)) \
	$(MODULE_SRCS)

RPM_MAINTAINER ?= rdmirror maintainers <maintainers@users.noreply.a-seed-2d9470e9.example>

rpm:
	rm -rf "$(RPM_DIR)"
	install -d "$(RPM_DIR)/SOURCES" "$(RPM_DIR)/SPECS"
	echo "$(BUILD_ID)" >"$(RPM_DIR)/BUILD_ID"
	tar --transform 's|^|rdmirror-$(VERSION)/|' -czf "$(RPM_DIR)/SOURCES/rdmirror-$(VERSION).tar.gz" \
		$(RPM_FILES) -C "$(RPM_DIR)" BUILD_ID
	# (spaces, as the rest of the spec; "%%" for a shell "%", which rpm
	# reads as a macro)
	expand -t 4 scripts/removal-check | sed 's/%/%%/g' >"$(RPM_DIR)/removal-check"
	{ sed -e 's/@VERSION@/$(VERSION)/g' -e '/^#REMOVAL_CHECK#$$/{r $(RPM_DIR)/removal-check' -e 'd;}' \
		rpm/rdmirror.spec.in && \
		scripts/changelog rpm docs/NEWS.md "$(VERSION)" "$(BUILD_ID)" "$(RPM_DATE)" \
			"$(RPM_MAINTAINER)" 1; } >"$(RPM_DIR)/SPECS/rdmirror.spec"
	rpmbuild -ba --nodeps --define "_topdir $(CURDIR)/$(RPM_DIR)" \
		$$(test -n "$$(rpm --eval '%{?_unitdir}')" || echo --load rpm/macros.fallback) \
		"$(RPM_DIR)/SPECS/rdmirror.spec"
	ls -l $(RPM_DIR)/RPMS/*/*.rpm $(RPM_DIR)/SRPMS/*.rpm

# --- release tarball ----------------------------------------------------------

# The tracked files of HEAD (git archive) and BUILD_ID, so that a build from
# the tarball (no .git) names the build it came from: VERSION itself when
# HEAD is the release's tag, else the commit (docs/RELEASING.md).
dist:
	@test -z "$$(git status --porcelain --untracked-files=no)" || \
		{ echo "make dist: uncommitted changes; commit them first" >&2; exit 1; }
	install -d build/dist
	echo "$(BUILD_ID)" | sed 's/+0-g[0-9a-f]*$$//' >build/dist/BUILD_ID
	git archive --format=tar --prefix=rdmirror-$(VERSION)/ HEAD >build/dist/rdmirror-$(VERSION).tar
	tar --transform 's|^|rdmirror-$(VERSION)/|' -C build/dist -rf build/dist/rdmirror-$(VERSION).tar BUILD_ID
	gzip -9nf build/dist/rdmirror-$(VERSION).tar
	mv build/dist/rdmirror-$(VERSION).tar.gz build/
	@echo "build/rdmirror-$(VERSION).tar.gz: $$(cat build/dist/BUILD_ID)"

# --- checks -------------------------------------------------------------------

lint:
	test/lint

check-pkg:
	test/pkg/check-dkms
	test/pkg/check-rpm
	test/pkg/check-mainline

.PHONY: install install-utils install-config install-module dkms-install \
	uninstall uninstall-check deb rpm dist lint check-pkg
