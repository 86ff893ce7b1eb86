# shellcheck shell=bash disable=SC2034 # (set here, used where sourced)
# What every TCG guest of the tests gets (sourced by the runners):
# settings that make the emulator cheaper without changing what the tests
# test. docs/TESTING.md says why; test/RUNLOG.md has the measurements.
#
# RD_TCG_CPU: qemu's "max" CPU without ERMS and FSRM. With either, the
# guest kernel copies and clears through "rep movsb"/"rep stosb" (memcpy
# with FSRM; copy_user, clear_page and rd's copy_mc_to_kernel() with
# ERMS), and TCG runs a rep-prefixed string instruction one element at a
# time, several times slower than the kernel's unrolled loops, where
# hardware runs it at memory speed. One guest keeps ERMS so that rd's
# ERMS copy path stays exercised: RD_TCG_CPU_ERMS, the boot test's verify
# phase, which reads the mirror's files through the RAM member.
RD_TCG_CPU="max,erms=off,fsrm=off"
RD_TCG_CPU_ERMS="max"
#
# RD_TCG_APPEND: the guest kernel's command line. norandmaps: user space
# without address-space randomization (the kernel's own KASLR stays).
# TCG keys the code it has translated by virtual address, so with every
# process's libraries at new addresses each fork and exec translates
# ld.so and libc again; the tests start thousands of processes.
# nvme_core.io_timeout=255: the NVMe disk every guest has (the fast disk
# member's stand-in) waits 255 s, not 30, before it aborts a command and
# resets the controller. A TCG guest on a loaded 2-core host can see a
# command take longer than 30 s, and qemu's NVMe device may not come
# back from that reset (the guest then hangs).
RD_TCG_APPEND="norandmaps nvme_core.io_timeout=255"
#
# RD_VNG_QEMU_OPTS: qemu options for the virtme-ng guests of the tests
# and of make demo (the benches keep qemu's defaults, so that their
# figures stay comparable with those on record). virtme-ng gives each of
# its six channels (the command's stdin, stdout, stderr, exit status...)
# a virtio-serial-pci device of its own, with qemu's default of 31 ports
# a device; the guest's driver sets up the queues of every port (64 a
# device), and qemu's main loop polls one eventfd per queue, some 400,
# each time it wakes, over a thousand times a second under TCG. Two
# ports a device (0 is kept for a console; virtme-ng's port takes 1)
# leave 6 queues each.
RD_VNG_QEMU_OPTS="-global virtio-serial-pci.max_ports=2"
#
# RD_TCG_QBOOT: the firmware of the debug kernel's guests (qemu's qboot,
# from qemu-system-data). That kernel has no ACPI, so it finds its CPUs in
# the firmware's MP table: qboot's lists every vCPU, SeaBIOS's (qemu's
# default) only the boot CPU.
RD_TCG_QBOOT=/usr/share/qemu/qboot.rom
