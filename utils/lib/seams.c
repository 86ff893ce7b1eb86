// SPDX-License-Identifier: GPL-2.0
#include "lib/seams.h"

#include <stdlib.h>

const char *user_env(const char *name)
{
	return getenv(name);
}

#ifdef RDCTL_TEST_SEAMS
const char *seam(const char *name)
{
	return getenv(name);
}
#else
const char *seam(const char *name)
{
	(void)name;
	return NULL;
}
#endif
