# SPDX-License-Identifier: GPL-2.0-or-later
# qemu-planes top-level make: builds and tests the assembled QEMU tree that
# ./configure prepared in build/.

SHELL   := /bin/bash
BUILD   := build/qemu
NINJA   ?= ninja
QEMU    := $(BUILD)/qemu-system-x86_64

# Our tests, and QEMU's own suites that the planes change can break.
PLANES_QTESTS := planes-test planes-guest-test planes-kvm-test planes-security-test \
                 planes-migration-test planes-launch-test
QEMU_QTESTS   := qmp-cmd-test qom-test test-hmp device-introspect-test
MESON_TEST    := cd $(BUILD) && pyvenv/bin/meson test --no-rebuild \
                 --print-errorlogs --num-processes 2

.PHONY: all overlay guests check check-planes check-qemu check-unit \
        check-libvirt check-linux check-gdb check-style demo demo-linux linux-guests \
        bench bench-smoke bench-build check-bisect firmware-links kvm-model check-kvm-host bench-migration clean \
        libvirt

all: overlay guests kvm-model firmware-links libvirt
	$(NINJA) -C $(BUILD) qemu-system-x86_64

# libvirt 11.3.0 with our series (subprojects/packagefiles/libvirt-planes/),
# installed in build/libvirt/install; a cache outside the clone, keyed by
# its inputs, makes this quick when nothing changed.
libvirt:
	bash scripts/planes/libvirt-build.sh

# The +ds source ships no firmware: a binary run from the build tree looks
# for it in qemu-bundle, so point that at Debian's packages.
firmware-links:
	@mkdir -p $(BUILD)/qemu-bundle/usr/share $(BUILD)/qemu-bundle/usr/lib/ipxe
	@ln -sfn /usr/share/seabios $(BUILD)/qemu-bundle/usr/share/seabios
	@ln -sfn /usr/share/qemu $(BUILD)/qemu-bundle/usr/share/qemu
	@ln -sfn /usr/lib/ipxe/qemu $(BUILD)/qemu-bundle/usr/lib/ipxe/qemu

# The freestanding test guests (gcc and ld only): plane0.elf boots with
# -kernel (PVH) and carries the plane-1 monitor as a flat, position-
# independent image.
GUEST_SRC := tests/planes/guest
GUEST_DIR := $(BUILD)/tests/planes-guests
GUEST_CFLAGS := -m64 -O2 -Wall -Werror -ffreestanding -fno-builtin \
                -nostdlib -mno-red-zone -mgeneral-regs-only \
                -fno-stack-protector -fno-asynchronous-unwind-tables \
                -fcf-protection=none
GUEST_HDRS := $(GUEST_SRC)/guest.h

guests: $(GUEST_DIR)/plane0.elf

$(GUEST_DIR)/%.p1.o: $(GUEST_SRC)/%.c $(GUEST_HDRS)
	@mkdir -p $(@D)
	gcc $(GUEST_CFLAGS) -fPIE -fvisibility=hidden -c -o $@ $<
$(GUEST_DIR)/plane1-entry.p1.o: $(GUEST_SRC)/plane1.S
	@mkdir -p $(@D)
	gcc $(GUEST_CFLAGS) -fPIE -c -o $@ $<
$(GUEST_DIR)/plane1.bin: $(GUEST_DIR)/plane1-entry.p1.o \
		$(GUEST_DIR)/plane1.p1.o $(GUEST_DIR)/lib.p1.o $(GUEST_SRC)/plane1.ld
	@# Linked at 0 and copied anywhere: no absolute relocations allowed.
	@! readelf -rW $(filter %.o,$^) | grep -E 'R_X86_64_(64|32S?) ' || \
	    { echo "plane-1 monitor has absolute relocations" >&2; exit 1; }
	ld -nostdlib --no-warn-rwx-segments -T $(GUEST_SRC)/plane1.ld -o $(GUEST_DIR)/plane1.elf \
	    $(filter %.o,$^)
	objcopy -O binary $(GUEST_DIR)/plane1.elf $@

$(GUEST_DIR)/%.p0.o: $(GUEST_SRC)/%.c $(GUEST_HDRS)
	@mkdir -p $(@D)
	gcc $(GUEST_CFLAGS) -fno-pic -c -o $@ $<
$(GUEST_DIR)/boot.p0.o: $(GUEST_SRC)/boot.S
	@mkdir -p $(@D)
	gcc $(GUEST_CFLAGS) -fno-pic -c -o $@ $<
$(GUEST_DIR)/plane1-image.p0.o: $(GUEST_SRC)/plane1-image.S $(GUEST_DIR)/plane1.bin
	gcc $(GUEST_CFLAGS) -DPLANE1_BIN='"$(GUEST_DIR)/plane1.bin"' -c -o $@ $<
$(GUEST_DIR)/plane0.elf: $(GUEST_DIR)/boot.p0.o $(GUEST_DIR)/plane0.p0.o \
		$(GUEST_DIR)/lib.p0.o $(GUEST_DIR)/plane1-image.p0.o \
		$(GUEST_SRC)/plane0.ld
	ld -nostdlib -no-pie --no-warn-rwx-segments -T $(GUEST_SRC)/plane0.ld -o $@ $(filter %.o,$^)

# The model of the planes kernel's KVM UAPI that planes-kvm-test preloads
# into QEMU (tests/planes/kvm-model/): a host library, no guest code.
KVM_MODEL := $(BUILD)/tests/planes-kvm-model/kvm-model.so
kvm-model: $(KVM_MODEL)
$(KVM_MODEL): tests/planes/kvm-model/kvm-model.c include/hw/planes/planes-kvm-uapi.h
	@mkdir -p $(@D)
	gcc -shared -fPIC -O2 -Wall -Werror -Iinclude -isystem $(BUILD)/linux-headers \
	    -isystem build/src/linux-headers -o $@ $< -ldl -lpthread

# Link overlay files added since ./configure into the tree (cheap: symlinks).
overlay:
	@test -f $(BUILD)/build.ninja || { echo "run ./configure first" >&2; exit 1; }
	@bash scripts/planes/assemble.sh "$$(bash scripts/planes/fetch-upstream.sh 2>/dev/null)" build/src

# The README's main job: a planes=2 VM, inspected over QMP and HMP.
demo: all
	python3 scripts/planes/demo.py

# What planes cost, side by side with Debian's stock QEMU (not a test:
# numbers are not assertions).  bench-smoke only checks that it still runs.
bench: all
	python3 scripts/planes/bench.py

# What a fresh build costs: QEMU's default features and devices against the
# fork's lean configuration, both cold, side by side (slow: two builds).
bench-build: overlay
	bash scripts/planes/build-bench.sh

# What planes add to a migration's stream and downtime (not a test).
bench-migration: all
	python3 scripts/planes/bench-migration.py

bench-smoke: all
	BENCH_SMOKE=1 python3 scripts/planes/bench.py > $(BUILD)/bench-smoke.log \
	    || { tail -30 $(BUILD)/bench-smoke.log; exit 1; }
	@echo "bench-smoke: OK ($(BUILD)/bench-smoke.log)"

# The README's test command runs this: every test, ours and QEMU's, then
# one summary line over all of them.  A failing group does not hide the
# others; the exit status is non-zero if anything failed.
LOGS := $(BUILD)/meson-logs
check: all
	@rm -f $(LOGS)/fuzz.tap
	@rm -f $(LOGS)/planes.json $(LOGS)/qemu-suites.json $(LOGS)/unit.json \
	    $(LOGS)/libvirt.tap $(LOGS)/libvirt-native.tap $(LOGS)/libvirt-unit.tap \
	    $(LOGS)/linux.tap $(LOGS)/gdb.tap
	@rc=0; \
	$(MAKE) --no-print-directory check-style || rc=1; \
	$(MAKE) --no-print-directory check-planes || rc=1; \
	$(MAKE) --no-print-directory check-fuzz || rc=1; \
	$(MAKE) --no-print-directory check-libvirt || rc=1; \
	$(MAKE) --no-print-directory check-gdb || rc=1; \
	$(MAKE) --no-print-directory check-linux || rc=1; \
	$(MAKE) --no-print-directory check-qemu || rc=1; \
	$(MAKE) --no-print-directory check-unit || rc=1; \
	$(MAKE) --no-print-directory bench-smoke || rc=1; \
	echo "== summary"; \
	python3 scripts/planes/test-summary.py $(LOGS)/planes.json $(LOGS)/fuzz.tap \
	    $(LOGS)/libvirt.tap $(LOGS)/libvirt-native.tap $(LOGS)/libvirt-unit.tap \
	    $(LOGS)/gdb.tap $(LOGS)/linux.tap $(LOGS)/qemu-suites.json \
	    $(LOGS)/unit.json \
	    || rc=1; \
	exit $$rc

check-planes: all
	$(NINJA) -C $(BUILD) $(addprefix tests/qtest/,$(PLANES_QTESTS))
	$(MESON_TEST) --logbase planes $(addprefix qtest-x86_64/,$(PLANES_QTESTS))

# libFuzzer (clang from Debian) against independent models: the pure
# decision code of hw/planes/plane-rules.c, plane-attr-map.c and
# plane-migration-check.c, the very files QEMU builds (tests/planes/fuzz/;
# the migration one seeded with real streams the migration test saves).
# make fuzz: FUZZ_RUNS executions per target (3 targets: 15 million in all
# by default); check-fuzz: a short run from the seeds alone,
# CHECK_FUZZ_SECONDS per target.
FUZZ_RUNS ?= 5000000
CHECK_FUZZ_SECONDS ?= 12
.PHONY: fuzz check-fuzz
fuzz: overlay
	bash tests/planes/fuzz/run-fuzz.sh $(FUZZ_RUNS)

check-fuzz: overlay
	bash tests/planes/fuzz/run-fuzz.sh -t $(CHECK_FUZZ_SECONDS) $(LOGS)/fuzz.tap

check-qemu: all
	$(NINJA) -C $(BUILD) $(addprefix tests/qtest/,$(QEMU_QTESTS))
	$(MESON_TEST) --logbase qemu-suites $(addprefix qtest-x86_64/,$(QEMU_QTESTS))

# For users with a VM-planes kernel: a verdict on this QEMU's KVM backend
# there (a TCG control run, then the same guest pair under KVM).
check-kvm-host: all
	bash scripts/planes/kvm-host-check.sh || [ $$? = 77 ]

# Every prefix of the patch series builds and passes the checks that exist
# at that point (slow: one cold build plus the increments; not in check).
check-bisect:
	bash scripts/planes/check-bisect.sh

# QEMU's checkpatch over our QEMU code, its tests and fuzzers, and the
# patch series.  Not covered: the freestanding test guests and the Linux
# modules under tests/planes/ (guest and kernel code, in kernel style),
# and scripts/planes/bench-handoff.c (a host program outside QEMU).
STYLE_FILES := $(shell git ls-files 'accel/*.[ch]' 'hw/*.[ch]' 'include/*.h' \
                 'target/*.[ch]' 'tests/qtest/*.[ch]' 'tests/planes/fuzz/*.[ch]' \
                 'tests/planes/kvm-model/*.[ch]' \
                 2>/dev/null)
check-style: all
	@rc=0; for f in $(STYLE_FILES); do \
	    perl build/src/scripts/checkpatch.pl --no-tree -q -f $$f || rc=1; \
	done; \
	for p in subprojects/packagefiles/qemu-planes/0*.patch; do \
	    perl build/src/scripts/checkpatch.pl --no-tree -q $$p || rc=1; \
	done; \
	[ $$rc = 0 ] && echo "check-style: checkpatch clean"; exit $$rc

# Stock libvirt (Debian's libvirtd, started by the test when none runs)
# drives a planes VM through <qemu:commandline>; qemu-planes' libvirt build
# (make libvirt) drives planes natively as private instances, and its own
# unit tests check the series' golden files.
LIBVIRT_UNIT_TESTS := qemuxmlconftest qemucapabilitiestest domaincapstest \
	qemucaps2xmltest qemuxmlactivetest virt-aa-helper-test
check-libvirt: all
	@mkdir -p $(LOGS)
	@rc=0; \
	PLANES_LIBVIRT_OUTPUTS=$(LOGS)/libvirt-outputs.txt \
	    bash tests/planes/libvirt/libvirt-test.sh | tee $(LOGS)/libvirt.tap; \
	    [ $${PIPESTATUS[0]} = 0 ] || rc=1; \
	PLANES_LIBVIRT_OUTPUTS=$(LOGS)/libvirt-native-outputs.txt \
	    bash tests/planes/libvirt/libvirt-native-test.sh | tee $(LOGS)/libvirt-native.tap; \
	    [ $${PIPESTATUS[0]} = 0 ] || rc=1; \
	for t in $(LIBVIRT_UNIT_TESTS); do \
	    if (cd build/libvirt/build && meson test --no-rebuild -q $$t \
	            >$(CURDIR)/$(LOGS)/libvirt-$$t.log 2>&1); then \
	        echo "ok - libvirt $$t"; \
	    else \
	        echo "not ok - libvirt $$t (build/libvirt/build/meson-logs/testlog.txt)"; \
	    fi; \
	done | tee $(LOGS)/libvirt-unit.tap; \
	! grep -q '^not ok' $(LOGS)/libvirt-unit.tap || rc=1; \
	exit $$rc

# gdb against the test guests: planes as inferiors (tests/planes/gdb/).
check-gdb: all
	@mkdir -p $(LOGS)
	bash tests/planes/gdb/gdb-test.sh | tee $(LOGS)/gdb.tap; \
	    exit $${PIPESTATUS[0]}

# Real Linux in both planes: Debian's kernel with vm-planes.ko in plane 0, a
# Linux 6.12 secure kernel in plane 1 (tests/planes/linux/), built once and
# cached outside the clone by scripts/planes/linux-build.sh.
linux-guests:
	bash scripts/planes/linux-build.sh

demo-linux: all
	python3 tests/planes/linux/linux-demo.py

check-linux: all
	@mkdir -p $(LOGS)
	python3 tests/planes/linux/linux-test.py | tee $(LOGS)/linux.tap; \
	    exit $${PIPESTATUS[0]}

check-unit: all
	$(MAKE) -C $(BUILD) check-unit MTESTARGS="--logbase unit"

clean:
	rm -rf build
