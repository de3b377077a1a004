#!/bin/sh
# The hardware suite in an arm64 guest: QEMU emulates the Armv8 PMU, and
# with -icount shift=0 its user-mode instruction counts are exact and the
# same on every boot (../shared/notes/arm64-pmu-vm.md). Builds the shim for
# arm64, fetches Debian's arm64 kernel and runtime libraries (cached under
# build/vm/cache), boots the guest, brings the reports back over the
# console and checks them on the host (tests/vm/check.c).
set -u
B=${B:-build}
W=$B/vm
X=aarch64-linux-gnu-
XB=build/aarch64-linux-gnu
QEMU_TIMEOUT=${QEMU_TIMEOUT:-170}

skip() {
	echo "SKIP vm ($1)"
	echo "vm: 0 passed, 0 failed, 1 skipped"
	exit 0
}
die() {
	echo "vm: $1"
	echo "vm: 0 passed, 1 failed, 0 skipped"
	exit 1
}

command -v qemu-system-aarch64 >/dev/null 2>&1 || skip "no qemu-system-aarch64"
command -v ${X}gcc >/dev/null 2>&1 || skip "no ${X}gcc"

mkdir -p "$W/cache" "$W/x"
make -s CROSS=$X $XB/libpmcshim.so $XB/pmcshim >/dev/null || die "cross build of the shim failed"
${X}gcc -std=c11 -Wall -Wextra -Werror -O2 -Iinclude -pthread -o "$W/hw" \
	tests/vm/guest/hw.c || die "cross build of tests/vm/guest/hw.c failed"
${X}gcc -std=c11 -Wall -Wextra -Werror -O2 -o "$W/sampled" tests/vm/guest/sampled.c ||
	die "cross build of tests/vm/guest/sampled.c failed"

# --- the unwind-table walk against libunwind (tablewalk): the host's
# differential suite's programs (tests/tests.mk), cross-built: mixed.c at
# -O0/-O2/-O3 with (-fp) and without frame pointers, -O2 also with
# pac-ret (-pac: return addresses signed, negate_ra_state in the tables;
# compared with the -O2 build's stacks, frame for frame but the offsets:
# libunwind 1.6 does not strip the signatures),
# fpchain.c (corrupted stacks), throws.cpp where there is an arm64 g++
# (its libstdc++ linked in: the guest has none); hw.c without frame
# pointers for the depth-8 pair cost (hw-omitfp).
TW_FLAGS="-std=c11 -Wall -Wextra -Werror -D_GNU_SOURCE -g -Iinclude -pthread -rdynamic"
TW_APPS=
tw_build() {	# NAME SOURCE FLAGS...
	name=$1 src=$2; shift 2
	case $src in
	*.cpp) ${X}g++ -std=c++11 -Wall -Wextra -Werror -g -Iinclude -rdynamic \
		-static-libstdc++ -static-libgcc "$@" -o "$W/$name" "$src" -ldl ;;
	*) ${X}gcc $TW_FLAGS "$@" -o "$W/$name" "$src" -ldl ;;
	esac || die "cross build of $name failed"
	TW_APPS="$TW_APPS $name"
}
for o in O0 O2 O3; do
	tw_build mixed-$o tests/apps/mixed.c -$o -fomit-frame-pointer
	tw_build mixed-$o-fp tests/apps/mixed.c -$o -fno-omit-frame-pointer
done
tw_build mixed-O2-pac tests/apps/mixed.c -O2 -fomit-frame-pointer -mbranch-protection=standard
tw_build fpchain-fp tests/apps/fpchain.c -O2 -fno-omit-frame-pointer
if command -v ${X}g++ >/dev/null 2>&1; then
	tw_build throws-O2 tests/apps/throws.cpp -O2 -fomit-frame-pointer
	tw_build throws-O2-pac tests/apps/throws.cpp -O2 -fomit-frame-pointer \
		-mbranch-protection=standard
else
	echo "(no ${X}g++: the C++ program is not in the tablewalk differential)"
fi
${X}gcc -std=c11 -Wall -Wextra -Werror -O2 -fomit-frame-pointer -Iinclude -pthread \
	-o "$W/hw-omitfp" tests/vm/guest/hw.c || die "cross build of hw-omitfp failed"
make -s CROSS=$X $XB/tests/test_cfi >/dev/null || die "cross build of test_cfi failed"
# --- end tablewalk

# Debian's arm64 packages, downloaded once.
fetch() {
	# (libpfm4: the native event names; added later, so checked by name)
	[ -f "$W/cache/done" ] && ls "$W"/cache/libpfm4_*_arm64.deb >/dev/null 2>&1 && return 0
	kpkg=$(apt-cache depends linux-image-arm64:arm64 2>/dev/null |
		awk '/Depends: linux-image-[0-9]/{print $2; exit}')
	[ -n "$kpkg" ] || die "no arm64 kernel package known to apt: run 'dpkg --add-architecture arm64 && apt-get update'"
	(cd "$W/cache" && apt-get download -q "${kpkg%:arm64}:arm64" busybox-static:arm64 \
		libc6:arm64 libunwind8:arm64 liblzma5:arm64 libpfm4:arm64 >/dev/null) ||
		die "apt-get download of the arm64 kernel and libraries failed"
	touch "$W/cache/done"
}
fetch
rm -rf "$W/x" "$W/root" && mkdir -p "$W/x" "$W/root"
for d in "$W"/cache/*.deb; do dpkg -x "$d" "$W/x"; done
cp "$W"/x/boot/vmlinuz-* "$W/vmlinuz"

# The initramfs: busybox, glibc, libunwind and libpfm4 for arm64, the shim,
# the launcher, the suite. Only what the guest runs: the kernel package's
# modules (/lib/modules, ~290 MB), device trees and glibc's gconv are never
# loaded, and packing them made a 105 MB initrd that took 3x as long to boot.
R=$W/root
L=lib/aarch64-linux-gnu
mkdir -p "$R/bin" "$R/proc" "$R/sys" "$R/dev" "$R/tmp" "$R/$L" "$R/usr/$L"
cp "$W/x/bin/busybox" "$R/bin/"
cp -a "$W/x/lib/ld-linux-aarch64.so.1" "$R/lib/"
cp -a "$W/x/$L/." "$R/$L/"			# glibc, liblzma (libunwind's)
cp -a "$W"/x/usr/$L/libunwind.so.8* "$W"/x/usr/$L/libpfm.so.4* "$R/usr/$L/"	# dlopen()ed
cp "$XB/libpmcshim.so" "$XB/pmcshim" "$W/hw" "$W/sampled" "$R/"
for a in $TW_APPS hw-omitfp; do cp "$W/$a" "$R/"; done	# tablewalk
cp "$XB/tests/test_cfi" "$R/"				# tablewalk
echo "$TW_APPS" > "$R/tw-apps"				# tablewalk
install -m 755 tests/vm/init "$R/init"
# VM_ONLY=PREFIX runs only the scenarios whose names start with it (while
# working on one thing; the checks of the others then fail).
[ -n "${VM_ONLY:-}" ] && printf '%s\n' "$VM_ONLY" > "$R/only"
(cd "$R" && find . | cpio -o -H newc --quiet | gzip -1) > "$W/initrd.cpio.gz"

# boot CPU CONSOLE [KERNEL ARGS]: the guest on that CPU model, until /init
# powers it off; its console (one file per scenario) split into $W/out.
boot() {
	cpu=$1 log=$2; shift 2
	start=$(date +%s)
	timeout "$QEMU_TIMEOUT" qemu-system-aarch64 -M virt -cpu "$cpu" -m 1G -smp 2 \
		-nographic -no-reboot -nic none -icount shift=0 \
		-kernel "$W/vmlinuz" -initrd "$W/initrd.cpio.gz" \
		-append "console=ttyAMA0 rdinit=/init quiet $*" < /dev/null 2>&1 |
		tr -d '\r' > "$log"
	echo "guest ($cpu) ran $(( $(date +%s) - start )) s; console in $log"
	grep '^=== GUEST' "$log"
	grep -q '^=== DONE' "$log" || {
		tail -n 30 "$log"
		die "the guest did not finish (timeout ${QEMU_TIMEOUT}s?)"
	}
	# the files between "=== BEGIN name" and "=== END"
	awk -v dir="$W/out" '
		/^=== BEGIN / { f = dir "/" $3; next }
		/^=== END/ { close(f); f = ""; next }
		/^=== STATUS / { print $4 > (dir "/" $3 ".status"); close(dir "/" $3 ".status"); next }
		f != "" { print > f }
	' "$log"
}

rm -rf "$W/out" && mkdir -p "$W/out"
echo "booting the arm64 guest (qemu -icount shift=0, 2 CPUs)..."
boot max,pauth-impdef=on "$W/console.log"
# A PMU without 64-bit user counters (Cortex-A72, Armv8.0): the shim's
# 32-bit user reads, sign-extended, after the kernel refused 64 bits.
if [ -z "${VM_ONLY:-}" ]; then
	echo "booting it again as a Cortex-A72 (32-bit counters)..."
	boot cortex-a72 "$W/console-a72.log" pmcshim.narrow
fi
for f in "$W"/out/*.b64; do
	[ -f "$f" ] || continue
	base64 -d "$f" > "${f%.b64}" || die "cannot decode $f"
done
"$B/tests/vm_check" "$W/out"
