// farmrt: the command-line entry point, and the one place that wires the
// backends (cmd/backends.h) and the processes of a job (render/cluster.h)
// into the farm (render/farm_job.h). Under a launcher (`mpirun -n N farmrt
// scene.yaml`, srun) every rank runs this and MPI starts (mpi/); a process
// started on its own is a job of one process that never starts MPI (no
// 0.3 s MPI_Init for `farmrt --version` or a workstation render), uses
// every device of its node, and renders the same bytes.
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "cmd/backends.h"
#include "cmd/build_info.h"
#include "simd/simd_level.h"
#include "cmd/command_line_parser.h"
#include "core/errors.h"
#include "core/version.h"
#include "mpi/mpi_cluster.h"
#include "render/cluster.h"
#include "render/farm_failure.h"
#include "render/farm_job.h"
#include "render/interrupt.h"
#include "render/tuning.h"

namespace farmrt {
namespace {

// Written before any signal can arrive, read by the handler (which may only
// call async-signal-safe functions: write, signal, raise).
char signal_prefix[256] = "farmrt: error: ";

void on_fatal_signal(int number) {
    const char* name = number == SIGSEGV   ? "SIGSEGV (segmentation fault)"
                       : number == SIGBUS  ? "SIGBUS (bus error)"
                       : number == SIGFPE  ? "SIGFPE (arithmetic fault)"
                       : number == SIGILL  ? "SIGILL (illegal instruction)"
                       : number == SIGABRT ? "SIGABRT (aborted)"
                                           : "a fatal signal";
    const char* middle = "killed by ";
    ssize_t ignored = write(2, signal_prefix, std::strlen(signal_prefix));
    ignored = write(2, middle, std::strlen(middle));
    ignored = write(2, name, std::strlen(name));
    ignored = write(2, "\n", 1);
    (void)ignored;
    std::signal(number, SIG_DFL);
    std::raise(number);
}

// Faults print one line naming the rank before the default action ends the
// process (and mpirun the job). SIGTERM and SIGKILL are left alone: mpirun
// sends SIGTERM to the surviving ranks when it takes a failed job down, and
// they must not each report it.
void install_signal_handlers(const std::string& who) {
    std::snprintf(signal_prefix, sizeof signal_prefix, "farmrt: error: %s", who.empty() ? "" : (who + ": ").c_str());
    for (int number : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT}) std::signal(number, on_fatal_signal);
}

void print_help_or_version(const CommandLine& command_line) {
    if (command_line.show_help) {
        std::fputs(usage_text().c_str(), stdout);
    } else {
        // The version stays the second word (scripts/setup.sh reads it so).
        std::printf("%s %s (commit %s; built with %s; this CPU: %s)\n", kSoftwareName, kVersion, kBuildCommit,
                    kBuildFeatures, simd_level_name(best_simd_level()));
    }
}

int run(int argc, char** argv) {
    const std::vector<std::string> arguments(argv + 1, argv + argc);
    const bool launched = started_by_launcher();
    std::unique_ptr<Cluster> cluster;
    try {
        if (launched)
            cluster = std::make_unique<MpiCluster>(&argc, &argv);
        else
            cluster = std::make_unique<OneProcess>();
    } catch (const std::exception& e) {
        std::fprintf(stderr, "farmrt: error: %s\n", one_line(e.what()).c_str());
        return 1;
    }
    install_signal_handlers(cluster->who());
    // SIGTERM/SIGUSR1: checkpoint and stop. From the start, so that a signal
    // during set-up still ends in a clean stop.
    install_interrupt_handlers();
    try {
        CommandLine command_line;
        std::exception_ptr error;
        try {
            command_line = parse_command_line(arguments);
            command_line.tuning = read_tuning();
        } catch (...) {
            error = std::current_exception();
        }
        cluster->agree_on_failure(error);
        if (command_line.show_help || command_line.show_version) {
            if (cluster->rank() == 0) print_help_or_version(command_line);
            return 0;
        }
        return run_farm_job(command_line, available_backends(), *cluster);
    } catch (const JobAbandoned& abandoned) {
        return abandoned.exit_code;
    } catch (...) {
        print_error(cluster->who(), std::current_exception());
        return exit_code_for(std::current_exception());
    }
}

}  // namespace
}  // namespace farmrt

int main(int argc, char** argv) { return farmrt::run(argc, argv); }
