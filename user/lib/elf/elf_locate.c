// SPDX-License-Identifier: GPL-2.0
/*
 * The object a spec's OBJ: part designates, shared by function specs
 * (elf_spec.c) and block specs (elf_block.c): the main executable, a
 * path, or a short name such as "libc" looked up as the target would load
 * it.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "elf/elf_internal.h"

/*
 * Whether @path names, here, the file @link (/proc/PID/exe) is: the link
 * says where the program lies in its own mount namespace, and the same
 * path here may be another file (a namespace of the target's own can
 * mount its program over the path of a file only root may read).  A link
 * this caller may not follow leaves the path as it was.
 */
static bool same_file_here(const char *path, const char *link)
{
	struct stat a, b;

	if (stat(link, &b))
		return true;
	return !stat(path, &a) && a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

/*
 * The main executable of pid: its path if still reachable and the same
 * file here, else the link.
 */
static void pid_exe(pid_t pid, char *buf, size_t len)
{
	char link[64], target[PATH_MAX];
	ssize_t r;

	snprintf(link, sizeof(link), "/proc/%d/exe", (int)pid);
	r = readlink(link, target, sizeof(target) - 1);
	if (r > 0) {
		target[r] = '\0';
		if (!strstr(target, " (deleted)") && !access(target, R_OK) &&
		    same_file_here(target, link)) {
			elf_copy_str(buf, len, target);
			return;
		}
	}
	elf_copy_str(buf, len, link);
}

int elf_locate_object(const char *obj, pid_t pid, const char *exe,
		      const char *spec, char *path, size_t pathlen,
		      char *err, size_t errlen)
{
	char exe_buf[PATH_MAX];
	int rc = -ENOENT;

	if (exe && !*exe)
		exe = NULL;
	if (!exe && pid > 0) {
		pid_exe(pid, exe_buf, sizeof(exe_buf));
		exe = exe_buf;
	}
	if (!exe && (!obj || !strchr(obj, '/')))
		return elf_fail(err, errlen, -EINVAL,
				"no executable or process to resolve '%s' in",
				spec);
	if (!obj || strchr(obj, '/')) {
		elf_copy_str(path, pathlen, obj ? obj : exe);
		return 0;
	}

	/* A short object name: mapped objects first, then what exe loads. */
	if (pid > 0) {
		struct elf_map *maps;
		size_t nmaps;

		rc = elf_maps_read(pid, &maps, &nmaps, err, errlen);
		if (rc)
			return rc;
		rc = elf_maps_find_object(maps, nmaps, obj, path, pathlen,
					  err, errlen);
		elf_maps_free(maps, nmaps);
		if (rc && rc != -ENOENT)
			return rc;
	}
	if (rc == -ENOENT && elf_obj_name_matches(exe, obj)) {
		elf_copy_str(path, pathlen, exe);
		rc = 0;
	}
	if (rc == -ENOENT)
		rc = elf_find_needed(exe, obj, path, pathlen, err, errlen);
	return rc;
}
