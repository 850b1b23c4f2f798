// count CMD...: user-mode cycles, instructions and branch misses of CMD (and its threads) via perf_event_open.
#include <linux/perf_event.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <stdio.h>
#include <string.h>
#include <stdint.h>
static int open_counter(uint32_t type, uint64_t config, pid_t pid) {
    struct perf_event_attr a; memset(&a, 0, sizeof a);
    a.type = type; a.size = sizeof a; a.config = config;
    a.disabled = 1; a.exclude_kernel = 1; a.exclude_hv = 1; a.inherit = 1; a.enable_on_exec = 1;
    return (int)syscall(__NR_perf_event_open, &a, pid, -1, -1, 0);
}
int main(int argc, char** argv) {
    int go[2]; if (pipe(go)) return 1;
    pid_t child = fork();
    if (child == 0) { char c; close(go[1]); if (read(go[0], &c, 1) < 0) return 1; execvp(argv[1], argv + 1); return 127; }
    uint32_t types[4] = {PERF_TYPE_HARDWARE, PERF_TYPE_HARDWARE, PERF_TYPE_HARDWARE, PERF_TYPE_SOFTWARE};
    uint64_t configs[4] = {PERF_COUNT_HW_CPU_CYCLES, PERF_COUNT_HW_INSTRUCTIONS, PERF_COUNT_HW_BRANCH_MISSES, PERF_COUNT_SW_TASK_CLOCK};
    const char* names[4] = {"cycles", "instructions", "branch-misses", "task-clock-ns"};
    int fd[4];
    for (int i = 0; i < 4; ++i) { fd[i] = open_counter(types[i], configs[i], child); if (fd[i] < 0) perror(names[i]); }
    close(go[1]);
    int status; waitpid(child, &status, 0);
    for (int i = 0; i < 4; ++i) { uint64_t v = 0; if (fd[i] >= 0 && read(fd[i], &v, sizeof v) == sizeof v) printf("%s %llu\n", names[i], (unsigned long long)v); }
    return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
