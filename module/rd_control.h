/* SPDX-License-Identifier: GPL-2.0 */
/* Request checks of the control ioctls, apart so that KUnit can call them. */
#ifndef RD_CONTROL_H
#define RD_CONTROL_H

#include <linux/types.h>

struct rdmirror_add;
struct rdmirror_resize;
struct rdmirror_disk;

u64 rd_ctl_max_size(bool compressed);
int rd_ctl_check_size(u64 size, bool compressed);
int rd_ctl_check_add(const struct rdmirror_add *req);
int rd_ctl_check_resize(const struct rdmirror_resize *req);
int rd_ctl_check_disk(const struct rdmirror_disk *req);

#endif /* RD_CONTROL_H */
