/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What to tell an admin whose kernel has no usable rdmirror module: after a
 * kernel upgrade without headers (DKMS built nothing), or on a kernel that
 * loads only signed modules (Secure Boot, module.sig_enforce=1, lockdown)
 * and does not trust the key DKMS signed it with. rdctl's load error and
 * --status give the same cause and fix.
 */
#ifndef RDCTL_MODULE_HELP_H
#define RDCTL_MODULE_HELP_H

/*
 * The commands that build and install the module for kernel kver: the
 * headers' package first when /lib/modules/KVER/build is missing.
 * Caller frees.
 */
char *module_missing_fix(const char *kver);
char *module_mismatch_fix(const char *kver);
/* Why the running kernel refuses unsigned or untrusted modules. Caller frees. */
char *module_signature_cause(void);
/* How to make it trust DKMS's signing key (mokutil), or stop enforcing. Caller frees. */
char *module_signature_fix(void);

#endif
