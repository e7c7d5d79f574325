// SPDX-License-Identifier: GPL-2.0
/*
 * The answer `ispotctl top --from ADDR` reads (user/lib/wire/
 * http_response.c, through the socket of user/ctl/top/http_get.c):
 * status line and headers, then a body by Content-Length, chunked
 * transfer coding or the server's close, from a server that may be
 * anyone's.  The input is the server's answer, sent over a socketpair in
 * records whose sizes come from its length (SOCK_SEQPACKET: one record a
 * recv(), so the reader sees it arrive in pieces), then the server's end
 * is shut; http_read() reads it as http_get() does after its request,
 * with a body bound of 0 to 4 KiB.  A body read must fit the bound and
 * end with the NUL the header promises.
 *
 * The reader's buffer is larger than what arrived, so a read past the
 * bytes received stays inside it, unseen by ASan: the head and chunked
 * parsers also run on an exact-size copy of the input, and decoding a
 * chunked body must give the length checking it gave.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "top/http_get.h"

static void check_exact(const uint8_t *data, size_t size)
{
	char *buf = malloc(size ? size : 1);
	size_t len = 0, decoded = 0;
	struct http_head h;
	int ret;

	if (!buf)
		return;
	memcpy(buf, data, size);
	if (http_head_parse(buf, size, &h) == 1 && h.chunked) {
		if (h.size > size)
			__builtin_trap();
		ret = http_chunked(buf + h.size, size - h.size, false, &len);
		if (ret == 1 && (http_chunked(buf + h.size, size - h.size, true,
					      &decoded) != 1 || decoded != len))
			__builtin_trap();
	}
	free(buf);
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000ull + ts.tv_nsec / 1000000;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint32_t h = (uint32_t)size * 2654435761u;
	size_t piece = 1 + (h >> 16) % 512, max_body = (h >> 4) % 4097, off;
	struct http_response r = { 0 };
	char err[256];
	int sv[2];

	if (size > 32768)
		return -1;	/* the socket's buffer holds it all */
	check_exact(data, size);
	if (size / piece > 64)
		piece = size / 64 + 1;	/* records cost the buffer more */
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv))
		return 0;
	for (off = 0; off < size; off += piece) {
		size_t n = size - off < piece ? size - off : piece;

		if (send(sv[1], data + off, n, MSG_NOSIGNAL | MSG_DONTWAIT) !=
		    (ssize_t)n)
			abort();
	}
	shutdown(sv[1], SHUT_WR);
	if (!http_read(sv[0], now_ms() + 1000, max_body, &r, err,
		       sizeof(err))) {
		if (!r.body || r.len > max_body || r.body[r.len] != '\0' ||
		    r.status < 100 || r.status > 999)
			__builtin_trap();
		http_response_free(&r);
	} else if (!err[0]) {
		__builtin_trap();	/* a failure must say why */
	}
	close(sv[0]);
	close(sv[1]);
	return 0;
}
