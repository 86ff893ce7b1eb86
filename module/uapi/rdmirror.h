/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * rdmirror control interface, shared by the kernel module and rdctl.
 *
 * The module registers the misc device /dev/rdmirror-control. Every ioctl
 * takes one of the fixed-size structs below. The caller sets @version to
 * RDMIRROR_ABI_VERSION and zeroes every reserved field (and every field
 * marked "out"); the kernel rejects anything else with -EINVAL, so that
 * later versions can give those fields a meaning. All ioctls need
 * CAP_SYS_ADMIN (-EPERM otherwise).
 *
 * Errors:
 *   EINVAL  wrong version, reserved or out field not zero, unknown flag,
 *           size 0 or not a multiple of RDMIRROR_SIZE_ALIGN; with
 *           ADD_COMPRESS, PREALLOC too or comp neither LZ4 nor ZSTD;
 *           without it, comp or mem_limit not 0
 *   ENOMEM  size larger than the machine's RAM (a compressed disk,
 *           added or resized: 8 times its RAM, and its mem_limit larger
 *           than RAM), or (preallocate) not
 *           enough memory: what is available, less what other running
 *           preallocations will take, less 1/32 of RAM; nothing is left
 *           allocated
 *   ENOTTY  not a request of this device (whatever the caller's rights)
 *   ENODEV  no disk with that index
 *   EBUSY   the disk is open (md member, mount, open file): it cannot be
 *           removed, shrunk or emptied; or a preallocating grow or an
 *           emptying of it is still running
 *   ENOSPC  the module's max_disks limit is reached (checked before any
 *           preallocation)
 *   EDQUOT  (preallocate) the pages would take the rd disks together past
 *           the module's memory limit (parameter mem_limit); nothing is
 *           left allocated
 *   EINTR   preallocation, or the wait for another request, interrupted
 *           by a fatal signal
 *   EIO     (FREE_PAGES of a preallocated disk) a page whose memory failed
 *           could not be replaced by a zeroed one (no memory for a new
 *           page, or no room to record its lost sectors): the rest of the
 *           disk is emptied, that page's blocks read as errors until
 *           written
 */
#ifndef _UAPI_LINUX_RDMIRROR_H
#define _UAPI_LINUX_RDMIRROR_H

#include <linux/ioctl.h>
#include <linux/types.h>

#define RDMIRROR_CONTROL_NAME	"rdmirror-control"
#define RDMIRROR_DISK_PREFIX	"rd"
#define RDMIRROR_ABI_VERSION	1
/* Sizes are multiples of this on every page size. */
#define RDMIRROR_SIZE_ALIGN	4096ULL

/* rdmirror_add.flags */
#define RDMIRROR_ADD_PREALLOC	0x1U	/* allocate every page now */
/*
 * Store each 4 KiB page compressed with rdmirror_add.comp (then PREALLOC
 * is refused: EINVAL). The module that does not know this flag refuses
 * it with EINVAL as any unknown flag.
 */
#define RDMIRROR_ADD_COMPRESS	0x2U
#define RDMIRROR_ADD_ALL_FLAGS	(RDMIRROR_ADD_PREALLOC | RDMIRROR_ADD_COMPRESS)

/* rdmirror_add.comp: the compressor of a RDMIRROR_ADD_COMPRESS disk */
#define RDMIRROR_COMP_NONE	0U	/* must be this without the flag */
#define RDMIRROR_COMP_LZ4	1U
#define RDMIRROR_COMP_ZSTD	2U

/* RDMIRROR_CTL_ADD: create a disk; the new disk is /dev/rd<index>. */
struct rdmirror_add {
	__u32 version;		/* in: RDMIRROR_ABI_VERSION */
	__u32 flags;		/* in: RDMIRROR_ADD_* */
	__u64 size;		/* in: bytes */
	__u32 index;		/* out: must be 0 on entry */
	__u32 comp;		/* in: RDMIRROR_COMP_*, with ADD_COMPRESS only */
	/*
	 * in: with ADD_COMPRESS, the memory in bytes the disk's compressed
	 * data may take (0: no bound of its own); a write past it fails
	 * with ENOSPC as past the module's mem_limit. 0 without the flag.
	 */
	__u64 mem_limit;
	__u64 reserved[3];
};

/*
 * RDMIRROR_CTL_RESIZE: set a new size. Growing works while the disk is in
 * use; shrinking frees the pages past the new end and needs the disk
 * closed (EBUSY otherwise).
 */
struct rdmirror_resize {
	__u32 version;		/* in: RDMIRROR_ABI_VERSION */
	__u32 index;		/* in */
	__u64 size;		/* in: bytes */
	__u64 reserved[4];
};

/*
 * RDMIRROR_CTL_REMOVE: delete the disk and free its memory.
 * RDMIRROR_CTL_FREE_PAGES: discard the whole content. A normal disk gives
 * all its memory back, before the call returns; a preallocated one keeps
 * its pages, zeroed. A change uevent follows, so that udev reads the
 * emptied disk again. Both need the disk closed (EBUSY otherwise; also
 * while the disk is being emptied).
 */
struct rdmirror_disk {
	__u32 version;		/* in: RDMIRROR_ABI_VERSION */
	__u32 index;		/* in */
	__u64 reserved[4];
};

#define RDMIRROR_IOCTL_MAGIC	0xE6
#define RDMIRROR_CTL_ADD	_IOWR(RDMIRROR_IOCTL_MAGIC, 0x00, struct rdmirror_add)
#define RDMIRROR_CTL_REMOVE	_IOW(RDMIRROR_IOCTL_MAGIC, 0x01, struct rdmirror_disk)
#define RDMIRROR_CTL_RESIZE	_IOW(RDMIRROR_IOCTL_MAGIC, 0x02, struct rdmirror_resize)
#define RDMIRROR_CTL_FREE_PAGES	_IOW(RDMIRROR_IOCTL_MAGIC, 0x03, struct rdmirror_disk)

/*
 * Per-disk read-only attributes, in /sys/block/rd<N>/rdmirror/:
 *   allocated_bytes  memory the disk holds now, in bytes
 *   preallocated     1 if every page was allocated at creation, else 0
 *   memory_errors    pages whose memory failed (a machine check during a
 *                    read, or flagged hwpoisoned): reads of their blocks
 *                    fail with EIO, which md corrects from a disk
 *   replaced_pages   broken pages a write has put in new pages since;
 *                    broken pages are never given back to the allocator
 *   refused_writes   writes refused because the rd disks together hold
 *                    the module's memory limit: they fail with ENOSPC
 *                    (BLK_STS_NOSPC), and once one has, every write to
 *                    the disk does until the limit has 256 pages of room
 * A disk created with RDMIRROR_ADD_COMPRESS also has, in the same folder:
 *   compressor       lz4 or zstd
 *   data_bytes       the bytes of data it holds (4096 for each page that
 *                    holds any nonzero byte), before compression
 *   allocated_bytes  (as above) the memory its objects take, exact: what
 *                    the allocator gave for each, headers included
 *   mem_limit        the bound of rdmirror_add.mem_limit, in bytes (0:
 *                    none); root may write it
 *   same_pages       pages held as one repeated word
 *   huge_pages       pages that did not compress, held whole
 *   checksum_errors  reads failed because an object's checksum did not
 *                    match, or it did not decompress to exactly 4096
 *                    bytes: EIO, which md corrects from a disk
 * Module-wide, in /sys/module/rdmirror/parameters/: mem_limit (bytes all
 * disks may hold together, 0 for none; root may write it, with a K, M or
 * G suffix), mem_used (bytes they hold) and mem_refused_writes (writes
 * refused for the limit since load), the last two read-only.
 * The module version is in /sys/module/rdmirror/version.
 */

#endif /* _UAPI_LINUX_RDMIRROR_H */
