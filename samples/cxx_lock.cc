// SPDX-License-Identifier: GPL-2.0
/*
 * Lock contention in C++: threads add to one shared counter under one
 * std::mutex.  shop::Counter::add is overloaded, so it is named with its
 * parameter list or by a glob; its mangled name reaches the reports only
 * as "linkage_name".
 *
 *   ispotctl run --func 'shop::Counter::add(int)' -- samples/cxx_lock
 *   samples/cxx_lock [THREADS [ITERATIONS]]
 */
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <thread>
#include <vector>

namespace shop {

std::mutex g_lock;

class Counter {
public:
	void add(int n);
	void add(long n);
	long total() const { return value; }

private:
	long value = 0;
};

/* noinline: each overload keeps a symbol and a probe point of its own. */
__attribute__((noinline)) void Counter::add(int n)
{
	std::lock_guard<std::mutex> hold(g_lock);

	value += n;
}

__attribute__((noinline)) void Counter::add(long n)
{
	std::lock_guard<std::mutex> hold(g_lock);

	value += n;
}

} /* namespace shop */

int main(int argc, char **argv)
{
	int threads = argc > 1 ? atoi(argv[1]) : 2;
	long iterations = argc > 2 ? atol(argv[2]) : 20000;
	std::vector<std::thread> pool;
	shop::Counter c;

	if (threads < 1 || threads > 64 || iterations < 1) {
		fprintf(stderr, "usage: cxx_lock [THREADS 1-64 [ITERATIONS]]\n");
		return 2;
	}
	for (int t = 0; t < threads; t++)
		pool.emplace_back([&c, iterations] {
			for (long i = 0; i < iterations; i++)
				c.add(1);
		});
	for (auto &th : pool)
		th.join();
	c.add(0L);
	printf("cxx_lock: %d threads x %ld iterations, total %ld\n", threads,
	       iterations, c.total());
	return 0;
}
