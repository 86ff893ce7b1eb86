/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Editing /etc/rdmirror.conf: --create/--convert add a mirror's line,
 * --revert removes it. The file is the administrator's: every other line,
 * comment and byte (CRLF, no final newline) is kept as it was, and the new
 * content replaces the old atomically, so a crash leaves either the old file
 * or the new one, never half of one.
 */
#ifndef RDCTL_CONFIG_EDIT_H
#define RDCTL_CONFIG_EDIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/*
 * text with the lines numbered in lines[0..n) removed (1-based, counted as
 * struct conf_mirror.line counts them); malloc'd. A line is what ends in
 * '\n' (the '\n' goes with it), or the last piece without one. Numbers past
 * the end, 0 or negative are ignored; duplicates and any order are fine.
 */
char *config_text_drop_lines(const char *text, const int *lines, size_t n);

/*
 * text with line (no '\n' in it) appended; malloc'd. A non-empty text that
 * does not end in '\n' gets one first; the appended line ends in '\n'.
 */
char *config_text_append(const char *text, const char *line);

/*
 * Replace path's content with text atomically: a temporary file
 * "DIR/.NAME.XXXXXX" next to it is written, fsync'd, renamed over path, and
 * DIR is fsync'd. An existing file keeps its mode (and its owner and group
 * when running as root); a new file gets 0644 less the umask. A symlink is
 * followed: its target is replaced, the link stays.
 * 0, or -errno with *msg set to a malloc'd one-line message naming the path
 * and the step, e.g. "cannot write /etc/.rdmirror.conf.a1B2c3: No space left
 * on device". On failure the temporary file is removed and path is untouched,
 * except after the rename: "cannot sync directory DIR: ..." (or "cannot
 * close directory DIR: ...") means the new content is in place but may not
 * survive a crash.
 */
int config_write_atomic(const char *path, const char *text, char **msg);

/* file_write_atomic()'s mode that keeps the file's own (0644 less the umask when new) */
#define FILE_MODE_KEEP ((mode_t)-1)

/*
 * config_write_atomic() of len bytes of data (NULs and all) with the file's
 * mode mode, new or replaced, the umask aside: 0600 for a record only root
 * may read. FILE_MODE_KEEP makes it config_write_atomic() itself.
 */
int file_write_atomic(const char *path, const void *data, size_t len, mode_t mode, char **msg);

/*
 * The whole file's text, byte for byte, in *text (malloc'd), or "" when the
 * file does not exist. 0, or -errno with *text NULL and *msg set (malloc'd):
 * -EINVAL when the file holds a NUL byte (not a text file), -EFBIG past
 * CONFIG_EDIT_MAX_BYTES, the read error otherwise.
 */
#define CONFIG_EDIT_MAX_BYTES (16U << 20)
int config_file_load(const char *path, char **text, char **msg);

/*
 * The line --create/--convert write: "UUID=<uuid> <size>[ prealloc]", size
 * "auto", "<n>M" for a whole number of MiB, else "<n>B". malloc'd. size must
 * be one size_parse() accepts (> 0, a multiple of 4096) unless auto_size;
 * uuid is written as given (pass it as mdadm prints it).
 */
char *config_line_for(const char *uuid, bool auto_size, uint64_t size, bool prealloc);

#endif
