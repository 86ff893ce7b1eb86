/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Which array rdctl gave an rd disk to, in <run dir>/rd-<rdN>.array
 * ("UUID DISKSEQ"): written by rd_prepare_for_md() before every add of
 * an rd disk (--convert, --create, --refresh, --restore, the warm-up),
 * read by --status for a disk that is in no array, to name the array it
 * was meant for when md took it out or never had it (a warm-up copy that
 * failed at a compressed disk's limit leaves no md superblock on it).
 * The disk's diskseq (/sys/block/rdN/diskseq, unique since boot) is kept
 * with it, so a record never names a later disk of the same name; a run
 * directory (tmpfs) does not outlive the boot, nor do rd disks.
 */
#ifndef RDCTL_RD_RECORD_H
#define RDCTL_RD_RECORD_H

/*
 * Record that rd disk rd goes to array mdname (by its UUID). 0, or -errno
 * (-ENOENT: no diskseq, or no UUID, to record).
 */
int rd_record_write(const char *rd, const char *mdname);

/*
 * The UUID of the array rd was given to, when the record is of this very
 * disk (the same diskseq, and one there to compare), malloc'd; else NULL.
 */
char *rd_record_uuid(const char *rd);

#endif
