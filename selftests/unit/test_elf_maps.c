// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for user/lib/elf/elf_maps.c: /proc/PID/maps and load bias.
 */
#include <dlfcn.h>

#include "elf_fixtures.h"

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

TEST_HARNESS_MAIN
