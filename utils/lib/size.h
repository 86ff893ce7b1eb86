/* SPDX-License-Identifier: GPL-2.0 */
/* Size arguments ("2048", "2G", "512MiB") and human-readable sizes. */
#ifndef RDCTL_SIZE_H
#define RDCTL_SIZE_H

#include <stdint.h>

/*
 * Parse a disk size, the way util-linux's strtosize() reads one (as
 * zramctl --size does), with rdctl's two rules on top:
 *   - a bare number is MiB ("2048" is 2 GiB), "B" alone is bytes;
 *   - K, M, G, T, P, E (any case), alone or followed by "iB", are powers of
 *     1024; followed by "B" ("KB", "MB", ...) they are powers of 1000;
 *   - a fraction with '.' and 1 to 9 digits after it ("1.5G", "0.5M", bare
 *     "1.5" = 1.5 MiB), exact to the byte; never ',', never ".5" or "1.";
 *   - decimal digits only: no sign, no blanks, no 0x, a leading 0 is not octal.
 * The result must be > 0, below 2^64 and a multiple of 4096; a size that
 * is not gets an error naming the nearest valid sizes either side.
 * Returns 0 and sets *bytes, or -1 and sets *err to a malloc'd message
 * (without the "rdctl: " prefix, naming the input) that the caller frees.
 */
int size_parse(const char *s, uint64_t *bytes, char **err);

/* "2048 MiB" when a whole number of MiB, else "12 KiB"; malloc'd. */
char *size_mib_str(uint64_t bytes);

/* Human size: "0 B", "4.0 KiB", "512 MiB", "1.5 GiB"; malloc'd. */
char *size_human(uint64_t bytes);

#endif
