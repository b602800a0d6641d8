/*
 * relay: the least a process between an editor and its language server
 * can do: run the server (argv[1..]) on pipes and copy bytes both ways
 * with poll(2), read(2) and write(2) — no framing, no parsing, no ids.
 * The floor BenchmarkWrapHover and BenchmarkWrapThroughput compare
 * `agentls serve --wrap` with (docs/performance.md):
 *
 *   cc -O2 -o /tmp/relay bench/relayfloor/c/relay.c
 *   AGENTLS_BENCH_RELAY=/tmp/relay go test ./internal/frontend/lsp \
 *     -run '^$' -bench '^BenchmarkWrap(Hover|Throughput)$'
 */
#include <poll.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

static int copy(int from, int to, char *buf, size_t size) {
	ssize_t n = read(from, buf, size);
	if (n <= 0)
		return -1;
	for (ssize_t off = 0; off < n;) {
		ssize_t w = write(to, buf + off, (size_t)(n - off));
		if (w <= 0)
			return -1;
		off += w;
	}
	return 0;
}

int main(int argc, char **argv) {
	int in[2], out[2];
	if (argc < 2 || pipe(in) != 0 || pipe(out) != 0)
		return 2;
	pid_t pid = fork();
	if (pid < 0)
		return 2;
	if (pid == 0) {
		dup2(in[0], 0);
		dup2(out[1], 1);
		close(in[0]);
		close(in[1]);
		close(out[0]);
		close(out[1]);
		execvp(argv[1], argv + 1);
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	static char buf[1 << 16];
	struct pollfd fds[2] = {{0, POLLIN, 0}, {out[0], POLLIN, 0}};
	for (;;) {
		if (poll(fds, 2, -1) < 0)
			continue;
		if (fds[0].revents && copy(0, in[1], buf, sizeof buf) != 0)
			break;
		if (fds[1].revents && copy(out[0], 1, buf, sizeof buf) != 0)
			break;
	}
	close(in[1]);
	waitpid(pid, 0, 0);
	return 0;
}
