/* SPDX-License-Identifier: GPL-2.0 */
/* Size arguments ("2048", "2G", "512MiB") and human-readable sizes. */
#ifndef RDCTL_SIZE_H
#define RDCTL_SIZE_H

#include <stdint.h>

/*
 * Parse a disk size. A bare number is MiB; K, M, G, T (either case) are
 * binary multipliers and may be followed by "B" or "iB"; a lone "B" means
 * bytes. The result must be > 0 and a multiple of 4096.
 * Returns 0 and sets *bytes, or -1 and sets *err to a malloc'd message
 * (without the "rdctl: " prefix) that the caller frees.
 */
int size_parse(const char *s, uint64_t *bytes, char **err);

/* "2048 MiB" when a whole number of MiB, else "12 KiB"; malloc'd. */
char *size_mib_str(uint64_t bytes);

/* Human size: "0 B", "4.0 KiB", "512 MiB", "1.5 GiB"; malloc'd. */
char *size_human(uint64_t bytes);

#endif
