/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the libFuzzer harnesses of test/fuzz/: an invariant
 * check that aborts (libFuzzer then saves the input), the input as an exact
 * C string, and a memfd to hand the input to a parser that reads a file.
 */
#ifndef RDCTL_FUZZ_H
#define RDCTL_FUZZ_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A violated invariant: say which, and abort so that libFuzzer keeps the input. */
#define FUZZ_CHECK(cond, ...)							\
	do {									\
		if (!(cond)) {							\
			fprintf(stderr, "fuzz: invariant violated: %s: ", #cond);	\
			fprintf(stderr, __VA_ARGS__);				\
			fputc('\n', stderr);					\
			abort();						\
		}								\
	} while (0)

/*
 * The input up to its first NUL (what a C string of it is), in a buffer of
 * exactly that length + 1, so that AddressSanitizer catches a read past
 * the terminating NUL. The caller frees.
 */
static inline char *fuzz_cstr(const uint8_t *data, size_t size)
{
	size_t len = strnlen((const char *)data, size);
	char *s = malloc(len + 1);

	if (!s)
		abort();
	memcpy(s, data, len);
	s[len] = '\0';
	return s;
}

/* An anonymous memory file; its path is /proc/self/fd/N. */
static inline int fuzz_memfd(char *path, size_t pathlen)
{
	int fd = memfd_create("rdctl-fuzz", MFD_CLOEXEC);

	if (fd < 0) {
		perror("fuzz: memfd_create");
		abort();
	}
	snprintf(path, pathlen, "/proc/self/fd/%d", fd);
	return fd;
}

/* Make the memfd hold exactly data[0..size). */
static inline void fuzz_memfd_set(int fd, const uint8_t *data, size_t size)
{
	size_t done = 0;

	if (ftruncate(fd, 0) < 0 || lseek(fd, 0, SEEK_SET) < 0) {
		perror("fuzz: memfd");
		abort();
	}
	while (done < size) {
		ssize_t n = write(fd, data + done, size - done);

		if (n <= 0) {
			perror("fuzz: memfd write");
			abort();
		}
		done += (size_t)n;
	}
}

#endif
