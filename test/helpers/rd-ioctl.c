// SPDX-License-Identifier: GPL-2.0
/*
 * rd-ioctl: send one raw control ioctl, with any field set to any value,
 * so that the tests can reach the kernel's checks that rdctl never trips.
 *
 *   rd-ioctl add size=N [flags=N] [version=N] [index=N] [comp=N] [mem_limit=N] [reserved=N]
 *   rd-ioctl remove|free index=N [version=N] [reserved=N]
 *   rd-ioctl resize index=N size=N [version=N] [reserved=N]
 *   rd-ioctl bogus          (an ioctl number the driver does not know)
 *   rd-ioctl -t COMMAND ... (the same, timed)
 *
 * "reserved=N" stores N in the last reserved word. Prints the new index
 * for add; on failure prints the errno name (EINVAL, ...) on stdout and
 * exits 1. Usage errors exit 2. With -t the line starts with the seconds
 * the ioctl itself took, so that a timing is not a process's start-up.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "../../module/uapi/rdmirror.h"

struct fields {
	uint64_t size, flags, version, index, comp, mem_limit, reserved;
};

static int usage(void)
{
	fputs("usage: rd-ioctl add|remove|free|resize|bogus [field=value]...\n",
	      stderr);
	return 2;
}

static int parse_fields(int argc, char **argv, struct fields *f)
{
	static const char *const names[] = {
		"size", "flags", "version", "index", "comp", "mem_limit",
		"reserved",
	};
	uint64_t *slots[] = {
		&f->size, &f->flags, &f->version, &f->index, &f->comp,
		&f->mem_limit, &f->reserved,
	};

	for (int i = 0; i < argc; i++) {
		char *eq = strchr(argv[i], '='), *end;
		size_t k;

		if (!eq)
			return -1;
		for (k = 0; k < sizeof(names) / sizeof(names[0]); k++)
			if (strlen(names[k]) == (size_t)(eq - argv[i]) &&
			    !strncmp(argv[i], names[k], eq - argv[i]))
				break;
		if (k == sizeof(names) / sizeof(names[0]))
			return -1;
		errno = 0;
		*slots[k] = strtoull(eq + 1, &end, 0);
		if (errno || *end || end == eq + 1)
			return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct fields f = { .version = RDMIRROR_ABI_VERSION };
	const char *path = getenv("RD_CONTROL") ? getenv("RD_CONTROL") :
			   "/dev/" RDMIRROR_CONTROL_NAME;
	union {
		struct rdmirror_add add;
		struct rdmirror_resize resize;
		struct rdmirror_disk disk;
	} u;
	struct timespec t0, t1;
	unsigned long cmd;
	bool timed = false;
	int fd, ret;

	if (argc > 1 && !strcmp(argv[1], "-t")) {
		timed = true;
		argc--;
		argv++;
	}
	if (argc < 2 || parse_fields(argc - 2, argv + 2, &f))
		return usage();
	memset(&u, 0, sizeof(u));
	if (!strcmp(argv[1], "add")) {
		cmd = RDMIRROR_CTL_ADD;
		u.add.version = f.version;
		u.add.flags = f.flags;
		u.add.size = f.size;
		u.add.index = f.index;
		u.add.comp = f.comp;
		u.add.mem_limit = f.mem_limit;
		u.add.reserved[2] = f.reserved;
	} else if (!strcmp(argv[1], "resize")) {
		cmd = RDMIRROR_CTL_RESIZE;
		u.resize.version = f.version;
		u.resize.index = f.index;
		u.resize.size = f.size;
		u.resize.reserved[3] = f.reserved;
	} else if (!strcmp(argv[1], "remove") || !strcmp(argv[1], "free")) {
		cmd = argv[1][0] == 'r' ? RDMIRROR_CTL_REMOVE :
					  RDMIRROR_CTL_FREE_PAGES;
		u.disk.version = f.version;
		u.disk.index = f.index;
		u.disk.reserved[3] = f.reserved;
	} else if (!strcmp(argv[1], "bogus")) {
		cmd = _IO(RDMIRROR_IOCTL_MAGIC, 0x7f);
	} else {
		return usage();
	}

	/*
	 * RD_CONTROL_FD: a descriptor opened by someone else (root), so that
	 * an unprivileged process can be shown to fail the ioctl itself.
	 */
	if (getenv("RD_CONTROL_FD"))
		fd = atoi(getenv("RD_CONTROL_FD"));
	else
		fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		printf("%s\n", strerrorname_np(errno));
		return 1;
	}
	if (clock_gettime(CLOCK_MONOTONIC, &t0))
		return 2;
	ret = ioctl(fd, cmd, &u);
	if (clock_gettime(CLOCK_MONOTONIC, &t1))
		return 2;
	if (timed)
		printf("%.6f ", (double)(t1.tv_sec - t0.tv_sec) +
				(t1.tv_nsec - t0.tv_nsec) / 1e9);
	if (ret < 0) {
		printf("%s\n", strerrorname_np(errno));
		close(fd);
		return 1;
	}
	if (cmd == RDMIRROR_CTL_ADD)
		printf("%" PRIu32 "\n", u.add.index);
	close(fd);
	return 0;
}
