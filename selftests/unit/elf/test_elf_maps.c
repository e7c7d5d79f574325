// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for user/lib/elf/elf_maps.c: /proc/PID/maps and load bias.
 */
#include <dlfcn.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include "elf_fixtures.h"
#include "elf/elf_internal.h"

/* Code of our own, resolved back by the tests. */
__attribute__((noinline, noclone, used))
int elf_test_target_fn(int x)
{
	return x * 7 + 3;
}

TEST(maps_of_self)
{
	const char *exe = canon("/proc/self/exe");
	const struct elf_map *m;
	struct elf_map *maps;
	char err[ERRLEN], path[PATH_MAX];
	int on_stack = 1;
	size_t n, i;

	ASSERT_EQ(elf_maps_read(0, &maps, &n, err, sizeof(err)), 0);
	ASSERT_GT(n, 3);
	/* Unsigned compare: [vsyscall] sits at the top of the space. */
	for (i = 1; i < n; i++)
		ASSERT_TRUE(maps[i - 1].end <= maps[i].start);

	m = elf_maps_find(maps, n, (uintptr_t)elf_test_target_fn);
	ASSERT_TRUE(m);
	EXPECT_STREQ(m->path, exe);
	EXPECT_EQ(m->perms[2], 'x');
	EXPECT_GT(m->inode, 0);

	m = elf_maps_find(maps, n, (uintptr_t)&on_stack);
	ASSERT_TRUE(m);
	if (!under_valgrind())
		EXPECT_STREQ(m->path, "[stack]");
	EXPECT_TRUE(elf_maps_find(maps, n, 16) == NULL);

	ASSERT_EQ(elf_maps_find_object(maps, n, "libc", path, sizeof(path),
				       err, sizeof(err)), 0);
	EXPECT_EQ(strncmp(strrchr(path, '/'), "/libc.so", 8), 0);
	EXPECT_EQ(elf_maps_find_object(maps, n, "libcrypt", path,
				       sizeof(path), err, sizeof(err)),
		  -ENOENT);
	ASSERT_EQ(elf_maps_find_object(maps, n, "/proc/self/exe", path,
				       sizeof(path), err, sizeof(err)), 0);
	EXPECT_STREQ(path, exe);
	elf_maps_free(maps, n);

	ASSERT_EQ(elf_maps_read(getpid(), &maps, &n, err, sizeof(err)), 0);
	ASSERT_GT(n, 3);
	elf_maps_free(maps, n);
	EXPECT_EQ(elf_maps_read(INT_MAX, &maps, &n, err, sizeof(err)), -ENOENT);
}

TEST(libc_printf_runtime_address)
{
	struct elf_target_sym t = resolve_one("libc:printf", getpid(), NULL);
	void *real = dlsym(RTLD_DEFAULT, "printf");
	struct elf_addr_info info;
	struct elf_map *maps;
	unsigned char file[32];
	char err[ERRLEN];
	uint64_t bias;
	size_t n;

	ASSERT_TRUE(real);
	EXPECT_EQ(strncmp(strrchr(t.obj, '/'), "/libc.so", 8), 0);
	ASSERT_EQ(elf_maps_read(0, &maps, &n, err, sizeof(err)), 0);
	ASSERT_EQ(elf_load_bias(maps, n, t.obj, &bias, err, sizeof(err)), 0);
	elf_maps_free(maps, n);
	EXPECT_EQ(bias + t.vaddr, (uintptr_t)real);
	pread_all(t.obj, t.offset, file, sizeof(file));
	EXPECT_EQ(memcmp(file, real, sizeof(file)), 0);

	/* And back; printf's aliases (_IO_printf) lose to the plain name. */
	ASSERT_EQ(elf_addr_to_symbol(0, (uintptr_t)real + 5, &info, err,
				     sizeof(err)), 0);
	EXPECT_EQ(info.kind, ELF_ADDR_SYMBOL);
	EXPECT_STREQ(info.sym, "printf");
	EXPECT_EQ(info.sym_off, 5);
	EXPECT_STREQ(info.obj, t.obj);
}

/*
 * A process's maps come out of the kernel a page per read(), and one that
 * exits between two reads ends the file early: read while it exits, they
 * are whole or refused, never the low part alone (which names no frame in
 * the libraries mapped above it), nor a zombie's none.  The child maps
 * thousands of pages one by one, dozens of reads, so some round's exit
 * comes while a read is under way.
 */
#define MAPS_EXIT_PAGES		4000
#define MAPS_EXIT_ROUNDS	10

static void maps_exit_round(size_t *cut, size_t *refused)
{
	long page = sysconf(_SC_PAGESIZE);
	int ready[2], go[2];
	struct elf_map *maps;
	char err[ERRLEN], b;
	size_t n, whole;
	pid_t pid;
	int rc;

	ASSERT_EQ(pipe(ready), 0);
	ASSERT_EQ(pipe(go), 0);
	pid = fork();
	ASSERT_GE(pid, 0);
	if (!pid) {
		char *m = mmap(NULL, MAPS_EXIT_PAGES * page, PROT_READ,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		size_t i;

		/* Every other page made inaccessible: one mapping each. */
		for (i = 1; m != MAP_FAILED && i < MAPS_EXIT_PAGES; i += 2)
			mprotect(m + i * page, page, PROT_NONE);
		if (write(ready[1], "r", 1) != 1 || read(go[0], &b, 1) < 0)
			_exit(1);
		_exit(0);
	}
	close(ready[1]);
	close(go[0]);
	ASSERT_EQ(read(ready[0], &b, 1), 1);
	ASSERT_EQ(elf_maps_read(pid, &maps, &whole, err, sizeof(err)), 0);
	elf_maps_free(maps, whole);
	ASSERT_GT(whole, MAPS_EXIT_PAGES);
	/* Let it exit, and read until it is gone. */
	ASSERT_EQ(write(go[1], "g", 1), 1);
	do {
		rc = elf_maps_read(pid, &maps, &n, err, sizeof(err));
		if (rc) {
			++*refused;
			break;
		}
		elf_maps_free(maps, n);
		if (n != whole)
			++*cut;
	} while (n == whole);
	close(ready[0]);
	close(go[1]);
	waitpid(pid, NULL, 0);
}

TEST(maps_read_as_the_process_exits_are_whole_or_refused)
{
	size_t cut = 0, refused = 0;
	int i;

	for (i = 0; i < MAPS_EXIT_ROUNDS; i++)
		maps_exit_round(&cut, &refused);
	EXPECT_EQ(cut, 0);
	EXPECT_EQ(refused, MAPS_EXIT_ROUNDS);
}

/*
 * A small program's segments, as the linker lays them out: .rodata's
 * last page and .data's first are one file page (0x3000), mapped twice.
 */
static const Elf64_Phdr small_program[] = {
	{ .p_type = PT_LOAD, .p_offset = 0, .p_vaddr = 0,
	  .p_filesz = 0xe70, .p_memsz = 0xe70 },
	{ .p_type = PT_LOAD, .p_offset = 0x1000, .p_vaddr = 0x1000,
	  .p_filesz = 0x1189, .p_memsz = 0x1189 },
	{ .p_type = PT_LOAD, .p_offset = 0x3000, .p_vaddr = 0x3000,
	  .p_filesz = 0x4d0, .p_memsz = 0x4d0 },
	{ .p_type = PT_LOAD, .p_offset = 0x3c6c, .p_vaddr = 0x4c6c,
	  .p_filesz = 0x4c4, .p_memsz = 0x205dc },
};

#define BASE	0x555500000000ull

/* The bias of the mapping of @maps that holds @addr. */
static uint64_t bias_at(const struct elf_map *maps, size_t n, uint64_t addr)
{
	struct elf_file f = { .ph = (Elf64_Phdr *)small_program,
			      .phnum = sizeof(small_program) /
				       sizeof(small_program[0]) };
	const struct elf_map *m = elf_maps_find(maps, n, addr);
	uint64_t bias = 0;

	ASSERT_TRUE(m);
	ASSERT_EQ(elf_bias_from_map(&f, maps, n, m, &bias), 0);
	return bias;
}

#define MAP(s, e, off)	{ .start = BASE + (s), .end = BASE + (e), \
			  .offset = (off), .inode = 7, .path = "/bin/p" }

/*
 * Right after the exec (before the loader made RELRO read-only) .data's
 * one mapping starts at its page shared with .rodata; once split, the
 * RELRO page and .rodata's page are both mapped at file offset 0x3000.
 * Each mapping gets the program's one bias, never .rodata's taken for
 * .data's: a variable in .bss was named a page off (0x41c0, no symbol)
 * when the futex report read the maps at the exec.
 */
TEST(a_file_page_shared_by_two_segments_gets_the_right_bias)
{
	const struct elf_map at_exec[] = {
		MAP(0, 0x1000, 0), MAP(0x1000, 0x3000, 0x1000),
		MAP(0x3000, 0x4000, 0x3000), MAP(0x4000, 0x6000, 0x3000),
	};
	const struct elf_map relro[] = {
		MAP(0, 0x1000, 0), MAP(0x1000, 0x3000, 0x1000),
		MAP(0x3000, 0x4000, 0x3000), MAP(0x4000, 0x5000, 0x3000),
		MAP(0x5000, 0x6000, 0x4000),
	};

	EXPECT_EQ(bias_at(at_exec, 4, BASE + 0x51c0), BASE);
	EXPECT_EQ(bias_at(at_exec, 4, BASE + 0x3100), BASE);
	EXPECT_EQ(bias_at(relro, 5, BASE + 0x51c0), BASE);
	EXPECT_EQ(bias_at(relro, 5, BASE + 0x4d00), BASE);
	EXPECT_EQ(bias_at(relro, 5, BASE + 0x3100), BASE);
	/* Alone, each still gets a bias its own pages fit. */
	EXPECT_EQ(bias_at(&at_exec[3], 1, BASE + 0x51c0), BASE);
}

TEST_HARNESS_MAIN
