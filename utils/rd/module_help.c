// SPDX-License-Identifier: GPL-2.0
#include "rd/module_help.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "lib/seams.h"
#include "lib/util.h"

/* The keys DKMS signs modules with, where mokutil --import takes them from. */
static const char *const signing_keys[] = {
	"/var/lib/dkms/mok.pub",		/* dkms 3.x: Debian, Fedora, Arch */
	"/var/lib/shim-signed/mok/MOK.der",	/* Ubuntu's shim-signed */
};

/* RDCTL_MODULES_DIR: the tests' stand-in for /lib/modules/KVER (control.c). */
static char *modules_dir(const char *kver)
{
	const char *d = seam("RDCTL_MODULES_DIR");

	return d && *d ? xstrdup(d) : xasprintf("/lib/modules/%s", kver);
}

char *module_missing_fix(const char *kver)
{
	char *dir = modules_dir(kver), *build = xasprintf("%s/build", dir), *s;
	const char *pkg;

	if (path_exists(build)) {
		s = xasprintf("dkms install rdmirror/%s -k %s", RDCTL_VERSION, kver);
	} else {
		if (path_exists("/usr/bin/apt-get"))
			pkg = "apt-get install linux-headers-";
		else if (path_exists("/usr/bin/dnf"))
			pkg = "dnf install kernel-devel-";
		else
			pkg = "install the kernel headers for ";
		s = xasprintf("%s%s (the headers are missing, so DKMS built nothing for it), then dkms install rdmirror/%s -k %s",
			      pkg, kver, RDCTL_VERSION, kver);
	}
	free(build);
	free(dir);
	return s;
}

/* The fix for a module built for another kernel: DKMS rebuilds it for this one. */
char *module_mismatch_fix(const char *kver)
{
	return xasprintf("dkms install rdmirror/%s -k %s --force", RDCTL_VERSION, kver);
}

/* Does a sysfs text file hold word (or [word], as lockdown marks its mode)? */
static bool file_says(const char *rel, const char *word)
{
	char *path = xasprintf("%s/%s", sysfs_root(), rel), *text = NULL;
	bool yes = read_text_file(path, &text) == 0 && strstr(text, word);

	free(text);
	free(path);
	return yes;
}

char *module_signature_cause(void)
{
	const char *why;

	if (file_says("kernel/security/lockdown", "[integrity]") ||
	    file_says("kernel/security/lockdown", "[confidentiality]"))
		why = "the kernel is locked down (Secure Boot)";
	else if (file_says("module/module/parameters/sig_enforce", "Y"))
		why = "the kernel enforces module signatures (Secure Boot or module.sig_enforce=1)";
	else
		why = "the kernel checks module signatures";
	return xasprintf("%s and does not trust the key the rdmirror module is signed with (or it is unsigned)",
			 why);
}

char *module_signature_fix(void)
{
	const char *key = NULL;

	for (size_t i = 0; i < sizeof(signing_keys) / sizeof(signing_keys[0]); i++) {
		if (path_exists(signing_keys[i])) {
			key = signing_keys[i];
			break;
		}
	}
	if (!key)
		return xasprintf("rebuild the module so that DKMS signs it (dkms install rdmirror/%s --force), then enrol its key once: mokutil --import %s, reboot and confirm the key in the MOK manager; without Secure Boot, remove module.sig_enforce=1 from the kernel command line instead",
				 RDCTL_VERSION, signing_keys[0]);
	return xasprintf("enrol the key DKMS signs the module with, once: mokutil --import %s, reboot and confirm the key in the MOK manager; without Secure Boot, remove module.sig_enforce=1 from the kernel command line instead",
			 key);
}
