/* SPDX-License-Identifier: GPL-2.0 */
/* Small helpers: allocation that never returns NULL, path roots, file reads. */
#ifndef RDCTL_UTIL_H
#define RDCTL_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define RDCTL_PRINTF(a, b) __attribute__((format(printf, a, b)))

/* The one out-of-memory path: print "rdctl: out of memory" and exit 1. */
void oom(void) __attribute__((noreturn));
/* Allocation helpers: on failure oom(). */
void *xmalloc(size_t n);
void *xcalloc(size_t nmemb, size_t size);
void *xrealloc(void *p, size_t nmemb, size_t size);
char *xstrdup(const char *s);
char *xasprintf(const char *fmt, ...) RDCTL_PRINTF(1, 2);

/* Roots, overridable by RDCTL_SYSFS_ROOT, RDCTL_PROC_ROOT, RDCTL_DEV_ROOT. */
const char *sysfs_root(void);
const char *proc_root(void);
const char *dev_root(void);
/*
 * Where rdctl keeps what lasts until the next boot (the last --restore's
 * report, the warm-ups' states): RDCTL_RUN_DIR, else /run/rdmirror (a
 * tmpfs: no file there means none since boot).
 */
const char *run_dir(void);

/* Read a whole small text file, trailing newlines removed. 0 or -errno. */
int read_text_file(const char *path, char **out);
/* Write text to an existing file (a sysfs attribute), truncating it. 0 or -errno. */
int write_text_file(const char *path, const char *text);
/* Parse a decimal unsigned integer that fills the whole string. */
bool parse_u64(const char *s, uint64_t *out);
/* Read a file holding one decimal number. 0, -errno, or -EINVAL. */
int read_u64_file(const char *path, uint64_t *out);
/* Does the path exist (stat succeeds)? */
bool path_exists(const char *path);
/* Seconds on the monotonic clock. */
double mono_now(void);
/* Sleep ms milliseconds (restarted on EINTR). */
void util_sleep_ms(long ms);

/* A duration: "1h02m", "3m12s", "45s", "unknown" when negative; malloc'd. */
char *eta_str(int64_t seconds);

/* The n strings of v joined by sep, malloc'd ("" for none). */
char *strv_join(char **v, size_t n, const char *sep);

/*
 * A Prometheus label value with \, " and newline escaped, as the text
 * format wants (NULL: ""); malloc'd. Every label --status --prom prints.
 */
char *prom_label_esc(const char *s);

#endif
