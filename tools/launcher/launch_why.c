/* Why a run left no report: the cause a user can act on, found after the
 * fact from the run directory and the command's file. */
#include "launch.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The command's file, as execvp finds it: a name with a slash as it is,
 * else the first PATH entry holding an executable of that name. */
static int find_command(const char *name, char *out, size_t len)
{
	const char *path = getenv("PATH");

	if (strchr(name, '/'))
		return snprintf(out, len, "%s", name) < (int)len ? 0 : -1;
	for (const char *p = path ? path : "/usr/bin:/bin"; *p;) {
		size_t n = strcspn(p, ":");

		if (snprintf(out, len, "%.*s%s%s", (int)n, p, n ? "/" : "", name) < (int)len &&
		    access(out, X_OK) == 0)
			return 0;
		p += n + (p[n] == ':');
	}
	return -1;
}

/* 1 when the ELF file at fd asks for a dynamic linker (PT_INTERP), 0 when
 * it does not (a static program), -1 when it is no ELF file we can read
 * (a script: its interpreter is what runs). */
static int has_interpreter(int fd)
{
	unsigned char id[EI_NIDENT];
	Elf64_Ehdr h;
	Elf64_Phdr ph;

	if (pread(fd, id, sizeof(id), 0) != (ssize_t)sizeof(id) || memcmp(id, ELFMAG, SELFMAG) ||
	    id[EI_CLASS] != ELFCLASS64 || pread(fd, &h, sizeof(h), 0) != (ssize_t)sizeof(h))
		return -1;
	for (unsigned i = 0; i < h.e_phnum; i++) {
		if (pread(fd, &ph, sizeof(ph), (off_t)(h.e_phoff + (Elf64_Off)i * h.e_phentsize)) !=
		    (ssize_t)sizeof(ph))
			return -1;
		if (ph.p_type == PT_INTERP)
			return 1;
	}
	return 0;
}

const char *launch_why_no_report(const struct launch *l, char *buf, size_t len)
{
	char exe[PATH_MAX];
	struct stat st;
	int fd, dynamic;

	if (access(l->dir, W_OK | X_OK) != 0) {
		snprintf(buf, len, "the run directory cannot be written in (%s)", strerror(errno));
		return buf;
	}
	if (find_command(l->argv[0], exe, sizeof(exe)) != 0 || stat(exe, &st) != 0)
		return "the command was not found";
	if (st.st_mode & (S_ISUID | S_ISGID))
		return "a set-user-ID or set-group-ID program: the dynamic linker ignores "
		       "LD_PRELOAD for it";
	fd = open(exe, O_RDONLY | O_CLOEXEC);
	dynamic = fd < 0 ? -1 : has_interpreter(fd);
	if (fd >= 0)
		close(fd);
	if (dynamic == 0)
		return "a statically linked program: nothing can be preloaded into it";
	return "the shim could not write its report: its own line above says why";
}
