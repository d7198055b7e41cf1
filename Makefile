# SPDX-License-Identifier: GPL-2.0-or-later
# qemu-planes top-level make: builds and tests the assembled QEMU tree that
# ./configure prepared in build/.

BUILD   := build/qemu
NINJA   ?= ninja
QEMU    := $(BUILD)/qemu-system-x86_64

.PHONY: all overlay check check-planes check-qemu demo clean

all: overlay
	$(NINJA) -C $(BUILD) qemu-system-x86_64
	@# The +ds source ships no firmware: a binary run from the build tree
	@# looks for it in qemu-bundle, so point that at Debian's packages.
	@mkdir -p $(BUILD)/qemu-bundle/usr/share
	@ln -sfn /usr/share/seabios $(BUILD)/qemu-bundle/usr/share/seabios
	@ln -sfn /usr/share/qemu $(BUILD)/qemu-bundle/usr/share/qemu

# Link overlay files added since ./configure into the tree (cheap: symlinks).
overlay:
	@test -f $(BUILD)/build.ninja || { echo "run ./configure first" >&2; exit 1; }
	@bash scripts/planes/assemble.sh "$$(bash scripts/planes/fetch-upstream.sh 2>/dev/null)" build/src

clean:
	rm -rf build
