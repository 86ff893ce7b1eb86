/* SPDX-License-Identifier: GPL-2.0 */
/* The kernel side: module loading (libkmod) and the control ioctls. */
#ifndef RDCTL_CONTROL_H
#define RDCTL_CONTROL_H

#include <stdbool.h>
#include <stdint.h>

/*
 * Open <dev>/rdmirror-control. With load, load the module through libkmod
 * when it is absent and wait up to 3 s for the device. Returns 0 and *fd,
 * or an exit code with the error recorded (errors.h).
 */
int control_open(bool load, int *fd);
/* Load rdmirror with libkmod (modprobe configuration and blacklist apply).
 * 0 or an exit code with the error recorded. */
int module_load(void);

/*
 * What a new disk is: its size in bytes, preallocated, or compressed with
 * comp (RDMIRROR_COMP_*; RDMIRROR_COMP_NONE: uncompressed) under its own
 * memory bound mem_limit (bytes, 0: none).
 */
struct rd_spec {
	uint64_t size;
	bool prealloc;
	unsigned comp;
	uint64_t mem_limit;
};

/* The ioctls: 0 or -errno. */
int ctl_add(int fd, const struct rd_spec *spec, unsigned *index);
int ctl_remove(int fd, unsigned index);
int ctl_resize(int fd, unsigned index, uint64_t size);
int ctl_free_pages(int fd, unsigned index);

/* The message that says who holds a busy disk (holder, mount, process). */
char *busy_message(unsigned index);

#endif
